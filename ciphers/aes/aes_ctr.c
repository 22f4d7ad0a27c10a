/* AES-128-CTR (NIST SP 800-38A) on top of the code nakiri generates from aes.ua
 * (`node aes128 (plain:b8[16], key:b8[16]) returns (cipher:b8[16])`).
 *
 * Bitslice (aes128__SLICING_B, not interleaved, any target, little-endian host): fused. Per raw call of
 * aes128__INSTANCES blocks, the counter blocks T+i are generated directly in the bitsliced
 * layout by a bitsliced adder (register of bit p = lane-wise bits of T+i: the low 6 bits of i
 * are fixed patterns, the rest of each 64-block lane is T + 64*lane broadcast, and the carries
 * are propagated with AND/XOR on whole registers: no transposition); the key is broadcast into
 * its registers once per call (aes128__bcast_key); aes128__unpack_cipher transposes the output
 * registers while XORing them into the buffer. Only the final partial batch is staged.
 *
 * Other slicings: the packed entry `aes128__packed(n, counters, keys, keystream)` on batches of
 * counter blocks and key copies, then XOR. See aes_ctr.h. */
#include <string.h>
#include "aes_ctr.h"
#include "aes.h"

/* Blocks per batch: one raw call's worth of instances (so every sliced register is full),
 * and at least 64 blocks (1 KiB). */
#define AES_CTR_BATCH (aes128__INSTANCES < 64 ? 64 : aes128__INSTANCES)

/* ctr += 1 as a 128-bit big-endian integer, modulo 2^128; branch-free. */
static void ctr_increment(uint8_t ctr[16]) {
    unsigned carry = 1;
    for (int i = 15; i >= 0; i--) {
        carry += ctr[i];
        ctr[i] = (uint8_t)carry;
        carry >>= 8;
    }
}

#if defined(aes128__SLICING_B) && defined(aes128__INTERLEAVE) && aes128__INTERLEAVE == 1 && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AES_RB sizeof(aes128__DATATYPE)
#define AES_CI aes128__INSTANCES

static void wipe(void *p, size_t n) {
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) *v++ = 0;
}

/* Registers of the counter blocks hi:lo + i, i = 0 .. AES_CI-1, in the bitslice layout: bit k
 * of 64-bit lane l of the register of atom p (byte p/8, bit p%8 from the MSB, i.e. bit 127-p
 * of the 128-bit big-endian counter) is that bit of block 64l+k. Branch-free. */
static void sliced_counters(unsigned char *regs, uint64_t hi, uint64_t lo) {
    static const uint64_t pat[6] = {0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull, 0xF0F0F0F0F0F0F0F0ull,
                                    0xFF00FF00FF00FF00ull, 0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull};
    for (size_t l = 0; l < AES_RB / 8; l++) {
        /* base of this lane: hi:lo + 64l (carry without a branch) */
        const uint64_t blo = lo + 64 * (uint64_t)l, bhi = hi + (uint64_t)(blo < lo);
        uint64_t carry = 0;
        for (unsigned b = 0; b < 128; b++) {
            const uint64_t a = (uint64_t)0 - (((b < 64 ? blo >> b : bhi >> (b - 64))) & 1u);
            const uint64_t k = b < 6 ? pat[b] : 0;
            const uint64_t sum = a ^ k ^ carry;
            carry = (a & k) | (carry & (a ^ k));
            memcpy(regs + (127 - b) * AES_RB + 8 * l, &sum, 8);
        }
    }
}

void aes128_ctr_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[16], const uint8_t iv[16]) {
    unsigned char kreg[128 * AES_RB] __attribute__((aligned(64)));
    unsigned char creg[128 * AES_RB] __attribute__((aligned(64)));
    unsigned char oreg[128 * AES_RB] __attribute__((aligned(64)));
    uint64_t hi = 0, lo = 0;
    if (len == 0) return;
    for (int i = 0; i < 8; i++) { hi = hi << 8 | iv[i]; lo = lo << 8 | iv[8 + i]; }
    aes128__bcast_key(key, kreg);
    const size_t batch = 16 * AES_CI;
    size_t done = 0;
    for (;;) {
        const size_t left = len - done;
        sliced_counters(creg, hi, lo);
        aes128__((aes128__DATATYPE (*)[8])(void *)creg, (aes128__DATATYPE (*)[8])(void *)kreg,
                 (aes128__DATATYPE (*)[8])(void *)oreg);
        if (left >= batch) {
            aes128__unpack_cipher(AES_CI, oreg, in + done, out + done);
            done += batch;
            /* next batch: counter += AES_CI (mod 2^128) */
            const uint64_t nlo = lo + AES_CI;
            hi += (uint64_t)(nlo < lo);
            lo = nlo;
            if (done == len) break;
        } else {
            uint8_t ks[16 * AES_CI];
            aes128__unpack_cipher((left + 15) / 16, oreg, NULL, ks);
            for (size_t k = 0; k < left; k++) out[done + k] = in[done + k] ^ ks[k];
            wipe(ks, sizeof ks);
            break;
        }
    }
    wipe(kreg, sizeof kreg);
    wipe(creg, sizeof creg);
    wipe(oreg, sizeof oreg);
    wipe(&hi, sizeof hi);
    wipe(&lo, sizeof lo);
}
#else
void aes128_ctr_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[16], const uint8_t iv[16]) {
    uint8_t ctrs[AES_CTR_BATCH * 16];
    uint8_t keys[AES_CTR_BATCH * 16];
    uint8_t ks[AES_CTR_BATCH * 16];
    uint8_t ctr[16];
    if (len == 0) return;
    memcpy(ctr, iv, 16);

    /* n copies of the key: as many as the largest batch needs. */
    size_t total_blocks = len / 16 + (len % 16 != 0);
    size_t key_copies = total_blocks < AES_CTR_BATCH ? total_blocks : AES_CTR_BATCH;
    for (size_t b = 0; b < key_copies; b++) memcpy(keys + 16 * b, key, 16);

    size_t done = 0;
    while (done < len) {
        size_t left = len - done;
        size_t nblocks = left / 16 + (left % 16 != 0);
        if (nblocks > AES_CTR_BATCH) nblocks = AES_CTR_BATCH;
        for (size_t b = 0; b < nblocks; b++) {
            memcpy(ctrs + 16 * b, ctr, 16);
            ctr_increment(ctr);
        }
        aes128__packed(nblocks, ctrs, keys, ks);
        size_t nbytes = nblocks * 16 < left ? nblocks * 16 : left;
        for (size_t k = 0; k < nbytes; k++) out[done + k] = in[done + k] ^ ks[k];
        done += nbytes;
    }
    /* Do not leave keystream or key copies on the stack (only the used part is wiped): a
     * volatile write loop, which the C compiler cannot drop as dead stores. */
    volatile uint8_t *wipe[3] = {ks, keys, ctrs};
    for (int w = 0; w < 3; w++)
        for (size_t k = 0; k < 16 * key_copies; k++) wipe[w][k] = 0;
}
#endif
