#include "hdrlib.h"

static unsigned lib_helper(unsigned v)
{
    return hl::spin(v, 40);
}

unsigned lib_work(int n)
{
    hl::Acc acc;
    for (int i = 0; i < n; i++)
        acc.add(lib_helper((unsigned)i));
    return acc.get();
}

double lib_sum(int n)
{
    std::vector<double> v;
    for (int i = 0; i < n; i++)
        v.push_back(i * 0.5);
    return hl::total(v);
}
