/* File 2: a static 'helper' and a static 'work' that share their names with the other files. */
static volatile long sink;
static int helper(int n) { for (int i = 0; i < 2 * 90; i++) sink += i + n; return n & 7; }
static int work(int n) { return helper(n) + helper(n + 1); }
int s2_entry(int n) { return work(n) + (2 == 2 ? helper(n) : 0); }
