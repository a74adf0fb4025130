/* For the exports: per-line self time (a loop in a header, inlined), one callee called from two
   lines of one caller (two call sites), calls on adjacent lines, a recursion and a two-routine
   cycle. */
#include <stdlib.h>
#include "export_lines.h"

static volatile long sink;

void leaf(long n) {
  for (long i = 0; i < n; i++) sink += i * 7;  /* HOT-LEAF */
}

void twice(long n) {
  leaf(n);      /* SITE-1 */
  churn(n);
  leaf(n / 2);  /* SITE-2 */
}

void tick(void) { sink += 1; }
void tock(void) { sink += 2; }

/* Two calls a few bytes apart: glibc records return addresses rounded down (16 bytes on 64-bit),
   so the call's line needs the call instruction decoded, not the recorded address's line. */
void adjacent(void) {
  tick();  /* ADJ-1 */
  tock();  /* ADJ-2 */
}

long fact(long n) { churn(2000); return n <= 1 ? 1 : n * fact(n - 1); }

int ping(int n); int pong(int n);
int ping(int n) { leaf(3000); return n <= 0 ? 0 : pong(n - 1); }
int pong(int n) { churn(3000); return n <= 0 ? 0 : ping(n - 1); }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 100;
  long acc = 0;
  for (int i = 0; i < rounds; i++) {
    twice(20000);
    acc += fact(12);
    acc += ping(9);
    adjacent();
  }
  return (int)(acc & 1);
}
