#include <stdio.h>
#include "linefile_util.h"
__attribute__((noinline)) int g(int v) { volatile int y = v; for (int i = 0; i < 20; i++) y ^= i; return y; }
int main(int argc, char **argv)
{
    (void)argv;
    int s = 0;
    for (int i = 0; i < argc * 100000; i++)
        s += f1(i);
    printf("%d\n", s);
    return 0;
}
