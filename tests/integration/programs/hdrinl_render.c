#include "hdrinl_util.h"

static int shade(int v)
{
    return clamp(v - 100, 0, 255) + (int)(mix(7u, (unsigned)v) & 1u);
}

int render(int n)
{
    int acc = 0;
    for (int i = 0; i < n; i++)
        acc += shade(i % 400);
    return acc;
}
