/* Test support for the hand-written usubac-style callers of tests/compat (not part of nakiri).
 * A caller includes nakiri's header, defines DATATYPE, declares the entry with usubac's exact
 * signature (a conflicting nakiri prototype is a compile error), then includes this file.
 * The runner passes -DNK_V/-DNK_H/-DNK_B, -DNK_STD (std target) and -DNK_LANE=L (hslice lane
 * bits). Every instance gets the same input, and `get*` checks that every instance agrees.
 * Register layouts: src/target/layout.rs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define NK_U __attribute__((unused))
static int nk_failed = 0;

#define NK_NBITS ((int)(sizeof(DATATYPE) * 8))

NK_U static int nk_bit(const DATATYPE *x, int i) {
    unsigned char b[sizeof(DATATYPE)];
    memcpy(b, x, sizeof b);
    return (b[i / 8] >> (i % 8)) & 1;
}
NK_U static void nk_setbit(DATATYPE *x, int i, int v) {
    unsigned char b[sizeof(DATATYPE)];
    memcpy(b, x, sizeof b);
    b[i / 8] = (unsigned char)((b[i / 8] & ~(1u << (i % 8))) | ((unsigned)(v & 1) << (i % 8)));
    memcpy(x, b, sizeof b);
}
/* One register holding bit v in every instance (bitslice). */
NK_U static DATATYPE nk_bcast_bit(int v) {
    DATATYPE x;
    memset(&x, v ? 0xff : 0, sizeof x);
    return x;
}
NK_U static int nk_read_bit(const DATATYPE *x) {
    int b0 = nk_bit(x, 0);
    for (int i = 1; i < NK_NBITS; i++)
        if (nk_bit(x, i) != b0) { printf("instances disagree\n"); nk_failed = 1; }
    return b0;
}
/* Slot width of an m-bit hslice word (layout.rs, `hslice_slot_bits`). */
NK_U static int nk_slot(int m) {
#ifdef NK_STD
    return NK_LANE / m;
#else
    return (NK_LANE % m == 0 || m >= 16) ? NK_LANE / m : 8 * (16 / m);
#endif
}
/* Lane width of an m-bit vslice word. */
NK_U static int nk_vlane(int m) {
#ifdef NK_STD
    (void)m;
    return NK_NBITS;
#else
    return m <= 8 ? 8 : m <= 16 ? 16 : m <= 32 ? 32 : 64;
#endif
}
/* A register holding the m-bit word v for every instance (vslice or hslice). */
NK_U static DATATYPE put(uint64_t v, int m) {
    DATATYPE x;
    memset(&x, 0, sizeof x);
#if defined(NK_H)
    int l = NK_LANE, s = nk_slot(m);
    for (int lane = 0; lane < NK_NBITS / l; lane++)
        for (int j = 0; j < m; j++)
            for (int i = 0; i < s; i++)
                nk_setbit(&x, lane * l + j * s + i, (int)((v >> (m - 1 - j)) & 1));
#else
    int l = nk_vlane(m);
#if !defined(NK_STD)
    if (m == 1) { x = nk_bcast_bit((int)v); return x; }
#endif
    for (int lane = 0; lane < NK_NBITS / l; lane++)
        for (int i = 0; i < m; i++)
            nk_setbit(&x, lane * l + i, (int)((v >> i) & 1));
#endif
    return x;
}
NK_U static uint64_t get(const DATATYPE *x, int m) {
    uint64_t v = 0;
#if defined(NK_H)
    int l = NK_LANE, s = nk_slot(m);
    for (int j = 0; j < m; j++) {
        int b = nk_bit(x, j * s);
        for (int lane = 0; lane < NK_NBITS / l; lane++)
            for (int i = 0; i < s; i++)
                if (nk_bit(x, lane * l + j * s + i) != b) { printf("instances disagree\n"); nk_failed = 1; }
        v = (v << 1) | (uint64_t)b;
    }
#else
#if !defined(NK_STD)
    if (m == 1) return (uint64_t)nk_read_bit(x);
#endif
    int l = nk_vlane(m);
    for (int i = 0; i < m; i++) v |= (uint64_t)nk_bit(x, i) << i;
    for (int lane = 1; lane < NK_NBITS / l; lane++) {
        uint64_t w = 0;
        for (int i = 0; i < m; i++) w |= (uint64_t)nk_bit(x, lane * l + i) << i;
        if (w != v) { printf("instances disagree\n"); nk_failed = 1; }
    }
    for (int i = m; i < l; i++)
        if (nk_bit(x, i)) { printf("bits above the word are set\n"); nk_failed = 1; }
#endif
    return v;
}
/* Bitslice: the m registers of an m-bit word (MSB first). */
NK_U static void put_bits(DATATYPE *x, uint64_t v, int m) {
    for (int j = 0; j < m; j++) x[j] = nk_bcast_bit((int)((v >> (m - 1 - j)) & 1));
}
NK_U static uint64_t get_bits(const DATATYPE *x, int m) {
    uint64_t v = 0;
    for (int j = 0; j < m; j++) v = (v << 1) | (uint64_t)nk_read_bit(&x[j]);
    return v;
}
/* A word in whichever slicing this build uses: m registers in bitslice, one register else.
 * `x` points at the word's registers (one in V/H). */
NK_U static void put_word(DATATYPE *x, uint64_t v, int m) {
#ifdef NK_B
    put_bits(x, v, m);
#else
    *x = put(v, m);
#endif
}
NK_U static uint64_t get_word(const DATATYPE *x, int m) {
#ifdef NK_B
    return get_bits(x, m);
#else
    return get(x, m);
#endif
}
#define EXPECT(got, want) do { uint64_t g_ = (got), w_ = (want); \
    if (g_ != w_) { printf("%s:%d: %s = %#llx, expected %#llx\n", __FILE__, __LINE__, #got, \
        (unsigned long long)g_, (unsigned long long)w_); nk_failed = 1; } } while (0)
#define DONE() do { if (!nk_failed) printf("ok\n"); return 0; } while (0)
