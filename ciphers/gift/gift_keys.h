/* GIFT-128 key schedule for the vslice Usuba entry `Gift128V` (ciphers/gift/gift_v.ua, fixsliced):
 * its `rk` parameter takes gift128_fixsliced_round_keys(). */
#ifndef GIFT_KEYS_H
#define GIFT_KEYS_H
#include <stdint.h>

/* Expands the 128-bit key into the 40 round keys, canonical (not fixsliced) representation:
 *   rk[2*r]     = U_r = k5 || k4  (xored into S2 in round r)
 *   rk[2*r + 1] = V_r = k1 || k0  (xored into S1 in round r)
 * as 32-bit integers (bit i of U_r goes to paper bit b_(4i+2), bit i of V_r to b_(4i+1)),
 * where k7..k0 is the key state of round r.
 * key[0..16] is the key k7 || .. || k0 (16-bit words) big-endian: key[0..2] = k7; the same
 * bytes in the paper order and in the GIFT-COFB order.
 * Constant time: only loads, shifts, rotations and xors; no table, no branch on the key. */
void gift128_round_keys(const uint8_t key[16], uint32_t rk[40 * 2]);

/* The same round keys in the fixsliced representation of gift_v.ua (the layout of its `rk`
 * parameter, const u32x2[40]): rk[2*r] = sigma_((r+1) mod 5)(U_r), rk[2*r+1] =
 * sigma_((r+1) mod 5)(V_r), where sigma_k = (P_3^-1)^k as a bit placement (P_3(n) = n/4 +
 * 8*((3*(n%4) + 3) % 4) is GIFT's PermBits restricted to the word S3, LSB-first bit numbers),
 * i.e. bit m of P_3^-1(x) is bit P_3(m) of x. Constant time as well (fixed loops). */
void gift128_fixsliced_round_keys(const uint8_t key[16], uint32_t rk[40 * 2]);

#endif
