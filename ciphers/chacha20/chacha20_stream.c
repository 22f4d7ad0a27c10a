/* ChaCha20 encryption (RFC 8439 §2.4) on top of the code nakiri generates from chacha20.ua.
 *
 * Vslice (chacha20__SLICING_V, not interleaved, any target, little-endian host): fused. The 16 state registers
 * of one raw call are built directly in the sliced layout (lane i of register j is word j of
 * block i: 15 registers are the same for every call, register 12 holds the block counters
 * counter+i), the raw entry chacha20__ runs, and chacha20__unpack_o transposes its output
 * registers back while XORing them into the buffer (the keystream is never stored). On SIMD
 * targets both are one generated function, chacha20__xor_o (chacha20__HAS_XOR_o), so the
 * output registers are not even stored and reloaded between them (2-4% of a call). Where the
 * generated code has an interleaved kernel (chacha20__XOR_KERNEL_o = K), whole batches of K
 * raw calls go through chacha20__xor_kernel_o instead (K sets of state registers, one per
 * call; 0.87x the time on AVX-512, Intel). Only the final partial batch goes through a
 * staging buffer.
 *
 * Any other slicing: the packed entry `void chacha20__packed(size_t n, const uint32_t *s,
 * uint32_t *o)` on a batch of consecutive states, output words serialised little-endian and
 * XORed. See chacha20_stream.h for the contract. */
#include <string.h>
#include "chacha20_stream.h"
#include "chacha20.h"

/* Blocks per batch: at least one raw call's worth of instances (so the sliced registers are
 * full), and at least 16 blocks (1 KiB) for the narrow targets. */
#define CHACHA20_BATCH (chacha20__INSTANCES < 16 ? 16 : chacha20__INSTANCES)

/* Clears n bytes so that the C compiler cannot drop it as a dead store (the key is in `base`,
 * `sreg` and `states`, the keystream in `oreg` and `ks`; none may outlive the call): memset,
 * then an empty asm that may read the buffer (GCC/clang); elsewhere a volatile write loop. A
 * byte-wise volatile loop cost about 2 KiB of stores at one per cycle per call, an eighth of
 * the time of a 16 KiB message on AVX-512. */
static void wipe(void *p, size_t n) {
#if defined(__GNUC__) || defined(__clang__)
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) *v++ = 0;
#endif
}

static uint32_t load32_le(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

#if defined(chacha20__SLICING_V) && defined(chacha20__INTERLEAVE) && chacha20__INTERLEAVE == 1 && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CHACHA20_FUSED 1
#include <string.h>
/* RB bytes per register, CI blocks per raw call. */
#define CHACHA20_RB sizeof(chacha20__DATATYPE)
#define CHACHA20_CI chacha20__INSTANCES

/* K: raw calls per batch of the interleaved kernel (1: no kernel). */
#ifdef chacha20__XOR_KERNEL_o
#define CHACHA20_K chacha20__XOR_KERNEL_o
#else
#define CHACHA20_K 1
#endif

/* Register 12 = the block counters ctr + i (wrapping mod 2^32), computed in a local array
 * and stored at once (the compiler makes it one vector add and store; 16 scalar stores read
 * back by the kernel's vector load missed store-to-load forwarding). */
static void set_counters(unsigned char *sreg, uint32_t ctr) {
    uint32_t c[CHACHA20_CI];
    for (size_t i = 0; i < CHACHA20_CI; i++) c[i] = ctr + (uint32_t)i;
    memcpy(sreg + 12 * CHACHA20_RB, c, sizeof c);
}

void chacha20_xor(uint8_t *out, const uint8_t *in, size_t len,
                  const uint8_t key[32], const uint8_t nonce[12], uint32_t counter) {
    static const uint32_t sigma[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
    /* The sliced input registers of K raw calls (call c's at sreg + 16 * c registers; the
     * first call's serve the single calls) and the output registers of one. */
    unsigned char sreg[CHACHA20_K * 16 * CHACHA20_RB] __attribute__((aligned(64)));
    unsigned char oreg[16 * CHACHA20_RB] __attribute__((aligned(64)));
    uint32_t base[16];
    if (len == 0) return;
    for (int i = 0; i < 4; i++) base[i] = sigma[i];
    for (int i = 0; i < 8; i++) base[4 + i] = load32_le(key + 4 * i);
    base[12] = 0;
    for (int i = 0; i < 3; i++) base[13 + i] = load32_le(nonce + 4 * i);
    for (size_t c = 0; c < CHACHA20_K; c++)
        for (size_t j = 0; j < 16; j++)
            for (size_t i = 0; i < CHACHA20_CI; i++)
                memcpy(sreg + (16 * c + j) * CHACHA20_RB + 4 * i, &base[j], 4);
    const size_t batch = 64 * CHACHA20_CI;
    size_t done = 0;
    uint32_t ctr = counter;
#ifdef chacha20__XOR_KERNEL_o
    for (; len - done >= CHACHA20_K * batch; done += CHACHA20_K * batch, ctr += (uint32_t)(CHACHA20_K * CHACHA20_CI)) {
        for (size_t c = 0; c < CHACHA20_K; c++)
            set_counters(sreg + 16 * c * CHACHA20_RB, ctr + (uint32_t)(c * CHACHA20_CI));
        chacha20__xor_kernel_o(sreg, (const uint32_t *)(const void *)(in + done), (uint32_t *)(void *)(out + done));
    }
#endif
    for (; len - done >= batch; done += batch, ctr += (uint32_t)CHACHA20_CI) {
        set_counters(sreg, ctr);
#ifdef chacha20__HAS_XOR_o
        /* kernel and output transposition in one function: the keystream stays in registers */
        chacha20__xor_o(sreg, (const uint32_t *)(const void *)(in + done), (uint32_t *)(void *)(out + done));
#else
        chacha20__((chacha20__DATATYPE *)(void *)sreg, (chacha20__DATATYPE *)(void *)oreg);
        chacha20__unpack_o(CHACHA20_CI, oreg, (const uint32_t *)(const void *)(in + done), (uint32_t *)(void *)(out + done));
#endif
    }
    if (done < len) {
        uint32_t ks[16 * CHACHA20_CI];
        const size_t left = len - done, nblocks = (left + 63) / 64;
        set_counters(sreg, ctr);
        chacha20__((chacha20__DATATYPE *)(void *)sreg, (chacha20__DATATYPE *)(void *)oreg);
        chacha20__unpack_o(nblocks, oreg, NULL, ks);
        const uint8_t *kb = (const uint8_t *)ks;
        for (size_t k = 0; k < left; k++) out[done + k] = in[done + k] ^ kb[k];
        wipe(ks, sizeof ks);
    }
    wipe(base, sizeof base);
    wipe(sreg, sizeof sreg);
    wipe(oreg, sizeof oreg);
}
#else
void chacha20_xor(uint8_t *out, const uint8_t *in, size_t len,
                  const uint8_t key[32], const uint8_t nonce[12], uint32_t counter) {
    uint32_t base[16];
    static const uint32_t sigma[4] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u};
    uint32_t states[CHACHA20_BATCH * 16];
    uint32_t ks[CHACHA20_BATCH * 16];
    for (int i = 0; i < 4; i++) base[i] = sigma[i];
    for (int i = 0; i < 8; i++) base[4 + i] = load32_le(key + 4 * i);
    base[12] = counter;
    for (int i = 0; i < 3; i++) base[13 + i] = load32_le(nonce + 4 * i);

    size_t done = 0;
    size_t used = 0; /* blocks of `states` and `ks` written */
    while (done < len) {
        size_t left = len - done;
        size_t nblocks = (left + 63) / 64;
        if (nblocks > CHACHA20_BATCH) nblocks = CHACHA20_BATCH;
        for (size_t b = 0; b < nblocks; b++) {
            for (int j = 0; j < 16; j++) states[16 * b + j] = base[j];
            base[12] += 1; /* next block (wraps mod 2^32) */
        }
        if (nblocks > used) used = nblocks;
        chacha20__packed(nblocks, states, ks);
        size_t nbytes = nblocks * 64 < left ? nblocks * 64 : left;
        for (size_t k = 0; k < nbytes; k++) {
            uint32_t w = ks[k / 4];
            uint8_t byte = (uint8_t)(w >> (8 * (k % 4)));
            out[done + k] = in[done + k] ^ byte;
        }
        done += nbytes;
    }
    wipe(base, sizeof base);
    wipe(states, used * 16 * sizeof states[0]);
    wipe(ks, used * 16 * sizeof ks[0]);
}
#endif
