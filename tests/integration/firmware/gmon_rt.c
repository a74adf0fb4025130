/* The firmware's own profiling runtime (built without -pg), as embedded runtimes do it: a PC
   histogram of 16-bit bins filled from the SysTick interrupt at PROF_HZ over the flash text and
   over the RAM code (`.iram`), call arcs recorded by __gnu_mcount_nc (mcount.S), and at exit the
   gmon.out written through ARM semihosting to the host: GNU format (a histogram record per
   range, then the arcs), or with GMON_BSD a 4.4BSD file (one histogram: the flash text only). */
#include <stdint.h>

#define BIN_BYTES 4
#define MAX_ARCS 64

extern char __text_start[], __text_end[], __iram_start[], __iram_end[];

#define TEXT_BINS 4096
#define IRAM_BINS 256
static uint16_t text_bins[TEXT_BINS], iram_bins[IRAM_BINS];
static struct { uint32_t from, self, count; } arcs[MAX_ARCS];
static unsigned narcs;

void gmon_arc(uint32_t from, uint32_t self) {
  for (unsigned i = 0; i < narcs; i++)
    if (arcs[i].from == from && arcs[i].self == self) { arcs[i].count++; return; }
  if (narcs < MAX_ARCS) { arcs[narcs].from = from; arcs[narcs].self = self; arcs[narcs++].count = 1; }
}

void gmon_sample(uint32_t pc) {
  uint32_t t = (uint32_t)__text_start, i = (uint32_t)__iram_start;
  if (pc >= t && pc < (uint32_t)__text_end && (pc - t) / BIN_BYTES < TEXT_BINS) text_bins[(pc - t) / BIN_BYTES]++;
  else if (pc >= i && pc < (uint32_t)__iram_end && (pc - i) / BIN_BYTES < IRAM_BINS) iram_bins[(pc - i) / BIN_BYTES]++;
}

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)

void gmon_start(void) {
  SYST_RVR = CPU_HZ / PROF_HZ - 1;
  SYST_CVR = 0;
  SYST_CSR = 7; /* processor clock, interrupt, enable */
}

static int semihost(int op, void *arg) {
  register int r0 __asm__("r0") = op;
  register void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static int fd;
static unsigned char buf[512];
static unsigned used;

static void flush(void) {
  uint32_t args[3] = {(uint32_t)fd, (uint32_t)buf, used};
  semihost(0x05, args); /* SYS_WRITE */
  used = 0;
}
static void put(const void *p, unsigned n) {
  const unsigned char *c = p;
  while (n--) { if (used == sizeof buf) flush(); buf[used++] = *c++; }
}
static void u32(uint32_t v) { put(&v, 4); }

static void hist(uint32_t low, uint32_t high, const uint16_t *bins, unsigned n) {
  put("\0", 1); /* GMON_TAG_TIME_HIST */
  u32(low); u32(high); u32(n); u32(PROF_HZ);
  put("seconds\0\0\0\0\0\0\0\0s", 16);
  put(bins, 2 * n);
}

void gmon_write(void) {
  SYST_CSR = 0;
  uint32_t open_args[3] = {(uint32_t)"gmon.out", 5 /* "wb" */, 8};
  fd = semihost(0x01, open_args); /* SYS_OPEN */
  uint32_t t = (uint32_t)__text_start, i = (uint32_t)__iram_start;
  unsigned tn = ((uint32_t)__text_end - t + BIN_BYTES - 1) / BIN_BYTES;
  unsigned in = ((uint32_t)__iram_end - i + BIN_BYTES - 1) / BIN_BYTES;
  if (tn > TEXT_BINS) tn = TEXT_BINS;
  if (in > IRAM_BINS) in = IRAM_BINS;
#ifdef GMON_BSD
  u32(t); u32(t + tn * BIN_BYTES); u32(12 * 4 + 2 * tn); /* lowpc, highpc, ncnt (bytes with the header) */
  u32(0x00051879); u32(PROF_HZ); u32(0); u32(0); u32(0); u32(0); u32(0); u32(0); u32(0);
  put(text_bins, 2 * tn);
  for (unsigned k = 0; k < narcs; k++) { u32(arcs[k].from); u32(arcs[k].self); u32(arcs[k].count); }
#else
  put("gmon\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20);
  hist(t, t + tn * BIN_BYTES, text_bins, tn);
  hist(i, i + in * BIN_BYTES, iram_bins, in);
  for (unsigned k = 0; k < narcs; k++) { put("\1", 1); u32(arcs[k].from); u32(arcs[k].self); u32(arcs[k].count); }
#endif
  flush();
  semihost(0x02, &fd); /* SYS_CLOSE */
}

void semihost_exit(int status) {
  uint32_t args[2] = {0x20026 /* ADP_Stopped_ApplicationExit */, (uint32_t)status};
  semihost(0x18, args); /* SYS_EXIT (the 64-bit form's block; 32-bit reads the reason) */
  for (;;) {}
}
