/* AES-128 key expansion (FIPS-197 Sec. 5.2) producing the round keys in the bit-plane format
 * of aes_rk.ua's packed API (`const uint16_t *rk`, 11 round keys x 8 planes).
 * Plain C; the S-box is computed from its definition with masks (no table, no key-dependent
 * branch or index), four bytes at a time, or by one gf2p8affineinvqb where the compiler
 * targets GFNI (-march=native on a CPU with it). */
#ifndef AES_KEYS_H
#define AES_KEYS_H
#include <stdint.h>

/* The 11 round keys as FIPS-197 bytes: rk[r][i] = byte i of w[4r..4r+3] (rk[0] = key). */
void aes128_expand_key(const uint8_t key[16], uint8_t rk[11][16]);

/* 16 bytes in FIPS-197 order -> 8 bit planes: bit (15 - i) of planes[j] = bit (7 - j) of b[i]. */
void aes128_bytes_to_planes(const uint8_t b[16], uint16_t planes[8]);
/* Inverse of aes128_bytes_to_planes. */
void aes128_planes_to_bytes(const uint16_t planes[8], uint8_t b[16]);

/* The `rk` argument of aes128_rk__packed: rk[8*r + j] = plane j of round key r. */
void aes128_round_key_planes(const uint8_t key[16], uint16_t rk[88]);

#endif
