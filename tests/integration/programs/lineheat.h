/* A hot helper inlined at -O2: its time must show on these lines (line heat), not on the caller's. */
static inline long mix(long a, long b) {
  long r = a;
  for (int k = 0; k < 8; k++)
    r = (r * 31) ^ (b + k);
  return r;
}
