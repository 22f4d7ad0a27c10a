/* See aes_keys.h. Written from FIPS-197. */
#include "aes_keys.h"
#include <stddef.h>
#include <string.h>

static uint8_t gmul2(uint8_t a) { return (uint8_t)((a << 1) ^ ((a >> 7) * 0x1b)); }

/* Zeroes n bytes so that the C compiler cannot drop it as a dead store: memset, then an empty
 * asm that may read the buffer (GCC/clang); elsewhere a volatile write loop (a byte at a time,
 * which cost a tenth of a key setup). */
static void wipe(void *p, size_t n) {
#if defined(__GNUC__) || defined(__clang__)
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) *v++ = 0;
#endif
}

#if defined(__GFNI__) && (defined(__SSE2__) || defined(__SSSE3__))
#include <immintrin.h>
#endif

#if defined(__GFNI__) && defined(__SSE2__)
/* Where GFNI exists, one gf2p8affineinvqb is the S-box of every byte: the inverse in GF(2^8)
 * (the AES polynomial; 0 to 0), then the affine map given as a bit matrix (0xF1E3C78F1F3E7CF8,
 * from FIPS-197's affine transformation in the instruction's row order) and 0x63. Constant
 * time; the ten calls of the generic form were 2.4k of a key setup's 2.6k cycles (AVX2,
 * Zen 4). tests/kat_a.rs checks the round keys of both builds (plain, and -mgfni where the
 * CPU has it) against an independent key expansion. */
static uint32_t sbox4(uint32_t x) {
    const __m128i v = _mm_cvtsi32_si128((int)x);
    const __m128i a = _mm_set1_epi64x((long long)0xF1E3C78F1F3E7CF8ull);
    return (uint32_t)_mm_cvtsi128_si32(_mm_gf2p8affineinv_epi64_epi8(v, a, 0x63));
}
#else
/* GF(2^8) products of four bytes at once (byte lanes of a 32-bit word, independent): the bits
 * of b select a by masks, never by a branch. */
static uint32_t xtime4(uint32_t a) {
    return ((a & 0x7f7f7f7fu) << 1) ^ (((a >> 7) & 0x01010101u) * 0x1bu);
}
static uint32_t gmul4(uint32_t a, uint32_t b) {
    uint32_t p = 0;
    for (int i = 0; i < 8; i++) {
        p ^= a & (((b >> i) & 0x01010101u) * 0xffu);
        a = xtime4(a);
    }
    return p;
}

/* Squares of four bytes at once: squaring is linear over GF(2), so bit i of each byte adds
 * alpha^(2i) (0x01, 0x04, 0x10, 0x40, 0x1b, 0x6c, 0xab, 0x9a), half the work of gmul4. */
static uint32_t gsq4(uint32_t a) {
    static const uint32_t sq[8] = {0x01, 0x04, 0x10, 0x40, 0x1b, 0x6c, 0xab, 0x9a};
    uint32_t p = 0;
    for (int i = 0; i < 8; i++) p ^= ((a >> i) & 0x01010101u) * sq[i];
    return p;
}

/* The S-box of four bytes at once, from its definition: inverse in GF(2^8) as x^254 (which maps
 * 0 to 0, so no branch on x) by the addition chain 2, 3, 6, 12, 15, 30, 60, 120, 240, 252, 254
 * (4 products and 7 squares), then the affine map (x ^ rotl(x,1..4) ^ 0x63 per byte).
 * Constant time. */
static uint32_t sbox4(uint32_t x) {
    const uint32_t x2 = gsq4(x), x3 = gmul4(x2, x), x6 = gsq4(x3), x12 = gsq4(x6);
    const uint32_t x15 = gmul4(x12, x3), x30 = gsq4(x15), x60 = gsq4(x30);
    const uint32_t x120 = gsq4(x60), x240 = gsq4(x120), x252 = gmul4(x240, x12);
    const uint32_t inv = gmul4(x252, x2);
    uint32_t s = inv;
    for (int k = 1; k <= 4; k++) {
        const uint32_t hi = (0xffu << k) & 0xffu, lo = 0xffu >> (8 - k);
        s ^= ((inv << k) & (hi * 0x01010101u)) | ((inv >> (8 - k)) & (lo * 0x01010101u));
    }
    return s ^ 0x63636363u;
}
#endif

/* On 32-bit words: word w[i] holds bytes w[i][0..3] with byte j at bits 8j..8j+7 (built and
 * taken apart with shifts, so the host's byte order does not matter). RotWord is then a
 * rotation right by 8, and Rcon goes into the low byte. A byte array with a wipe of the
 * temporary every word cost 312 cycles (AVX2, Zen 4). */
void aes128_expand_key(const uint8_t key[16], uint8_t rk[11][16]) {
    uint32_t w[44];
    uint32_t rcon = 1;
    for (int i = 0; i < 4; i++)
        w[i] = (uint32_t)key[4 * i] | (uint32_t)key[4 * i + 1] << 8 | (uint32_t)key[4 * i + 2] << 16 |
               (uint32_t)key[4 * i + 3] << 24;
    for (int i = 4; i < 44; i += 4) {
        /* SubWord(RotWord(w[i-1])) ^ Rcon: byte lane j holds byte (j + 1) % 4 of w[i-1] */
        const uint32_t t = sbox4(w[i - 1] >> 8 | w[i - 1] << 24) ^ rcon;
        w[i] = w[i - 4] ^ t;
        w[i + 1] = w[i - 3] ^ w[i];
        w[i + 2] = w[i - 2] ^ w[i + 1];
        w[i + 3] = w[i - 1] ^ w[i + 2];
        rcon = gmul2((uint8_t)rcon);
    }
    for (int r = 0; r < 11; r++)
        for (int c = 0; c < 4; c++)
            for (int j = 0; j < 4; j++) rk[r][4 * c + j] = (uint8_t)(w[4 * r + c] >> (8 * j));
    wipe(w, sizeof w);
}

#if defined(__GFNI__) && defined(__SSSE3__)
/* With GFNI, one gf2p8affineqb with the 16 bytes as the matrix transposes each 8-byte half as
 * an 8x8 bit matrix: with data bytes 1 << k, byte k of the result takes, in its bit i, bit k of
 * matrix byte 7 - i, so byte 7 - j of a half is gather8(half, 7 - j) below, plane j's byte from
 * that half. One pshufb puts them in the planes' order (low byte of planes[j] from bytes 8..15,
 * high byte from bytes 0..7). The multiplications below cost 340 of a key setup's 650 cycles
 * (AVX2, Zen 4); tests/kat_a.rs checks both forms against an independent key expansion. */
void aes128_bytes_to_planes(const uint8_t b[16], uint16_t planes[8]) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);
    const __m128i t = _mm_gf2p8affine_epi64_epi8(_mm_set1_epi64x((long long)0x8040201008040201ull), v, 0);
    const __m128i idx = _mm_setr_epi8(15, 7, 14, 6, 13, 5, 12, 4, 11, 3, 10, 2, 9, 1, 8, 0);
    _mm_storeu_si128((__m128i *)(void *)planes, _mm_shuffle_epi8(t, idx));
}
#else
/* Bit b of each of the 8 bytes of x (byte i = x >> 8i), packed into one byte with byte i's bit
 * at position 7 - i: the multiplier's terms put them at 63 - i without two terms meeting. */
static uint16_t gather8(uint64_t x, unsigned b) {
    return (uint16_t)((((x >> b) & 0x0101010101010101ull) * 0x8040201008040201ull) >> 56);
}

/* 8 bytes at a time: one multiplication gathers a plane's 8 bits (a bit at a time cost a third
 * of a key setup, 11 round keys). */
void aes128_bytes_to_planes(const uint8_t b[16], uint16_t planes[8]) {
    uint64_t lo = 0, hi = 0;
    for (int i = 7; i >= 0; i--) {
        lo = lo << 8 | b[i];
        hi = hi << 8 | b[8 + i];
    }
    for (unsigned j = 0; j < 8; j++) planes[j] = (uint16_t)(gather8(lo, 7 - j) << 8 | gather8(hi, 7 - j));
    wipe(&lo, sizeof lo);
    wipe(&hi, sizeof hi);
}
#endif

void aes128_planes_to_bytes(const uint16_t planes[8], uint8_t b[16]) {
    for (int i = 0; i < 16; i++) {
        uint8_t v = 0;
        for (int j = 0; j < 8; j++) v |= (uint8_t)(((planes[j] >> (15 - i)) & 1) << (7 - j));
        b[i] = v;
    }
}

void aes128_round_key_planes(const uint8_t key[16], uint16_t rk[88]) {
    uint8_t k[11][16];
    aes128_expand_key(key, k);
    for (int r = 0; r < 11; r++) aes128_bytes_to_planes(k[r], rk + 8 * r);
    wipe(k, sizeof k);
}
