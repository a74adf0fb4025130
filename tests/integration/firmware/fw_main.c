/* A bare-metal workload (no OS, no C library): self recursion, a two-routine cycle, a static
   leaf, and a hot routine placed in RAM (`.iram`, away from the flash text) as firmware does
   with its time-critical code. Built with -pg; gmon_rt.c profiles it. */
volatile unsigned sink;

__attribute__((section(".iram"), noinline)) void hot(unsigned n) {
  for (unsigned i = 0; i < n; i++) sink += i ^ (i >> 3);
}

static __attribute__((noinline)) void leaf(void) { hot(120); }

__attribute__((noinline)) unsigned fact(unsigned n) {
  leaf();
  return n <= 1 ? 1 : n * fact(n - 1);
}

unsigned odd(unsigned n);

__attribute__((noinline)) unsigned even(unsigned n) {
  hot(40);
  return n == 0 ? 1 : odd(n - 1);
}

__attribute__((noinline)) unsigned odd(unsigned n) {
  for (unsigned i = 0; i < 60; i++) sink += i;
  return n == 0 ? 0 : even(n - 1);
}

__attribute__((noinline)) void never_called(void) { leaf(); }

int main(void) {
  unsigned acc = 0;
  for (unsigned r = 0; r < ROUNDS; r++) {
    acc += fact(8);
    acc += even(10);
    for (unsigned i = 0; i < 200; i++) sink += i; /* main's own time */
  }
  return (int)(acc & 1);
}
