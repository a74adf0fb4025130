/* Cycles of several members: a 3-cycle (a -> b -> c -> a), a 4-cycle with a chord
   (w -> x -> y -> z -> w, x -> z), and a separate 2-cycle (p <-> q) reached from the 4-cycle;
   plus a diamond (top -> l, r -> bottom) outside any cycle. */
#include <stdlib.h>

static volatile long sink;
static void spin(long n) { for (long i = 0; i < n; i++) sink += i * 3; }

int a(int n); int b(int n); int c(int n);
int a(int n) { for (int i = 0; i < 60; i++) sink += i; spin(150); return n <= 0 ? 0 : b(n - 1) + 1; }
int b(int n) { spin(250); return n <= 0 ? 0 : c(n - 1) + 1; }
int c(int n) { spin(100); return n <= 0 ? 0 : (n % 3 ? a(n - 1) : b(n - 1)) + 1; }

int p(int n); int q(int n);
int p(int n) { spin(120); return n <= 0 ? 0 : q(n - 1); }
int q(int n) { for (int i = 0; i < 50; i++) sink ^= i; spin(80); return n <= 0 ? 0 : p(n - 1); }

int w(int n); int x(int n); int y(int n); int z(int n);
int w(int n) { spin(60); return n <= 0 ? p(3) : x(n - 1); }
int x(int n) { for (int i = 0; i < 90; i++) sink -= i; spin(90); return n <= 0 ? 0 : (n & 1 ? y(n - 1) : z(n - 1)); }
int y(int n) { spin(70); return n <= 0 ? 0 : z(n - 1); }
int z(int n) { spin(50); return n <= 0 ? 0 : w(n - 1); }

void top(int n);
/* The call back to `top` never runs: with -c its static arc closes the cycle top -> r -> bottom -> top. */
void bottom(int n) { spin(300); if (n < 0) top(n + 1); }
void l(int n) { bottom(n); spin(50); }
void r(int n) { bottom(n); bottom(n); }
void top(int n) { l(n); r(n); }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 300;
  long acc = 0;
  for (int i = 0; i < rounds; i++) {
    acc += a(12);
    acc += w(11);
    acc += p(5);
    top(i);
  }
  return (int)(acc & 1);
}
