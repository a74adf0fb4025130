/* -c fixture built with -O2: tail calls (AArch64 `b`, x86 `jmp`) and calls between noinline
 * routines. `gate` is 0 at run time. */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;
int gate;

__attribute__((noinline)) void leaf(int n) {
    for (int i = 0; i < n; i++) sink += i;
}
__attribute__((noinline)) void tail(int n) { sink++; leaf(n); }            /* tail call */
__attribute__((noinline)) void cold(int n) { if (gate) tail(n); leaf(n + 1); sink--; }
__attribute__((noinline)) void mid(int n) { if (gate) cold(n); tail(n); sink++; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 3000000;
    mid(n);
    leaf(n);
    printf("%d\n", sink);
    return 0;
}
