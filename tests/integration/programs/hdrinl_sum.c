#include "hdrinl_util.h"

unsigned checksum(int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = mix(h, (unsigned)clamp(i, 10, 90));
    return h;
}
