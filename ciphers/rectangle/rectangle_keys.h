/* RECTANGLE-80 key schedule for the Usuba entry `Rectangle` (ciphers/rectangle/rectangle.ua). */
#ifndef RECTANGLE_KEYS_H
#define RECTANGLE_KEYS_H
#include <stdint.h>

/* Expands the 80-bit key into the 26 round keys in the layout of the packed API's `key`
 * parameter (const u16x4[26]): rk[4*r + j] = row j of round key K_r (16-bit integer whose
 * bit i is column i).
 * key[0..10] is the key v79..v0 big-endian: key[0] = v79..v72, key[9] = v7..v0
 * (so key row j = key[8-2j] << 8 | key[9-2j]). */
void rectangle80_round_keys(const uint8_t key[10], uint16_t rk[26 * 4]);

#endif
