// A small header-only library: inline functions, an inline class and a template,
// instantiated in several translation units.
#ifndef HDRLIB_H
#define HDRLIB_H
#include <vector>

namespace hl {

inline unsigned spin(unsigned h, int n)
{
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned)i) * 16777619u;
    return h;
}

struct Acc {
    unsigned h = 2166136261u;
    void add(unsigned v) { h = spin(h ^ v, 30); }
    unsigned get() const { return h; }
};

template <typename T> T total(const std::vector<T> &v)
{
    T s = T();
    for (const T &x : v)
        s += x;
    return s;
}

}  // namespace hl

unsigned lib_work(int n);
double lib_sum(int n);

#endif
