// The other static `helper` (names_a.cpp has one).
static __attribute__((noinline)) int helper(int x) { return x + 7; }
int from_b(int x) { return helper(x); }
