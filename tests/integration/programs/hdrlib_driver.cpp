#include <cstdio>
#include <cstdlib>
#include "hdrlib.h"

static unsigned drive(int n)
{
    hl::Acc acc;
    for (int i = 0; i < n; i++)
        acc.add((unsigned)i);
    std::vector<int> v(n % 100 + 1, 3);
    return acc.get() + (unsigned)hl::total(v);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 50000;
    unsigned r = drive(n) + lib_work(n);
    std::printf("%u %g\n", r, lib_sum(n / 10));
    return 0;
}
