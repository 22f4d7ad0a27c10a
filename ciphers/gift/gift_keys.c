/* GIFT-128 key schedule (Banik et al., CHES 2017), written from the specification.
 * See gift_keys.h for the layout. */
#include "gift_keys.h"
#include <stddef.h>

/* Zeroes n bytes through a volatile pointer (a plain memset of a dead buffer may be removed). */
static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--)
        *v++ = 0;
}

static uint16_t rotr16(uint16_t x, unsigned k)
{
    return (uint16_t)((x >> k) | (x << (16 - k)));
}

void gift128_round_keys(const uint8_t key[16], uint32_t rk[40 * 2])
{
    uint16_t k[8]; /* k[i] = k_i */
    for (int i = 0; i < 8; i++)
        k[i] = (uint16_t)(((uint16_t)key[14 - 2 * i] << 8) | key[15 - 2 * i]);
    for (int r = 0; r < 40; r++) {
        rk[2 * r] = ((uint32_t)k[5] << 16) | k[4];
        rk[2 * r + 1] = ((uint32_t)k[1] << 16) | k[0];
        /* k7..k0 <- (k1 >>> 2) || (k0 >>> 12) || k7..k2 */
        uint16_t t1 = rotr16(k[1], 2), t0 = rotr16(k[0], 12);
        for (int i = 0; i < 6; i++)
            k[i] = k[i + 2];
        k[7] = t1;
        k[6] = t0;
    }
    wipe(k, sizeof k); /* the key state: no copy of the key left on the stack */
}

/* Bit m of the result is bit P_3(m) of x, P_3(m) = m/4 + 8*((3*(m%4) + 3) % 4). */
static uint32_t p3_inv(uint32_t x)
{
    uint32_t y = 0;
    for (unsigned m = 0; m < 32; m++)
        y |= ((x >> (m / 4 + 8 * ((3 * (m % 4) + 3) % 4))) & 1u) << m;
    return y;
}

void gift128_fixsliced_round_keys(const uint8_t key[16], uint32_t rk[40 * 2])
{
    gift128_round_keys(key, rk);
    for (int r = 0; r < 40; r++)
        for (int t = 0; t < (r + 1) % 5; t++) {
            rk[2 * r] = p3_inv(rk[2 * r]);
            rk[2 * r + 1] = p3_inv(rk[2 * r + 1]);
        }
}
