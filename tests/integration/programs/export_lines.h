/* A hot helper inlined into its callers: its samples belong to lines of this header. */
static volatile long export_sink;
static inline __attribute__((always_inline)) void churn(long n) {
  for (long i = 0; i < n; i++) export_sink += i ^ (i >> 3);  /* HOT-HEADER */
}
