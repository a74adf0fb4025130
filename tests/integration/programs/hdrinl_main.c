#include <stdio.h>
#include <stdlib.h>
#include "hdrinl_util.h"

static int scale(int v)
{
    return clamp(v * 3, 0, 1000);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    long acc = 0;
    for (int i = 0; i < n; i++)
        acc += scale(i % 500);
    acc += render(n);
    acc += checksum(n);
    printf("%ld\n", acc);
    return 0;
}
