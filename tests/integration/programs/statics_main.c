/* Static functions of one name (helper, work) in several files. */
#include <stdlib.h>
int s1_entry(int n);
int s2_entry(int n);
int s3_entry(int n);
static volatile long sink;
static int helper(int n) { for (int i = 0; i < n * 50; i++) sink += i; return n; }
int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3000;
  long acc = 0;
  for (int i = 0; i < rounds; i++) acc += s1_entry(i) + s2_entry(i) + s3_entry(i) + helper(3);
  return (int)(acc & 1);
}
