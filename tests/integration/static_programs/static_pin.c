/* -c fixture for pinning the x86-64 differences with gprof: `never` never runs and calls `before`
 * (lower address: gprof's byte scan misses it) and `after` (higher address: gprof finds it); main's
 * call to `never` is backward too. No cycles, so the reports differ only by added lines. */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;
int gate;

void after(int n);

__attribute__((noinline)) void burn(int n) {
    for (int i = 0; i < n; i++) sink += i;
}
__attribute__((noinline)) void before(int n) { burn(n); }
__attribute__((noinline)) void never(int n) { before(n); after(n); }
__attribute__((noinline)) void after(int n) { burn(n); }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 3000000;
    before(n);
    after(n);
    if (gate) never(n);
    printf("%d\n", sink);
    return 0;
}
