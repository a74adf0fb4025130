/* A workload for QuickJS (vendored by the PyPI sdist `quickjs`), zstd (vendored by the PyPI sdist
   `zstandard`) and LZ4 (vendored by the PyPI sdist `lz4`), linked into one program: evaluates a
   JavaScript program that exercises the parser, the bytecode interpreter, closures, objects, arrays,
   strings, regular expressions, JSON, big integers and the garbage collector, then compresses and
   decompresses data at several zstd levels and with LZ4 (block, HC, frame; xxHash checksums).
   Argument: rounds (default 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quickjs.h"
#include "zstd.h"
#include "lz4.h"
#include "lz4hc.h"
#include "lz4frame.h"
#include "xxhash.h"

static const char *SCRIPT =
    "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
    "function sieve(n) { const a = new Uint8Array(n + 1); let c = 0;\n"
    "  for (let i = 2; i <= n; i++) { if (!a[i]) { c++; for (let j = i * i; j <= n; j += i) a[j] = 1; } }\n"
    "  return c; }\n"
    "function objects(n) { const m = new Map(); let s = 0;\n"
    "  for (let i = 0; i < n; i++) { const o = {id: i, name: 'n' + i, tags: [i % 3, i % 5]}; m.set(o.name, o); }\n"
    "  for (const [k, v] of m) s += v.tags[0] + v.tags[1] + k.length; return s; }\n"
    "function strings(n) { let out = []; for (let i = 0; i < n; i++) out.push(('item-' + i).toUpperCase().split('-').reverse().join(':'));\n"
    "  const text = out.join(' '); const re = /([A-Z]+):?(\\d+)/g; let m, s = 0; while ((m = re.exec(text)) !== null) s += m[2].length;\n"
    "  return s + text.replace(/\\d/g, 'x').length; }\n"
    "function json(n) { const a = []; for (let i = 0; i < n; i++) a.push({i, sq: i * i, s: String(i), f: i / 7});\n"
    "  const t = JSON.stringify(a); return JSON.parse(t).reduce((x, o) => x + o.sq % 97, 0) + t.length; }\n"
    "function sorting(n) { const a = []; let x = 12345; for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; a.push(x); }\n"
    "  a.sort((p, q) => p - q); return a[n >> 1] % 1000; }\n"
    "function big(n) { let f = 1n; for (let i = 1n; i <= BigInt(n); i++) f *= i; return f.toString().length; }\n"
    "class Shape { area() { return 0; } } class Sq extends Shape { constructor(s) { super(); this.s = s; } area() { return this.s * this.s; } }\n"
    "class Circ extends Shape { constructor(r) { super(); this.r = r; } area() { return Math.PI * this.r * this.r; } }\n"
    "function shapes(n) { let t = 0; for (let i = 0; i < n; i++) t += (i & 1 ? new Sq(i % 10) : new Circ(i % 7)).area(); return Math.round(t); }\n"
    "function run(r) { let t = 0; for (let k = 0; k < r; k++) {\n"
    "  t += fib(22) + sieve(200000) + objects(20000) + strings(20000) + json(10000) + sorting(50000) + big(300) + shapes(50000);\n"
    "  t += eval('(function(){ let z = 0; for (let q = 0; q < 1000; q++) z += q; return z; })()'); }\n"
    "  return t; }\n";

static void fill(char *src, size_t n);

static unsigned long long zstd_rounds(int rounds) {
    size_t n = 1 << 20;
    char *src = malloc(n), *back = malloc(n);
    size_t cap = ZSTD_compressBound(n);
    char *dst = malloc(cap);
    unsigned long long total = 0;
    fill(src, n);
    for (int r = 0; r < rounds; r++)
        for (int level = 1; level <= 16; level += 3) {
            size_t c = ZSTD_compress(dst, cap, src, n, level);
            size_t d = ZSTD_decompress(back, n, dst, c);
            if (ZSTD_isError(c) || ZSTD_isError(d) || memcmp(src, back, n) != 0) {
                fprintf(stderr, "zstd round trip failed\n");
                exit(1);
            }
            total += c;
        }
    free(src), free(back), free(dst);
    return total;
}

static void fill(char *src, size_t n) {
    for (size_t i = 0; i < n; i++)
        src[i] = "abcdefgh"[(i * 7 + i / 13) % 8] ^ (char)(i % 251 == 0);
}

static void lz4_check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "lz4 %s round trip failed\n", what);
        exit(1);
    }
}

static unsigned long long lz4_rounds(int rounds) {
    int n = 1 << 20;
    char *src = malloc(n), *back = malloc(n);
    int cap = LZ4_compressBound(n);
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    prefs.compressionLevel = 4;
    size_t fcap = LZ4F_compressFrameBound(n, &prefs);
    char *dst = malloc(fcap > (size_t)cap ? fcap : (size_t)cap);
    unsigned long long total = 0;
    fill(src, n);
    for (int r = 0; r < rounds; r++) {
        int c = LZ4_compress_default(src, dst, n, cap);
        lz4_check(c > 0 && LZ4_decompress_safe(dst, back, c, n) == n && !memcmp(src, back, n), "block");
        total += c;
        for (int level = 3; level <= 9; level += 3) {
            c = LZ4_compress_HC(src, dst, n, cap, level);
            lz4_check(c > 0 && LZ4_decompress_safe(dst, back, c, n) == n && !memcmp(src, back, n), "HC");
            total += c;
        }
        prefs.compressionLevel = r % 2 ? 0 : 4;
        size_t fc = LZ4F_compressFrame(dst, fcap, src, n, &prefs);
        lz4_check(!LZ4F_isError(fc), "frame");
        LZ4F_dctx *dctx;
        lz4_check(!LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)), "frame");
        size_t got = 0, used = 0, rc = 1;
        while (rc != 0 && !LZ4F_isError(rc) && used < fc) {
            size_t out = n - got, in = fc - used;
            rc = LZ4F_decompress(dctx, back + got, &out, dst + used, &in, NULL);
            got += out, used += in;
        }
        LZ4F_freeDecompressionContext(dctx);
        lz4_check(rc == 0 && got == (size_t)n && !memcmp(src, back, n), "frame");
        total += fc + XXH32(back, n, r) % 7 + XXH64(back, n, r) % 7;
    }
    free(src), free(back), free(dst);
    return total;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    JSRuntime *rt = JS_NewRuntime();
    JSContext *ctx = JS_NewContext(rt);
    JSValue v = JS_Eval(ctx, SCRIPT, strlen(SCRIPT), "<workload>", JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(v)) { fprintf(stderr, "script failed\n"); return 1; }
    JS_FreeValue(ctx, v);
    char call[64];
    snprintf(call, sizeof call, "run(%d)", rounds);
    v = JS_Eval(ctx, call, strlen(call), "<run>", JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(v)) { fprintf(stderr, "run failed\n"); return 1; }
    double d = 0;
    JS_ToFloat64(ctx, &d, v);
    printf("%.0f %llu %llu\n", d, zstd_rounds(rounds), lz4_rounds(rounds));
    JS_FreeValue(ctx, v);
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
    return 0;
}
