// C++ names for `gmonlens check`'s tests (test_check_gprof_names.py): a namespace, a class with an
// overloaded member, a static `helper` in each of two files, and a cycle (is_even <-> is_odd).
#include <cstdio>

namespace ns {
struct Counter {
    long total = 0;
    __attribute__((noinline)) void bump(int n) { total += n; }
    __attribute__((noinline)) void bump(double x) { total += static_cast<long>(x); }
};
}  // namespace ns

int from_a(int);
int from_b(int);

__attribute__((noinline)) bool is_odd(unsigned n);
__attribute__((noinline)) bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__attribute__((noinline)) bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

int main() {
    ns::Counter c;
    for (int i = 0; i < 300; i++) c.bump(i);
    for (int i = 0; i < 200; i++) c.bump(0.5 * i);
    long s = 0;
    for (int i = 0; i < 100; i++) s += from_a(i) + from_b(i);
    int evens = 0;
    for (unsigned i = 0; i < 50; i++) evens += is_even(i);
    std::printf("%ld %ld %d\n", c.total, s, evens);
    return 0;
}
