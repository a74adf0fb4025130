/* Line heat: time spread over several lines, a header helper (inlined at -O2), a one-line loop. */
#include <stdio.h>
#include <stdlib.h>
#include "lineheat.h"

static volatile long sink;

long work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) {
    s += mix(i, s);
    s ^= i * 3;
  }
  return s;
}

long other(long n) {
  long s = 1;
  for (long i = 0; i < n; i++)
    s = s * 7 + (i >> 2);
  return s;
}

long one(long n) { long s = 0; for (long i = 0; i < n; i++) s = s * 3 + i; return s; }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 20000000;
  sink = work(n) + other(n) + one(n);
  printf("%ld\n", (long)sink);
  return 0;
}
