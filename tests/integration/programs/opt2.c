/* Built with -O2: inlining, tail calls, and gcc's clones (.part.N from partial inlining,
   .constprop.N from IPA-CP, .isra.N from IPA-SRA, .cold from hot/cold splitting). */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
long table[4096];

/* inlined into its callers */
static inline long sq(long x) { return x * x; }

/* .constprop: called only with constant step/limit from several sites */
static __attribute__((noinline)) long scan(const long *t, long step, long limit) {
  long s = 0;
  for (long i = 0; i < limit; i += step) s += sq(t[i & 4095]) ^ i;
  return s;
}

/* .isra: a static function reading one field through a pointer */
struct cfg { long pad[8]; long rounds; long more[8]; };
static __attribute__((noinline)) long spin_cfg(const struct cfg *c) {
  long s = 0;
  for (long i = 0; i < c->rounds; i++) s += (i * 7) ^ (s >> 3);
  return s;
}

/* .part: an unlikely branch with a big body is split off (t.part.0); the test is inlined */
long tab[256];
void refresh(int x) {
  if (__builtin_expect(x % 5 == 1, 0)) {
    for (int i = 0; i < 256; i++) tab[i] = tab[(i * x) & 255] + i;
    if (x < 0) printf("refresh %d", x);
    if (x == 7) printf("refresh done %ld\n", tab[x & 255]);
    for (int i = 0; i < 256; i++) sink += tab[i] * x;
  }
}
void refresh_twice(int x) { refresh(x); refresh(x + 1); }

/* .cold: the error branch calls a cold function, so it moves to checked.cold */
__attribute__((cold, noinline)) void fail(long x) { fprintf(stderr, "negative %ld\n", x); }
__attribute__((noinline)) long checked(long x) {
  if (x < 0) {
    fail(x);
    abort();
  }
  long s = 0;
  for (long i = 0; i < 200; i++) s += (x + i) % 13;
  return s;
}

/* tail calls: at -O2 `return g(x)` becomes a jump */
__attribute__((noinline)) long tail_b(long x) { for (int i = 0; i < 100; i++) sink += x + i; return x + 1; }
__attribute__((noinline)) long tail_a(long x) { sink += x; return tail_b(x * 2); }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3000;
  struct cfg c = {{0}, 200, {0}};
  long acc = 0;
  for (int i = 0; i < 4096; i++) table[i] = i * 31 % 97;
  for (int r = 0; r < rounds; r++) {
    acc += scan(table, 3, 600);
    acc += scan(table + 1, 3, 600);
    acc += spin_cfg(&c);
    refresh(r);
    refresh_twice(r);
    acc += checked(r);
    acc += tail_a(r);
  }
  printf("%ld\n", acc & 1);
  return 0;
}
