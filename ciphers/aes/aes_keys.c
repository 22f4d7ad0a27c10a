/* See aes_keys.h. Written from FIPS-197. */
#include "aes_keys.h"
#include <stddef.h>

static uint8_t gmul2(uint8_t a) { return (uint8_t)((a << 1) ^ ((a >> 7) * 0x1b)); }

/* Constant time: the bits of b select a by a mask, never by a branch. */
static uint8_t gmul(uint8_t a, uint8_t b) {
    uint8_t p = 0;
    for (int i = 0; i < 8; i++) {
        p ^= (uint8_t)(a & (uint8_t)(0u - (b & 1u)));
        a = gmul2(a);
        b >>= 1;
    }
    return p;
}

/* Zeroes n bytes through a volatile pointer (a plain memset of a dead buffer may be removed). */
static void wipe(void *p, size_t n) {
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) *v++ = 0;
}

/* S-box from its definition: inverse in GF(2^8) as x^254 (which maps 0 to 0, so no branch on
 * x; the exponent's bits are public), then the affine map. Constant time. */
static uint8_t sbox(uint8_t x) {
    uint8_t r = 1, base = x;
    for (int e = 254; e; e >>= 1) {
        if (e & 1) r = gmul(r, base);
        base = gmul(base, base);
    }
    uint8_t inv = r;
    uint8_t s = inv;
    for (int k = 1; k <= 4; k++) s ^= (uint8_t)((inv << k) | (inv >> (8 - k)));
    return (uint8_t)(s ^ 0x63);
}

void aes128_expand_key(const uint8_t key[16], uint8_t rk[11][16]) {
    uint8_t w[44][4];
    uint8_t rcon = 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) w[i][j] = key[4 * i + j];
    for (int i = 4; i < 44; i++) {
        uint8_t t[4] = {w[i - 1][0], w[i - 1][1], w[i - 1][2], w[i - 1][3]};
        /* i % 4 is public: this branch depends on the position, not on the key. */
        if (i % 4 == 0) {
            uint8_t t0 = t[0];
            t[0] = sbox(t[1]) ^ rcon;
            t[1] = sbox(t[2]);
            t[2] = sbox(t[3]);
            t[3] = sbox(t0);
            rcon = gmul2(rcon);
        }
        for (int j = 0; j < 4; j++) w[i][j] = w[i - 4][j] ^ t[j];
        wipe(t, sizeof t);
    }
    for (int r = 0; r < 11; r++)
        for (int c = 0; c < 4; c++)
            for (int j = 0; j < 4; j++) rk[r][4 * c + j] = w[4 * r + c][j];
    wipe(w, sizeof w);
}

void aes128_bytes_to_planes(const uint8_t b[16], uint16_t planes[8]) {
    for (int j = 0; j < 8; j++) {
        uint16_t v = 0;
        for (int i = 0; i < 16; i++) v |= (uint16_t)(((b[i] >> (7 - j)) & 1) << (15 - i));
        planes[j] = v;
    }
}

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
