/*
 * sha256.c - SHA-256 (FIPS 180-4) for the spec digest in reports. The round constants are
 * the first 32 bits of the fractional parts of the cube roots of the first 64 primes, and the
 * initial hash values those of the square roots of the first 8 primes (FIPS 180-4, 4.2.2 and
 * 5.3.3): they are computed here rather than tabulated (double precision gives 50 fractional
 * bits for these roots, enough for 32). Checked against the FIPS test vector "abc".
 */
#include "specs/readfile.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void constants(uint32_t K[64], uint32_t H[8])
{
    int primes[64], np = 0;
    for (int c = 2; np < 64; c++) {
        int prime = 1;
        for (int i = 0; i < np && primes[i] * primes[i] <= c; i++)
            if (c % primes[i] == 0) {
                prime = 0;
                break;
            }
        if (prime)
            primes[np++] = c;
    }
    for (int i = 0; i < 64; i++) {
        double r = cbrt((double)primes[i]);
        K[i] = (uint32_t)ldexp(r - floor(r), 32);
    }
    for (int i = 0; i < 8; i++) {
        double r = sqrt((double)primes[i]);
        H[i] = (uint32_t)ldexp(r - floor(r), 32);
    }
}

static void block(uint32_t h[8], const uint32_t K[64], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25), ch = (e & f) ^ (~e & g);
        uint32_t t1 = k + S1 + ch + K[i] + w[i];
        uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22), mj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + mj;
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same compression with the x86 SHA extensions (Intel SHA-NI: sha256rnds2 does two
 * rounds on the state held as ABEF/CDGH, sha256msg1/msg2 the message schedule's sigma0 and
 * sigma1 parts), about 6x the portable loop: a 140 MB spec's digest took longer than
 * reading its numbers. Used when the processor has them (cpuid leaf 7, EBX bit 29, with
 * SSE4.1); tests/specs/test_doc.c compares it with block() on random inputs. */
#include <cpuid.h>
#include <immintrin.h>

static int have_sha_ni(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19))) /* SSE4.1 */
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 29) & 1;
}

__attribute__((target("sha,sse4.1"))) static void blocks_ni(uint32_t h[8], const uint32_t K[64],
                                                           const unsigned char *p, size_t n)
{
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i t = _mm_loadu_si128((const __m128i *)h);         /* A B C D (lane 0 = A) */
    __m128i s1 = _mm_loadu_si128((const __m128i *)(h + 4));  /* E F G H */
    t = _mm_shuffle_epi32(t, 0xB1);                          /* B A D C */
    s1 = _mm_shuffle_epi32(s1, 0x1B);                        /* H G F E */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);                  /* F E B A: "ABEF" */
    s1 = _mm_blend_epi16(s1, t, 0xF0);                       /* H G D C: "CDGH" */
    for (size_t b = 0; b < n; b++, p += 64) {
        __m128i a0 = s0, a1 = s1, x[4];
        for (int i = 0; i < 16; i++) {
            __m128i w;
            if (i < 4) {
                w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
            } else {
                /* W[t..t+3] = sigma1 part (msg2) of W[t-16] + s0(W[t-15]) (msg1) + W[t-7] */
                __m128i m = _mm_sha256msg1_epu32(x[i & 3], x[(i + 1) & 3]);
                m = _mm_add_epi32(m, _mm_alignr_epi8(x[(i + 3) & 3], x[(i + 2) & 3], 4));
                w = _mm_sha256msg2_epu32(m, x[(i + 3) & 3]);
            }
            x[i & 3] = w;
            __m128i k = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)(K + 4 * i)));
            s1 = _mm_sha256rnds2_epu32(s1, s0, k);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(k, 0x0E));
        }
        s0 = _mm_add_epi32(s0, a0);
        s1 = _mm_add_epi32(s1, a1);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);                         /* A B E F */
    s1 = _mm_shuffle_epi32(s1, 0xB1);                        /* G H C D */
    s0 = _mm_blend_epi16(t, s1, 0xF0);                       /* A B C D */
    s1 = _mm_alignr_epi8(s1, t, 8);                          /* E F G H */
    _mm_storeu_si128((__m128i *)h, s0);
    _mm_storeu_si128((__m128i *)(h + 4), s1);
}
#endif

/* the whole blocks of data: SHA-NI where there is one (unless portable) */
static size_t blocks(uint32_t h[8], const uint32_t K[64], const unsigned char *data, size_t len,
                     int portable)
{
    size_t n = len / 64;
#if defined(__x86_64__) && defined(__GNUC__)
    if (!portable && n && have_sha_ni()) {
        blocks_ni(h, K, data, n);
        return 64 * n;
    }
#endif
    (void)portable;
    for (size_t i = 0; i < n; i++)
        block(h, K, data + 64 * i);
    return 64 * n;
}

void ga_sha256_init(ga_sha256 *s)
{
    memset(s, 0, sizeof *s);
    constants(s->K, s->h);
}

void ga_sha256_update(ga_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    if (s->nbuf) { /* fill the pending block first */
        size_t k = 64 - s->nbuf < len ? 64 - s->nbuf : len;
        memcpy(s->buf + s->nbuf, p, k);
        s->nbuf += k;
        p += k;
        len -= k;
        if (s->nbuf < 64)
            return;
        block(s->h, s->K, s->buf);
        s->nbuf = 0;
    }
    size_t i = blocks(s->h, s->K, p, len, s->portable);
    memcpy(s->buf, p + i, len - i);
    s->nbuf = len - i;
}

void ga_sha256_final(ga_sha256 *s, char out[65])
{
    unsigned char tail[128] = {0};
    memcpy(tail, s->buf, s->nbuf);
    tail[s->nbuf] = 0x80;
    size_t tl = s->nbuf + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = s->len * 8;
    for (int j = 0; j < 8; j++)
        tail[tl - 1 - j] = (unsigned char)(bits >> (8 * j));
    block(s->h, s->K, tail);
    if (tl == 128)
        block(s->h, s->K, tail + 64);
    for (int j = 0; j < 8; j++)
        snprintf(out + 8 * j, 9, "%08x", s->h[j]);
}

static void sha256(char out[65], const unsigned char *data, size_t len, int portable)
{
    ga_sha256 s;
    ga_sha256_init(&s);
    s.portable = portable;
    ga_sha256_update(&s, data, len);
    ga_sha256_final(&s, out);
}

void ga_sha256_hex(char out[65], const unsigned char *data, size_t len)
{
    sha256(out, data, len, 0);
}

void ga_sha256_hex_portable(char out[65], const unsigned char *data, size_t len)
{
    sha256(out, data, len, 1);
}
