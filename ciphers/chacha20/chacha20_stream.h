/* ChaCha20 encryption (RFC 8439 §2.4) on top of the nakiri-generated block function.
 *
 * Build: compile ciphers/chacha20/chacha20.ua with nakiri (any slicing/arch), e.g.
 *     nakiri compile -V --arch avx2 ciphers/chacha20/chacha20.ua -o chacha20.c
 * which writes chacha20.c and chacha20.h; then compile chacha20.c together with
 * chacha20_stream.c (which includes "chacha20.h").
 */
#ifndef NAKIRI_CHACHA20_STREAM_H
#define NAKIRI_CHACHA20_STREAM_H

#include <stddef.h>
#include <stdint.h>

/* XORs `len` bytes of `in` with the ChaCha20 keystream for (key, nonce) starting at block
 * `counter` (RFC 8439: 32-byte key, 12-byte nonce, 32-bit block counter; byte k of the
 * stream is byte k%64 of block counter + k/64, each block serialised little-endian word by
 * word) and writes the result to `out`. Encryption and decryption are the same operation.
 * `out` may equal `in` (in-place); other overlaps are undefined. len may be 0 (in/out may then
 * be NULL). The block counter wraps modulo 2^32 (RFC 8439 limits a message to 2^32 blocks;
 * staying within that limit is the caller's job). Constant time in the key, nonce and data. */
void chacha20_xor(uint8_t *out, const uint8_t *in, size_t len,
                  const uint8_t key[32], const uint8_t nonce[12], uint32_t counter);

#endif
