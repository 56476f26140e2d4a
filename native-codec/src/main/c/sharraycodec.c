/*
 * sharraycodec: GF(2^8) dot-product kernels for the sharray Reed-Solomon codec.
 *
 * The Java side owns all policy (matrices, validation, caching); this file only knows how to compute
 *     dst[p] (^)= sum_j coeff[p][j] * src[j]     over GF(2^8), polynomial 0x11D,
 * for arrays of raw pointers, as fast as the CPU allows. Everything here is stateless: tables are
 * built once by sc_init_tables() into caller-owned memory and only read afterwards, so any number of
 * threads may call the kernels at once.
 *
 * Table layout for a rows x cols coefficient matrix (row-major, c = coefficient):
 *   [rows*cols x 32 bytes]  nibble tables: c*x for x = 0..15, then c*(x<<4) for x = 0..15 (pshufb paths)
 *   [rows*cols x  8 bytes]  8x8 bit matrices of "multiply by c" for vgf2p8affineqb (GFNI paths)
 */
#include <stdint.h>
#include <string.h>
#include <immintrin.h>

#include "fault_guard.h"

#define SC_SCALAR 0
#define SC_SSSE3 1
#define SC_AVX2 2
#define SC_AVX2_GFNI 3
#define SC_AVX512_GFNI 4

/* Bytes of each shard processed per block; all output groups run over one block before moving on,
 * so a source block is re-read from L1/L2 rather than from memory when there are many outputs. */
#define SC_BLOCK 16384

#define INLINE static inline __attribute__((always_inline))
#define T_AVX512_GFNI __attribute__((target("avx512f,avx512bw,avx512vl,gfni")))
#define T_AVX2_GFNI __attribute__((target("avx2,gfni")))
#define T_AVX2 __attribute__((target("avx2")))
#define T_SSSE3 __attribute__((target("ssse3")))

typedef uint8_t u8;

/* ---------------------------------------------------------------- GF(2^8) for table building */

static u8 gf_mul_slow(u8 a, u8 b) {
    u8 r = 0;
    while (b) {
        if (b & 1) r ^= a;
        a = (u8)((a << 1) ^ ((a & 0x80) ? 0x1D : 0));
        b >>= 1;
    }
    return r;
}

/* The affine instruction computes result bit i = parity(A.byte[7 - i] & x); multiplication by c is
 * linear over GF(2), with column j = c * 2^j, so row i collects bit i of every column. */
static uint64_t gfni_matrix(u8 c) {
    uint64_t m = 0;
    for (int i = 0; i < 8; i++) {
        u8 row = 0;
        for (int j = 0; j < 8; j++) {
            if ((gf_mul_slow(c, (u8)(1u << j)) >> i) & 1) row |= (u8)(1u << j);
        }
        m |= (uint64_t)row << (8 * (7 - i));
    }
    return m;
}

int64_t sc_table_size(int rows, int cols) { return (int64_t)rows * cols * 40; }

void sc_init_tables(int rows, int cols, const u8 *coeffs, u8 *tables) {
    int64_t n = (int64_t)rows * cols;
    uint64_t *gfni = (uint64_t *)(tables + n * 32);
    for (int64_t e = 0; e < n; e++) {
        u8 c = coeffs[e];
        u8 *t = tables + e * 32;
        for (int x = 0; x < 16; x++) {
            t[x] = gf_mul_slow(c, (u8)x);
            t[16 + x] = gf_mul_slow(c, (u8)(x << 4));
        }
        uint64_t m = gfni_matrix(c);
        memcpy(&gfni[e], &m, 8);
    }
}

/* ---------------------------------------------------------------- CPU dispatch */

int sc_max_level(void) {
    __builtin_cpu_init();
    int gfni = __builtin_cpu_supports("gfni");
    if (gfni && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512vl")) return SC_AVX512_GFNI;
    if (__builtin_cpu_supports("avx2")) return gfni ? SC_AVX2_GFNI : SC_AVX2;
    if (__builtin_cpu_supports("ssse3")) return SC_SSSE3;
    return SC_SCALAR;
}

/* A kernel computes outputs [0, g) of a group over bytes [from, to) of every shard.
 * nib/mat point at the group's first row; rows are `cols` coefficients apart. */
typedef struct {
    int cols;
    const u8 *nib;
    const uint64_t *mat;
    u8 *const *src;
    u8 *const *dst;
    int acc;
} group_t;

/* ---------------------------------------------------------------- scalar (also every tail) */

static void scalar_group(const group_t *gr, int g, int64_t from, int64_t to) {
    for (int p = 0; p < g; p++) {
        u8 *d = gr->dst[p];
        if (!gr->acc) memset(d + from, 0, (size_t)(to - from));
        for (int j = 0; j < gr->cols; j++) {
            const u8 *t = gr->nib + ((int64_t)p * gr->cols + j) * 32;
            const u8 *s = gr->src[j];
            for (int64_t i = from; i < to; i++) d[i] ^= t[s[i] & 15] ^ t[16 + (s[i] >> 4)];
        }
    }
}

/* ---------------------------------------------------------------- AVX-512 + GFNI */

INLINE T_AVX512_GFNI void avx512_gfni_g(const group_t *gr, const int g, int64_t from, int64_t to) {
    const int cols = gr->cols;
    int64_t i = from;
    __m512i a[8];
    for (; i + 64 <= to; i += 64) {
        for (int p = 0; p < g; p++)
            a[p] = gr->acc ? _mm512_loadu_si512(gr->dst[p] + i) : _mm512_setzero_si512();
        for (int j = 0; j < cols; j++) {
            __m512i x = _mm512_loadu_si512(gr->src[j] + i);
            for (int p = 0; p < g; p++)
                a[p] = _mm512_xor_si512(a[p],
                    _mm512_gf2p8affine_epi64_epi8(x, _mm512_set1_epi64((long long)gr->mat[p * cols + j]), 0));
        }
        for (int p = 0; p < g; p++) _mm512_storeu_si512(gr->dst[p] + i, a[p]);
    }
    if (i < to) {
        /* Masked loads never touch the bytes past the end, so the tail needs no scalar loop. */
        __mmask64 k = (__mmask64)(~0ULL >> (64 - (to - i)));
        for (int p = 0; p < g; p++)
            a[p] = gr->acc ? _mm512_maskz_loadu_epi8(k, gr->dst[p] + i) : _mm512_setzero_si512();
        for (int j = 0; j < cols; j++) {
            __m512i x = _mm512_maskz_loadu_epi8(k, gr->src[j] + i);
            for (int p = 0; p < g; p++)
                a[p] = _mm512_xor_si512(a[p],
                    _mm512_gf2p8affine_epi64_epi8(x, _mm512_set1_epi64((long long)gr->mat[p * cols + j]), 0));
        }
        for (int p = 0; p < g; p++) _mm512_mask_storeu_epi8(gr->dst[p] + i, k, a[p]);
    }
}

static T_AVX512_GFNI void avx512_gfni_group(const group_t *gr, int g, int64_t from, int64_t to) {
    switch (g) {
    case 1: avx512_gfni_g(gr, 1, from, to); break;
    case 2: avx512_gfni_g(gr, 2, from, to); break;
    case 3: avx512_gfni_g(gr, 3, from, to); break;
    case 4: avx512_gfni_g(gr, 4, from, to); break;
    case 5: avx512_gfni_g(gr, 5, from, to); break;
    case 6: avx512_gfni_g(gr, 6, from, to); break;
    case 7: avx512_gfni_g(gr, 7, from, to); break;
    default: avx512_gfni_g(gr, 8, from, to); break;
    }
}

/* ---------------------------------------------------------------- AVX2 + GFNI */

INLINE T_AVX2_GFNI void avx2_gfni_g(const group_t *gr, const int g, int64_t from, int64_t to) {
    const int cols = gr->cols;
    int64_t i = from;
    __m256i a[6];
    for (; i + 32 <= to; i += 32) {
        for (int p = 0; p < g; p++)
            a[p] = gr->acc ? _mm256_loadu_si256((const __m256i *)(gr->dst[p] + i)) : _mm256_setzero_si256();
        for (int j = 0; j < cols; j++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(gr->src[j] + i));
            for (int p = 0; p < g; p++)
                a[p] = _mm256_xor_si256(a[p],
                    _mm256_gf2p8affine_epi64_epi8(x, _mm256_set1_epi64x((long long)gr->mat[p * cols + j]), 0));
        }
        for (int p = 0; p < g; p++) _mm256_storeu_si256((__m256i *)(gr->dst[p] + i), a[p]);
    }
    if (i < to) scalar_group(gr, g, i, to);
}

static T_AVX2_GFNI void avx2_gfni_group(const group_t *gr, int g, int64_t from, int64_t to) {
    switch (g) {
    case 1: avx2_gfni_g(gr, 1, from, to); break;
    case 2: avx2_gfni_g(gr, 2, from, to); break;
    case 3: avx2_gfni_g(gr, 3, from, to); break;
    case 4: avx2_gfni_g(gr, 4, from, to); break;
    case 5: avx2_gfni_g(gr, 5, from, to); break;
    default: avx2_gfni_g(gr, 6, from, to); break;
    }
}

/* ---------------------------------------------------------------- AVX2 (pshufb nibble tables) */

INLINE T_AVX2 void avx2_g(const group_t *gr, const int g, int64_t from, int64_t to) {
    const int cols = gr->cols;
    const __m256i low = _mm256_set1_epi8(0x0f);
    int64_t i = from;
    __m256i a[4];
    for (; i + 32 <= to; i += 32) {
        for (int p = 0; p < g; p++)
            a[p] = gr->acc ? _mm256_loadu_si256((const __m256i *)(gr->dst[p] + i)) : _mm256_setzero_si256();
        for (int j = 0; j < cols; j++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(gr->src[j] + i));
            __m256i lo = _mm256_and_si256(x, low);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
            for (int p = 0; p < g; p++) {
                const u8 *t = gr->nib + ((int64_t)p * cols + j) * 32;
                __m256i tl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
                __m256i th = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(t + 16)));
                a[p] = _mm256_xor_si256(a[p],
                    _mm256_xor_si256(_mm256_shuffle_epi8(tl, lo), _mm256_shuffle_epi8(th, hi)));
            }
        }
        for (int p = 0; p < g; p++) _mm256_storeu_si256((__m256i *)(gr->dst[p] + i), a[p]);
    }
    if (i < to) scalar_group(gr, g, i, to);
}

static T_AVX2 void avx2_group(const group_t *gr, int g, int64_t from, int64_t to) {
    switch (g) {
    case 1: avx2_g(gr, 1, from, to); break;
    case 2: avx2_g(gr, 2, from, to); break;
    case 3: avx2_g(gr, 3, from, to); break;
    default: avx2_g(gr, 4, from, to); break;
    }
}

/* ---------------------------------------------------------------- SSSE3 (pshufb nibble tables) */

INLINE T_SSSE3 void ssse3_g(const group_t *gr, const int g, int64_t from, int64_t to) {
    const int cols = gr->cols;
    const __m128i low = _mm_set1_epi8(0x0f);
    int64_t i = from;
    __m128i a[4];
    for (; i + 16 <= to; i += 16) {
        for (int p = 0; p < g; p++)
            a[p] = gr->acc ? _mm_loadu_si128((const __m128i *)(gr->dst[p] + i)) : _mm_setzero_si128();
        for (int j = 0; j < cols; j++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(gr->src[j] + i));
            __m128i lo = _mm_and_si128(x, low);
            __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), low);
            for (int p = 0; p < g; p++) {
                const u8 *t = gr->nib + ((int64_t)p * cols + j) * 32;
                a[p] = _mm_xor_si128(a[p], _mm_xor_si128(
                    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t), lo),
                    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(t + 16)), hi)));
            }
        }
        for (int p = 0; p < g; p++) _mm_storeu_si128((__m128i *)(gr->dst[p] + i), a[p]);
    }
    if (i < to) scalar_group(gr, g, i, to);
}

static T_SSSE3 void ssse3_group(const group_t *gr, int g, int64_t from, int64_t to) {
    switch (g) {
    case 1: ssse3_g(gr, 1, from, to); break;
    case 2: ssse3_g(gr, 2, from, to); break;
    case 3: ssse3_g(gr, 3, from, to); break;
    default: ssse3_g(gr, 4, from, to); break;
    }
}

/* ---------------------------------------------------------------- entry points */

typedef void (*group_fn)(const group_t *, int, int64_t, int64_t);

typedef struct {
    int64_t len;
    int nsrc, ndst;
    const u8 *tables;
    u8 *const *src;
    u8 *const *dst;
    int acc, level;
} dot_args;

static void dot(void *arg) {
    const dot_args *a = arg;
    group_fn fn;
    int width;
    switch (a->level) {
    case SC_AVX512_GFNI: fn = avx512_gfni_group; width = 8; break;
    case SC_AVX2_GFNI: fn = avx2_gfni_group; width = 6; break;
    case SC_AVX2: fn = avx2_group; width = 4; break;
    case SC_SSSE3: fn = ssse3_group; width = 4; break;
    default: fn = scalar_group; width = 4; break;
    }
    const uint64_t *mats = (const uint64_t *)(a->tables + (int64_t)a->ndst * a->nsrc * 32);
    for (int64_t from = 0; from < a->len; from += SC_BLOCK) {
        int64_t to = a->len - from > SC_BLOCK ? from + SC_BLOCK : a->len;
        for (int p0 = 0; p0 < a->ndst; p0 += width) {
            int g = a->ndst - p0 < width ? a->ndst - p0 : width;
            group_t gr = { a->nsrc, a->tables + (int64_t)p0 * a->nsrc * 32, mats + (int64_t)p0 * a->nsrc, a->src,
                           a->dst + p0, a->acc };
            fn(&gr, g, from, to);
        }
    }
}

/*
 * dst[p] = (acc ? dst[p] : 0) ^ sum_j coeff[p][j] * src[j] for p < ndst, over len bytes.
 * tables: from sc_init_tables(ndst, nsrc, ...). level: one of SC_*, never above sc_max_level()
 * (the Java side guarantees both). The source and destination ranges must not overlap.
 * Returns 0, or SC_FAULT when a shard's memory faulted (the outputs are then partly written).
 */
int sc_dot(int64_t len, int nsrc, int ndst, const u8 *tables, u8 *const *src, u8 *const *dst,
           int acc, int level) {
    dot_args a = { len, nsrc, ndst, tables, src, dst, acc, level };
    return sc_run_guarded(dot, &a);
}
