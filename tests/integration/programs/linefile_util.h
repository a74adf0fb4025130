/* f1 is the unit's first function, so its sequence starts under the default file register
   (this header); a #line then moves the same line number (7) to the .c file (MAIN_FILE, its path
   as given to the compiler): the true positions split the line, BFD (so gprof) names the .c file
   for both and keeps one line symbol. */
int g(int);
static __attribute__((noinline)) int f1(int v)
{
#line 7
    int x = g(v);
#line 7 MAIN_FILE
    x += g(v + 1);
#line 14 "linefile_util.h"
    return x;
}
