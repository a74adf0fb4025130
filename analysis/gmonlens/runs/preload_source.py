"""The C source of `gmonlens record`'s helper library (`preload.py` builds it with the user's own
cc and preloads it, LD_PRELOAD, into the command's dynamically linked processes).

What it does in each process, from its environment (`GMONLENS_RECORD_*`, set by `launch.py`):
- `GMONLENS_RECORD_LOG` (an absolute path): appends one record per event to the process log,
  opened O_APPEND|O_NOFOLLOW and never created here (gmonlens created it, 0600): `start` when
  an image starts (its constructor: after every exec), `fork` in a forked child (pthread_atfork),
  `exit` when it exits through exit() (its destructor, with the CPU time it used: user and system
  microseconds), `signal` when --on-signal=exit turned a signal into exit(), `arcs` when it
  enlarged the call-graph buffer (old and new size). A record is
  `pid TAB ppid TAB event TAB a TAB b TAB exe NUL`, exe read from /proc/self/exe, written by one
  write(2) (records of several processes never interleave). Nothing but async-signal-safe calls
  formats or writes it.
- `GMONLENS_RECORD_SIGNALS=exit`: SIGINT, SIGTERM and SIGHUP, where the process left them at
  their default action, call exit(128 + signal) instead of killing it, so that gprof's
  _mcleanup writes gmon.out. exit() is not async-signal-safe: a signal that lands while a lock
  exit() needs is held (stdio, malloc) could hang the process, so the handler arms alarm(10)
  first: such a process is killed by SIGALRM 10 s later, never left hanging.
- `GMONLENS_RECORD_ARCS=N`: gprof's start-up (`__monstartup`, called by gcrt1's
  `__gmon_start__` through the PLT, so this library's definition is the one called) runs glibc's,
  then, where glibc sized the call-graph buffer (`tos`) for fewer than N arcs, gives it a buffer
  of N (the arcs already recorded copied, indices kept). glibc keeps the buffer in `_gmonparam`,
  which it does not export: the struct (its layout is `sys/gmon.h`'s) is found in the C
  library's writable segment as the one whose lowpc, highpc and textsize are those just given
  to `__monstartup` (rounded as glibc rounds them) and whose tos size matches its arc limit;
  with no such struct, or more than one, nothing is changed. glibc 2.38 and later also size it
  from GLIBC_TUNABLES (glibc.gmon.minarcs/maxarcs, which `launch.py` sets as well); glibc 2.36
  lists those tunables but its __monstartup does not read them (measured: tolimit unchanged).
"""

from __future__ import annotations

SOURCE = r"""/* gmonlens record's helper (see gmonlens/runs/preload_source.py). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/gmon.h>
#include <sys/resource.h>
#include <unistd.h>

static char log_path[PATH_MAX];

static size_t put_text(char *out, size_t at, size_t cap, const char *text) {
  while (*text && at + 1 < cap) out[at++] = *text++;
  return at;
}

static size_t put_number(char *out, size_t at, size_t cap, long value) {
  char digits[24];
  size_t n = 0;
  unsigned long v = value < 0 ? 0UL - (unsigned long)value : (unsigned long)value;
  do { digits[n++] = (char)('0' + v % 10); v /= 10; } while (v && n < sizeof digits);
  if (value < 0 && at + 1 < cap) out[at++] = '-';
  while (n && at + 1 < cap) out[at++] = digits[--n];
  return at;
}

static void note(const char *event, long a, long b) {
  char line[PATH_MAX + 160];
  char exe[PATH_MAX];
  ssize_t n;
  size_t at = 0;
  int fd;
  if (log_path[0] != '/') return;
  n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  at = put_number(line, at, sizeof line, (long)getpid());
  at = put_text(line, at, sizeof line, "\t");
  at = put_number(line, at, sizeof line, (long)getppid());
  at = put_text(line, at, sizeof line, "\t");
  at = put_text(line, at, sizeof line, event);
  at = put_text(line, at, sizeof line, "\t");
  at = put_number(line, at, sizeof line, a);
  at = put_text(line, at, sizeof line, "\t");
  at = put_number(line, at, sizeof line, b);
  at = put_text(line, at, sizeof line, "\t");
  at = put_text(line, at, sizeof line, exe);
  line[at++] = '\0';
  fd = open(log_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0) return;
  if (write(fd, line, at) < 0) { /* nothing to do: the log is a help, not a need */ }
  close(fd);
}

static void on_signal(int sig) {
  note("signal", sig, 0);
  signal(SIGALRM, SIG_DFL);
  alarm(10);
  exit(128 + sig);
}

static void forked(void) { note("fork", 0, 0); }

__attribute__((constructor)) static void gmonlens_start(void) {
  const char *path = getenv("GMONLENS_RECORD_LOG");
  const char *signals = getenv("GMONLENS_RECORD_SIGNALS");
  static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
  size_t i;
  if (path != NULL && strlen(path) < sizeof log_path) strcpy(log_path, path);
  note("start", 0, 0);
  pthread_atfork(NULL, NULL, forked);
  if (signals == NULL || strcmp(signals, "exit") != 0) return;
  for (i = 0; i < sizeof caught / sizeof caught[0]; i++) {
    struct sigaction old, now;
    if (sigaction(caught[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    memset(&now, 0, sizeof now);
    now.sa_handler = on_signal;
    sigemptyset(&now.sa_mask);
    sigaction(caught[i], &now, NULL);
  }
}

__attribute__((destructor)) static void gmonlens_finish(void) {
  struct rusage ru;
  long user = 0, sys = 0;
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    user = (long)ru.ru_utime.tv_sec * 1000000L + (long)ru.ru_utime.tv_usec;
    sys = (long)ru.ru_stime.tv_sec * 1000000L + (long)ru.ru_stime.tv_usec;
  }
  note("exit", user, sys);
}

struct gmon_search { const char *lib; unsigned long low, high; struct gmonparam *found; int matches; };

static int search_object(struct dl_phdr_info *info, size_t size, void *arg) {
  struct gmon_search *s = arg;
  int i;
  (void)size;
  if (info->dlpi_name == NULL || strcmp(info->dlpi_name, s->lib) != 0) return 0;
  for (i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    char *at, *end;
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
    at = (char *)(info->dlpi_addr + ph->p_vaddr);
    end = at + ph->p_memsz;
    at = (char *)(((unsigned long)at + sizeof(long) - 1) & ~(sizeof(long) - 1));
    for (; at + sizeof(struct gmonparam) <= end; at += sizeof(long)) {
      struct gmonparam *p = (struct gmonparam *)at;
      if (p->lowpc == s->low && p->highpc == s->high && p->textsize == s->high - s->low
          && p->state == GMON_PROF_ON && p->tos != NULL && p->tolimit > 0
          && p->tossize == (unsigned long)p->tolimit * sizeof(struct tostruct)) {
        s->found = p;
        s->matches++;
      }
    }
  }
  return 0;
}

static void enlarge(void *started, unsigned long lowpc, unsigned long highpc, long want) {
  struct gmon_search s;
  struct gmonparam *p;
  struct tostruct *tos;
  Dl_info lib;
  long old;
  if (!dladdr(started, &lib) || lib.dli_fname == NULL) return;
  s.lib = lib.dli_fname;
  s.low = lowpc & ~3UL;
  s.high = (highpc + 3) & ~3UL;
  s.found = NULL;
  s.matches = 0;
  dl_iterate_phdr(search_object, &s);
  if (s.matches != 1) { note("arcs", 0, 0); return; }
  p = s.found;
  old = p->tolimit;
  if (old >= want) return;
  tos = calloc((size_t)want, sizeof *tos);
  if (tos == NULL) { note("arcs", old, 0); return; }
  p->state = GMON_PROF_BUSY;
  memcpy(tos, p->tos, ((size_t)p->tos[0].link + 1) * sizeof *tos);
  p->tos = tos;
  p->tossize = (unsigned long)want * sizeof *tos;
  p->tolimit = want;
  p->state = GMON_PROF_ON;
  note("arcs", old, want);
}

void __monstartup(unsigned long lowpc, unsigned long highpc) {
  void (*real)(unsigned long, unsigned long);
  const char *want = getenv("GMONLENS_RECORD_ARCS");
  *(void **)(&real) = dlsym(RTLD_NEXT, "__monstartup");
  if (real == NULL) *(void **)(&real) = dlsym(RTLD_DEFAULT, "monstartup");
  if (real == NULL) return;
  real(lowpc, highpc);
  if (want != NULL && atol(want) > 0) enlarge(*(void **)(&real), lowpc, highpc, atol(want));
}
"""
