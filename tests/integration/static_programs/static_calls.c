/* -c fixture: static-only arcs that close cycles (forward and backward in address order), a
 * self-recursive routine that never recurses, a routine that never runs but calls others, a call to
 * a static function, a call through a function pointer and calls through the PLT (printf, atoi).
 * Definition order = address order at -O0; keep it. `gate` is 0 at run time. */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;
int gate;

__attribute__((noinline)) void burn(int n) {
    for (int i = 0; i < n; i++) sink += i;
}

__attribute__((noinline)) static void helper(int n) { burn(n); }

void b1(int n);
void a2(int n);
void after(int n);

/* a1 -> b1 runs (forward); b1 -> a1 only in the code (backward): closes cycle {a1, b1} */
__attribute__((noinline)) void a1(int n) { burn(n); b1(n); }
__attribute__((noinline)) void b1(int n) { burn(n); if (gate) a1(n); }

/* a2 -> b2 runs (backward); b2 -> a2 only in the code (forward): closes cycle {b2, a2} */
__attribute__((noinline)) void b2(int n) { burn(n); if (gate) a2(n); }
__attribute__((noinline)) void a2(int n) { burn(n); b2(n); }

/* self call that never happens at run time */
__attribute__((noinline)) static int rec(int n) {
    if (n > 0) return rec(n - 1) + 1;
    burn(1000);
    return 0;
}

/* never runs: calls a static function (backward) and after (forward) */
__attribute__((noinline)) void never(int n) { helper(n); after(n); }

__attribute__((noinline)) int viaptr(int n) { burn(n); return n; }
int (*volatile fp)(int) = viaptr;

__attribute__((noinline)) void after(int n) { burn(n); }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 3000000;
    helper(n);
    a1(n);
    a2(n);
    rec(0);
    fp(n);
    after(n);
    if (gate) never(n);
    printf("%d\n", sink);
    return 0;
}
