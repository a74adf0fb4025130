/* `gmonlens diff` test program, built in variants:
   -DSLOW=N   how much work slow_me does (the base uses 8; the "slower" build 32)
   -DNOCALL   caller() no longer calls helper() (a removed call)
   -DPAD      a padding function first in the file: every later address moves */
#ifdef PAD
static volatile int pad_sink;
void pad_me(int n) {
#define P10 pad_sink += n; pad_sink ^= n; pad_sink += 3; pad_sink *= 7; pad_sink -= n; \
    pad_sink |= 1; pad_sink += 11; pad_sink ^= 5; pad_sink += 9; pad_sink -= 2;
    P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10 P10
}
#endif
#ifndef SCALE
#define SCALE 1000000L
#endif
static volatile double sink;
#define spin(n) do { double x = 1.0; for (long i = 0; i < (n); i++) x = x * 1.0000001 + 1e-9; sink = x; } while (0)
void hot(void) { spin(SCALE * 12L); }
void slow_me(void) { spin(SCALE * SLOW); }
void helper(void) { spin(SCALE); }
void caller(void) {
    for (int i = 0; i < 4; i++) {
#ifndef NOCALL
        helper();
#endif
        spin(SCALE / 4);
    }
}
static void tiny(int k) { sink += k; }
int main(void) {
#ifdef PAD
    pad_me(1);
#endif
    for (int i = 0; i < 10; i++) { hot(); slow_me(); caller(); tiny(i); }
    return 0;
}
