/* GIFT-128 key schedule for the vslice Usuba entry `Gift128V` (ciphers/gift/gift_v.ua). */
#ifndef GIFT_KEYS_H
#define GIFT_KEYS_H
#include <stdint.h>

/* Expands the 128-bit key into the 40 round keys in the layout of the packed API's `rk`
 * parameter (const u32x2[40]):
 *   rk[2*r]     = U_r = k5 || k4  (xored into S2 in round r)
 *   rk[2*r + 1] = V_r = k1 || k0  (xored into S1 in round r)
 * as 32-bit integers (bit i of U_r goes to paper bit b_(4i+2), bit i of V_r to b_(4i+1)),
 * where k7..k0 is the key state of round r.
 * key[0..16] is the key k7 || .. || k0 (16-bit words) big-endian: key[0..2] = k7; the same
 * bytes in the paper order and in the GIFT-COFB order.
 * Constant time: only loads, shifts, rotations and xors; no table, no branch on the key. */
void gift128_round_keys(const uint8_t key[16], uint32_t rk[40 * 2]);

#endif
