/* Self recursion (fact), mutual recursion (even/odd) and a static leaf doing the work. */
#include <stdlib.h>

static volatile long sink;

static void burn(long n) {
  for (long i = 0; i < n; i++) sink += i ^ (i >> 3);
}

void leaf(void) { burn(400); }

void late(int n);
/* Never called: its forward call to `late` exists only in the machine code (found by -c). */
void unused_caller(int n) { late(n); }

int fact(int n) {
  burn(300);
  return n <= 1 ? 1 : n * fact(n - 1);
}

int odd(int n);

int even(int n) {
  burn(200);
  return n == 0 ? 1 : odd(n - 1);
}

int odd(int n) {
  burn(200);
  return n == 0 ? 0 : even(n - 1);
}

void middle(void) {
  for (int i = 0; i < 4; i++) leaf();
}

void never_called(void) { leaf(); }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 400;
  if (argc > 100) late(5); /* never runs: a static-only arc for -c */
  long acc = 0;
  for (int r = 0; r < rounds; r++) {
    middle();
    acc += even(20);
    acc += fact(10);
  }
  for (long i = 0; i < rounds * 2000L; i++) sink += i; /* main's own time */
  return (int)(acc & 1);
}

/* Defined after its only (never executed) caller. */
void late(int n) { burn(n); }
