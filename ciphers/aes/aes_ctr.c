/* AES-128-CTR (NIST SP 800-38A) on top of the code nakiri generates from aes_rk.ua
 * (`node aes128_rk (plain:u16x8, rk:const u16x8[11]) returns (cipher:u16x8)`: AES on 8 bit
 * planes with precomputed round keys, a `const` input) and the plain-C key schedule aes_keys.c.
 * The round keys are computed once per call (aes128_round_key_planes) and prepared into the
 * sliced form once (aes128_rk__prepare_consts): the kernel does no key expansion.
 *
 * Bitslice (aes128_rk__SLICING_B, not interleaved, little-endian host): fused. Where the packed
 * API keeps its prepared consts compact (aes128_rk__HAS_WITH_CONSTS: AVX-512 and AVX2 by default), the kernel
 * called is aes128_rk__with_consts, which reads them so. Per raw call of
 * aes128_rk__INSTANCES blocks, the counter blocks T+i are generated directly in the bitsliced
 * layout (per 64-block lane: the low 6 bits are fixed patterns rotated, every other bit a
 * select between two broadcast bits: no transposition, no carry chain; sliced_counters). The output
 * registers are put in the order in which aes128_rk__unpack_cipher's 16-bit units come out as
 * the FIPS-197 bytes of the keystream (a register copy, below), and that helper transposes them
 * while XORing them into the buffer. Only the final partial batch is staged.
 *
 * Hslice with 128-bit lanes and at least 8 instances (SSE, AVX2, AVX-512, NEON): fused as well.
 * Counter blocks are generated directly in the sliced registers (hslice_counters: a few vector
 * operations per register); the keystream comes back through a bit transposition inside its
 * byte lanes and is XORed into the buffer 16 bytes at a time (second branch below).
 *
 * Other slicings (vslice, hslice on std): batches of aes128_rk__INSTANCES counter blocks (at
 * least 64) converted to planes (aes128_bytes_to_planes), aes128_rk__packed_with, back to
 * bytes, then XOR. */
#include <string.h>
#include "aes_ctr.h"
#include "aes_rk.h"
#include "aes_keys.h"

/* Clears n bytes so that the C compiler cannot drop it as a dead store: memset, then an empty
 * asm that may read the buffer (GCC/clang); elsewhere a volatile write loop. */
static void wipe(void *p, size_t n) {
#if defined(__GNUC__) || defined(__clang__)
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) *v++ = 0;
#endif
}

/* The round keys of `key` in the sliced form the kernel takes (computed once per call); the
 * plain round keys are cleared before returning. */
static void prepare_round_keys(aes128_rk__consts *ks, const uint8_t key[16]) {
    uint16_t rk[88];
    aes128_round_key_planes(key, rk);
    aes128_rk__prepare_consts(ks, rk);
    wipe(rk, sizeof rk);
}

#if defined(aes128_rk__SLICING_B) && defined(aes128_rk__INTERLEAVE) && aes128_rk__INTERLEAVE == 1 && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AES_RB sizeof(aes128_rk__DATATYPE)
#define AES_CI aes128_rk__INSTANCES

/* The register of atom a of a u16x8 parameter (word w = a/16 = bit plane w, Usuba bit
 * r = a%16 = state byte r) holds, for every instance, bit w (MSB first) of byte r. */
#define AES_ATOM(byte, msb_bit) (16 * (msb_bit) + (byte))

/* One register as AES_RB / 8 uint64_t lanes, as in the hslice branch (GCC/clang vector
 * extensions: a few vector instructions per register; the scalar loops over lanes that this
 * replaced did not vectorise well and cost 0.21 c/B of a 1.43 c/B kernel on AVX-512). */
typedef uint64_t aes_v64 __attribute__((vector_size(AES_RB), aligned(AES_RB)));
typedef int64_t aes_s64 __attribute__((vector_size(AES_RB), aligned(AES_RB)));

/* Registers of the counter blocks hi:lo + i, i = 0 .. AES_CI-1, in the bitslice layout: bit k
 * of 64-bit lane l of a register is its bit of block 64l+k. Counter bit b (LSB-numbered in the
 * 128-bit big-endian integer) is bit 7 - b%8 (MSB-first) of byte 15 - b/8.
 * Lane l counts base = T + 64l, base+1, .., base+63. With s = base mod 64, block k's low 6 bits
 * are (s + k) mod 64: bit b < 6 over k is the fixed pattern of bit b of k rotated by s. Its bits
 * >= 6 are those of U = base >> 6 for k < 64 - s and of U + 1 from there on (mask M): each
 * register word is a select between two broadcast bits, with no carry chain between bits.
 * Branch-free; the counter is public, but nothing here depends on its value for timing. */
static void sliced_counters(unsigned char *regs, uint64_t hi, uint64_t lo) {
    enum { NL = AES_RB / 8 };
    static const uint64_t pat[6] = {0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull, 0xF0F0F0F0F0F0F0F0ull,
                                    0xFF00FF00FF00FF00ull, 0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull};
    /* s = base mod 64 is the same in every lane (the lanes' bases are 64 blocks apart) */
    const uint64_t s = lo & 63, nz = (uint64_t)0 - (uint64_t)(s != 0);
    /* blocks k >= 64 - s carry into bit 6 (none when s = 0) */
    const aes_v64 m = (aes_v64){0} + (nz & (~(uint64_t)0 << ((64 - s) & 63)));
    aes_v64 u0l, u0h, u1l, u1h;
    for (size_t l = 0; l < NL; l++) {
        /* base of this lane: hi:lo + 64l (carry without a branch); U = base >> 6 and U + 1 */
        const uint64_t blo = lo + 64 * (uint64_t)l, bhi = hi + (uint64_t)(blo < lo);
        u0l[l] = blo >> 6 | bhi << 58;
        u0h[l] = bhi >> 6;
        u1l[l] = u0l[l] + 1;
        u1h[l] = u0h[l] + (uint64_t)(u1l[l] == 0);
    }
    /* bits 0..5: the patterns rotated by s, the same in every lane */
    for (unsigned b = 0; b < 6; b++) {
        const aes_v64 w = (aes_v64){0} + ((pat[b] >> s) | (pat[b] << ((64 - s) & 63) & nz));
        memcpy(regs + AES_ATOM(15 - b / 8, 7 - b % 8) * AES_RB, &w, AES_RB);
    }
    /* bit b >= 6: bit b - 6 of U (all ones or all zeros per lane), of U + 1 where m is set.
     * Walked from the top bit of each word down: the bit is the word's sign, spread by an
     * arithmetic shift, and the word then shifts left by one. Unrolled, that is five vector
     * operations and a store per register with constant offsets (a shift by a variable count
     * and the index arithmetic per bit cost 0.09 c/B of a 1.8 c/B call on AVX2; now 0.056). */
#define AES_CTR_BITS(u0, u1, b0, n)                                                       \
    do {                                                                                  \
        aes_v64 x_ = (u0) << (64 - (n)), y_ = (u1) << (64 - (n));                         \
        _Pragma("GCC unroll 64")                                                          \
        for (int k_ = (n) - 1; k_ >= 0; k_--) {                                           \
            const unsigned b_ = (b0) + (unsigned)k_;                                      \
            const aes_v64 a_ = (aes_v64)((aes_s64)x_ >> 63);                              \
            const aes_v64 c_ = (aes_v64)((aes_s64)y_ >> 63);                              \
            const aes_v64 w_ = a_ ^ ((a_ ^ c_) & m);                                      \
            memcpy(regs + AES_ATOM(15 - b_ / 8, 7 - b_ % 8) * AES_RB, &w_, AES_RB);      \
            x_ += x_;                                                                     \
            y_ += y_;                                                                     \
        }                                                                                 \
    } while (0)
    AES_CTR_BITS(u0l, u1l, 6, 64);
    AES_CTR_BITS(u0h, u1h, 70, 58);
#undef AES_CTR_BITS
}

/* aes128_rk__unpack_cipher writes instance words as native (little-endian) uint16: the bit of
 * weight 2^(15-r) of word w is register 16w + r. So memory byte 2w+1 (the high byte) takes
 * registers 16w + 0..7 and memory byte 2w (the low byte) registers 16w + 8..15, MSB first.
 * For the memory to be the FIPS-197 keystream bytes, register 16w + r of the unpacked array
 * must be cipher atom (byte 2w+1, bit r) for r < 8 and (byte 2w, bit r-8) for r >= 8. */
static void keystream_order(unsigned char *dst, const unsigned char *oreg) {
    for (unsigned w = 0; w < 8; w++)
        for (unsigned r = 0; r < 16; r++) {
            const unsigned src = r < 8 ? AES_ATOM(2 * w + 1, r) : AES_ATOM(2 * w, r - 8);
            memcpy(dst + (16 * w + r) * AES_RB, oreg + src * AES_RB, AES_RB);
        }
}

void aes128_ctr_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[16], const uint8_t iv[16]) {
    aes128_rk__consts ks __attribute__((aligned(64)));
    unsigned char creg[128 * AES_RB] __attribute__((aligned(64)));
    unsigned char oreg[128 * AES_RB] __attribute__((aligned(64)));
    unsigned char ureg[128 * AES_RB] __attribute__((aligned(64)));
    uint64_t hi = 0, lo = 0;
    if (len == 0) return;
    for (int i = 0; i < 8; i++) { hi = hi << 8 | iv[i]; lo = lo << 8 | iv[8 + i]; }
    prepare_round_keys(&ks, key);
    const size_t batch = 16 * AES_CI;
    size_t done = 0;
    for (;;) {
        const size_t left = len - done;
        sliced_counters(creg, hi, lo);
#ifdef aes128_rk__HAS_WITH_CONSTS
        /* the packed API keeps the round keys compact here (one uint64_t per register) */
        aes128_rk__with_consts((aes128_rk__DATATYPE (*)[16])(void *)creg, ks.rk,
                               (aes128_rk__DATATYPE (*)[16])(void *)oreg);
#else
        aes128_rk__((aes128_rk__DATATYPE (*)[16])(void *)creg, ks.rk,
                    (aes128_rk__DATATYPE (*)[16])(void *)oreg);
#endif
        keystream_order(ureg, oreg);
        if (left >= batch) {
            aes128_rk__unpack_cipher(AES_CI, ureg, (const uint16_t *)(const void *)(in + done),
                                     (uint16_t *)(void *)(out + done));
            done += batch;
            /* next batch: counter += AES_CI (mod 2^128) */
            const uint64_t nlo = lo + AES_CI;
            hi += (uint64_t)(nlo < lo);
            lo = nlo;
            if (done == len) break;
        } else {
            uint16_t ksb[8 * AES_CI];
            aes128_rk__unpack_cipher((left + 15) / 16, ureg, NULL, ksb);
            const uint8_t *k8 = (const uint8_t *)ksb;
            for (size_t k = 0; k < left; k++) out[done + k] = in[done + k] ^ k8[k];
            wipe(ksb, sizeof ksb);
            break;
        }
    }
    aes128_rk__wipe_consts(&ks);
    wipe(creg, sizeof creg);
    wipe(oreg, sizeof oreg);
    wipe(ureg, sizeof ureg);
    wipe(&hi, sizeof hi);
    wipe(&lo, sizeof lo);
}
#elif defined(aes128_rk__SLICING_H) && defined(aes128_rk__INTERLEAVE) && aes128_rk__INTERLEAVE == 1 && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && aes128_rk__INSTANCES >= 8
/* Hslice on 128-bit lanes (SSE, AVX2, AVX-512, NEON): in register j (bit plane j), byte i of
 * 128-bit lane L holds in its bit k bit j (MSB first) of FIPS byte i of block 8L + k. So, per
 * half lane (bytes 8h..8h+7, one uint64_t per plane), taking row r = plane 7 - r, byte i' of row
 * r bit k is bit r of byte 8h+i' of block k: an 8x8 bit transpose inside every byte lane turns
 * the 8 rows into the 8 blocks' 8 bytes, and back (it is its own inverse). Three rounds of
 * masked swaps between rows, on all half lanes of a raw call at once (the loops over them
 * vectorise). The keystream takes this way out; counter blocks are generated in the sliced
 * layout directly (hslice_counters). */
#define AES_RB sizeof(aes128_rk__DATATYPE)
#define AES_CI aes128_rk__INSTANCES
#define AES_HU (AES_RB / 8) /* half lanes per register */

/* One register's bytes as uint64_t lanes, for the C compiler's vector extensions (GCC, clang):
 * the swaps below are then a few vector instructions per register instead of scalar loops.
 * `nakiri bench modes --arch avx2`, 1 MiB: 3.42 -> 2.82 c/B (0.94x -> 0.78x OpenSSL's bsaes);
 * the same with the swaps inlined into the caller measured 2.91, with the counters built in a
 * scalar array and copied 2.87. */
typedef uint64_t aes_v64 __attribute__((vector_size(AES_RB), aligned(AES_RB)));

/* rows[r] <-> its transpose inside each byte lane: afterwards bit r of byte i of rows[k] is
 * what bit k of byte i of rows[r] was. Written out (constant shifts, no loop) so that the
 * rows stay in registers. */
#define AES_SWAP(a, b, d, m) do { const aes_v64 t_ = ((rows[a] >> (d)) ^ rows[b]) & (m); rows[b] ^= t_; rows[a] ^= t_ << (d); } while (0)
static void tr8_bytes(aes_v64 rows[8]) {
    const aes_v64 m4 = (aes_v64){0} + 0x0F0F0F0F0F0F0F0Full;
    const aes_v64 m2 = (aes_v64){0} + 0x3333333333333333ull;
    const aes_v64 m1 = (aes_v64){0} + 0x5555555555555555ull;
    AES_SWAP(0, 4, 4, m4); AES_SWAP(1, 5, 4, m4); AES_SWAP(2, 6, 4, m4); AES_SWAP(3, 7, 4, m4);
    AES_SWAP(0, 2, 2, m2); AES_SWAP(1, 3, 2, m2); AES_SWAP(4, 6, 2, m2); AES_SWAP(5, 7, 2, m2);
    AES_SWAP(0, 1, 1, m1); AES_SWAP(2, 3, 1, m1); AES_SWAP(4, 5, 1, m1); AES_SWAP(6, 7, 1, m1);
}
#undef AES_SWAP

static uint64_t bswap64(uint64_t x) {
    x = (x >> 32) | (x << 32);
    x = ((x & 0xFFFF0000FFFF0000ull) >> 16) | ((x & 0x0000FFFF0000FFFFull) << 16);
    return ((x & 0xFF00FF00FF00FF00ull) >> 8) | ((x & 0x00FF00FF00FF00FFull) << 8);
}

/* The counter blocks T + n, n = 0 .. AES_CI-1, written straight into the hslice registers
 * (no transposition). With T = 8Q + s, block 8L + k is 8(Q + L) + s + k: its bits >= 3 are
 * those of V = 8(Q + L) for k < 8 - s and of V + 8 for k >= 8 - s (byte mask m over k), and
 * its low 3 bits (FIPS byte 15) are (s + k) mod 8: over k, bit b is the fixed pattern of bit
 * b of k rotated by s. So the byte of register j at FIPS byte i of lane L is bit 7 - j of byte
 * i of V or of V + 8, spread over the byte (x*255 as (x << 8) - x) and selected by m, or the
 * pattern. About ten vector operations per register, where building the 8 x AES_CI 64-bit
 * rows in scalar code and bit-transposing them cost 0.19 c/B on AVX2. Branch-free. */
static void hslice_counters(aes128_rk__DATATYPE creg[8], uint64_t hi, uint64_t lo) {
    static const uint8_t pat[3] = {0xAA, 0xCC, 0xF0};
    const uint64_t ones = 0x0101010101010101ull, s = lo & 7, base = lo - s;
    const aes_v64 o1 = (aes_v64){0} + ones;
    /* bit k set iff k >= 8 - s (none when s = 0) */
    const aes_v64 m = (aes_v64){0} + ((0xFF00u >> s) & 0xFFu) * ones;
    aes_v64 v0, v1;
    for (size_t L = 0; L < AES_HU / 2; L++) {
        /* V = T - s + 8L and V + 8, as 128-bit big-endian byte strings */
        const uint64_t l0 = base + 8 * (uint64_t)L, h0 = hi + (uint64_t)(l0 < base);
        const uint64_t l1 = l0 + 8, h1 = h0 + (uint64_t)(l1 < l0);
        v0[2 * L] = bswap64(h0);
        v0[2 * L + 1] = bswap64(l0);
        v1[2 * L] = bswap64(h1);
        v1[2 * L + 1] = bswap64(l1);
    }
    for (unsigned j = 0; j < 8; j++) {
        const aes_v64 a = (v0 >> (7 - j)) & o1, c = (v1 >> (7 - j)) & o1;
        aes_v64 w = (((a << 8) - a) & ~m) | (((c << 8) - c) & m);
        if (j >= 5) {
            /* bit 7 - j < 3 of FIPS byte 15 (the top byte of every odd 64-bit lane) */
            const uint64_t p = pat[7 - j], r = ((p >> s) | (p << (8 - s))) & 0xFF;
            aes_v64 pv = (aes_v64){0};
            for (size_t L = 0; L < AES_HU / 2; L++) pv[2 * L + 1] = r << 56;
            w |= pv;
        }
        memcpy(&creg[j], &w, AES_RB);
    }
}

void aes128_ctr_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[16], const uint8_t iv[16]) {
    aes128_rk__consts ks __attribute__((aligned(64)));
    aes128_rk__DATATYPE creg[8], oreg[8];
    aes_v64 rows[8];
    uint8_t last[16 * AES_CI];
    uint64_t hi = 0, lo = 0;
    if (len == 0) return;
    for (int i = 0; i < 8; i++) { hi = hi << 8 | iv[i]; lo = lo << 8 | iv[8 + i]; }
    prepare_round_keys(&ks, key);
    size_t done = 0;
    while (done < len) {
        hslice_counters(creg, hi, lo);
        aes128_rk__(creg, ks.rk, oreg);
        for (unsigned r = 0; r < 8; r++) memcpy(&rows[r], &oreg[7 - r], AES_RB);
        tr8_bytes(rows);
        /* Row k, lanes 2L and 2L+1: keystream block 8L + k. */
        const size_t left = len - done;
        if (left >= 16 * AES_CI) {
            for (size_t L = 0; L < AES_HU / 2; L++)
                for (unsigned k = 0; k < 8; k++) {
                    typedef uint64_t aes_v2 __attribute__((vector_size(16)));
                    aes_v2 ks16, x;
                    const size_t o = done + 16 * (8 * L + k);
                    memcpy(&ks16, (const unsigned char *)&rows[k] + 16 * L, 16);
                    memcpy(&x, in + o, 16);
                    x ^= ks16;
                    memcpy(out + o, &x, 16);
                }
            done += 16 * AES_CI;
        } else {
            for (size_t L = 0; L < AES_HU / 2; L++)
                for (unsigned k = 0; k < 8; k++) memcpy(last + 16 * (8 * L + k), (const unsigned char *)&rows[k] + 16 * L, 16);
            for (size_t k = 0; k < left; k++) out[done + k] = in[done + k] ^ last[k];
            done = len;
        }
        /* next batch: counter += AES_CI (mod 2^128) */
        const uint64_t nlo = lo + AES_CI;
        hi += (uint64_t)(nlo < lo);
        lo = nlo;
    }
    aes128_rk__wipe_consts(&ks);
    wipe(creg, sizeof creg);
    wipe(oreg, sizeof oreg);
    wipe(rows, sizeof rows);
    wipe(last, sizeof last);
    wipe(&hi, sizeof hi);
    wipe(&lo, sizeof lo);
}
#else
/* Blocks per batch: one raw call's worth of instances (so every sliced register is full),
 * and at least 64 blocks (1 KiB). */
#define AES_CTR_BATCH (aes128_rk__INSTANCES < 64 ? 64 : aes128_rk__INSTANCES)

/* ctr += 1 as a 128-bit big-endian integer, modulo 2^128; branch-free. */
static void ctr_increment(uint8_t ctr[16]) {
    unsigned carry = 1;
    for (int i = 15; i >= 0; i--) {
        carry += ctr[i];
        ctr[i] = (uint8_t)carry;
        carry >>= 8;
    }
}

void aes128_ctr_xor(uint8_t *out, const uint8_t *in, size_t len,
                    const uint8_t key[16], const uint8_t iv[16]) {
    aes128_rk__consts ks __attribute__((aligned(64)));
    uint16_t planes[AES_CTR_BATCH * 8];
    uint8_t block[16];
    uint8_t ctr[16];
    if (len == 0) return;
    memcpy(ctr, iv, 16);
    prepare_round_keys(&ks, key);
    size_t done = 0;
    while (done < len) {
        size_t left = len - done;
        size_t nblocks = left / 16 + (left % 16 != 0);
        if (nblocks > AES_CTR_BATCH) nblocks = AES_CTR_BATCH;
        for (size_t b = 0; b < nblocks; b++) {
            aes128_bytes_to_planes(ctr, planes + 8 * b);
            ctr_increment(ctr);
        }
        aes128_rk__packed_with(nblocks, &ks, planes, planes);
        for (size_t b = 0; b < nblocks; b++) {
            aes128_planes_to_bytes(planes + 8 * b, block);
            size_t nb = left - 16 * b < 16 ? left - 16 * b : 16;
            for (size_t k = 0; k < nb; k++) out[done + 16 * b + k] = in[done + 16 * b + k] ^ block[k];
        }
        done += nblocks * 16 < left ? nblocks * 16 : left;
    }
    /* Do not leave keystream, round keys or their sliced form on the stack. */
    aes128_rk__wipe_consts(&ks);
    wipe(planes, sizeof planes);
    wipe(block, sizeof block);
}
#endif
