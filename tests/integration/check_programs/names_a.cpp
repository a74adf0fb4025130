// A static `helper` (the other is in names_b.cpp): gprof labels them `helper(int) (names_a.cpp)`.
static __attribute__((noinline)) int helper(int x) { return x * 3; }
int from_a(int x) { return helper(x) + helper(x + 1); }
