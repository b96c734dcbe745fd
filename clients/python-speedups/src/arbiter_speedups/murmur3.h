/* MurmurHash3_x86_32 (aappleby/smhasher), frozen as bucketing hash version 1, in the two steps
 * of the clients' pure hashes: an experiment's "salt:" is mixed once, and each user id continues
 * from that state. */
#ifndef ARBITER_MURMUR3_H
#define ARBITER_MURMUR3_H

#include <stddef.h>
#include <stdint.h>

#define MURMUR3_C1 0xcc9e2d51u
#define MURMUR3_C2 0x1b873593u

static inline uint32_t murmur3_rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/* Little-endian whatever the machine: the hash is defined on bytes. */
static inline uint32_t murmur3_block(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t murmur3_mix_k(uint32_t k) {
    k *= MURMUR3_C1;
    k = murmur3_rotl(k, 15);
    return k * MURMUR3_C2;
}

/* Mixes the whole 4-byte blocks of data[0..n) into h; a tail of 1-3 bytes is left for finish. */
static inline uint32_t murmur3_mix_blocks(uint32_t h, const unsigned char *data, size_t n) {
    for (size_t i = 0; i + 4 <= n; i += 4) {
        h ^= murmur3_mix_k(murmur3_block(data + i));
        h = murmur3_rotl(h, 13) * 5 + 0xe6546b64u;
    }
    return h;
}

/* Continues from h over data[0..n) and finalises; total_length counts every byte hashed, those
 * mixed into h before included. */
static inline uint32_t murmur3_finish(uint32_t h, const unsigned char *data, size_t n, size_t total_length) {
    size_t whole = n & ~(size_t)3;
    h = murmur3_mix_blocks(h, data, whole);
    uint32_t k = 0;
    switch (n - whole) {
    case 3: k ^= (uint32_t)data[whole + 2] << 16; /* fall through */
    case 2: k ^= (uint32_t)data[whole + 1] << 8; /* fall through */
    case 1:
        k ^= data[whole];
        h ^= murmur3_mix_k(k);
    }
    h ^= (uint32_t)total_length;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

#endif
