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

void ga_sha256_hex(char out[65], const unsigned char *data, size_t len)
{
    uint32_t K[64], h[8];
    constants(K, h);
    size_t i = 0;
    for (; i + 64 <= len; i += 64)
        block(h, K, data + i);
    unsigned char tail[128] = {0};
    size_t rest = len - i;
    memcpy(tail, data + i, rest);
    tail[rest] = 0x80;
    size_t tl = rest + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int j = 0; j < 8; j++)
        tail[tl - 1 - j] = (unsigned char)(bits >> (8 * j));
    block(h, K, tail);
    if (tl == 128)
        block(h, K, tail + 64);
    for (int j = 0; j < 8; j++)
        snprintf(out + 8 * j, 9, "%08x", h[j]);
}
