/* static inline helpers compiled into every .c file that includes this header */
#ifndef HDRINL_UTIL_H
#define HDRINL_UTIL_H

static inline __attribute__((noinline)) int clamp(int v, int lo, int hi)
{
    volatile int spin = 0;
    for (int i = 0; i < 50; i++)
        spin += i;
    return v < lo ? lo : v > hi ? hi : v;
}

static inline __attribute__((noinline)) unsigned mix(unsigned h, unsigned v)
{
    for (int i = 0; i < 20; i++)
        h = (h ^ v) * 16777619u + (unsigned)i;
    return h;
}

int render(int n);
unsigned checksum(int n);

#endif
