/* The program of `gmonlens check`'s tests (tests/integration/test_check_programs.py), built with
 * gcc -pg at test time. Deterministic: the same arguments make the same calls on every run.
 *
 *   budgets hash N PER   N items, each hashed PER times by parse() (hash() called N * PER times)
 *                        -DEXTRA_HASH: one more hash() per item; -DEXTRA_ONE: one more call in
 *                        the whole run; -DNEW_CALLER: lookup() hashes one key in 1,000 (a new
 *                        caller arc lookup -> hash)
 *   budgets nlogn N      merge sort of N pseudo-random ints (compare() ~ n log n times)
 *   budgets n2 N         insertion sort of N pseudo-random ints (compare() ~ n^2 / 4 times)
 *   budgets spin N K     spin(): N * N * K iterations of arithmetic, no calls (time ~ n^2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long state = 88172645463325252ULL;

static unsigned next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)state;
}

__attribute__((noinline)) unsigned hash(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
}

#ifdef NEW_CALLER
__attribute__((noinline)) unsigned lookup(unsigned key) { return hash(key) & 1023U; }
#endif

__attribute__((noinline)) unsigned long parse(unsigned long n, unsigned per) {
    unsigned long sum = 0;
    for (unsigned long i = 0; i < n; i++) {
        for (unsigned k = 0; k < per; k++)
            sum += hash((unsigned)(i * 31 + k));
#ifdef EXTRA_HASH
        sum += hash((unsigned)i);
#endif
#ifdef NEW_CALLER
        if (i % 1000 == 0)
            sum += lookup((unsigned)i);
#endif
    }
#ifdef EXTRA_ONE
    sum += hash(12345U);
#endif
    return sum;
}

__attribute__((noinline)) int compare(int a, int b) { return (a > b) - (a < b); }

static void merge(int *a, int *tmp, long lo, long mid, long hi) {
    long i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        tmp[k++] = compare(a[i], a[j]) <= 0 ? a[i++] : a[j++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < hi)
        tmp[k++] = a[j++];
    memcpy(a + lo, tmp + lo, (size_t)(hi - lo) * sizeof *a);
}

__attribute__((noinline)) void merge_sort(int *a, int *tmp, long lo, long hi) {
    if (hi - lo < 2)
        return;
    long mid = lo + (hi - lo) / 2;
    merge_sort(a, tmp, lo, mid);
    merge_sort(a, tmp, mid, hi);
    merge(a, tmp, lo, mid, hi);
}

__attribute__((noinline)) void insertion_sort(int *a, long n) {
    for (long i = 1; i < n; i++) {
        int v = a[i];
        long j = i;
        while (j > 0 && compare(a[j - 1], v) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

__attribute__((noinline)) unsigned long spin(unsigned long n, unsigned long k) {
    volatile unsigned long acc = 1;
    for (unsigned long i = 0; i < n * n * k; i++)
        acc = acc * 2862933555777941757ULL + 3037000493ULL;
    return acc;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: budgets hash|nlogn|n2|spin N [PER|K]\n");
        return 2;
    }
    long n = atol(argv[2]);
    unsigned long extra = argc > 3 ? strtoul(argv[3], NULL, 10) : 1;
    if (strcmp(argv[1], "hash") == 0) {
        printf("%lu\n", parse((unsigned long)n, (unsigned)extra));
    } else if (strcmp(argv[1], "spin") == 0) {
        printf("%lu\n", spin((unsigned long)n, extra));
    } else {
        int *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *a);
        for (long i = 0; i < n; i++)
            a[i] = (int)(next_random() % 1000000U);
        if (strcmp(argv[1], "nlogn") == 0)
            merge_sort(a, tmp, 0, n);
        else
            insertion_sort(a, n);
        printf("%d %d\n", a[0], a[n - 1]);
        free(a);
        free(tmp);
    }
    return 0;
}
