/* Calls into libm (and libc) through the PLT: their time is lost, PLT samples go to _init. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static volatile double sink;
double wave(int i) { return sin(i * 0.001) + cos(i * 0.002); }
double root(int i) { return sqrt((double)i) + log1p((double)i); }
/* Cheap libm calls in a tight loop, so that some samples land in the PLT stubs (charged to _init). */
double plt_heavy(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += fmax((double)i, 0.5) + fmin((double)i, 3.0) + copysign(1.0, (double)-i);
  return s;
}
double mix(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += wave(i) * root(i) + pow(1.0001, i % 50);
  return s;
}
int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 150;
  for (int r = 0; r < rounds; r++) sink += mix(2000) + plt_heavy(4000);
  printf("%.3f\n", sink > 0 ? 1.0 : 0.0);
  return 0;
}
