/*
 * CRC-32C (Castagnoli), the value java.util.zip.CRC32C computes, under the SIGBUS guard: the JDK's own
 * CRC32C intrinsic ends the JVM when a mapped file shrinks under the buffer it reads.
 *
 * With AVX-512 and VPCLMULQDQ, buffers of 256 bytes or more are folded: four 512-bit accumulators each
 * carry-less multiply their 128-bit lanes by x^2048 mod P (as two 64-bit halves) and add the next 256
 * bytes, so the only dependency per step is one multiply. The accumulators then fold into one 128-bit
 * value congruent to everything read so far, which the crc32 instruction reduces like 16 bytes of data.
 *
 * With SSE4.2 alone the crc32 instruction runs three independent streams over the three thirds of a block
 * (its latency is three times its throughput), and the thirds are joined by "appending n zero bytes", a
 * linear map on the 32-bit state applied as four table lookups. Without SSE4.2, one table lookup per byte.
 *
 * Reflected arithmetic: a 64-bit little-endian word v of the stream stands for R(v) = sum v_i x^(63-i), so
 * the carry-less product of two words stands for x R(a) R(b) as a 128-bit word. To move a 128-bit word
 * D bits further down the stream (multiply it by x^D mod P) it is split into halves lo, hi with
 * R128 = R(lo) x^64 + R(hi); hence lo is multiplied by the word K with R(K) = x^(63+D) mod P and hi by
 * R(K) = x^(D-1) mod P. These constants are computed at first use.
 */
#include "fault_guard.h"

#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#define POLY 0x82F63B78u /* reflected */
#define POLY_NORMAL 0x11EDC6F41ull /* x^32 + ..., bit d = coefficient of x^d */
#define LONG_STREAM 8192  /* bytes per stream in a long block */
#define SHORT_STREAM 256  /* ...in a short block */
#define T_SSE42 __attribute__((target("sse4.2")))
#define T_FOLD __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2")))

typedef uint8_t u8;

static uint32_t byte_table[256];
static uint32_t zeros_long[4][256];  /* state -> state after LONG_STREAM zero bytes, by state byte */
static uint32_t zeros_short[4][256];
static int has_sse42;
static int has_fold;
/* {K for x^(63+D), K for x^(D-1)} for the fold distances the folding path uses */
static uint64_t fold_2048[2], fold_1536[2], fold_1024[2], fold_512[2], fold_384[2], fold_256[2], fold_128[2];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static uint32_t append_zeros_slow(uint32_t c, int64_t n) {
    while (n-- > 0) {
        c = byte_table[c & 0xff] ^ (c >> 8);
    }
    return c;
}

/* The map is linear, so its table comes from the images of the 32 unit states. */
static void build_zeros(uint32_t t[4][256], int64_t n) {
    uint32_t unit[32];
    for (int b = 0; b < 32; b++) {
        unit[b] = append_zeros_slow(1u << b, n);
    }
    for (int k = 0; k < 4; k++) {
        for (int v = 0; v < 256; v++) {
            uint32_t r = 0;
            for (int b = 0; b < 8; b++) {
                if ((v >> b) & 1) r ^= unit[8 * k + b];
            }
            t[k][v] = r;
        }
    }
}

/* The word K with R(K) = x^n mod P: coefficient d of the remainder is bit 63 - d. */
static uint64_t reflected_power(int n) {
    uint64_t r = 1;
    for (int i = 0; i < n; i++) {
        r <<= 1;
        if (r >> 32) r ^= POLY_NORMAL;
    }
    uint64_t k = 0;
    for (int d = 0; d < 32; d++) {
        if ((r >> d) & 1) k |= 1ull << (63 - d);
    }
    return k;
}

static void fold_constants(uint64_t k[2], int bits) {
    k[0] = reflected_power(63 + bits);
    k[1] = reflected_power(bits - 1);
}

static void init(void) {
    for (uint32_t v = 0; v < 256; v++) {
        uint32_t c = v;
        for (int i = 0; i < 8; i++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        byte_table[v] = c;
    }
    build_zeros(zeros_long, LONG_STREAM);
    build_zeros(zeros_short, SHORT_STREAM);
    fold_constants(fold_2048, 2048);
    fold_constants(fold_1536, 1536);
    fold_constants(fold_1024, 1024);
    fold_constants(fold_512, 512);
    fold_constants(fold_384, 384);
    fold_constants(fold_256, 256);
    fold_constants(fold_128, 128);
    __builtin_cpu_init();
    has_sse42 = __builtin_cpu_supports("sse4.2");
    has_fold = has_sse42 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq")
        && __builtin_cpu_supports("pclmul");
}

static inline uint32_t append_zeros(const uint32_t t[4][256], uint32_t c) {
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

static inline uint64_t load64(const u8 *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* One block of three streams of n bytes each; returns the state after all 3 n bytes. */
#define THREE_STREAMS(c, p, n, zeros) do {                                        \
        uint64_t c0 = (c), c1 = 0, c2 = 0;                                     \
        const u8 *end = (p) + (n);                                             \
        do {                                                                   \
            c0 = _mm_crc32_u64(c0, load64(p));                                 \
            c1 = _mm_crc32_u64(c1, load64((p) + (n)));                         \
            c2 = _mm_crc32_u64(c2, load64((p) + 2 * (n)));                     \
            (p) += 8;                                                          \
        } while ((p) < end);                                                   \
        (c) = append_zeros(zeros, (uint32_t)c0) ^ (uint32_t)c1;                \
        (c) = append_zeros(zeros, (uint32_t)(c)) ^ (uint32_t)c2;               \
        (p) += 2 * (n);                                                        \
    } while (0)

static T_SSE42 uint32_t crc_hw(uint32_t state, const u8 *p, int64_t len) {
    uint64_t c = state;
    const u8 *end = p + len;
    while (end - p >= 3 * LONG_STREAM) {
        THREE_STREAMS(c, p, LONG_STREAM, zeros_long);
    }
    while (end - p >= 3 * SHORT_STREAM) {
        THREE_STREAMS(c, p, SHORT_STREAM, zeros_short);
    }
    while (end - p >= 8) {
        c = _mm_crc32_u64(c, load64(p));
        p += 8;
    }
    while (p < end) {
        c = _mm_crc32_u8((uint32_t)c, *p++);
    }
    return (uint32_t)c;
}

static T_FOLD inline __m512i fold512(__m512i x, __m512i k, __m512i next) {
    __m512i lo = _mm512_clmulepi64_epi128(x, k, 0x00);
    __m512i hi = _mm512_clmulepi64_epi128(x, k, 0x11);
    return _mm512_ternarylogic_epi64(lo, hi, next, 0x96); /* lo ^ hi ^ next */
}

static T_FOLD inline __m512i constants512(const uint64_t k[2]) {
    return _mm512_broadcast_i32x4(_mm_set_epi64x((long long)k[1], (long long)k[0]));
}

static T_FOLD inline __m128i fold128(__m128i x, const uint64_t k[2], __m128i next) {
    __m128i kk = _mm_set_epi64x((long long)k[1], (long long)k[0]);
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, kk, 0x00), _mm_clmulepi64_si128(x, kk, 0x11)), next);
}

/* len >= 256 */
static T_FOLD uint32_t crc_fold(uint32_t state, const u8 *p, int64_t len) {
    const u8 *end = p + len;
    __m512i z0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)state)));
    __m512i z1 = _mm512_loadu_si512(p + 64);
    __m512i z2 = _mm512_loadu_si512(p + 128);
    __m512i z3 = _mm512_loadu_si512(p + 192);
    p += 256;
    __m512i k = constants512(fold_2048);
    while (end - p >= 256) {
        z0 = fold512(z0, k, _mm512_loadu_si512(p));
        z1 = fold512(z1, k, _mm512_loadu_si512(p + 64));
        z2 = fold512(z2, k, _mm512_loadu_si512(p + 128));
        z3 = fold512(z3, k, _mm512_loadu_si512(p + 192));
        p += 256;
    }
    /* the four accumulators onto the last one's place, then its four lanes onto its last lane's */
    __m512i z = fold512(z0, constants512(fold_1536), z3);
    z = fold512(z1, constants512(fold_1024), z);
    z = fold512(z2, constants512(fold_512), z);
    __m128i x = _mm512_extracti32x4_epi32(z, 3);
    x = fold128(_mm512_extracti32x4_epi32(z, 0), fold_384, x);
    x = fold128(_mm512_extracti32x4_epi32(z, 1), fold_256, x);
    x = fold128(_mm512_extracti32x4_epi32(z, 2), fold_128, x);
    while (end - p >= 16) {
        x = fold128(x, fold_128, _mm_loadu_si128((const __m128i *)p));
        p += 16;
    }
    /* x is congruent to everything so far: reduce it as 16 bytes of data from state 0 */
    uint64_t c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x));
    c = _mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(x, 1));
    return crc_hw((uint32_t)c, p, end - p);
}

static uint32_t crc_sw(uint32_t c, const u8 *p, int64_t len) {
    for (int64_t i = 0; i < len; i++) {
        c = byte_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    }
    return c;
}

/* The ways to compute it, slowest first; sc_crc32c takes the fastest this CPU has. */
#define PATH_TABLE 0
#define PATH_STREAMS 1
#define PATH_FOLD 2

typedef struct {
    uint32_t state;
    const u8 *p;
    int64_t len;
    int path;
} crc_args;

static void crc_body(void *arg) {
    crc_args *a = arg;
    if (a->path == PATH_FOLD && a->len >= 256) {
        a->state = crc_fold(a->state, a->p, a->len);
    } else if (a->path >= PATH_STREAMS) {
        a->state = crc_hw(a->state, a->p, a->len);
    } else {
        a->state = crc_sw(a->state, a->p, a->len);
    }
}

/* The fastest path this CPU has. */
static int best_path(void) {
    pthread_once(&init_once, init);
    return has_fold ? PATH_FOLD : has_sse42 ? PATH_STREAMS : PATH_TABLE;
}

/*
 * As sc_crc32c, on one path (PATH_*), for tests: every path must agree. Returns -2 for a path this CPU
 * lacks.
 */
int64_t sc_crc32c_path(int path, int32_t value, const u8 *p, int64_t len) {
    if (path < PATH_TABLE || path > best_path()) {
        return -2;
    }
    crc_args a = { ~(uint32_t)value, p, len, path };
    if (sc_run_guarded(crc_body, &a) != 0) {
        return SC_FAULT;
    }
    return (int64_t)(uint32_t)~a.state;
}

/*
 * value: a CRC-32C value so far (0 for none), as CRC32C.getValue() gives it. Returns the value after
 * [p, p + len) (0 .. 2^32 - 1), or SC_FAULT when that memory faulted.
 */
int64_t sc_crc32c(int32_t value, const u8 *p, int64_t len) {
    return sc_crc32c_path(best_path(), value, p, len);
}
