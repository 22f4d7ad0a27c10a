/* RECTANGLE-80 key schedule (final 2015 version of the specification), plain C.
 * Constant time: no data-dependent branch or memory index (the S-box on the 4 key columns
 * is evaluated as a bitsliced table scan). */
#include "rectangle_keys.h"
#include <stddef.h>

/* Zeroes n bytes through a volatile pointer (a plain memset of a dead buffer may be removed). */
static void wipe(void *p, size_t n) {
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--)
        *v++ = 0;
}

static const uint8_t SBOX[16] = {0x6, 0x5, 0xc, 0xa, 0x1, 0xe, 0x7, 0x9,
                                 0xb, 0x0, 0x3, 0xd, 0x8, 0xf, 0x4, 0x2};

static uint16_t rol16(uint16_t x, unsigned n) {
    return (uint16_t)((x << n) | (x >> (16 - n)));
}

/* S-box lookup without a secret memory index. */
static uint8_t sbox_ct(uint8_t n) {
    uint8_t r = 0;
    for (unsigned v = 0; v < 16; v++) {
        uint8_t eq = (uint8_t)(((unsigned)(n ^ v) - 1u) >> 8); /* 0xff iff n == v */
        r |= SBOX[v] & eq;
    }
    return r;
}

void rectangle80_round_keys(const uint8_t key[10], uint16_t rk[26 * 4]) {
    uint16_t k[5];
    for (int j = 0; j < 5; j++)
        k[j] = (uint16_t)(key[8 - 2 * j] << 8 | key[9 - 2 * j]);
    uint8_t rc = 0x01; /* 5-bit LFSR */
    for (int r = 0; r < 26; r++) {
        for (int j = 0; j < 4; j++)
            rk[4 * r + j] = k[j];
        if (r == 25)
            break;
        /* S-box on the 4 rightmost columns (bits 0..3) of rows 0..3; row 0 = LSB of the nibble. */
        uint16_t out[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4; i++) {
            uint8_t n = 0;
            for (int j = 0; j < 4; j++)
                n |= (uint8_t)(((k[j] >> i) & 1) << j);
            uint8_t o = sbox_ct(n);
            for (int j = 0; j < 4; j++)
                out[j] |= (uint16_t)(((o >> j) & 1) << i);
        }
        for (int j = 0; j < 4; j++)
            k[j] = (uint16_t)((k[j] & 0xfff0) | out[j]);
        /* Generalised Feistel step. */
        uint16_t k0 = k[0];
        k[0] = rol16(k[0], 8) ^ k[1];
        k[1] = k[2];
        k[2] = k[3];
        k[3] = rol16(k[3], 12) ^ k[4];
        k[4] = k0;
        k[0] ^= rc;
        rc = (uint8_t)(((rc << 1) & 0x1f) | (((rc >> 4) ^ (rc >> 2)) & 1));
        wipe(out, sizeof out);
    }
    wipe(k, sizeof k); /* the key state: no copy of the key left on the stack */
}
