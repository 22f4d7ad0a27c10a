//! C text of the transposition routines behind the packed entry point (`codegen::packed`).
//!
//! Every routine converts between *plain* instances (instance-major memory, see
//! `codegen::packed`) and the *sliced* registers of one raw call, in exactly the register
//! layouts of `target::layout` (the authoritative description):
//! - **B**: a lane-parallel 64x64 bit-matrix transpose. A register of R bits is R/64 lanes of
//!   64 bits; lane l holds instances 64l..64l+63. The plain bits of one parameter of one instance
//!   form a bit string (atom a = bit a, MSB-first); it is cut in 64-bit groups. For group g the
//!   64 "rows" k = 0..63 are vectors whose lane l is group g of instance 64l+k; the classic
//!   log-step swap network (6 rounds of masked shift/xor swaps) transposes all R/64 lanes at once,
//!   after which row 63-b *is* the register of atom 64g+b. The same network run backwards (it is
//!   an involution) gives the inverse. So an R x R bit matrix is handled as R/64 x R/64 blocks of
//!   64x64, with R/64 blocks transposed per vector instruction.
//!   On SSE/AVX2/AVX-512 every *whole* group (64 atoms, all inside the bit string) goes through
//!   [`b_group_routines`] instead: the three byte-level rounds of the network are replaced by
//!   byte shuffles (`pshufb` + 4 rounds of `unpack*_epi8`, straight from 16-byte loads of the
//!   plain data, unit order folded into the `pshufb`), and only the three bit-level rounds
//!   (J = 4, 2, 1) stay as masked swaps. Measured on Zen 3, `bench transpose --arch avx2`
//!   (c/B in/out): b8[16] 0.40-0.53/0.41-0.57 -> 0.18/0.19, u16x4 0.32-0.55/0.51-0.81 ->
//!   0.16/0.17, u32x4 0.42-0.50/0.37-0.62 -> 0.18/0.19, u64x2 0.27-0.37/0.42-0.60 -> 0.18/0.19
//!   (memcpy 0.05-0.06); SSE about 0.29/0.30 (was 0.46-0.88/0.51-0.68).
//!   The last, partial group of a string longer than 64 bits whose only partial byte is its
//!   last one also goes through [`b_group_routines`], on the window of 8 bytes that ends with
//!   the string (`nkp_Bw_off`; its first bytes are the previous group's, transposed again to
//!   the same registers), with the atoms past the end neither stored nor read (`nkp_Bw_lim`).
//!   Measured new/old on the packed entry: Subterranean (b257) 0.88-0.90, Spongent (b160)
//!   0.92-0.94, PRESENT 0.90, on SSE/AVX2/AVX-512. Other partial groups (and `std`, NEON)
//!   keep the network: `uint64_t` on `std`, 64-bit
//!   lane shifts elsewhere; groups read and written as one 8-byte word with a unit reversal
//!   (`movbe` for bytes), the vectors of rows built from their lanes in registers.
//! - **V**: lane i of the register of word a is word a of instance i. On SSE/AVX2/AVX-512 the
//!   words go in chunks that never cross a 128-bit lane ([`v_lane_chunks`]): k = 128/m words,
//!   then k/2, ..., 1 for the rest (W need not be a multiple of anything); lane l of a chunk's
//!   vectors is filled with 16-byte (or piecewise, when instances have more words than the
//!   chunk) loads of the instances of that lane, and log2(k) rounds of `unpacklo/hi` in,
//!   log2(G) out transpose them. 16/32/64-bit words still take whole groups of K = R/m words
//!   through the K x K in-register network ([`v_network`]: log2(128/m) unpack rounds then
//!   `vperm2i128` / `vshufi64x2` across lanes), measured slightly faster there; 8-bit words
//!   always take the chunks (the 32x32 byte network spilled: u8x32 0.17-0.26/0.21-0.23 c/B
//!   vs 0.07/0.08 with chunks). Before the chunks, instances with fewer than K words ran the
//!   K x K network on a mostly empty matrix with piecewise tails (u8x4 0.99/2.26 c/B, now
//!   0.05/0.05; u8x16 0.27/0.53, now 0.06/0.07; u16x4 0.20/0.16, now 0.05/0.05). `std` and
//!   NEON: a scalar gather/scatter (`std` has one instance per register anyway).
//! - **H**: 8- and 16-bit words on SSE/AVX2/AVX-512: the V routines, then per register a byte
//!   shuffle and 8x8 bit transposes in 64-bit lanes ([`h_routines_simd`]; one `gf2p8affineqb`
//!   per register instead of three delta swaps when the C compiler targets GFNI, `__GFNI__`). Other word sizes and
//!   `std`: the same 64-bit groups of the instances' bit strings as in B, transposed per block
//!   of 64 instances; each resulting row (one bit position of one word, for 64 instances) is cut
//!   into runs of S = L/m bits, which are the slots of that word's register in consecutive lanes
//!   (L = 128, or 64 on `std`); whole-byte runs are copied straight into the registers.
//! - `const` inputs are never transposed: `nkp_bcast_{B,V,H}_uU` write the broadcast value
//!   straight into the registers.
//! - Odd word sizes (not 8/16/32/64) travel as bit strings: in B and H they are read and
//!   written directly as byte units; `std` vslice converts them with `nkp_bits_to_words` /
//!   `nkp_words_to_bits` (one `uint64_t` per word).
//!
//! All routines are `static`, prefixed `nkp_`, suffixed with the arch, wrapped in include
//! guards (so several packed entry points can share one translation unit) and carry the
//! target attribute they need, so the file compiles with no `-m` flag.
//! None of them branches on or indexes memory by data (only by public sizes).

use crate::ir::Slicing;
use crate::target::{instances_per_call, Arch};

/// `__attribute__((target(..)))` a function using this arch's registers needs ("" if none);
/// the same as the raw entry's.
pub fn target_attr(arch: Arch) -> &'static str {
    super::target_attribute(arch)
}

/// The C type of one register (the raw entry's `DATATYPE`) for this layout. `m` = word size of
/// the atoms (ignored in bitslice).
pub fn reg_type(arch: Arch, slicing: Slicing, m: u32) -> String {
    super::datatype(arch, slicing, m).to_string()
}

/// Smallest of 8/16/32/64 that is >= m.
pub fn std_bits(m: u32) -> u32 {
    super::std_container_bits(m)
}

/// Whether m is 8, 16, 32 or 64 (a word stored as a native integer in the packed API).
pub fn is_native(m: u32) -> bool {
    matches!(m, 8 | 16 | 32 | 64)
}

/// Instances per raw call (see `target::instances_per_call`).
pub fn instances(arch: Arch, slicing: Slicing, m: u32) -> usize {
    instances_per_call(arch, slicing, m)
}

fn suffix(arch: Arch) -> &'static str {
    arch.name()
}

/// Vector of 64-bit lanes used by the B transposer, and its operations.
fn vec_ops(arch: Arch) -> &'static str {
    match arch {
        Arch::Std => {
            r#"#define NKP_VT_std uint64_t
#define NKP_VL_std 1
#define NKP_SRL_std(a, j) ((a) >> (j))
#define NKP_SLL_std(a, j) ((a) << (j))
#define NKP_AND_std(a, b) ((a) & (b))
#define NKP_XOR_std(a, b) ((a) ^ (b))
#define NKP_SET1_std(x) ((uint64_t)(x))
#define NKP_LOADU_std(p) (*(p))
#define NKP_STOREU_std(p, v) (*(p) = (v))
#define NKP_SETL_std(t) ((t)[0])
#define NKP_GETL_std(t, v) ((t)[0] = (v))
"#
        }
        Arch::Sse => {
            r#"#define NKP_VT_sse __m128i
#define NKP_VL_sse 2
#define NKP_SRL_sse(a, j) _mm_srli_epi64(a, j)
#define NKP_SLL_sse(a, j) _mm_slli_epi64(a, j)
#define NKP_AND_sse(a, b) _mm_and_si128(a, b)
#define NKP_XOR_sse(a, b) _mm_xor_si128(a, b)
#define NKP_SET1_sse(x) _mm_set1_epi64x((long long)(x))
#define NKP_LOADU_sse(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define NKP_STOREU_sse(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)
#define NKP_SETL_sse(t) _mm_set_epi64x((long long)(t)[1], (long long)(t)[0])
#define NKP_GETL_sse(t, v) do { (t)[0] = (uint64_t)_mm_cvtsi128_si64(v); (t)[1] = (uint64_t)_mm_extract_epi64(v, 1); } while (0)
"#
        }
        Arch::Avx2 => {
            r#"#define NKP_VT_avx2 __m256i
#define NKP_VL_avx2 4
#define NKP_SRL_avx2(a, j) _mm256_srli_epi64(a, j)
#define NKP_SLL_avx2(a, j) _mm256_slli_epi64(a, j)
#define NKP_AND_avx2(a, b) _mm256_and_si256(a, b)
#define NKP_XOR_avx2(a, b) _mm256_xor_si256(a, b)
#define NKP_SET1_avx2(x) _mm256_set1_epi64x((long long)(x))
#define NKP_LOADU_avx2(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define NKP_STOREU_avx2(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define NKP_SETL_avx2(t) _mm256_set_epi64x((long long)(t)[3], (long long)(t)[2], (long long)(t)[1], (long long)(t)[0])
#define NKP_GETL_avx2(t, v) _mm256_storeu_si256((__m256i *)(void *)(t), v)
"#
        }
        Arch::Avx512 => {
            r#"#define NKP_VT_avx512 __m512i
#define NKP_VL_avx512 8
#define NKP_SRL_avx512(a, j) _mm512_srli_epi64(a, j)
#define NKP_SLL_avx512(a, j) _mm512_slli_epi64(a, j)
#define NKP_AND_avx512(a, b) _mm512_and_si512(a, b)
#define NKP_XOR_avx512(a, b) _mm512_xor_si512(a, b)
#define NKP_SET1_avx512(x) _mm512_set1_epi64((long long)(x))
#define NKP_LOADU_avx512(p) _mm512_loadu_si512((const void *)(p))
#define NKP_STOREU_avx512(p, v) _mm512_storeu_si512((void *)(p), v)
#define NKP_SETL_avx512(t) _mm512_set_epi64((long long)(t)[7], (long long)(t)[6], (long long)(t)[5], (long long)(t)[4], (long long)(t)[3], (long long)(t)[2], (long long)(t)[1], (long long)(t)[0])
#define NKP_GETL_avx512(t, v) _mm512_storeu_si512((void *)(t), v)
"#
        }
        Arch::Neon => {
            r#"#define NKP_VT_neon uint64x2_t
#define NKP_VL_neon 2
#define NKP_SRL_neon(a, j) vshrq_n_u64(a, j)
#define NKP_SLL_neon(a, j) vshlq_n_u64(a, j)
#define NKP_AND_neon(a, b) vandq_u64(a, b)
#define NKP_XOR_neon(a, b) veorq_u64(a, b)
#define NKP_SET1_neon(x) vdupq_n_u64((uint64_t)(x))
#define NKP_LOADU_neon(p) vld1q_u64((const uint64_t *)(p))
#define NKP_STOREU_neon(p, v) vst1q_u64((uint64_t *)(p), v)
#define NKP_SETL_neon(t) vld1q_u64((const uint64_t *)(t))
#define NKP_GETL_neon(t, v) vst1q_u64((uint64_t *)(t), v)
"#
        }
    }
}

/// Includes, the scalar 64x64 transpose, bit-string helpers, and group loads/stores.
/// Needed by every packed entry point.
pub fn common() -> String {
    COMMON.to_string()
}

const COMMON: &str = r#"#ifndef NKP_COMMON_DEFINED
#define NKP_COMMON_DEFINED
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#if defined(__aarch64__) || defined(__ARM_NEON)
#include <arm_neon.h>
#endif
#define NKP_UNUSED __attribute__((unused))

/* Clears n bytes at p so that the compiler cannot remove it as a dead store (secrets must not
   outlive the call): memset, then an empty asm that may read *p (the technique of glibc's
   explicit_bzero); elsewhere a volatile write loop. */
static NKP_UNUSED void nkp_wipe(void *p, size_t n) {
#if defined(__GNUC__) || defined(__clang__)
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile unsigned char *v = (volatile unsigned char *)p;
    while (n--) *v++ = 0;
#endif
}

/* Prefetches for writing the n bytes at p (every 64-byte line): the XOR kernels issue it for
   their output before the computation, so that the lines' read for
   ownership overlaps it rather than stalling the stores at the end (README, "Output lines
   prefetched for writing"). A hint: no fault, no effect on the result. */
static inline NKP_UNUSED void nkp_prefetchw(const void *p, size_t n) {
#if defined(__GNUC__) || defined(__clang__)
    for (size_t q = 0; q < n; q += 64) __builtin_prefetch((const char *)p + q, 1, 3);
    if (n) __builtin_prefetch((const char *)p + n - 1, 1, 3);
#else
    (void)p; (void)n;
#endif
}

/* Bitslice on x86 SIMD: the last, partial 64-bit group of a bit string of `natoms` bits in
   units of `ub` bits (more than 64 bits in all) goes through the whole-group routine on the
   window of 8 bytes that ends with the unit holding the last bit: nkp_Bw_off is its first byte,
   nkp_Bw_lim how many of its 64 atoms exist (the window is used when only its last byte is
   partial, i.e. lim > 56). */
static NKP_UNUSED size_t nkp_Bw_off(size_t natoms, size_t ub) { return (natoms + ub - 1) / ub * (ub / 8) - 8; }
static NKP_UNUSED size_t nkp_Bw_lim(size_t natoms, size_t ub) { return natoms - 8 * nkp_Bw_off(natoms, ub); }
/* Whether the last group, g (whole groups before it), is partial and takes that window. */
#define NKP_BW_PARTIAL(natoms, g, ub) ((g) > 0 && 64 * (g) < (natoms) && nkp_Bw_lim((natoms), (ub)) > 56)

/* Registers the C compiler spilled in the raw entry's frames are not buffers of ours; compile
   with -DNAKIRI_SCRUB_STACK=<bytes> to have the packed entry also clear that much stack below
   its own frame after the raw calls (sized by the caller: the spills' depth is the compiler's). */
#ifdef NAKIRI_SCRUB_STACK
static __attribute__((noinline)) void nkp_scrub_stack(void) {
    unsigned char nkp_b[NAKIRI_SCRUB_STACK];
    nkp_wipe(nkp_b, sizeof nkp_b);
}
#endif

/* Plain instances are read and written through memcpy: the packed API works on buffers of
   any alignment (an odd address is fine), at no measured cost (README). Which widths a file
   reads or writes depends on its routines, so they are NKP_UNUSED like the rest of this part. */
#define NKP_LDST(UB) \
static inline NKP_UNUSED uint##UB##_t nkp_ld_u##UB(const void *p) { uint##UB##_t v; memcpy(&v, p, sizeof v); return v; } \
static inline NKP_UNUSED void nkp_st_u##UB(void *p, uint##UB##_t v) { memcpy(p, &v, sizeof v); }
NKP_LDST(8)
NKP_LDST(16)
NKP_LDST(32)
NKP_LDST(64)

/* One round of the log-step 64x64 bit transpose on rows x[0..63] of type VT: for every row k
   with bit J of k clear, swaps the bits of x[k] at positions p+J (p with bit J clear) with the
   bits of x[k|J] at positions p. After the rounds J = 32,16,8,4,2,1:
   (bit c of x[r]) <-> (bit r of x[c]), i.e. x[j] bit k = old x[k] bit j (LSB-numbered). */
#define NKP_TR_ROUND(VT, SRL, SLL, AND, XOR, SET1, x, J, M) do { \
    const VT nkp_m_ = SET1(M); \
    _Pragma("GCC unroll 32") \
    for (int nkp_k = 0; nkp_k < 64; nkp_k = ((nkp_k | (J)) + 1) & ~(J)) { \
        VT nkp_t_ = AND(XOR(SRL(x[nkp_k], J), x[nkp_k | (J)]), nkp_m_); \
        x[nkp_k | (J)] = XOR(x[nkp_k | (J)], nkp_t_); \
        x[nkp_k] = XOR(x[nkp_k], SLL(nkp_t_, J)); \
    } } while (0)
#define NKP_TR64(VT, SRL, SLL, AND, XOR, SET1, x) do { \
    NKP_TR_ROUND(VT, SRL, SLL, AND, XOR, SET1, x, 32, 0x00000000FFFFFFFFULL); \
    NKP_TR_ROUND(VT, SRL, SLL, AND, XOR, SET1, x, 16, 0x0000FFFF0000FFFFULL); \
    NKP_TR_ROUND(VT, SRL, SLL, AND, XOR, SET1, x, 8, 0x00FF00FF00FF00FFULL); \
    NKP_TR_ROUND(VT, SRL, SLL, AND, XOR, SET1, x, 4, 0x0F0F0F0F0F0F0F0FULL); \
    NKP_TR_ROUND(VT, SRL, SLL, AND, XOR, SET1, x, 2, 0x3333333333333333ULL); \
    NKP_TR_ROUND(VT, SRL, SLL, AND, XOR, SET1, x, 1, 0x5555555555555555ULL); \
    } while (0)

#define NKP_S_SRL(a, j) ((a) >> (j))
#define NKP_S_SLL(a, j) ((a) << (j))
#define NKP_S_AND(a, b) ((a) & (b))
#define NKP_S_XOR(a, b) ((a) ^ (b))
#define NKP_S_SET1(x) ((uint64_t)(x))

/* Scalar 64x64 bit transpose in place: afterwards x[j] bit k = before x[k] bit j. */
static NKP_UNUSED void nkp_tr64(uint64_t x[64]) {
    NKP_TR64(uint64_t, NKP_S_SRL, NKP_S_SLL, NKP_S_AND, NKP_S_XOR, NKP_S_SET1, x);
}

/* Bit strings: word w (m bits) of an instance is bits [w*m, (w+1)*m) of the instance's bytes,
   bit 0 = MSB of byte 0. Converts cnt instances of bpi bytes to/from W uint64_t words each. */
static NKP_UNUSED void nkp_bits_to_words(const uint8_t *src, size_t bpi, size_t W, unsigned m,
                                         size_t cnt, uint64_t *dst) {
    for (size_t i = 0; i < cnt; i++)
        for (size_t w = 0; w < W; w++) {
            uint64_t v = 0;
            for (unsigned b = 0; b < m; b++) {
                size_t pos = w * m + b;
                v = (v << 1) | ((src[i * bpi + pos / 8] >> (7 - pos % 8)) & 1u);
            }
            dst[i * W + w] = v;
        }
}
static NKP_UNUSED void nkp_words_to_bits(const uint64_t *src, size_t W, unsigned m, size_t cnt,
                                         size_t bpi, uint8_t *dst) {
    for (size_t i = 0; i < cnt; i++) {
        memset(dst + i * bpi, 0, bpi);
        for (size_t w = 0; w < W; w++)
            for (unsigned b = 0; b < m; b++) {
                size_t pos = w * m + b;
                unsigned bit = (unsigned)(src[i * W + w] >> (m - 1 - b)) & 1u;
                dst[i * bpi + pos / 8] |= (uint8_t)(bit << (7 - pos % 8));
            }
    }
}

/* Broadcasts of one plain instance (every instance equal, e.g. a const input) straight into
   registers of rbytes bytes, with no transposition. B: register a is all ones where bit a of
   the instance's bit string is set. V: every m-bit lane of register a is word a. H: slot j
   (S = lbits/m bits) of every lane of register a is all ones where bit j of word a is set. */
/* B: the n registers (rbytes each, from dst) of bits ub-1, ub-2, .. of w: all ones where the
   bit is set. With GCC/clang vector extensions one vector shift, AND and negation per register
   (the scalar form took 14 instructions per register: AES round keys on AVX2 3.5k cycles). */
#if defined(__GNUC__) || defined(__clang__)
typedef uint64_t nkp_bv16 __attribute__((vector_size(16)));
typedef uint64_t nkp_bv32 __attribute__((vector_size(32)));
typedef uint64_t nkp_bv64 __attribute__((vector_size(64)));
#define NKP_BCAST_BITS_VEC(VT, NB) \
    if (rbytes == NB) { \
        const VT x = (VT){0} + w; \
        for (size_t k = 0; k < n; k++) { \
            const VT v = (VT){0} - ((x >> (ub - 1 - k)) & 1); \
            memcpy(dst + NB * k, &v, NB); \
        } \
        return; \
    }
#else
#define NKP_BCAST_BITS_VEC(VT, NB)
#endif
static inline NKP_UNUSED void nkp_bcast_bits(uint64_t w, unsigned ub, size_t n, size_t rbytes, char *dst) {
    NKP_BCAST_BITS_VEC(nkp_bv16, 16)
    NKP_BCAST_BITS_VEC(nkp_bv32, 32)
    NKP_BCAST_BITS_VEC(nkp_bv64, 64)
    for (size_t k = 0; k < n; k++) {
        const uint64_t pat = (uint64_t)0 - ((w >> (ub - 1 - k)) & 1u);
        for (size_t l = 0; l < rbytes / 8; l++) memcpy(dst + k * rbytes + 8 * l, &pat, 8);
    }
}
#define NKP_BCAST_FUNS(T, UB) \
static NKP_UNUSED void nkp_bcast_B_u##UB(const T *src, size_t natoms, size_t rbytes, void *regs) { \
    for (size_t u = 0; u * UB < natoms; u++) \
        nkp_bcast_bits((uint64_t)nkp_ld_u##UB(src + u), UB, natoms - u * UB < UB ? natoms - u * UB : UB, rbytes, (char *)regs + u * UB * rbytes); \
} \
static NKP_UNUSED void nkp_bcast_V_u##UB(const T *src, size_t W, size_t rbytes, void *regs) { \
    for (size_t a = 0; a < W; a++) { \
        const uint64_t w = (uint64_t)nkp_ld_u##UB(src + a); \
        uint64_t pat = 0; \
        for (unsigned k = 0; k < 64 / UB; k++) pat |= w << ((k * UB) & 63); \
        for (size_t l = 0; l < rbytes / 8; l++) memcpy((char *)regs + a * rbytes + 8 * l, &pat, 8); \
    } \
} \
static NKP_UNUSED void nkp_bcast_H_u##UB(const T *src, size_t W, unsigned m, size_t lbits, size_t rbytes, void *regs) { \
    const size_t S = lbits / m; \
    for (size_t a = 0; a < W; a++) { \
        uint64_t lane[2] = {0, 0}; \
        if (S == 8 && lbits % 64 == 0) { \
            /* 8 slots of a byte each per 64-bit lane word: their 8 bits are 8 aligned bits of \
               one word (m and UB are multiples of 8); byte i takes bit 7 - i (replicate, mask), \
               and a nonzero byte becomes 0xFF. A bit at a time cost 1.9k cycles for AES's 88 \
               round-key registers. */ \
            for (size_t g = 0; g < lbits / 64; g++) { \
                const size_t pos = a * m + 8 * g; \
                const uint64_t b = ((uint64_t)nkp_ld_u##UB(src + pos / UB) >> (UB - 8 - pos % UB)) & 0xFFu; \
                const uint64_t x = (b * 0x0101010101010101ull) & 0x0102040810204080ull; \
                const uint64_t h = ((x + 0x7F7F7F7F7F7F7F7Full) | x) & 0x8080808080808080ull; \
                lane[g] = (h >> 7) * 0xFFu; \
            } \
        } else \
        for (unsigned j = 0; j < m; j++) { \
            const size_t pos = a * m + j; \
            const uint64_t pat = (uint64_t)0 - (((uint64_t)nkp_ld_u##UB(src + pos / UB) >> (UB - 1 - pos % UB)) & 1u); \
            if (S >= 64) { for (size_t q = 0; q < S / 64; q++) lane[(j * S) / 64 + q] = pat; } \
            else lane[(j * S) / 64] |= (pat & (((uint64_t)1 << (S & 63)) - 1)) << ((j * S) % 64); \
        } \
        for (size_t l = 0; l < rbytes / 8; l++) memcpy((char *)regs + a * rbytes + 8 * l, &lane[l % (lbits / 64)], 8); \
    } \
}
NKP_BCAST_FUNS(uint8_t, 8)
NKP_BCAST_FUNS(uint16_t, 16)
NKP_BCAST_FUNS(uint32_t, 32)
NKP_BCAST_FUNS(uint64_t, 64)
#endif /* NKP_COMMON_DEFINED */
"#;

/// The bitslice group loads and stores (`nkp_ldgrp_uU`, `nkp_stgrp_uU`, and the unit
/// reversals `nkp_unit_rev_uU` they use), which only the
/// 64x64-transposition paths of [`b_routines`] read (bitslice, and hslice through them): emitted
/// with those routines, once per file, not in [`common`], where a vslice program's C had them
/// unused (8 `-Wunused-function` warnings from clang per file).
const GRP_FUNS: &str = r#"#ifndef NKP_GRP_DEFINED
#define NKP_GRP_DEFINED
/* Reverses the order of the UB-bit units of a 64-bit value (host little endian: the units
   loaded as one uint64_t come least significant first; a group wants the first unit on top). */
static inline uint64_t nkp_unit_rev_u8(uint64_t x) { return __builtin_bswap64(x); }
static inline uint64_t nkp_unit_rev_u16(uint64_t x) {
    x = (x >> 32) | (x << 32);
    return ((x & 0xFFFF0000FFFF0000ULL) >> 16) | ((x & 0x0000FFFF0000FFFFULL) << 16);
}
static inline uint64_t nkp_unit_rev_u32(uint64_t x) { return (x >> 32) | (x << 32); }
static inline uint64_t nkp_unit_rev_u64(uint64_t x) { return x; }
/* Group g of a bit string stored as `units` native words of UB bits (MSB-first concatenation):
   the big-endian 64 bits starting at bit 64g, zero past the end. */
#define NKP_GRP_FUNS(T, UB) \
static inline uint64_t nkp_ldgrp_u##UB(const T *p, size_t units, size_t g) { \
    const size_t per = 64 / UB, u0 = g * per; \
    uint64_t r = 0; \
    if (u0 + per <= units) { \
        /* whole group: one 8-byte load, then the units reversed (a byte swap for bytes) */ \
        r = nkp_unit_rev_u##UB(nkp_ld_u64(p + u0)); \
    } else { \
        for (size_t q = 0; q < per; q++) \
            r = (UB == 64 ? 0 : r << (UB & 63)) | (u0 + q < units ? (uint64_t)nkp_ld_u##UB(p + u0 + q) : 0); \
    } \
    return r; \
} \
static inline void nkp_stgrp_u##UB(T *p, size_t units, size_t g, uint64_t v) { \
    const size_t per = 64 / UB, u0 = g * per; \
    if (u0 + per <= units) { nkp_st_u64(p + u0, nkp_unit_rev_u##UB(v)); return; } \
    for (size_t q = 0; q < per; q++) \
        if (u0 + q < units) nkp_st_u##UB(p + u0 + q, (T)(v >> ((64 - UB * (q + 1)) & 63))); \
}
NKP_GRP_FUNS(uint8_t, 8)
NKP_GRP_FUNS(uint16_t, 16)
NKP_GRP_FUNS(uint32_t, 32)
NKP_GRP_FUNS(uint64_t, 64)
#endif /* NKP_GRP_DEFINED */
"#;

/// The generic bitslice outbound (any target): 64x64 transposes and group stores.
const B_OUT_GENERIC: &str = r#"static NKP_UNUSED $ATTR void nkp_B_out_u$UB_$A(const void *regs, size_t units, size_t natoms, uint$UB_t *dst) {
    NKP_VT_$A x[64];
    uint64_t tmp[NKP_VL_$A];
    for (size_t g = 0; g * 64 < natoms; g++) {
        size_t nb = natoms - 64 * g;
        if (nb > 64) nb = 64;
        for (size_t b = 0; b < 64; b++) {
            if (b < nb) memcpy(&x[63 - b], (const char *)regs + (64 * g + b) * sizeof(NKP_VT_$A), sizeof(NKP_VT_$A));
            else x[63 - b] = NKP_SET1_$A(0);
        }
        nkp_tr64_$A(x);
        for (size_t k = 0; k < 64; k++) {
            NKP_GETL_$A(tmp, x[k]);
            for (size_t l = 0; l < NKP_VL_$A; l++)
                nkp_stgrp_u$UB(dst + (64 * l + k) * units, units, g, tmp[l]);
        }
    }
    nkp_wipe(x, sizeof x);
    nkp_wipe(tmp, sizeof tmp);
}
"#;

/// The SIMD bitslice outbound: `nkp_B_outx_uU_<A>(regs, units, natoms, xs, dst)` writes
/// `dst` = the instances XOR `xs` (same layout; `xs` may be `dst`, or NULL for a plain
/// unpack), and `nkp_B_out_uU_<A>` is it with `xs` = NULL. Pairs of whole 64-atom groups take
/// `nkp_Bg2_out` (one 16-byte store per instance and pair) while the pair's 16 bytes lie
/// inside the instance (instances of 16 bytes or more: all of a multiple of 16, the 16-byte
/// prefixes of 20-, 33- or 40-byte ones), single whole groups `nkp_Bg_out`; a last partial group the shuffle routine's
/// window (which rewrites bytes already written: without `xs` only) or the 64x64 transposes.
const B_OUTX_SIMD: &str = r#"static NKP_UNUSED $ATTR void nkp_B_outx_u$UB_$A(const void *regs, size_t units, size_t natoms, const uint$UB_t *xs, uint$UB_t *dst) {
    NKP_VT_$A x[128];
    uint64_t tmp[NKP_VL_$A];
    const size_t bpi = units * sizeof(uint$UB_t);
    size_t g = 0, used = 64;
    if (bpi >= 16 && 128 <= natoms) {
        for (; 64 * (g + 2) <= natoms && 8 * g + 16 <= bpi; g += 2) nkp_Bg2_out_u$UB_$A((const char *)regs, bpi, 8 * g, (const char *)xs, (char *)dst, x);
        used = 128;
    }
    for (; 64 * (g + 1) <= natoms; g++) nkp_Bg_out_u$UB_$A((const char *)regs, bpi, 8 * g, 64, xs, dst, x);
    if (!xs && NKP_BW_PARTIAL(natoms, g, $UB)) { nkp_Bg_out_u$UB_$A((const char *)regs, bpi, nkp_Bw_off(natoms, $UB), nkp_Bw_lim(natoms, $UB), NULL, dst, x); g++; }
    for (; g * 64 < natoms; g++) {
        size_t nb = natoms - 64 * g;
        if (nb > 64) nb = 64;
        for (size_t b = 0; b < 64; b++) {
            if (b < nb) memcpy(&x[63 - b], (const char *)regs + (64 * g + b) * sizeof(NKP_VT_$A), sizeof(NKP_VT_$A));
            else x[63 - b] = NKP_SET1_$A(0);
        }
        nkp_tr64_$A(x);
        for (size_t k = 0; k < 64; k++) {
            NKP_GETL_$A(tmp, x[k]);
            for (size_t l = 0; l < NKP_VL_$A; l++)
                nkp_stgrp_u$UB(dst + (64 * l + k) * units, units, g, tmp[l] ^ (xs ? nkp_ldgrp_u$UB(xs + (64 * l + k) * units, units, g) : 0));
        }
    }
    nkp_wipe(x, used * sizeof x[0]);
    nkp_wipe(tmp, sizeof tmp);
}
static NKP_UNUSED $ATTR void nkp_B_out_u$UB_$A(const void *regs, size_t units, size_t natoms, uint$UB_t *dst) {
    nkp_B_outx_u$UB_$A(regs, units, natoms, NULL, dst);
}
"#;

/// Bitslice routines for `arch`: `nkp_tr64_<A>` (lane-parallel 64x64 transposes) and, for
/// `U` in 8/16/32/64,
/// `nkp_B_in_uU_<A>(const uintU_t *src, size_t units, size_t natoms, void *regs)` — src holds
/// `instances` instances of `units` words each; writes registers `regs[0..natoms)` (an array
/// of the raw entry's `DATATYPE`, any type of the register's size) — and
/// `nkp_B_out_uU_<A>(const void *regs, size_t units, size_t natoms, uintU_t *dst)`.
pub fn b_routines(arch: Arch) -> String {
    let a = suffix(arch);
    let mut s = String::new();
    s.push_str(GRP_FUNS);
    s.push_str(&format!(
        "#ifndef NKP_B_DEFINED_{a}\n#define NKP_B_DEFINED_{a}\n"
    ));
    s.push_str(vec_ops(arch));
    let tr = r#"/* $VL independent 64x64 bit transposes at once (one per 64-bit lane of the vectors). */
static NKP_UNUSED $ATTR void nkp_tr64_$A(NKP_VT_$A x[64]) {
    NKP_TR64(NKP_VT_$A, NKP_SRL_$A, NKP_SLL_$A, NKP_AND_$A, NKP_XOR_$A, NKP_SET1_$A, x);
}
"#;
    s.push_str(&subst(tr, arch));
    let simd = matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512);
    if simd {
        s.push_str(v_vec_ops(arch));
        s.push_str(&v_piece_ops(arch));
    }
    for ub in [8u32, 16, 32, 64] {
        if simd {
            s.push_str(&b_group_routines(arch, ub));
        }
        let t = r#"static NKP_UNUSED $ATTR void nkp_B_in_u$UB_$A(const uint$UB_t *src, size_t units, size_t natoms, void *regs) {
    NKP_VT_$A x[64];
    uint64_t tmp[NKP_VL_$A];
    for (size_t g = 0; g * 64 < natoms; g++) {
        for (size_t k = 0; k < 64; k++) {
            for (size_t l = 0; l < NKP_VL_$A; l++)
                tmp[l] = nkp_ldgrp_u$UB(src + (64 * l + k) * units, units, g);
            x[k] = NKP_SETL_$A(tmp);
        }
        nkp_tr64_$A(x);
        size_t nb = natoms - 64 * g;
        if (nb > 64) nb = 64;
        for (size_t b = 0; b < nb; b++)
            memcpy((char *)regs + (64 * g + b) * sizeof(NKP_VT_$A), &x[63 - b], sizeof(NKP_VT_$A));
    }
    nkp_wipe(x, sizeof x);
    nkp_wipe(tmp, sizeof tmp);
}
"#;
        let t = format!("{t}{B_OUT_GENERIC}");
        let t = if simd {
            t.replace(
                "    uint64_t tmp[NKP_VL_$A];\n    for (size_t g = 0; g * 64 < natoms; g++) {\n        for (size_t k",
                "    uint64_t tmp[NKP_VL_$A];\n    size_t g = nkp_Bg2_in_u$UB_$A(src, units * sizeof(uint$UB_t), natoms, 0, (char *)regs);\n    for (; 64 * (g + 1) <= natoms; g++) nkp_Bg_in_u$UB_$A(src, units * sizeof(uint$UB_t), 8 * g, 64, (char *)regs);\n    if (NKP_BW_PARTIAL(natoms, g, $UB)) { nkp_Bg_in_u$UB_$A(src, units * sizeof(uint$UB_t), nkp_Bw_off(natoms, $UB), nkp_Bw_lim(natoms, $UB), (char *)regs); g++; }\n    for (; g * 64 < natoms; g++) {\n        for (size_t k",
            )
            .replace(B_OUT_GENERIC, B_OUTX_SIMD)
        } else {
            t
        };
        s.push_str(&subst(&t, arch).replace("$UB", &ub.to_string()));
    }
    s.push_str(&format!("#endif /* NKP_B_DEFINED_{a} */\n"));
    s
}

/// Vslice routines for word size `m` and register type `reg_type(arch, V, dm)`.
/// - SIMD (`m` = `dm` in 8/16/32/64): `nkp_V_in_uM_<A>(const uintM_t *src, size_t W, void *regs)`
///   (src = `instances` instances of W words; register a gets word a of instance i in lane i)
///   and `nkp_V_out_uM_<A>(const void *regs, size_t W, uintM_t *dst)`.
/// - `std` (one instance per call; registers are `uintD_t`, D = container of `dm` >= m):
///   `nkp_V_in_uU_std_dD(const uintU_t *src, size_t W, uintD_t *regs)` and
///   `nkp_V_out_uU_std_dD(const uintD_t *regs, size_t W, uintU_t *dst)` with U = m for native
///   words, else U = 64 (words widened to `uint64_t` by `nkp_bits_to_words`).
pub fn v_routines(arch: Arch, m: u32, dm: u32) -> String {
    let a = suffix(arch);
    let mut s = String::new();
    if arch == Arch::Std {
        let u = if is_native(m) { m } else { 64 };
        let d = std_bits(dm);
        s.push_str(&format!(
            "#ifndef NKP_V_DEFINED_std_u{u}_d{d}\n#define NKP_V_DEFINED_std_u{u}_d{d}\n"
        ));
        s.push_str(
            &r#"static NKP_UNUSED void nkp_V_in_u$U_std_d$D(const uint$U_t *src, size_t W, uint$D_t *regs) {
    for (size_t a = 0; a < W; a++) regs[a] = (uint$D_t)nkp_ld_u$U(src + a);
}
static NKP_UNUSED void nkp_V_out_u$U_std_d$D(const uint$D_t *regs, size_t W, uint$U_t *dst) {
    for (size_t a = 0; a < W; a++) nkp_st_u$U(dst + a, (uint$U_t)regs[a]);
}
"#
            .replace("$U", &u.to_string())
            .replace("$D", &d.to_string()),
        );
        s.push_str("#endif\n");
        return s;
    }
    if arch == Arch::Neon {
        return s + &v_scalar_routines(arch, m);
    }
    s.push_str(&format!(
        "#ifndef NKP_V_DEFINED_{a}_{m}\n#define NKP_V_DEFINED_{a}_{m}\n"
    ));
    let k = instances(arch, Slicing::V, m);
    s.push_str(&v_lane_chunks(arch, m));
    let kl = 128 / m;
    let mut tin = String::new();
    let mut tout = String::new();
    if arch == Arch::Avx512
        && m >= 16
        && (kl as usize * 2..k).any(|w| w % kl as usize == 0 && w % 4 == 0)
    {
        // Instances of W = several chunks of 128/m words (below one register's lanes): each
        // chunk's lane l holds 16-byte pieces of instances l*128/m + r, and in memory those
        // pieces follow one another (instance r's chunks, then instance r+1's), so groups of
        // four pieces are whole 512-bit blocks: a 4x4 transposition of 128-bit lanes per
        // group and one store per register, instead of one store per 16-byte piece (Xoodoo's
        // and Gimli's u32x12: 12 stores per 768 bytes against 48).
        let kl_us = kl as usize;
        let log2kl = kl_us.trailing_zeros();
        let mut t = format!(
            "    if (W > {kl} && W < {k} && W % {kl} == 0 && W % 4 == 0) {{
        __m512i q[{k}];
        for (size_t c = 0; c < W / {kl}; c++) {{
            __m512i x[{kl}], y[{kl}];
            (void)y;
            for (size_t j = 0; j < {kl}; j++) x[j] = NKP_VLOADU_avx512((const char *)regs + (c * {kl} + j) * 64);
"
        );
        for _ in 0..log2kl {
            for i in 0..kl_us / 2 {
                t.push_str(&format!(
                    "            y[{}] = _mm512_unpacklo_epi{m}(x[{i}], x[{j}]); y[{}] = _mm512_unpackhi_epi{m}(x[{i}], x[{j}]);
",
                    2 * i,
                    2 * i + 1,
                    j = i + kl_us / 2
                ));
            }
            t.push_str(&format!(
                "            for (int i = 0; i < {kl}; i++) x[i] = y[i];
"
            ));
        }
        t.push_str(&format!(
            "            for (size_t r = 0; r < {kl}; r++) q[r * (W / {kl}) + c] = x[r];
        }}
"
        ));
        t.push_str("        for (size_t j = 0; j < W; j += 4) {\n");
        t.push_str(&lanes_4x4(
            "            ",
            "            ",
            ["q[j]", "q[j + 1]", "q[j + 2]", "q[j + 3]"].map(String::from),
        ));
        t.push_str("            char *d = (char *)dst + 16 * j;\n            if (xs) {\n                const char *x = (const char *)xs + 16 * j;\n                z0 = NKP_VXOR_avx512(z0, NKP_VLOADU_avx512(x));\n                z1 = NKP_VXOR_avx512(z1, NKP_VLOADU_avx512(x + 16 * W));\n                z2 = NKP_VXOR_avx512(z2, NKP_VLOADU_avx512(x + 32 * W));\n                z3 = NKP_VXOR_avx512(z3, NKP_VLOADU_avx512(x + 48 * W));\n            }\n            NKP_VSTOREU_avx512(d, z0);\n            NKP_VSTOREU_avx512(d + 16 * W, z1);\n            NKP_VSTOREU_avx512(d + 32 * W, z2);\n            NKP_VSTOREU_avx512(d + 48 * W, z3);\n        }\n        return;\n    }\n");
        tout.push_str(&t);
    }
    if m >= 16 {
        s.push_str(&v_network(arch, m));
        tin.push_str("    for (; a + $K <= W; a += $K) {\n        NKP_VVT_$A x[$K];\n        for (size_t i = 0; i < $K; i++) x[i] = NKP_VLOADU_$A(src + i * W + a);\n        nkp_vtr_$A_m$M(x);\n        for (size_t j = 0; j < $K; j++) NKP_VSTOREU_$A((char *)regs + (a + j) * sizeof x[0], x[j]);\n    }\n");
        tout.push_str("    for (; a + $K <= W; a += $K) {\n        NKP_VVT_$A x[$K];\n        for (size_t j = 0; j < $K; j++) x[j] = NKP_VLOADU_$A((const char *)regs + (a + j) * sizeof x[0]);\n        nkp_vtr_$A_m$M(x);\n        for (size_t i = 0; i < $K; i++) {\n            if (xs) x[i] = NKP_VXOR_$A(x[i], NKP_VLOADU_$A(xs + i * W + a));\n            NKP_VSTOREU_$A(dst + i * W + a, x[i]);\n        }\n    }\n");
    }
    let mut g = kl;
    while g >= 1 {
        let cond = if g == kl { "while" } else { "if" };
        tin.push_str(&format!(
            "    {cond} (W - a >= {g}) {{ nkp_vg_in_$A_m$M_g{g}((const char *)(src + a), sb, (char *)regs + a * RB); a += {g}; }}\n"
        ));
        tout.push_str(&format!(
            "    {cond} (W - a >= {g}) {{ nkp_vg_outx_$A_m$M_g{g}((const char *)regs + a * RB, sb, xs ? (const char *)(xs + a) : NULL, (char *)(dst + a)); a += {g}; }}\n"
        ));
        g /= 2;
    }
    let t2 = format!(
        r#"/* W words of $K instances <-> W registers: chunks of 128/$M words, then of 64/$M, ..., 1
   (runtime::transpose::v_lane_chunks); nothing read or written outside the instances' words. */
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_V_in_u$M_$A(const uint$M_t *src, size_t W, void *regs) {{
    const size_t sb = W * sizeof(uint$M_t), RB = $RB;
    size_t a = 0;
{tin}}}
/* The inverse; with xs != NULL, dst = xs ^ (the instances) word by word (xs may equal dst). */
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_V_outx_u$M_$A(const void *regs, size_t W, const uint$M_t *xs, uint$M_t *dst) {{
    const size_t sb = W * sizeof(uint$M_t), RB = $RB;
    size_t a = 0;
{tout}}}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_V_out_u$M_$A(const void *regs, size_t W, uint$M_t *dst) {{
    nkp_V_outx_u$M_$A(regs, W, NULL, dst);
}}
"#
    );
    s.push_str(
        &subst(&t2, arch)
            .replace("$M", &m.to_string())
            .replace("$K", &k.to_string())
            .replace("$RB", &(arch.reg_bits() / 8).to_string()),
    );
    s.push_str("#endif\n");
    s
}

/// The scalar lane gather/scatter (NEON: no network written for it).
fn v_scalar_routines(arch: Arch, m: u32) -> String {
    let a = suffix(arch);
    let inst = instances(arch, Slicing::V, m);
    let mut s = format!("#ifndef NKP_V_DEFINED_{a}_{m}\n#define NKP_V_DEFINED_{a}_{m}\n");
    let t = r#"static NKP_UNUSED $ATTR void nkp_V_in_u$M_$A(const uint$M_t *src, size_t W, void *regs) {
    uint$M_t t[$INST];
    for (size_t a = 0; a < W; a++) {
        for (size_t i = 0; i < $INST; i++) t[i] = nkp_ld_u$M(src + i * W + a);
        memcpy((char *)regs + a * sizeof t, t, sizeof t);
    }
    nkp_wipe(t, sizeof t);
}
static NKP_UNUSED $ATTR void nkp_V_outx_u$M_$A(const void *regs, size_t W, const uint$M_t *xs, uint$M_t *dst) {
    uint$M_t t[$INST];
    for (size_t a = 0; a < W; a++) {
        memcpy(t, (const char *)regs + a * sizeof t, sizeof t);
        for (size_t i = 0; i < $INST; i++) nkp_st_u$M(dst + i * W + a, (uint$M_t)(t[i] ^ (xs ? nkp_ld_u$M(xs + i * W + a) : 0)));
    }
    nkp_wipe(t, sizeof t);
}
static NKP_UNUSED $ATTR void nkp_V_out_u$M_$A(const void *regs, size_t W, uint$M_t *dst) {
    nkp_V_outx_u$M_$A(regs, W, NULL, dst);
}
"#;
    s.push_str(
        &subst(t, arch)
            .replace("$M", &m.to_string())
            .replace("$INST", &inst.to_string()),
    );
    s.push_str("#endif\n");
    s
}

/// Vector type and load/store macros of the vslice and bitslice SIMD routines (x86 SIMD).
fn v_vec_ops(arch: Arch) -> &'static str {
    match arch {
        Arch::Sse => {
            "#ifndef NKP_VVT_sse\n#define NKP_VVT_sse __m128i\n#define NKP_VLOADU_sse(p) _mm_loadu_si128((const __m128i *)(const void *)(p))\n#define NKP_VSTOREU_sse(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)\n#define NKP_VZERO_sse() _mm_setzero_si128()\n#define NKP_VXOR_sse(a, b) _mm_xor_si128(a, b)\n#endif\n"
        }
        Arch::Avx2 => {
            "#ifndef NKP_VVT_avx2\n#define NKP_VVT_avx2 __m256i\n#define NKP_VLOADU_avx2(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))\n#define NKP_VSTOREU_avx2(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)\n#define NKP_VZERO_avx2() _mm256_setzero_si256()\n#define NKP_VXOR_avx2(a, b) _mm256_xor_si256(a, b)\n#endif\n"
        }
        Arch::Avx512 => {
            "#ifndef NKP_VVT_avx512\n#define NKP_VVT_avx512 __m512i\n#define NKP_VLOADU_avx512(p) _mm512_loadu_si512((const void *)(p))\n#define NKP_VSTOREU_avx512(p, v) _mm512_storeu_si512((void *)(p), v)\n#define NKP_VZERO_avx512() _mm512_setzero_si512()\n#define NKP_VXOR_avx512(a, b) _mm512_xor_si512(a, b)\n#endif\n"
        }
        _ => "",
    }
}

/// `nkp_vtr_<A>_m<M>(VT x[K])`: in-register transpose of a KxK matrix of m-bit elements (K =
/// R/m; row r = x[r], element c = lane c in memory order): afterwards lane c of x[r] is the
/// former lane r of x[c].
///
/// Network: with k = 128/m elements per 128-bit lane, every group of k rows first gets its
/// k x k sub-blocks transposed inside each 128-bit lane by log2(k) rounds of perfect shuffles,
/// y[2i] = unpacklo(x[i], x[i+k/2]), y[2i+1] = unpackhi(x[i], x[i+k/2]) (one round maps
/// element (row, col), read as the 2·log2(k)-bit string row.col, to its left rotation by one
/// bit, so log2(k) rounds swap row and col). Then the 128-bit lanes themselves are transposed
/// across the groups (row g*k+j, lane l <-> row l*k+j, lane g): `vperm2i128` on AVX2, two
/// rounds of `vshufi64x2` on AVX-512. Fully unrolled;
/// K·log2(k) unpacks + K (AVX2) or 2K (AVX-512) lane moves.
pub fn v_network(arch: Arch, m: u32) -> String {
    let a = suffix(arch);
    let kk = (arch.reg_bits() / m) as usize;
    let k = (128 / m) as usize;
    let lanes = kk / k;
    let (pre, vt) = arch.x86_intrinsics().expect("x86 SIMD");
    let mut s = String::new();
    s.push_str(v_vec_ops(arch));
    s.push_str(&format!(
        "#ifndef NKP_VTR_{a}_{m}\n#define NKP_VTR_{a}_{m}\n"
    ));
    s.push_str(&format!(
        "/* {kk}x{kk} transpose of {m}-bit elements in {vt} registers (see runtime::transpose::v_network). */\n\
         static inline __attribute__((always_inline)) NKP_UNUSED {attr} void nkp_vtr_{a}_m{m}({vt} x[{kk}]) {{\n    {vt} y[{kk}];\n",
        attr = target_attr(arch)
    ));
    let mut rounds = 0;
    let mut w = k;
    while w > 1 {
        w /= 2;
        rounds += 1;
    }
    for _ in 0..rounds {
        for g in 0..lanes {
            for i in 0..k / 2 {
                let (r0, r1) = (g * k + i, g * k + i + k / 2);
                s.push_str(&format!(
                    "    y[{}] = {pre}_unpacklo_epi{m}(x[{r0}], x[{r1}]); y[{}] = {pre}_unpackhi_epi{m}(x[{r0}], x[{r1}]);\n",
                    g * k + 2 * i,
                    g * k + 2 * i + 1
                ));
            }
        }
        s.push_str(&format!(
            "    for (int i = 0; i < {kk}; i++) x[i] = y[i];\n"
        ));
    }
    match lanes {
        1 => {}
        2 => {
            for j in 0..k {
                s.push_str(&format!(
                    "    y[{j}] = _mm256_permute2x128_si256(x[{j}], x[{r1}], 0x20); y[{r1}] = _mm256_permute2x128_si256(x[{j}], x[{r1}], 0x31);\n",
                    r1 = k + j
                ));
            }
            s.push_str(&format!(
                "    for (int i = 0; i < {kk}; i++) x[i] = y[i];\n"
            ));
        }
        4 => {
            // Rows a, b, c, d (lanes a0..a3 ...): t0 = a0 a2 b0 b2, t1 = a1 a3 b1 b3 (same for
            // c, d), then out0 = a0 b0 c0 d0, out2 = a2 b2 c2 d2, out1 = t1/t3 evens, out3 odds.
            for j in 0..k {
                let r = [j, k + j, 2 * k + j, 3 * k + j];
                s.push_str(&format!(
                    "    {{ const __m512i t0 = _mm512_shuffle_i64x2(x[{0}], x[{1}], 0x88), t1 = _mm512_shuffle_i64x2(x[{0}], x[{1}], 0xDD),\n\
                     \x20     t2 = _mm512_shuffle_i64x2(x[{2}], x[{3}], 0x88), t3 = _mm512_shuffle_i64x2(x[{2}], x[{3}], 0xDD);\n\
                     \x20     y[{0}] = _mm512_shuffle_i64x2(t0, t2, 0x88); y[{2}] = _mm512_shuffle_i64x2(t0, t2, 0xDD);\n\
                     \x20     y[{1}] = _mm512_shuffle_i64x2(t1, t3, 0x88); y[{3}] = _mm512_shuffle_i64x2(t1, t3, 0xDD); }}\n",
                    r[0], r[1], r[2], r[3]
                ));
            }
            s.push_str(&format!(
                "    for (int i = 0; i < {kk}; i++) x[i] = y[i];\n"
            ));
        }
        _ => unreachable!("register of {} lanes", lanes),
    }
    s.push_str("}\n#endif\n");
    s
}

/// Hslice: raw calls one H transposition routine fills. The routine transposes R instances at
/// once (R/64 blocks of 64 with the lane-parallel transpose, like bitslice) while one raw call
/// takes R/m, so it serves m raw calls.
pub fn h_calls_per_block(arch: Arch, m: u32) -> usize {
    arch.reg_bits() as usize / instances(arch, Slicing::H, m)
}

/// Hslice routines for `arch` and word size `m` (m divides the lane width L):
/// `nkp_H_in_uU_<A>_mM(const uintU_t *src, size_t units, size_t W, void *regs)` and
/// `nkp_H_out_uU_<A>_mM(const void *regs, size_t units, size_t W, uintU_t *dst)` with U = m for
/// native words, else U = 8 (bit strings of `units` bytes); src/dst hold NI = NC * R/m
/// instances of `units` units (W words of m bits each), NC = [`h_calls_per_block`]; regs is
/// NC consecutive sets of W registers, set c being the registers of instances
/// c*R/m .. (c+1)*R/m - 1 (one raw call).
///
/// Method: exactly the bitslice transposition (64-bit groups of the instances' bit strings,
/// R/64 blocks of 64 instances transposed at once by `nkp_tr64_<A>`); 64-bit lane `blk` of
/// row 63-b then holds bit q = 64g+b (word q/m, bit q%m MSB-first) of instances
/// 64*blk..64*blk+63, whose runs of S = L/m bits are exactly the slots q%m of that word's
/// registers in consecutive lanes (of consecutive raw calls).
pub fn h_routines(arch: Arch, m: u32) -> String {
    if matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512) && (m == 8 || m == 16) {
        return h_routines_simd(arch, m);
    }
    if matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512) && (m == 32 || m == 64) {
        return h_routines_simd_small(arch, m);
    }
    if arch == Arch::Std && (m == 64 || m == 32 || m == 16 || m == 8) {
        return h_routines_small_slots(arch, m);
    }
    let a = suffix(arch);
    let r = arch.reg_bits();
    let lane = arch.hslice_lane_bits();
    let slot = lane / m;
    let nc = h_calls_per_block(arch, m);
    let ni = instances(arch, Slicing::H, m) * nc;
    let nlanes = r / lane;
    let ub = if is_native(m) { m } else { 8 };
    // The vector operations and the lane-parallel transpose of bitslice.
    let mut s = b_routines(arch);
    s.push_str(&format!(
        "#ifndef NKP_H_DEFINED_{a}_{m}\n#define NKP_H_DEFINED_{a}_{m}\n"
    ));
    // gl = global lane index (over the NC calls) of the run of S bits; its register is set
    // gl / NLANES, lane gl % NLANES.
    // Slots of whole bytes (S = 8, 16, 32, 64): each run of S bits is copied straight into its
    // register's bytes (host little endian, as the registers' 64-bit lanes), no accumulator.
    // (NI = R = 64 x the vector's lanes: every run of every block has its lane.)
    let direct = slot.is_multiple_of(8) && slot <= 64 && ni == 64 * nlanes_of_vec(arch);
    let (put, get) = if direct {
        (
            "_Pragma(\"GCC unroll 8\") for (size_t c = 0; c < 64 / $S; c++) {
                    const size_t gl = (64 * blk) / $S + c, off = (gl % $NLANES) * $L + j * $S;
                    const uint64_t piece = row >> ((c * $S) & 63);
                    memcpy((unsigned char *)regs + ((gl / $NLANES) * W + q / $M) * ($R / 8) + off / 8, &piece, $S / 8);
                }"
            .to_string(),
            "_Pragma(\"GCC unroll 8\") for (size_t c = 0; c < 64 / $S; c++) {
                    const size_t gl = (64 * blk) / $S + c, off = (gl % $NLANES) * $L + j * $S;
                    uint64_t piece = 0;
                    memcpy(&piece, (const unsigned char *)regs + ((gl / $NLANES) * W + q / $M) * ($R / 8) + off / 8, $S / 8);
                    row |= piece << ((c * $S) & 63);
                }"
            .to_string(),
        )
    } else if slot <= 64 {
        let mask = if slot == 64 {
            "~(uint64_t)0".to_string()
        } else {
            format!("(((uint64_t)1 << {slot}) - 1)")
        };
        (
            format!(
                "for (size_t c = 0; c < 64 / $S && 64 * blk + c * $S < $NI; c++) {{
                    const size_t gl = (64 * blk) / $S + c, off = (gl % $NLANES) * $L + j * $S;
                    uint64_t *r = acc + ((gl / $NLANES) * W + q / $M) * ($R / 64);
                    r[off / 64] |= ((row >> (c * $S)) & {mask}) << (off % 64);
                }}"
            ),
            format!(
                "for (size_t c = 0; c < 64 / $S && 64 * blk + c * $S < $NI; c++) {{
                    const size_t gl = (64 * blk) / $S + c, off = (gl % $NLANES) * $L + j * $S;
                    const uint64_t *r = acc + ((gl / $NLANES) * W + q / $M) * ($R / 64);
                    row |= ((r[off / 64] >> (off % 64)) & {mask}) << (c * $S);
                }}"
            ),
        )
    } else {
        // S = 128 (1-bit words on 128-bit lanes; >= 128 instances per call, NC = 1): a block
        // is half a slot.
        (
            "acc[(q / $M) * ($R / 64) + ((blk / 2) * $L + j * $S + 64 * (blk % 2)) / 64] |= row;"
                .to_string(),
            "row = acc[(q / $M) * ($R / 64) + ((blk / 2) * $L + j * $S + 64 * (blk % 2)) / 64];"
                .to_string(),
        )
    };
    let t = r#"/* hslice, $M-bit words: lanes of $L bits; lane l holds instances l*$S .. l*$S+$S-1; slot j
   (bits [j*$S, (j+1)*$S) from the lane's LSB) has bit i = bit j (MSB-first) of instance l*$S+i. */
static NKP_UNUSED $ATTR void nkp_H_in_u$UB_$A_m$M(const uint$UB_t *src, size_t units, size_t W, void *regs) {
    $ACCDECL uint64_t tmp[NKP_VL_$A];
    NKP_VT_$A x[64];
    const size_t nbits = W * $M;
    $ACCZERO
    for (size_t g = 0; g * 64 < nbits; g++) {
        for (size_t k = 0; k < 64; k++) {
            for (size_t l = 0; l < NKP_VL_$A; l++)
                tmp[l] = nkp_ldgrp_u$UB(src + (64 * l + k) * units, units, g);
            x[k] = NKP_SETL_$A(tmp);
        }
        nkp_tr64_$A(x);
        size_t nb = nbits - 64 * g;
        if (nb > 64) nb = 64;
        for (size_t b = 0; b < nb; b++) {
            NKP_STOREU_$A(tmp, x[63 - b]);
            const size_t q = 64 * g + b, j = q % $M;
            for (size_t blk = 0; blk < NKP_VL_$A; blk++) {
                const uint64_t row = tmp[blk];
                $PUT
            }
        }
    }
    $ACCIN
    nkp_wipe(x, sizeof x);
    nkp_wipe(tmp, sizeof tmp);
}
static NKP_UNUSED $ATTR void nkp_H_out_u$UB_$A_m$M(const void *regs, size_t units, size_t W, uint$UB_t *dst) {
    $ACCDECL uint64_t tmp[NKP_VL_$A];
    NKP_VT_$A x[64];
    const size_t nbits = W * $M;
    $ACCLOAD
    for (size_t g = 0; g * 64 < nbits; g++) {
        size_t nb = nbits - 64 * g;
        if (nb > 64) nb = 64;
        for (size_t b = 0; b < 64; b++) {
            for (size_t blk = 0; blk < NKP_VL_$A; blk++) {
                uint64_t row = 0;
                if (b < nb) {
                    const size_t q = 64 * g + b, j = q % $M;
                    $GET
                }
                tmp[blk] = row;
            }
            x[63 - b] = NKP_LOADU_$A(tmp);
        }
        nkp_tr64_$A(x);
        for (size_t k = 0; k < 64; k++) {
            NKP_GETL_$A(tmp, x[k]);
            for (size_t l = 0; l < NKP_VL_$A; l++)
                nkp_stgrp_u$UB(dst + (64 * l + k) * units, units, g, tmp[l]);
        }
    }
    $ACCWIPE
    nkp_wipe(x, sizeof x);
    nkp_wipe(tmp, sizeof tmp);
}
"#;
    let t = if direct {
        t.replace("$ACCDECL ", "")
            .replace("$ACCZERO", "")
            .replace("$ACCIN", "")
            .replace("$ACCLOAD", "")
            .replace("$ACCWIPE", "")
    } else {
        t.replace("$ACCDECL", "uint64_t acc[$NC * W * ($R / 64)];")
            .replace("$ACCZERO", "memset(acc, 0, sizeof acc);")
            .replace(
                "$ACCIN",
                "memcpy(regs, acc, sizeof acc);\n    nkp_wipe(acc, sizeof acc);",
            )
            .replace("$ACCLOAD", "memcpy(acc, regs, sizeof acc);")
            .replace("$ACCWIPE", "nkp_wipe(acc, sizeof acc);")
    };
    s.push_str(
        &subst(&t.replace("$PUT", &put).replace("$GET", &get), arch)
            .replace("$UB", &ub.to_string())
            .replace("$M", &m.to_string())
            .replace("$NI", &ni.to_string())
            .replace("$NC", &nc.to_string())
            .replace("$NLANES", &nlanes.to_string())
            .replace("$R", &r.to_string())
            .replace("$S", &slot.to_string())
            .replace("$L", &lane.to_string()),
    );
    s.push_str(&format!("#endif /* NKP_H_DEFINED_{a}_{m} */\n"));
    s
}

/// Hslice for 8- and 16-bit words on SSE/AVX2/AVX-512 (slots of whole bytes): the vslice
/// routines first (register a gets word a of the call's R/m instances, lane i = instance i,
/// which is already the hslice grouping: 128-bit lane l holds instances l*S .. l*S+S-1), then
/// in every register, per 128-bit lane, the S x m bit matrix (instances x word bits) is
/// transposed into the m slots: a `pshufb` groups the bytes so that each 64-bit half holds one
/// byte of 8 instances, an 8x8 bit transpose per 64-bit lane (three delta swaps: byte i bit b
/// <-> byte b bit i; with GFNI one `gf2p8affineqb` against the bytes 1<<j, the matrix being
/// the qword with its bytes reversed, folded into the first `pshufb`), and a second `pshufb`
/// puts the resulting bytes in slot order (bit 0 of a word is its MSB). The inverse runs the same steps backwards. Same names and arguments as
/// the generic routines of [`h_routines`].
/// Hslice on `std` with slots of S = 64/m = 1, 2, 4 or 8 bits (64-, 32-, 16- and 8-bit words):
/// the register holds S instances, bit S*j + i = bit j (MSB-first) of instance i. Per word
/// index w of a raw call: the S words gathered into one 64-bit value (instance i at bits
/// m*(S-1-i) ..), reversed (bit p to 63-p: instance i's bit j, MSB-first, lands at m*i + j),
/// then the bit-index transposition m*i + j -> S*j + i (an S x m bit matrix transposed) as
/// delta swaps of index bits ([`index_swaps`]). Ascon `-H` std packed: 88 c/B through the
/// general path's transposition, 3.3-3.5 with per-word shifts and masks (raw 3.0-3.15).
/// Same functions and layout as [`h_routines`].
fn h_routines_small_slots(arch: Arch, m: u32) -> String {
    assert_eq!(arch, Arch::Std);
    let a = suffix(arch);
    let sl = 64 / m as usize;
    assert!(sl == 1 || sl == 2 || sl == 4 || sl == 8);
    let inst = instances(arch, Slicing::H, m);
    let nc = h_calls_per_block(arch, m);
    let swaps = index_swaps(sl);
    let fwd: String = swaps
        .iter()
        .map(|&(sh, mk)| format!("    x = nkp_sk_dswap(x, {sh}, 0x{mk:016X}ull);\n"))
        .collect();
    let bwd: String = swaps
        .iter()
        .rev()
        .map(|&(sh, mk)| format!("    x = nkp_sk_dswap(x, {sh}, 0x{mk:016X}ull);\n"))
        .collect();
    // (64-bit words, one 1-bit slot per word: no index swap, and no delta-swap helper, which
    // would be an unused function)
    let dswap = if swaps.is_empty() {
        ""
    } else {
        "#ifndef NKP_H_SK_DSWAP
#define NKP_H_SK_DSWAP
/* swap bit p with bit p + s for every p in mask */
static inline uint64_t nkp_sk_dswap(uint64_t x, unsigned s, uint64_t mask) {
    const uint64_t t = ((x >> s) ^ x) & mask;
    return x ^ t ^ (t << s);
}
#endif
"
    };
    let t = r#"#ifndef NKP_H_DEFINED_$A_$M
#define NKP_H_DEFINED_$A_$M
#ifndef NKP_H_SK_HELPERS
#define NKP_H_SK_HELPERS
static inline uint64_t nkp_sk_rev64(uint64_t x) {
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
    return __builtin_bswap64(x);
}
#endif
$DSWAP/* index transposition m*i + j -> $S*j + i of the reversed gathered words, and back */
static inline uint64_t nkp_sk_fwd_m$M(uint64_t x) {
$FWD    return x;
}
static inline uint64_t nkp_sk_bwd_m$M(uint64_t x) {
$BWD    return x;
}
/* hslice, $M-bit words, $S-bit slots: register (call c, word w) holds instances
   c*$INST .. +$S-1, their words bit-reversed and bit-interleaved ($NC calls per block). */
static NKP_UNUSED void nkp_H_in_u$M_$A_m$M(const uint$M_t *src, size_t units, size_t W, void *regs) {
    for (size_t c = 0; c < $NC; c++)
        for (size_t w = 0; w < W; w++) {
            uint64_t x = 0;
            for (size_t i = 0; i < $S; i++) {
                uint$M_t v; /* (memcpy: src may have any alignment) */
                memcpy(&v, src + (c * $INST + i) * units + w, sizeof v);
                x |= (uint64_t)v << (($M * ($S - 1 - i)) & 63);
            }
            x = nkp_sk_fwd_m$M(nkp_sk_rev64(x));
            memcpy((unsigned char *)regs + (c * W + w) * 8, &x, 8);
        }
}
static NKP_UNUSED void nkp_H_out_u$M_$A_m$M(const void *regs, size_t units, size_t W, uint$M_t *dst) {
    for (size_t c = 0; c < $NC; c++)
        for (size_t w = 0; w < W; w++) {
            uint64_t x;
            memcpy(&x, (const unsigned char *)regs + (c * W + w) * 8, 8);
            x = nkp_sk_rev64(nkp_sk_bwd_m$M(x));
            for (size_t i = 0; i < $S; i++) {
                const uint$M_t v = (uint$M_t)(x >> (($M * ($S - 1 - i)) & 63));
                memcpy(dst + (c * $INST + i) * units + w, &v, sizeof v);
            }
        }
}
#endif /* NKP_H_DEFINED_$A_$M */
"#;
    t.replace("$DSWAP", dswap)
        .replace("$FWD", &fwd)
        .replace("$BWD", &bwd)
        .replace("$A", a)
        .replace("$M", &m.to_string())
        .replace("$NC", &nc.to_string())
        .replace("$INST", &inst.to_string())
        .replace("$S", &sl.to_string())
}

/// Delta swaps `(shift, mask)` (swap bit p with p + shift for every p in mask) that move bit
/// m*i + j of a 64-bit word to S*j + i (m = 64/S; i < S, j < m): the 6-bit index rotated by
/// log2 S, as one exchange of two index bits per swap (at most 5; checked in this file's tests).
fn index_swaps(sl: usize) -> Vec<(u32, u64)> {
    let k = sl.trailing_zeros() as usize;
    // new_pos[old index bit]: i's bits (old 6-k..6) go to 0..k, j's (old 0..6-k) to k..6.
    let new_pos: Vec<usize> = (0..6)
        .map(|b| if b >= 6 - k { b - (6 - k) } else { b + k })
        .collect();
    // at[pos] = the old index bit now at pos; fill positions in order by swapping.
    let mut at: Vec<usize> = (0..6).collect();
    let mut out = Vec::new();
    for t in 0..6 {
        let want = (0..6).find(|&o| new_pos[o] == t).unwrap();
        let q = at.iter().position(|&o| o == want).unwrap();
        if q != t {
            let (lo, hi) = (t.min(q), t.max(q));
            let mask = (0..64u64)
                .filter(|p| (p >> lo) & 1 == 1 && (p >> hi) & 1 == 0)
                .fold(0u64, |acc, p| acc | 1 << p);
            out.push(((1u32 << hi) - (1u32 << lo), mask));
            at.swap(lo, hi);
        }
    }
    out
}

fn h_routines_simd(arch: Arch, m: u32) -> String {
    let a = suffix(arch);
    let nc = h_calls_per_block(arch, m);
    let inst = instances(arch, Slicing::H, m);
    let sh = format!(
        "{}_shuffle_epi8",
        arch.x86_intrinsics().expect("x86 SIMD").0
    );
    // Byte shuffles within a 128-bit lane: fwd1 (before the bit transpose, V -> H), fwd2
    // (after); bwd1/bwd2 their inverses. out[k] = in[idx[k]].
    let (fwd1, fwd2): ([usize; 16], [usize; 16]) = if m == 16 {
        // bytes 0..7 = high bytes of words 0..7, bytes 8..15 = low bytes; then reverse each half.
        (
            core::array::from_fn(|k| if k < 8 { 2 * k + 1 } else { 2 * (k - 8) }),
            core::array::from_fn(|k| if k < 8 { 7 - k } else { 23 - k }),
        )
    } else {
        // identity; then slot j = (half0 byte 7-j, half1 byte 7-j).
        (
            core::array::from_fn(|k| k),
            core::array::from_fn(|k| if k % 2 == 0 { 7 - k / 2 } else { 15 - k / 2 }),
        )
    };
    let (bwd1, bwd2) = (inv16(&fwd1), inv16(&fwd2));
    // With GFNI the 8x8 bit transpose of a qword x is gf2p8affine(data = bytes 1<<j, matrix =
    // x with its bytes reversed): the reversal is folded into the shuffle before it.
    let rev8 = |f: &[usize; 16]| -> [usize; 16] { core::array::from_fn(|k| f[k ^ 7]) };
    let gf = match arch {
        Arch::Sse => "_mm_gf2p8affine_epi64_epi8",
        Arch::Avx2 => "_mm256_gf2p8affine_epi64_epi8",
        _ => "_mm512_gf2p8affine_epi64_epi8",
    };
    let setv = |idx: &[usize; 16]| set_epi8_lanes(arch, idx);
    let mut s = b_routines(arch);
    s.push_str(&v_routines(arch, m, m));
    s.push_str(&format!(
        "#ifndef NKP_H_DEFINED_{a}_{m}\n#define NKP_H_DEFINED_{a}_{m}\n"
    ));
    let t = r#"/* hslice, $M-bit words, from/to the vslice layout (see runtime::transpose::h_routines_simd). */
/* GFNI: out byte j of each qword, bit i = parity(a.byte[7-i] & x.byte[j]) (Intel's
   GF2P8AFFINEQB with imm 0); a test may define the macro first (an emulation). */
#if defined(__GFNI__) && !defined(NKP_GF2P8AFF_$A)
#define NKP_GF2P8AFF_$A(x, a) $GF(x, a, 0)
#endif
#ifndef NKP_TR8X8_$A
#define NKP_TR8X8_$A
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR NKP_VT_$A nkp_tr8x8_$A(NKP_VT_$A v) {
    NKP_VT_$A t;
$TR8X8    return v;
}
#endif
/* per register: vslice layout -> hslice layout, and back */
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR NKP_VT_$A nkp_h8b_fwd_$A_m$M(NKP_VT_$A v) {
#if defined(__GFNI__)
    const NKP_VT_$A gi = NKP_SET1_$A(0x8040201008040201ULL);
    return $SH(NKP_GF2P8AFF_$A(gi, $SH(v, $FWD1R)), $FWD2);
#else
    return $SH(nkp_tr8x8_$A($SH(v, $FWD1)), $FWD2);
#endif
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR NKP_VT_$A nkp_h8b_bwd_$A_m$M(NKP_VT_$A v) {
#if defined(__GFNI__)
    const NKP_VT_$A gi = NKP_SET1_$A(0x8040201008040201ULL);
    return $SH(NKP_GF2P8AFF_$A(gi, $SH(v, $BWD2R)), $BWD1);
#else
    return $SH(nkp_tr8x8_$A($SH(v, $BWD2)), $BWD1);
#endif
}
"#;
    let t = format!(
        "{t}{}",
        h_via_vslice("nkp_h8b_fwd_$A_m$M", "nkp_h8b_bwd_$A_m$M")
    )
    .replace(
        "$TR8X8",
        &delta_swaps_c(&[
            (7, 0x00AA_00AA_00AA_00AA),
            (14, 0x0000_CCCC_0000_CCCC),
            (28, 0x0000_0000_F0F0_F0F0),
        ]),
    );
    s.push_str(
        &subst(&t, arch)
            .replace("$M", &m.to_string())
            .replace("$NC", &nc.to_string())
            .replace("$INST", &inst.to_string())
            .replace("$SH", &sh)
            .replace("$GF", gf)
            .replace("$FWD1R", &setv(&rev8(&fwd1)))
            .replace("$BWD2R", &setv(&rev8(&bwd2)))
            .replace("$FWD1", &setv(&fwd1))
            .replace("$FWD2", &setv(&fwd2))
            .replace("$BWD1", &setv(&bwd1))
            .replace("$BWD2", &setv(&bwd2)),
    );
    s.push_str(&format!("#endif /* NKP_H_DEFINED_{a}_{m} */\n"));
    s
}

/// The per-register bit permutation of [`h_routines_simd_small`]: 128-bit lane bit p = 32i + b
/// (m = 32: bit b of instance i's word, from the vslice layout) or 64i + b (m = 64) goes to
/// bit S*j + i with j = m-1-b (MSB-first word bit j). On the 7-bit bit index this is: byte
/// index bits (3..6) permuted and complemented by one `pshufb` (`p1`), the in-byte index bits
/// (0..2) permuted and complemented by a table lookup (`lut`: the bit at in-byte position u
/// goes to `lut[u]`), then delta swaps exchanging in-byte index bit k with index bit k+3
/// (`(shift, mask)`: swap bits p and p+shift for every p in mask). Checked bit by bit in this
/// file's tests.
struct SmallSlotPlan {
    p1: [usize; 16],
    lut: [u32; 8],
    swaps: &'static [(u32, u64)],
}

/// With GFNI, the 32-bit words' bit permutation of [`small_slot_plan`] (lane bit p = 32i + b
/// to 4j + i, j = 31 - b) as: a `pshufb` (`a`: byte index := (not i0, not i1, b3, b4)), one
/// 8x8 bit transpose per qword (`gf2p8affineqb` with the register as the matrix: byte w, bit u
/// goes to byte u, bit 7 - w), one delta swap that exchanges and complements index bits 2 and
/// 3 (`swap`), and a `pshufb` (`b`) to the final byte order. The inverse: `b_inv`, the swap,
/// `r` (byte index within the qword complemented), the transpose, `ra_inv` (`r` then the
/// inverse of `a`). Checked position by position in this file's tests.
struct GfniSlotPlan {
    a: [usize; 16],
    b: [usize; 16],
    swap: (u32, u64),
    b_inv: [usize; 16],
    r: [usize; 16],
    ra_inv: [usize; 16],
}

fn gfni_slot_plan() -> GfniSlotPlan {
    let bit = |x: usize, k: u32| (x >> k) & 1;
    let a: [usize; 16] = core::array::from_fn(|k| {
        bit(k, 2) + 2 * bit(k, 3) + 4 * (1 - bit(k, 0)) + 8 * (1 - bit(k, 1))
    });
    let b: [usize; 16] = core::array::from_fn(|k| {
        (1 - bit(k, 2)) + 2 * (1 - bit(k, 0)) + 4 * (1 - bit(k, 1)) + 8 * (1 - bit(k, 3))
    });
    let a_inv = inv16(&a);
    GfniSlotPlan {
        a,
        b,
        swap: (12, 0x000F_000F_000F_000F),
        b_inv: inv16(&b),
        r: core::array::from_fn(|k| k ^ 7),
        ra_inv: core::array::from_fn(|k| a_inv[k] ^ 7),
    }
}

fn small_slot_plan(m: u32) -> SmallSlotPlan {
    let bit = |x: usize, k: u32| (x >> k) & 1;
    if m == 32 {
        // index (i1 i0 b4 b3 | b2 b1 b0) -> target (j4 j3 j2 j1 j0 i1 i0), j = ~b.
        // pshufb: byte index (k3 k2 k1 k0) := (j4 j3 i1 i0); in-byte: (j0 j2 j1); then swap
        // in-byte bit 0 (j1) with index bit 3 (i0) and bit 1 (j2) with bit 4 (i1).
        SmallSlotPlan {
            p1: core::array::from_fn(|k| {
                bit(k, 1) * 8 + bit(k, 0) * 4 + (1 - bit(k, 3)) * 2 + (1 - bit(k, 2))
            }),
            lut: core::array::from_fn(|u| {
                let (u0, u1, u2) = (bit(u, 0) as u32, bit(u, 1) as u32, bit(u, 2) as u32);
                ((1 - u0) << 2) | ((1 - u2) << 1) | (1 - u1)
            }),
            swaps: &[(7, 0x00AA_00AA_00AA_00AA), (14, 0x0000_CCCC_0000_CCCC)],
        }
    } else {
        assert_eq!(m, 64);
        // index (i0 b5 b4 b3 | b2 b1 b0) -> target (j5 j4 j3 j2 j1 j0 i0).
        // pshufb: byte index (k3 k2 k1 k0) := (j5 j4 j3 i0); in-byte: (j1 j0 j2); then swap
        // in-byte bit 0 (j2) with index bit 3 (i0).
        SmallSlotPlan {
            p1: core::array::from_fn(|k| {
                bit(k, 0) * 8 + (1 - bit(k, 3)) * 4 + (1 - bit(k, 2)) * 2 + (1 - bit(k, 1))
            }),
            lut: core::array::from_fn(|u| {
                let (u0, u1, u2) = (bit(u, 0) as u32, bit(u, 1) as u32, bit(u, 2) as u32);
                ((1 - u1) << 2) | ((1 - u0) << 1) | (1 - u2)
            }),
            swaps: &[(7, 0x00AA_00AA_00AA_00AA)],
        }
    }
}

/// Hslice for 32- and 64-bit words on SSE/AVX2/AVX-512 (slots of S = 4 or 2 bits): the
/// vslice routines first (register a gets word a of the call's R/m instances, lane i =
/// instance i: 128-bit lane l already holds instances l*S .. l*S+S-1), then in every register
/// one bit permutation per 128-bit lane ([`small_slot_plan`]): a `pshufb`, an in-byte bit
/// permutation (two nibble-table `pshufb`s; one `gf2p8affineqb` with GFNI) and one or two
/// delta swaps. The inverse runs the same steps backwards. Replaces per-word scalar bit
/// reversal and spreading (Gimli `-H` avx2 packed 7.6 c/B, raw 2.4). Same names and
/// arguments as the generic routines of [`h_routines`].
fn h_routines_simd_small(arch: Arch, m: u32) -> String {
    let a = suffix(arch);
    let nc = h_calls_per_block(arch, m);
    let inst = instances(arch, Slicing::H, m);
    let plan = small_slot_plan(m);
    let (sh, gf) = match arch {
        Arch::Sse => ("_mm_shuffle_epi8", "_mm_gf2p8affine_epi64_epi8"),
        Arch::Avx2 => ("_mm256_shuffle_epi8", "_mm256_gf2p8affine_epi64_epi8"),
        _ => ("_mm512_shuffle_epi8", "_mm512_gf2p8affine_epi64_epi8"),
    };
    let setv = |idx: &[usize; 16]| set_epi8_lanes(arch, idx);
    let inv_p1 = inv16(&plan.p1);
    let mut inv_lut = [0u32; 8];
    for (u, &v) in plan.lut.iter().enumerate() {
        inv_lut[v as usize] = u as u32;
    }
    // Nibble tables of an in-byte bit permutation (the byte's image = lo[x & 15] ^ hi[x >> 4]).
    let tables = |perm: &[u32; 8]| -> ([usize; 16], [usize; 16]) {
        let img = |x: usize| -> usize {
            (0..8)
                .filter(|&u| (x >> u) & 1 == 1)
                .fold(0, |acc, u| acc | 1 << perm[u])
        };
        (
            core::array::from_fn(img),
            core::array::from_fn(|n| img(n << 4)),
        )
    };
    // GFNI matrix: out bit v = parity(A.byte[7-v] & x) = x bit perm^-1(v).
    let gf_matrix = |perm: &[u32; 8]| -> u64 {
        let mut q = 0u64;
        for (u, &v) in perm.iter().enumerate() {
            q |= (1u64 << u) << (8 * (7 - v));
        }
        q
    };
    let (flo, fhi) = tables(&plan.lut);
    let (blo, bhi) = tables(&inv_lut);
    let swaps = delta_swaps_c(plan.swaps);
    let mut s = b_routines(arch);
    s.push_str(&v_routines(arch, m, m));
    s.push_str(&format!(
        "#ifndef NKP_H_DEFINED_{a}_{m}\n#define NKP_H_DEFINED_{a}_{m}\n"
    ));
    let t = r#"/* hslice, $M-bit words, from/to the vslice layout (see runtime::transpose::h_routines_simd_small). */
#if defined(__GFNI__) && !defined(NKP_GF2P8AFF_$A)
#define NKP_GF2P8AFF_$A(x, a) $GF(x, a, 0)
#endif
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR NKP_VT_$A nkp_hsk_fwd_$A_m$M(NKP_VT_$A v) {
    NKP_VT_$A t;
$TFWD    v = $SH(v, $P1);
#if defined(__GFNI__)
    v = NKP_GF2P8AFF_$A(v, NKP_SET1_$A(0x$FGFULL));
#else
    {
        const NKP_VT_$A nib = NKP_SET1_$A(0x0F0F0F0F0F0F0F0FULL);
        v = NKP_XOR_$A($SH($FLO, NKP_AND_$A(v, nib)), $SH($FHI, NKP_AND_$A(NKP_SRL_$A(v, 4), nib)));
    }
#endif
$SWAPS    return v;
$TEND}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR NKP_VT_$A nkp_hsk_bwd_$A_m$M(NKP_VT_$A v) {
    NKP_VT_$A t;
$TBWD$SWAPS#if defined(__GFNI__)
    v = NKP_GF2P8AFF_$A(v, NKP_SET1_$A(0x$BGFULL));
#else
    {
        const NKP_VT_$A nib = NKP_SET1_$A(0x0F0F0F0F0F0F0F0FULL);
        v = NKP_XOR_$A($SH($BLO, NKP_AND_$A(v, nib)), $SH($BHI, NKP_AND_$A(NKP_SRL_$A(v, 4), nib)));
    }
#endif
    return $SH(v, $IP1);
$TEND}
"#;
    // 32-bit words with GFNI: one whole 8x8 bit transpose per qword instead of an in-byte
    // permutation and two delta swaps ([`gfni_slot_plan`]).
    let (tfwd, tbwd, tend) = if m == 32 {
        let g = gfni_slot_plan();
        let sw = delta_swaps_c(&[g.swap]);
        (
            format!(
                "#if defined(__GFNI__)\n    v = $SH(v, {});\n    v = NKP_GF2P8AFF_$A(NKP_SET1_$A(0x8040201008040201ULL), v);\n{sw}    return $SH(v, {});\n#else\n",
                setv(&g.a),
                setv(&g.b)
            ),
            format!(
                "#if defined(__GFNI__)\n    v = $SH(v, {});\n{sw}    v = $SH(v, {});\n    v = NKP_GF2P8AFF_$A(NKP_SET1_$A(0x8040201008040201ULL), v);\n    return $SH(v, {});\n#else\n",
                setv(&g.b_inv),
                setv(&g.r),
                setv(&g.ra_inv)
            ),
            "#endif\n".to_string(),
        )
    } else {
        (String::new(), String::new(), String::new())
    };
    let t = t
        .replace("$TFWD", &tfwd)
        .replace("$TBWD", &tbwd)
        .replace("$TEND", &tend);
    let t = t.as_str();
    let t = format!(
        "{t}{}",
        h_via_vslice("nkp_hsk_fwd_$A_m$M", "nkp_hsk_bwd_$A_m$M")
    );
    s.push_str(
        &subst(&t.replace("$SWAPS", &swaps), arch)
            .replace("$M", &m.to_string())
            .replace("$NC", &nc.to_string())
            .replace("$INST", &inst.to_string())
            .replace("$SH", sh)
            .replace("$GF", gf)
            .replace("$FGF", &format!("{:016X}", gf_matrix(&plan.lut)))
            .replace("$BGF", &format!("{:016X}", gf_matrix(&inv_lut)))
            .replace("$IP1", &setv(&inv_p1))
            .replace("$P1", &setv(&plan.p1))
            .replace("$FLO", &setv(&flo))
            .replace("$FHI", &setv(&fhi))
            .replace("$BLO", &setv(&blo))
            .replace("$BHI", &setv(&bhi)),
    );
    s.push_str(&format!("#endif /* NKP_H_DEFINED_{a}_{m} */\n"));
    s
}

/// C lines applying delta swaps `(shift, mask)` (swap bit p with p + shift for every p in mask,
/// in every 64-bit lane) to the vector `v`, with `t` as the temporary (`$A`: the target).
fn delta_swaps_c(swaps: &[(u32, u64)]) -> String {
    swaps
        .iter()
        .map(|&(s, mk)| format!("    t = NKP_AND_$A(NKP_XOR_$A(v, NKP_SRL_$A(v, {s})), NKP_SET1_$A(0x{mk:016X}ULL)); v = NKP_XOR_$A(v, NKP_XOR_$A(t, NKP_SLL_$A(t, {s})));\n"))
        .collect()
}

/// The SIMD hslice routines that go through the vslice layout (template text, `$`-names of
/// [`subst`] and `$M`, `$NC`, `$INST`): in, the vslice routine of each raw call's instances
/// then `fwd` on every register; out, `bwd` on every register then the vslice routine.
fn h_via_vslice(fwd: &str, bwd: &str) -> String {
    r#"static NKP_UNUSED $ATTR void nkp_H_in_u$M_$A_m$M(const uint$M_t *src, size_t units, size_t W, void *regs) {
    (void)units;
    for (size_t c = 0; c < $NC; c++) {
        char *rc = (char *)regs + c * W * sizeof(NKP_VT_$A);
        nkp_V_in_u$M_$A(src + c * $INST * W, W, rc);
        for (size_t a = 0; a < W; a++)
            NKP_STOREU_$A(rc + a * sizeof(NKP_VT_$A), $FWDFN(NKP_LOADU_$A(rc + a * sizeof(NKP_VT_$A))));
    }
}
static NKP_UNUSED $ATTR void nkp_H_out_u$M_$A_m$M(const void *regs, size_t units, size_t W, uint$M_t *dst) {
    (void)units;
    NKP_VT_$A t[W];
    for (size_t c = 0; c < $NC; c++) {
        const char *rc = (const char *)regs + c * W * sizeof(NKP_VT_$A);
        for (size_t a = 0; a < W; a++) t[a] = $BWDFN(NKP_LOADU_$A(rc + a * sizeof(NKP_VT_$A)));
        nkp_V_out_u$M_$A(t, W, dst + c * $INST * W);
    }
    nkp_wipe(t, sizeof t);
}
"#
    .replace("$FWDFN", fwd)
    .replace("$BWDFN", bwd)
}

/// The inverse of a byte permutation of a 128-bit lane (`pshufb` table: out[k] = in[f[k]]).
fn inv16(f: &[usize; 16]) -> [usize; 16] {
    let mut g = [0usize; 16];
    for (k, &i) in f.iter().enumerate() {
        g[i] = k;
    }
    g
}

/// `_mm*_set_epi8(...)` of the register with the 16-byte pattern `idx` (byte k of each 128-bit
/// lane = idx[k]) in every 128-bit lane (the intrinsic takes bytes from the most significant).
fn set_epi8_lanes(arch: Arch, idx: &[usize; 16]) -> String {
    let f = match arch {
        Arch::Sse => "_mm_set_epi8",
        Arch::Avx2 => "_mm256_set_epi8",
        _ => "_mm512_set_epi8",
    };
    let lanes = arch.reg_bits() as usize / 128;
    let mut v: Vec<String> = Vec::new();
    for _ in 0..lanes {
        v.extend(idx.iter().map(|&i| epi8(i as u8)));
    }
    v.reverse();
    format!("{f}({})", v.join(", "))
}

/// 64-bit lanes of the B transposer's vector.
fn nlanes_of_vec(arch: Arch) -> usize {
    arch.reg_bits() as usize / 64
}

fn subst(t: &str, arch: Arch) -> String {
    let attr = target_attr(arch);
    let vl = (arch.reg_bits() / 64).to_string();
    t.replace("$ATTR", attr)
        .replace("$VL", &vl)
        .replace("$A", suffix(arch))
}

/// Piece loads/stores of one 128-bit lane (x86 SIMD, shared by every word size):
/// `nkp_ldpc<P>_<A>(p, stride)` gathers 16/P pieces of P bytes (P one of 16, 8, 4, 2, 1) found
/// `stride` bytes apart into one `__m128i` (piece 0 lowest); `nkp_stpc<P>_<A>` scatters them
/// back. `stride` is a public size. One function per piece size, not a `piece` argument: at
/// -O0 nothing folds, and a generic body inlined at every call site made a trivial program's
/// packed helpers hundreds of KiB (a 7 s compile).
fn v_piece_ops(arch: Arch) -> String {
    let a = suffix(arch);
    let attr = target_attr(arch);
    let t = r#"#ifndef NKP_PC_DEFINED_$A
#define NKP_PC_DEFINED_$A
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR __m128i nkp_ldpc16_$A(const char *p, size_t stride) {
    (void)stride;
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR __m128i nkp_ldpc8_$A(const char *p, size_t stride) {
    if (stride == 8) return _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm_set_epi64x((long long)nkp_ld_u64(p + stride), (long long)nkp_ld_u64(p));
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR __m128i nkp_ldpc4_$A(const char *p, size_t stride) {
    if (stride == 4) return _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm_set_epi32((int)nkp_ld_u32(p + 3 * stride), (int)nkp_ld_u32(p + 2 * stride), (int)nkp_ld_u32(p + stride), (int)nkp_ld_u32(p));
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR __m128i nkp_ldpc2_$A(const char *p, size_t stride) {
    if (stride == 2) return _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm_set_epi16((short)nkp_ld_u16(p + 7 * stride), (short)nkp_ld_u16(p + 6 * stride), (short)nkp_ld_u16(p + 5 * stride), (short)nkp_ld_u16(p + 4 * stride),
                         (short)nkp_ld_u16(p + 3 * stride), (short)nkp_ld_u16(p + 2 * stride), (short)nkp_ld_u16(p + stride), (short)nkp_ld_u16(p));
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR __m128i nkp_ldpc1_$A(const char *p, size_t stride) {
    if (stride == 1) return _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm_set_epi8((char)p[15 * stride], (char)p[14 * stride], (char)p[13 * stride], (char)p[12 * stride], (char)p[11 * stride], (char)p[10 * stride], (char)p[9 * stride], (char)p[8 * stride],
                        (char)p[7 * stride], (char)p[6 * stride], (char)p[5 * stride], (char)p[4 * stride], (char)p[3 * stride], (char)p[2 * stride], (char)p[stride], (char)p[0]);
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_stpc16_$A(char *p, size_t stride, __m128i v) {
    (void)stride;
    _mm_storeu_si128((__m128i *)(void *)p, v);
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_stpc8_$A(char *p, size_t stride, __m128i v) {
    if (stride == 8) { _mm_storeu_si128((__m128i *)(void *)p, v); return; }
    nkp_st_u64(p, (uint64_t)_mm_cvtsi128_si64(v)); nkp_st_u64(p + stride, (uint64_t)_mm_extract_epi64(v, 1));
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_stpc4_$A(char *p, size_t stride, __m128i v) {
    if (stride == 4) { _mm_storeu_si128((__m128i *)(void *)p, v); return; }
    nkp_st_u32(p, (uint32_t)_mm_cvtsi128_si32(v)); nkp_st_u32(p + stride, (uint32_t)_mm_extract_epi32(v, 1));
    nkp_st_u32(p + 2 * stride, (uint32_t)_mm_extract_epi32(v, 2)); nkp_st_u32(p + 3 * stride, (uint32_t)_mm_extract_epi32(v, 3));
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_stpc2_$A(char *p, size_t stride, __m128i v) {
    if (stride == 2) { _mm_storeu_si128((__m128i *)(void *)p, v); return; }
    nkp_st_u16(p, (uint16_t)_mm_extract_epi16(v, 0)); nkp_st_u16(p + stride, (uint16_t)_mm_extract_epi16(v, 1));
    nkp_st_u16(p + 2 * stride, (uint16_t)_mm_extract_epi16(v, 2)); nkp_st_u16(p + 3 * stride, (uint16_t)_mm_extract_epi16(v, 3));
    nkp_st_u16(p + 4 * stride, (uint16_t)_mm_extract_epi16(v, 4)); nkp_st_u16(p + 5 * stride, (uint16_t)_mm_extract_epi16(v, 5));
    nkp_st_u16(p + 6 * stride, (uint16_t)_mm_extract_epi16(v, 6)); nkp_st_u16(p + 7 * stride, (uint16_t)_mm_extract_epi16(v, 7));
}
static inline __attribute__((always_inline)) NKP_UNUSED $ATTR void nkp_stpc1_$A(char *p, size_t stride, __m128i v) {
    if (stride == 1) { _mm_storeu_si128((__m128i *)(void *)p, v); return; }
    p[0] = (char)_mm_extract_epi8(v, 0); p[stride] = (char)_mm_extract_epi8(v, 1); p[2 * stride] = (char)_mm_extract_epi8(v, 2); p[3 * stride] = (char)_mm_extract_epi8(v, 3);
    p[4 * stride] = (char)_mm_extract_epi8(v, 4); p[5 * stride] = (char)_mm_extract_epi8(v, 5); p[6 * stride] = (char)_mm_extract_epi8(v, 6); p[7 * stride] = (char)_mm_extract_epi8(v, 7);
    p[8 * stride] = (char)_mm_extract_epi8(v, 8); p[9 * stride] = (char)_mm_extract_epi8(v, 9); p[10 * stride] = (char)_mm_extract_epi8(v, 10); p[11 * stride] = (char)_mm_extract_epi8(v, 11);
    p[12 * stride] = (char)_mm_extract_epi8(v, 12); p[13 * stride] = (char)_mm_extract_epi8(v, 13); p[14 * stride] = (char)_mm_extract_epi8(v, 14); p[15 * stride] = (char)_mm_extract_epi8(v, 15);
}
#endif
"#;
    t.replace("$ATTR", attr).replace("$A", a)
}

/// A 4x4 transposition of the 128-bit lanes of four AVX-512 vectors `v` (C expressions):
/// `z<l>` = lane l of v[0], v[1], v[2], v[3], by 8 `vshufi64x2` (two C lines, prefixed `p1`
/// and `p2`; the `z<l>` are not `const`, for the XOR that may follow).
fn lanes_4x4(p1: &str, p2: &str, v: [String; 4]) -> String {
    format!(
        "{p1}const __m512i t0 = _mm512_shuffle_i64x2({a}, {b}, 0x44), t1 = _mm512_shuffle_i64x2({a}, {b}, 0xEE), t2 = _mm512_shuffle_i64x2({c}, {d}, 0x44), t3 = _mm512_shuffle_i64x2({c}, {d}, 0xEE);\n{p2}__m512i z0 = _mm512_shuffle_i64x2(t0, t2, 0x88), z1 = _mm512_shuffle_i64x2(t0, t2, 0xDD), z2 = _mm512_shuffle_i64x2(t1, t3, 0x88), z3 = _mm512_shuffle_i64x2(t1, t3, 0xDD);\n",
        a = v[0],
        b = v[1],
        c = v[2],
        d = v[3]
    )
}

/// Vslice chunks of G words (G = 128/m, ..., 2, 1) for all K = R/m instances of one call, with
/// no data crossing a 128-bit lane: `nkp_vg_in_<A>_m<M>_g<G>(src, sb, regs)` reads words
/// a..a+G-1 of the K instances (`src` = word a of instance 0, `sb` = bytes per instance) and
/// writes the G registers at `regs`; `nkp_vg_outx_<A>_m<M>_g<G>(regs, sb, xs, dst)` the inverse
/// (XORed with the same words of `xs` when it is not NULL).
///
/// With k = 128/m elements per 128-bit lane: lane l of input vector r holds instances
/// l*k + r*(k/G) + t (t < k/G), each as its G consecutive words (pieces of G*m/8 bytes, one
/// 16-byte load when the instance has exactly G words). Within a lane an element's position
/// is the bit string (r, t, w) = (i_hi, i_lo, w) over log2(G) + log2(k) bits, and the target
/// layout wants (w, i_hi, i_lo): a left rotation by log2(k). One round of perfect shuffles,
/// y[2i] = unpacklo(x[i], x[i+G/2]), y[2i+1] = unpackhi(x[i], x[i+G/2]), rotates that string
/// left by one bit (the classic argument), so log2(k) rounds go in and log2(G) rounds come
/// back out (left rotation by log2(G) undoes it). G·log2(k) unpacks per G registers in,
/// G·log2(G) out; no lane crossing; G+1 vectors live at most.
fn v_lane_chunks(arch: Arch, m: u32) -> String {
    let a = suffix(arch);
    let attr = target_attr(arch);
    let k = (128 / m) as usize;
    let lanes = arch.reg_bits() as usize / 128;
    let (pre, vt) = arch.x86_intrinsics().expect("x86 SIMD");
    let eb = (m / 8) as usize; // bytes per element
    let mut s = v_vec_ops(arch).to_string();
    s.push_str(&v_piece_ops(arch));
    s.push_str(&format!(
        "#ifndef NKP_VG_DEFINED_{a}_{m}\n#define NKP_VG_DEFINED_{a}_{m}\n"
    ));
    // Assembles a vector from its lanes' 128-bit values / takes one lane out.
    let build = |parts: &[String]| -> String {
        match lanes {
            1 => parts[0].clone(),
            2 => format!("_mm256_inserti128_si256(_mm256_castsi128_si256({}), {}, 1)", parts[0], parts[1]),
            _ => format!(
                "_mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512({}), {}, 1), {}, 2), {}, 3)",
                parts[0], parts[1], parts[2], parts[3]
            ),
        }
    };
    let lane_of = |v: &str, l: usize| -> String {
        match (lanes, l) {
            (1, _) => v.to_string(),
            (2, 0) => format!("_mm256_castsi256_si128({v})"),
            (2, _) => format!("_mm256_extracti128_si256({v}, 1)"),
            (_, 0) => format!("_mm512_castsi512_si128({v})"),
            _ => format!("_mm512_extracti32x4_epi32({v}, {l})"),
        }
    };
    let rounds = |s: &mut String, g: usize, n: usize| {
        for _ in 0..n {
            for i in 0..g / 2 {
                s.push_str(&format!(
                    "    y[{}] = {pre}_unpacklo_epi{m}(x[{i}], x[{j}]); y[{}] = {pre}_unpackhi_epi{m}(x[{i}], x[{j}]);\n",
                    2 * i,
                    2 * i + 1,
                    j = i + g / 2
                ));
            }
            s.push_str(&format!("    for (int i = 0; i < {g}; i++) x[i] = y[i];\n"));
        }
    };
    let log2 = |x: usize| x.trailing_zeros() as usize;
    let mut g = k;
    while g >= 1 {
        let piece = g * eb;
        // The `vpermi2b` form where VBMI exists: both ways for bytes; inbound only for 16-
        // and 32-bit words of at most 4-word chunks (Zen 4, `bench transpose --arch avx512`,
        // in: `-V u16x4` 0.060 -> 0.036 c/B, `u32x4` 0.050 -> 0.036; its outbound was slower,
        // 0.032 -> 0.037, and so was the 8-word inbound, `u16x16` 0.058 -> 0.066).
        let vbmi_in = arch == Arch::Avx512 && g > 1 && (m == 8 || (m <= 32 && g <= 4));
        let vbmi_out = arch == Arch::Avx512 && g > 1 && m == 8;
        let (vin, vout) = if vbmi_in || vbmi_out {
            vbmi_chunk(g, m)
        } else {
            (String::new(), String::new())
        };
        if vbmi_in {
            s.push_str("#if defined(__AVX512VBMI__)\n");
            s.push_str(&vin);
            s.push_str("#else\n");
        }
        // inbound
        s.push_str(&format!(
            "static inline __attribute__((always_inline)) NKP_UNUSED {attr} void nkp_vg_in_{a}_m{m}_g{g}(const char *src, size_t sb, char *regs) {{\n    {vt} x[{g}], y[{g}];\n    (void)y;\n"
        ));
        for r in 0..g {
            let parts: Vec<String> = (0..lanes)
                .map(|l| {
                    format!(
                        "nkp_ldpc{piece}_{a}(src + {} * sb, sb)",
                        l * k + r * (k / g)
                    )
                })
                .collect();
            s.push_str(&format!("    x[{r}] = {};\n", build(&parts)));
        }
        if g > 1 {
            rounds(&mut s, g, log2(k));
        }
        for j in 0..g {
            s.push_str(&format!(
                "    NKP_VSTOREU_{a}(regs + {j} * sizeof x[0], x[{j}]);\n"
            ));
        }
        s.push_str("}\n");
        if vbmi_in {
            s.push_str("#endif /* __AVX512VBMI__ */\n");
        }
        // outbound
        if vbmi_out {
            s.push_str("#if defined(__AVX512VBMI__)\n");
            s.push_str(&vout);
            s.push_str("#else\n");
        }
        s.push_str(&format!(
            "static inline __attribute__((always_inline)) NKP_UNUSED {attr} void nkp_vg_outx_{a}_m{m}_g{g}(const char *regs, size_t sb, const char *xs, char *dst) {{\n    {vt} x[{g}], y[{g}];\n    (void)y;\n"
        ));
        for j in 0..g {
            s.push_str(&format!(
                "    x[{j}] = NKP_VLOADU_{a}(regs + {j} * sizeof x[0]);\n"
            ));
        }
        if g > 1 {
            rounds(&mut s, g, log2(g));
        }
        if lanes == 4 && g >= 4 {
            // Instances with exactly these G words (sb == piece): the 4G lane-pieces are
            // 16-byte chunks in memory order c = l*G + r, so 512-bit block q holds lanes
            // (c / G, c % G) for c = 4q..4q+3: within each group of 4 registers, a 4x4
            // transposition of 128-bit lanes (8 lane shuffles), then G full stores instead
            // of 4G lane stores (AVX-512 stores one register per cycle). Four named results
            // and four stores: an array and a loop became a block copy in 256-bit halves.
            s.push_str(&format!("    if (sb == {piece}) {{\n"));
            for grp in 0..g / 4 {
                let b = 4 * grp;
                s.push_str(&lanes_4x4(
                    "        { ",
                    "          ",
                    [0, 1, 2, 3].map(|i| format!("x[{}]", b + i)),
                ));
                // z_l = lane l of x[b..b+3]: chunks c = l*G + b .. + 3, at byte (l*G + b) * 16.
                for l in 0..4 {
                    let o = (l * g + b) * 16;
                    s.push_str(&format!(
                        "          if (xs) z{l} = NKP_VXOR_{a}(z{l}, NKP_VLOADU_{a}(xs + {o}));\n          NKP_VSTOREU_{a}(dst + {o}, z{l});\n"
                    ));
                }
                s.push_str("        }\n");
            }
            s.push_str("        return;\n    }\n");
        }
        for r in 0..g {
            for l in 0..lanes {
                let off = l * k + r * (k / g);
                let v = lane_of(&format!("x[{r}]"), l);
                s.push_str(&format!(
                    "    {{ __m128i v = {v}; if (xs) v = _mm_xor_si128(v, nkp_ldpc{piece}_{a}(xs + {off} * sb, sb)); nkp_stpc{piece}_{a}(dst + {off} * sb, sb, v); }}\n"
                ));
            }
        }
        s.push_str("}\n");
        if vbmi_out {
            s.push_str("#endif /* __AVX512VBMI__ */\n");
        }
        g /= 2;
    }
    s.push_str("#endif\n");
    s
}

/// AVX-512 VBMI form of the vslice chunk of G >= 2 words of m = 8, 16 or 32 bits
/// ([`v_lane_chunks`], same names and contract). With N = 512/m elements per vector, vector r
/// holds instances r*N/G .. (r+1)*N/G - 1 whole (element p = word p%G of instance r*N/G +
/// p/G: one 64-byte load when an instance has exactly G words, else pieces). log2(G) rounds
/// of `vpermi2b` (`_mm512_permutex2var_epi8`, each m-bit element moved as its m/8 bytes) on
/// pairs (x[i], x[i+G/2]): in round q, y[2i+h] takes the N elements of the pair whose word has
/// bit log2(G)-1-q equal to h (so after the last round vector w holds word w), ordered by
/// (instance, word), and in the last round by instance, which is the register layout. The
/// outbound does the same splitting on the instance's top bits (vector index = r), the last
/// round ordering by element p. The index tables are computed here by following every
/// element. Against the unpack network (16-byte lane loads and inserts, log2(128/m) unpack
/// rounds), 16-bit words of 4-word instances: 4 loads and 8 permutes per 256 bytes instead of
/// 16 loads, 12 inserts and 12 unpacks.
fn vbmi_chunk(g: usize, m: u32) -> (String, String) {
    let lg = g.trailing_zeros() as usize;
    let n = 512 / m as usize; // elements per vector
    let ln = n.trailing_zeros() as usize;
    let eb = (m / 8) as usize; // bytes per element
    let per = n / g; // instances per input vector
    let k = 128 / m as usize; // elements per 128-bit lane
    let piece = g * eb; // bytes of one instance's chunk

    // An element is (instance, word); a state is g vectors of n elements.
    type St = Vec<Vec<(usize, usize)>>;
    let plain: St = (0..g)
        .map(|r| (0..n).map(|p| (r * per + p / g, p % g)).collect())
        .collect();
    let sliced: St = (0..g).map(|w| (0..n).map(|i| (i, w)).collect()).collect();
    // One run of rounds from `from` splitting by key(q, elem); returns per round the byte
    // index tables (one per output vector), checking that the result is `to`.
    let plan =
        |from: &St, to: &St, key: &dyn Fn(usize, (usize, usize)) -> usize| -> Vec<Vec<[u8; 64]>> {
            let mut x = from.clone();
            let mut tabs = vec![];
            for q in 0..lg {
                let mut y: St = vec![vec![]; g];
                let mut t = vec![];
                for i in 0..g / 2 {
                    for h in 0..2 {
                        let mut v: Vec<(usize, usize)> = x[i]
                            .iter()
                            .chain(x[i + g / 2].iter())
                            .copied()
                            .filter(|&e| key(q, e) == h)
                            .collect();
                        assert_eq!(v.len(), n);
                        if q + 1 == lg {
                            let o = &to[2 * i + h];
                            v.sort_by_key(|e| o.iter().position(|f| f == e).unwrap());
                        } else {
                            v.sort();
                        }
                        let idx: [u8; 64] = core::array::from_fn(|b| {
                            let el = v[b / eb];
                            let pos = match x[i].iter().position(|&f| f == el) {
                                Some(pp) => pp,
                                None => n + x[i + g / 2].iter().position(|&f| f == el).unwrap(),
                            };
                            (pos * eb + b % eb) as u8
                        });
                        t.push(idx);
                        y[2 * i + h] = v;
                    }
                }
                x = y;
                tabs.push(t);
            }
            assert!(x == *to, "vbmi plan for G={g}, m={m}");
            tabs
        };
    let tin = plan(&plain, &sliced, &|q, (_, w)| (w >> (lg - 1 - q)) & 1);
    let tout = plan(&sliced, &plain, &|q, (i, _)| (i >> (ln - 1 - q)) & 1);
    let attr = target_attr(Arch::Avx512);
    // The rounds of one direction as C, with its index tables (named after the direction,
    // each emitted once) pushed into `s`.
    let rounds_text = |tabs: &Vec<Vec<[u8; 64]>>, dir: &str, s: &mut String| -> String {
        let mut consts: Vec<[u8; 64]> = vec![];
        let mut b = String::new();
        for t in tabs {
            for i in 0..g / 2 {
                for h in 0..2 {
                    let t = &t[2 * i + h];
                    let c = match consts.iter().position(|c| c == t) {
                        Some(c) => c,
                        None => {
                            consts.push(*t);
                            let body: Vec<String> = t.iter().map(|b| b.to_string()).collect();
                            s.push_str(&format!(
                                "static const uint8_t nkp_vbi_avx512_m{m}_g{g}_{dir}{}[64] __attribute__((aligned(64))) = {{{}}};\n",
                                consts.len() - 1,
                                body.join(",")
                            ));
                            consts.len() - 1
                        }
                    };
                    b.push_str(&format!(
                        "    y[{o}] = _mm512_permutex2var_epi8(x[{i}], _mm512_loadu_si512((const void *)nkp_vbi_avx512_m{m}_g{g}_{dir}{c}), x[{j}]);\n",
                        o = 2 * i + h,
                        j = i + g / 2
                    ));
                }
            }
            b.push_str(&format!("    for (int i = 0; i < {g}; i++) x[i] = y[i];\n"));
        }
        b
    };
    let mut sin = String::new();
    let mut sout = String::new();
    let rin = rounds_text(&tin, "i", &mut sin);
    let rout = rounds_text(&tout, "o", &mut sout);
    // Lane l of vector r: the chunks of instances (4r + l) * k/g .. (k/g of them).
    let lane_off = |r: usize, l: usize| (4 * r + l) * (k / g);
    // inbound
    let s = &mut sin;
    s.push_str(&format!(
        "static inline __attribute__((always_inline)) NKP_UNUSED {attr} void nkp_vg_in_avx512_m{m}_g{g}(const char *src, size_t sb, char *regs) {{\n    __m512i x[{g}], y[{g}];\n"
    ));
    for r in 0..g {
        let parts: Vec<String> = (0..4)
            .map(|l| format!("nkp_ldpc{piece}_avx512(src + {} * sb, sb)", lane_off(r, l)))
            .collect();
        s.push_str(&format!(
            "    x[{r}] = sb == {piece} ? _mm512_loadu_si512((const void *)(src + {o})) : _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512({}), {}, 1), {}, 2), {}, 3);\n",
            parts[0], parts[1], parts[2], parts[3],
            o = 64 * r
        ));
    }
    s.push_str(&rin);
    for j in 0..g {
        s.push_str(&format!(
            "    _mm512_storeu_si512((void *)(regs + {j} * 64), x[{j}]);\n"
        ));
    }
    s.push_str("}\n");
    // outbound
    let s = &mut sout;
    s.push_str(&format!(
        "static inline __attribute__((always_inline)) NKP_UNUSED {attr} void nkp_vg_outx_avx512_m{m}_g{g}(const char *regs, size_t sb, const char *xs, char *dst) {{\n    __m512i x[{g}], y[{g}];\n"
    ));
    for j in 0..g {
        s.push_str(&format!(
            "    x[{j}] = _mm512_loadu_si512((const void *)(regs + {j} * 64));\n"
        ));
    }
    s.push_str(&rout);
    for r in 0..g {
        s.push_str(&format!(
            "    if (sb == {piece}) {{ if (xs) x[{r}] = _mm512_xor_si512(x[{r}], _mm512_loadu_si512((const void *)(xs + {o}))); _mm512_storeu_si512((void *)(dst + {o}), x[{r}]); }}\n    else {{\n",
            o = 64 * r
        ));
        for l in 0..4 {
            let off = lane_off(r, l);
            let v = if l == 0 {
                format!("_mm512_castsi512_si128(x[{r}])")
            } else {
                format!("_mm512_extracti32x4_epi32(x[{r}], {l})")
            };
            s.push_str(&format!(
                "        {{ __m128i v = {v}; if (xs) v = _mm_xor_si128(v, nkp_ldpc{piece}_avx512(xs + {off} * sb, sb)); nkp_stpc{piece}_avx512(dst + {off} * sb, sb, v); }}\n"
            ));
        }
        s.push_str("    }\n");
    }
    s.push_str("}\n");
    (sin, sout)
}

/// Bitslice, x86 SIMD, the 8 bytes at byte offset `o` of every instance (the R instances of
/// one call; `o` = 8g for whole group g, or the window of a last partial group):
/// `nkp_Bg_in_uU_<A>(src, bpi, o, lim, regs)` writes registers 8o..8o+lim-1 and
/// `nkp_Bg_out_uU_<A>(regs, bpi, o, lim, dst, scratch)` is its inverse, reading only those
/// (`bpi` = bytes per instance, `lim` = 64 but for a partial window, where only the last byte's
/// atoms may be missing; `scratch` = 64 vectors the caller wipes). Same result as the 64x64 swap network, in two
/// stages:
/// - a byte stage (shuffles only): with instance i = 64l + 8·K1 + K0 (l = 64-bit lane of the
///   register, 128-bit lane L = l/2, l0 = l%2) and B the byte of the group (bit-string order),
///   vector X[B, K0] gets at byte (l0, K1) of lane L the byte B of instance i. 16-byte loads
///   bring two instances' groups (elements (K0%2, memory byte)); for each of the 4 values of
///   K0/2, 16 vectors indexed (l0, K1) go through 4 rounds of `unpacklo/hi_epi8` (each
///   rotates the per-lane position string (vector bits | element bits) left by one), which
///   leaves vector (K0%2, memory byte) with elements (l0, K1): it is X[B = memory byte ^ rev,
///   K0], stored at that slot (the units' little-endian order undone by the slot index, not
///   by a byte shuffle; stop 57: one `pshufb` per vector less);
/// - a bit stage: for each B the 8 vectors X[B, 0..7] are 8x8-transposed bytewise by the last
///   three rounds (J = 4, 2, 1) of the swap network; row c is then the register of atom
///   64g + 8B + 7 - c.
///
/// The outbound runs the bit stage first (into `scratch`), then 4 unpack rounds on 16
/// vectors gathered in the order (K0%2, memory byte) (which leave them indexed (l0, K1) with
/// elements in memory order), and stores the pieces. 3·32 masked swaps + 256 unpacks per group
/// instead of 6·32 swaps and scalar row assembly.
///
/// Pairs of groups by a 16x16 byte transpose (`nkp_Bg2_in` / `nkp_Bg2_out` on SSE, and on
/// AVX2 without GFNI): where both groups of a 16-byte chunk of the instance are whole (bytes
/// 8g..8g+15, instances of 16 bytes or more), the byte stage takes, for each K0, the 16-byte
/// chunks of the instances 8e + K0 (e = 16·lane + v) whole, one per 128-bit lane of vector v
/// (a load, and an insert per further lane: no `pshufb`, no 8-byte pieces), and one 16x16
/// byte transpose (the same 4 unpack rounds) leaves vector b = byte b of the chunk, with
/// instance 8e + K0 at byte e; the unit reversal is in where vector b is stored (group b/8,
/// B = b%8 ^ rev). Then the bit stage as above, on both groups. Per vector: 4 unpacks and at
/// most one insert, against 4 unpacks, a `pshufb`, an insert and the 8-byte pieces' combine
/// (`bench transpose`, Zen 3, 16-byte instances: avx2 in 0.19 -> 0.145 c/B, out 0.195 ->
/// 0.177; sse in 0.38 -> 0.26, out 0.35 -> 0.27). The outbound is the inverse: the bit
/// stage, the same transpose (its own inverse), and each lane stored as an instance's chunk.
/// With GFNI, AVX2 keeps the `gf2p8affineqb` networks (measured faster on Zen 4); AVX-512
/// keeps its own.
fn b_group_routines(arch: Arch, ub: u32) -> String {
    let a = suffix(arch);
    let attr = target_attr(arch);
    let lanes = arch.reg_bits() as usize / 128;
    let (pre, vt) = arch.x86_intrinsics().expect("x86 SIMD");
    // The units' byte reversal: memory byte mb of a group holds B = mb ^ rev.
    let rev = (ub / 8 - 1) as usize;
    // Byte b of a 16-byte chunk (two groups) as the byte index 8·group + B of the pair.
    let b16 = format!("(b / 8) * 8 + ((b % 8) ^ {rev})");
    let build = |parts: &[String]| -> String {
        match lanes {
            1 => parts[0].clone(),
            2 => format!("_mm256_inserti128_si256(_mm256_castsi128_si256({}), {}, 1)", parts[0], parts[1]),
            _ => format!(
                "_mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512({}), {}, 1), {}, 2), {}, 3)",
                parts[0], parts[1], parts[2], parts[3]
            ),
        }
    };
    let lane_of = |v: &str, l: usize| -> String {
        match (lanes, l) {
            (1, _) => v.to_string(),
            (2, 0) => format!("_mm256_castsi256_si128({v})"),
            (2, _) => format!("_mm256_extracti128_si256({v}, 1)"),
            (_, 0) => format!("_mm512_castsi512_si128({v})"),
            _ => format!("_mm512_extracti32x4_epi32({v}, {l})"),
        }
    };
    let rounds16 = |s: &mut String| {
        for _ in 0..4 {
            for i in 0..8 {
                s.push_str(&format!(
                    "        y[{}] = {pre}_unpacklo_epi8(x[{i}], x[{j}]); y[{}] = {pre}_unpackhi_epi8(x[{i}], x[{j}]);\n",
                    2 * i,
                    2 * i + 1,
                    j = i + 8
                ));
            }
            s.push_str("        for (int i = 0; i < 16; i++) x[i] = y[i];\n");
        }
    };
    // The bit stage on 8 vectors r[0..7] (bytewise 8x8 transposes): the swap network's rounds
    // J = 4, 2, 1 on rows 0..7 (written out: NKP_TR_ROUND walks 64 rows).
    let mut bits_s = String::new();
    for (j, mask) in [
        (4u32, "0x0F0F0F0F0F0F0F0FULL"),
        (2, "0x3333333333333333ULL"),
        (1, "0x5555555555555555ULL"),
    ] {
        bits_s.push_str(&format!("{{ const NKP_VT_$A m = NKP_SET1_$A({mask});\n"));
        for k in 0..8u32 {
            if k & j == 0 {
                let kj = k | j;
                bits_s.push_str(&format!(
                    "          {{ const NKP_VT_$A t = NKP_AND_$A(NKP_XOR_$A(NKP_SRL_$A(r[{k}], {j}), r[{kj}]), m); r[{kj}] = NKP_XOR_$A(r[{kj}], t); r[{k}] = NKP_XOR_$A(r[{k}], NKP_SLL_$A(t, {j})); }}\n"
                ));
            }
        }
        bits_s.push_str("        }\n        ");
    }
    let bits = bits_s.as_str();
    // The bit stage of `nb` bytes B (8 per group), reading registers 8B+7-k (only those below
    // `lim` when `with_lim`, zero past it) and writing row c with `store` (outbound: scratch
    // rows 8B+c; the inbound pairs: registers 8B+7-c).
    let bit_stage = |nb: usize, with_lim: bool, store: &str| -> String {
        let load = format!("NKP_VLOADU_{a}(rg + (8 * B + 7 - k) * sizeof({vt}))");
        let load = if with_lim {
            format!("8 * B + 7 - k < lim ? {load} : NKP_SET1_$A(0)")
        } else {
            load
        };
        format!("    for (size_t B = 0; B < {nb}; B++) {{\n        NKP_VT_$A r[8];\n        for (int k = 0; k < 8; k++) r[k] = {load};\n        {bits}        for (int c = 0; c < 8; c++) {store};\n    }}\n")
    };
    let bits_out = |nb: usize, with_lim: bool| bit_stage(nb, with_lim, "scr[8 * B + c] = r[c]");
    let mut s = format!("#ifndef NKP_BG_DEFINED_{a}_{ub}\n#define NKP_BG_DEFINED_{a}_{ub}\n");
    // With GFNI (AVX-512: and VBMI), whole groups of 8- and 16-byte instances take the
    // shorter network of `b_gfni_avx512` / `b_gfni_avx2`, and so does every whole group whose
    // instance bytes lie in a 16-byte chunk of the instance (16-byte loads at that offset,
    // stride bpi): all groups of 16k-byte instances, all but the last of 20- and 33-byte ones
    // (Spongent, Subterranean), and on the inbound every group of instances of a multiple of 8
    // bytes from 16 up (Ascon/ACE's 40: the last from bytes 24..39) and the window of a
    // string's last 8 bytes when it has no partial byte (Spongent's bytes 12..19, from 4..19);
    // the outbound pairs of groups inside a 16-byte chunk. (A window with a partial last byte,
    // `nkp_Bw_lim` < 64, is not this form: it would write registers past the string.)
    let q = |body: &str| -> String {
        match arch {
            Arch::Avx512 => {
                format!("#if defined(__AVX512VBMI__) && defined(__GFNI__)\n{body}#endif\n")
            }
            Arch::Avx2 => format!("#if defined(__GFNI__)\n{body}#endif\n"),
            _ => String::new(),
        }
    };
    match arch {
        Arch::Avx512 => s.push_str(&b_gfni_avx512(ub)),
        Arch::Avx2 => s.push_str(&b_gfni_avx2(ub)),
        _ => {}
    }
    // A whole group (or the window of the string's last 8 bytes) of instances of 8 bytes, or
    // of 16 or more from the 16-byte chunk holding it; outbound: 8-byte instances, and pairs
    // of groups in one 16-byte chunk (`nkp_Bg2_out`).
    // AVX2: 16-byte instances by contiguous loads (`nkp_Bq16_in`), the others by 16-byte loads
    // at the instance stride (`nkp_Bq16s_in`); AVX-512: one routine, which tests `bpi == 16`.
    let in16 = if arch == Arch::Avx2 {
        format!("if (bpi == 16) nkp_Bq16_in_u{ub}_{a}((const char *)src, o, regs); else nkp_Bq16s_in_u{ub}_{a}((const char *)src, bpi, o, regs)")
    } else {
        format!("nkp_Bq16_in_u{ub}_{a}((const char *)src, bpi, o, regs)")
    };
    let q_in = q(&format!("    if (lim == 64 && (bpi == 8 || (bpi >= 16 && o + 8 <= bpi && (o + 8 == bpi || ((o & 7) == 0 && ((o & ~(size_t)15) + 16 <= bpi || bpi % 8 == 0)))))) {{\n        if (bpi == 8) nkp_Bq8_in_u{ub}_{a}((const char *)src, o, regs); else {in16};\n        return;\n    }}\n"));
    let q_out = q(&format!("    if (lim == 64 && bpi == 8) {{ nkp_Bq8_out_u{ub}_{a}(regs, o, (const char *)xs, (char *)dst, scr); return; }}\n"));
    // AVX2 only for 16-byte instances: its 16-byte stores at a larger stride (two per
    // register, with a lane extract) measured slower than the byte-shuffle network (`u64x5` out
    // 0.166 -> 0.188 c/B, `u32x12` 0.159 -> 0.172); on AVX-512 the other way round.
    let q_out2 = q(&if arch == Arch::Avx2 {
        format!("    if (bpi == 16) {{ nkp_Bq16_out_u{ub}_{a}(regs, o, xs, dst, scr); return; }}\n")
    } else {
        format!("    {{ nkp_Bq16_out_u{ub}_{a}(regs, bpi, o, xs, dst, scr); return; }}\n")
    });
    // ---- inbound
    s.push_str(&format!(
        "static NKP_UNUSED {attr} void nkp_Bg_in_u{ub}_{a}(const uint{ub}_t *src, size_t bpi, size_t o, size_t lim, char *regs) {{\n{q_in}    {vt} t7[8];\n    const char *p0 = (const char *)src + o;\n    char *rg = regs + 8 * o * sizeof({vt});\n"
    ));
    s.push_str("    for (size_t p = 0; p < 4; p++) {\n");
    s.push_str(&format!("        {vt} x[16], y[16];\n"));
    for v in 0..16 {
        let (l0, k1) = (v / 8, v % 8);
        let parts: Vec<String> = (0..lanes)
            .map(|lane| {
                let i0 = 64 * (2 * lane + l0) + 8 * k1;
                format!("nkp_ldpc8_{a}(p0 + ({i0} + 2 * p) * bpi, bpi)")
            })
            .collect();
        s.push_str(&format!("        x[{v}] = {};\n", build(&parts)));
    }
    rounds16(&mut s);
    // x[c], c = the lane byte (K0%2, memory byte) -> X[B = memory byte ^ rev, K0 = 2p + c/8]
    // -> slot 8B + 7 - K0 (B = 7 kept in t7 for the bit stage).
    s.push_str(&format!(
        "        for (int c = 0; c < 16; c++) {{\n            const int B = (c % 8) ^ {rev}, K = 2 * (int)p + c / 8;\n            if (B < 7) NKP_VSTOREU_{a}(rg + (8 * B + 7 - K) * sizeof({vt}), x[c]); else t7[7 - K] = x[c];\n        }}\n    }}\n"
    ));
    // (`(size_t)(63 - c)`: the conversion C made implicitly, written out for -Wsign-compare;
    // a `size_t c` changed gcc's instruction order in the AVX-512 routine)
    s.push_str(&format!(
        "    for (size_t B = 0; B < 8; B++) {{\n        NKP_VT_$A r[8];\n        for (int k = 0; k < 8; k++) r[k] = B < 7 ? NKP_VLOADU_{a}(rg + (8 * B + 7 - k) * sizeof({vt})) : t7[7 - k];\n        {bits}        for (int c = 0; c < 8; c++) if (B < 7 || (size_t)(63 - c) < lim) NKP_VSTOREU_{a}(rg + (8 * B + 7 - c) * sizeof({vt}), r[c]);\n    }}\n    nkp_wipe(t7, sizeof t7);\n}}\n"
    ));
    // Pairs of whole groups from one 16-byte chunk of the instance (`nkp_Bq16x2_in`, AVX-512
    // with VBMI and GFNI): returns the first group not done.
    // SSE and AVX2 without GFNI: the chunk transpose below ("Pairs of groups by a 16x16 byte
    // transpose").
    let pairs_in = match arch {
        Arch::Avx512 => q(&format!("    if (bpi >= 16) for (; 64 * (g + 2) <= natoms && 8 * g + 16 <= bpi; g += 2) nkp_Bq16x2_in_u{ub}_{a}((const char *)src, bpi, 8 * g, regs);\n")),
        Arch::Sse | Arch::Avx2 => {
            let mut t = format!("    for (; 64 * (g + 2) <= natoms && 8 * g + 16 <= bpi; g += 2) {{\n        const char *p0 = (const char *)src + 8 * g;\n        char *rg = regs + 64 * g * sizeof({vt});\n        for (int K0 = 0; K0 < 8; K0++) {{\n        {vt} x[16], y[16];\n");
            for v in 0..16 {
                let parts: Vec<String> = (0..lanes)
                    .map(|lane| format!("_mm_loadu_si128((const __m128i *)(const void *)(p0 + ({} + K0) * bpi))", 8 * (v + 16 * lane)))
                    .collect();
                t.push_str(&format!("        x[{v}] = {};\n", build(&parts)));
            }
            rounds16(&mut t);
            t.push_str(&format!("        for (int b = 0; b < 16; b++) NKP_VSTOREU_{a}(rg + (8 * ({b16}) + 7 - K0) * sizeof({vt}), x[b]);\n        }}\n"));
            t.push_str(&bit_stage(
                16,
                false,
                &format!("NKP_VSTOREU_{a}(rg + (8 * B + 7 - c) * sizeof({vt}), r[c])"),
            ));
            t.push_str("    }\n");
            if arch == Arch::Avx2 {
                format!("#if !defined(__GFNI__)\n{t}#endif\n")
            } else {
                t
            }
        }
        _ => String::new(),
    };
    s.push_str(&format!(
        "static NKP_UNUSED {attr} size_t nkp_Bg2_in_u{ub}_{a}(const uint{ub}_t *src, size_t bpi, size_t natoms, size_t g, char *regs) {{\n{pairs_in}    (void)src; (void)bpi; (void)natoms; (void)regs;\n    return g;\n}}\n"
    ));
    // ---- outbound: the bit stage into `scr` (scr[8B + K0]), then vector c of the byte stage
    // gathered as X[B = (c % 8) ^ rev, K0 = 2p + c/8], so that after the 4 unpack rounds each
    // lane holds two instances' bytes in memory order (no byte shuffle before the stores).
    let gather = format!("8 * ((c % 8) ^ {rev}) + 2 * p + c / 8");
    s.push_str(&format!(
        "static NKP_UNUSED {attr} void nkp_Bg_out_u{ub}_{a}(const char *regs, size_t bpi, size_t o, size_t lim, const uint{ub}_t *xs, uint{ub}_t *dst, {vt} *scr) {{\n{q_out}    char *p0 = (char *)dst + o;\n    const char *x0 = xs ? (const char *)xs + o : p0;\n    const char *rg = regs + 8 * o * sizeof({vt});\n"
    ));
    s.push_str(&bits_out(8, true));
    s.push_str("    for (size_t p = 0; p < 4; p++) {\n");
    s.push_str(&format!(
        "        {vt} x[16], y[16];\n        for (int c = 0; c < 16; c++) x[c] = scr[{gather}];\n"
    ));
    rounds16(&mut s);
    for v in 0..16 {
        let (l0, k1) = (v / 8, v % 8);
        s.push_str(&format!("        {{ const {vt} o = x[{v}];\n"));
        for lane in 0..lanes {
            let i0 = 64 * (2 * lane + l0) + 8 * k1;
            s.push_str(&format!(
                "          {{ const size_t f = ({i0} + 2 * p) * bpi; __m128i v = {}; if (xs) v = _mm_xor_si128(v, nkp_ldpc8_{a}(x0 + f, bpi)); nkp_stpc8_{a}(p0 + f, bpi, v); }}\n",
                lane_of("o", lane)
            ));
        }
        s.push_str("}\n");
    }
    s.push_str("    }\n}\n");
    // ---- outbound, two whole groups at once (instances of a multiple of 16 bytes, `o` a
    // multiple of 16): both groups go through the same stages, then `unpacklo/hi_epi64` joins
    // an instance's 8 bytes of the first group with its 8 bytes of the second, so that each
    // instance takes one 16-byte store (half as many stores as two single-group passes, and no
    // 8-byte halves), XORed with the same 16 bytes of `xs` when `xs` is not NULL (read just
    // before the store: in place works).
    s.push_str(&format!(
        "static NKP_UNUSED {attr} void nkp_Bg2_out_u{ub}_{a}(const char *regs, size_t bpi, size_t o, const char *xs, char *dst, {vt} *scr) {{\n    char *p0 = dst + o;\n    const char *x0 = xs ? xs + o : p0;\n    const char *rg = regs + 8 * o * sizeof({vt});\n"
    ));
    // SSE and AVX2 without GFNI: the inverse of the inbound chunk transpose (the 16x16 byte
    // transpose is its own inverse), each register's lanes stored as 16-byte instance chunks.
    // (SSE has only this form; AVX2 has it without GFNI and the form below with it.)
    let chunk_out = matches!(arch, Arch::Sse | Arch::Avx2);
    let pair_out = arch != Arch::Sse;
    if chunk_out {
        if pair_out {
            s.push_str("#if !defined(__GFNI__)\n");
        }
        s.push_str(&bits_out(16, false));
        s.push_str(&format!("    for (int K0 = 0; K0 < 8; K0++) {{\n        {vt} x[16], y[16];\n        for (int b = 0; b < 16; b++) x[b] = scr[8 * ({b16}) + K0];\n"));
        rounds16(&mut s);
        s.push_str("        for (int v = 0; v < 16; v++) {\n");
        for lane in 0..lanes {
            s.push_str(&format!(
                "          {{ const size_t f = (size_t)(8 * (v + {}) + K0) * bpi; __m128i w = {}; if (xs) w = _mm_xor_si128(w, _mm_loadu_si128((const __m128i *)(const void *)(x0 + f))); _mm_storeu_si128((__m128i *)(void *)(p0 + f), w); }}\n",
                16 * lane,
                lane_of("x[v]", lane)
            ));
        }
        s.push_str("        }\n    }\n");
        if pair_out {
            s.push_str("#else\n");
        }
    }
    if pair_out {
        s.push_str(&q_out2);
        s.push_str(&bits_out(16, false));
        s.push_str("    for (size_t p = 0; p < 4; p++) {\n");
        s.push_str(&format!(
        "        {vt} x[16], y[16], z[16];\n        for (int c = 0; c < 16; c++) x[c] = scr[{gather}];\n"
    ));
        rounds16(&mut s);
        s.push_str(&format!(
            "        for (int c = 0; c < 16; c++) {{ z[c] = x[c]; x[c] = scr[64 + {gather}]; }}\n"
        ));
        rounds16(&mut s);
        for v in 0..16 {
            let (l0, k1) = (v / 8, v % 8);
            s.push_str(&format!(
            "        {{ const {vt} lo = {pre}_unpacklo_epi64(z[{v}], x[{v}]), hi = {pre}_unpackhi_epi64(z[{v}], x[{v}]);\n"
        ));
            for lane in 0..lanes {
                let i0 = 64 * (2 * lane + l0) + 8 * k1;
                for (h, v) in [(0, "lo"), (1, "hi")] {
                    s.push_str(&format!(
                    "          {{ const size_t f = ({i0} + {h} + 2 * p) * bpi; __m128i v = {}; if (xs) v = _mm_xor_si128(v, _mm_loadu_si128((const __m128i *)(const void *)(x0 + f))); _mm_storeu_si128((__m128i *)(void *)(p0 + f), v); }}\n",
                    lane_of(v, lane)
                ));
                }
            }
            s.push_str("        }\n");
        }
        s.push_str("    }\n");
    }
    if chunk_out && pair_out {
        s.push_str("#endif\n");
    }
    s.push_str("}\n#endif\n");
    subst(&s, arch)
}

/// `_mm512_set_epi8` of 64 byte values (element 0 first).
fn set_epi8_512(v: &[u8; 64]) -> String {
    let mut e: Vec<String> = v.iter().map(|&b| epi8(b)).collect();
    e.reverse();
    format!("_mm512_set_epi8({})", e.join(", "))
}

/// A byte as a `_mm*_set_epi8` argument: the intrinsics take `char`, so bytes over 127 are
/// written as their negative two's-complement value (clang's `-Wall` warns on `204`).
fn epi8(b: u8) -> String {
    (b as i8).to_string()
}

/// C: `c`, the start of the 16-byte chunk of an instance of `bpi` >= 16 bytes that holds the
/// 8-byte group at byte `o`: the aligned chunk, or where that passes the instance's end (or the
/// group is the window of the string's last 8 bytes, at any offset) the last 16 bytes. Shared by
/// the AVX-512 and AVX2 single-group inbound routines (the group is the upper half iff
/// `o != c`).
const GROUP_CHUNK_C: &str =
    "const size_t c = (o & 7) == 0 && (o & ~(size_t)15) + 16 <= bpi ? (o & ~(size_t)15) : bpi - 16;";

/// Bitslice on AVX-512 with VBMI and GFNI (`#if defined(__AVX512VBMI__) && defined(__GFNI__)`):
/// whole 64-atom groups of instances of 8 or 16k bytes, the layout of [`b_group_routines`] by
/// another network. A bit's address is (register index r0..r5, byte index b0..b5 of the
/// 64-byte register, bit in byte); with instance i = 8q + k and the group's byte B (bit-string
/// order) holding bit c, memory gives register q, bytes (B, k), and the layout wants register
/// (c, B), byte q, bit k. Inbound, per group of the 512 instances:
/// - one `vpermb` per 8 instances (bpi 8; `vpermt2b` of two loads for bpi 16) puts byte B of
///   instance k at byte (7 - k) of qword B;
/// - three qword exchanges between the qword index and register bits r3..r5
///   (`unpacklo/hi_epi64`, then two `shuffle_i64x2` rotations of (b4, b5, register bit));
/// - one `gf2p8affineqb` per register transposes each qword's 8x8 bit matrix: byte c of the
///   qword now holds bit c of the 8 instances (instance k at bit k);
/// - three byte exchanges (b0..b2 with r0..r2) by shift + `vpternlogq` blends.
///
/// Registers r3..r5 and r0..r2 meet in two passes of 8 vectors through the group's own 64
/// registers (the first pass stores, the second loads them back). 5 shuffles and 6 logic
/// operations per register against the byte + bit stages' 8 shuffles and ~8 logic
/// operations with an extra pass: `bench transpose` on Zen 4 0.155 -> 0.103-0.112 c/B in,
/// 0.150 -> 0.114-0.124 out. The outbound is the inverse (reversed byte order before the
/// `gf2p8affineqb`, inverse rotations by `vpermt2q`), with the XOR operand read just before each
/// 64-byte store; for 16-byte instances it takes both groups of the 16 bytes at once
/// (`vpermt2b` joins them). Instances of 16k bytes (k > 1) take the 16-byte routines with each
/// vector gathered from (and scattered to) four instances' 16 bytes (`nkp_ld4x16`,
/// `nkp_st4x16`). The inbound takes two whole groups from one 16-byte chunk of instances of 16
/// bytes or more (`nkp_Bq16x2_in`: the same loads feed both groups' `vpermt2b`, half the loads
/// and inserts of two passes), and a single group from the 16-byte chunk that holds it, at any
/// offset when it is the window of the string's last 8 bytes (a 20-byte instance's bytes
/// 12..19 from bytes 4..19).
fn b_gfni_avx512(ub: u32) -> String {
    let rev = (ub / 8 - 1) as usize;
    let attr = target_attr(Arch::Avx512);
    // Inbound byte permutation: destination byte d = (7 - k) | B << 3.
    let idx_in = |bpi: usize, half: usize| -> String {
        let v: [u8; 64] = core::array::from_fn(|d| {
            let (k, b) = (7 - (d & 7), (d >> 3) ^ rev);
            if bpi == 8 {
                (8 * k + b) as u8
            } else {
                (((k >> 2) << 6) | (16 * (k & 3) + 8 * half + b)) as u8
            }
        });
        set_epi8_512(&v)
    };
    // Outbound: memory byte m of 8 (bpi 8) or 4 (bpi 16, the first register; the second is
    // this minus 4) instances from the group vectors (bit 6: the second group).
    let idx_out = |bpi: usize| -> String {
        let v: [u8; 64] = core::array::from_fn(|m| {
            if bpi == 8 {
                let (k, b) = (m >> 3, (m & 7) ^ rev);
                ((7 - k) | b << 3) as u8
            } else {
                let (kk, h, b) = (m >> 4, (m >> 3) & 1, (m & 7) ^ rev);
                (h << 6 | (7 - kk) | b << 3) as u8
            }
        });
        set_epi8_512(&v)
    };
    const MASKS: [&str; 3] = [
        "0x00FF00FF00FF00FFULL",
        "0x0000FFFF0000FFFFULL",
        "0x00000000FFFFFFFFULL",
    ];
    // Byte exchanges b_s <-> r_s on y[0..8] (s in `order`).
    let byte_x = |order: &[usize]| -> String {
        let mut s = String::new();
        for &st in order {
            let (d, sh) = (1usize << st, 8u32 << st);
            s.push_str(&format!(
                "        {{ const __m512i m = _mm512_set1_epi64({});\n",
                MASKS[st]
            ));
            for j in (0..8).filter(|j| j & d == 0) {
                let jd = j + d;
                s.push_str(&format!(
                    "          {{ const __m512i a = y[{j}], b = y[{jd}]; y[{j}] = _mm512_ternarylogic_epi64(m, a, _mm512_slli_epi64(b, {sh}), 0xCA); y[{jd}] = _mm512_ternarylogic_epi64(m, _mm512_srli_epi64(a, {sh}), b, 0xCA); }}\n"
                ));
            }
            s.push_str("        }\n");
        }
        s
    };
    let mut s = String::new();
    s.push_str("#if defined(__AVX512VBMI__) && defined(__GFNI__)\n");
    s.push_str("#ifndef NKP_GF2P8AFF_avx512\n#define NKP_GF2P8AFF_avx512(x, a) _mm512_gf2p8affine_epi64_epi8(x, a, 0)\n#endif\n");
    // Instances of 16k bytes (k > 1): the 16 bytes at the same offset of 4 instances `bpi`
    // apart, in and out of one vector (the XOR operand `x` read per piece, or NULL).
    s.push_str(&format!(
        "#ifndef NKP_LD4X16_avx512\n#define NKP_LD4X16_avx512\nstatic inline __attribute__((always_inline)) NKP_UNUSED {attr} __m512i nkp_ld4x16_avx512(const char *a, size_t bpi) {{\n    return _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)a)), _mm_loadu_si128((const __m128i *)(const void *)(a + bpi)), 1), _mm_loadu_si128((const __m128i *)(const void *)(a + 2 * bpi)), 2), _mm_loadu_si128((const __m128i *)(const void *)(a + 3 * bpi)), 3);\n}}\nstatic inline __attribute__((always_inline)) NKP_UNUSED {attr} void nkp_st4x16_avx512(char *d, const char *x, size_t bpi, __m512i v) {{\n    __m128i p[4] = {{ _mm512_castsi512_si128(v), _mm512_extracti32x4_epi32(v, 1), _mm512_extracti32x4_epi32(v, 2), _mm512_extracti32x4_epi32(v, 3) }};\n    for (int l = 0; l < 4; l++) {{\n        if (x) p[l] = _mm_xor_si128(p[l], _mm_loadu_si128((const __m128i *)(const void *)(x + l * bpi)));\n        _mm_storeu_si128((__m128i *)(void *)(d + l * bpi), p[l]);\n    }}\n}}\n#endif\n"
    ));
    // Inbound, first pass: the three qword exchanges (qword index with register bits 3..5)
    // on y[base..base + 8].
    let qword_x = |base: usize| -> String {
        let mut s = String::new();
        for t in (0..8).step_by(2) {
            s.push_str(&format!("        {{ const __m512i a = y[{t}], b = y[{u}]; y[{t}] = _mm512_unpacklo_epi64(a, b); y[{u}] = _mm512_unpackhi_epi64(a, b); }}\n", t = base + t, u = base + t + 1));
        }
        for d in [2usize, 4] {
            for t in (0..8).filter(|t| t & d == 0) {
                s.push_str(&format!("        {{ const __m512i a = y[{t}], b = y[{u}]; y[{t}] = _mm512_shuffle_i64x2(a, b, 0x88); y[{u}] = _mm512_shuffle_i64x2(a, b, 0xDD); }}\n", t = base + t, u = base + t + d));
            }
        }
        s
    };
    // Inbound, second pass over `groups` groups' registers: the byte exchanges, in place.
    let second_pass_in = |groups: usize| -> String {
        format!(
            "    for (int h = 0; h < {}; h++) {{\n        __m512i y[8];\n        for (int t = 0; t < 8; t++) y[t] = _mm512_loadu_si512((const void *)(rg + 64 * (t + 8 * h)));\n{}        for (int t = 0; t < 8; t++) _mm512_storeu_si512((void *)(rg + 64 * (8 * h + 7 - t)), y[t]);\n    }}\n}}\n",
            8 * groups,
            byte_x(&[0, 1, 2])
        )
    };
    for bpi in [8usize, 16] {
        // ---- inbound: group at byte o (o % 16 == 8 only for bpi 16)
        s.push_str(&format!(
            "static NKP_UNUSED {attr} void nkp_Bq{bpi}_in_u{ub}_avx512(const char *src, {}size_t o, char *regs) {{\n",
            if bpi == 16 { "size_t bpi, " } else { "" }
        ));
        if bpi == 8 {
            s.push_str(&format!("    const __m512i perm = {};\n", idx_in(8, 0)));
            s.push_str("    const char *p0 = src;\n");
        } else {
            // The 16-byte chunk of each instance that holds the group's 8 bytes: the aligned
            // one, or where that passes the instance's end (or the group is the window of the
            // string's last 8 bytes, at any offset) the last 16 bytes: the last group of a
            // 40-byte instance is the upper half of bytes 24..39, a 20-byte one's window (bytes
            // 12..19) the upper half of bytes 4..19.
            s.push_str(&format!(
                "    {GROUP_CHUNK_C}\n    const __m512i perm = o != c ? {} : {};\n    const char *p0 = src + c;\n",
                idx_in(16, 1),
                idx_in(16, 0)
            ));
        }
        s.push_str("    const __m512i I = _mm512_set1_epi64(0x8040201008040201ULL);\n    char *rg = regs + 8 * o * sizeof(__m512i);\n");
        s.push_str("    for (int g = 0; g < 8; g++) {\n        __m512i y[8];\n");
        for t in 0..8 {
            if bpi == 8 {
                s.push_str(&format!("        y[{t}] = _mm512_permutexvar_epi8(perm, _mm512_loadu_si512((const void *)(p0 + 64 * (g + {}))));\n", 8 * t));
            } else {
                s.push_str(&format!(
                    "        {{ const char *a = p0 + 8 * bpi * (g + {o}); y[{t}] = bpi == 16 ? _mm512_permutex2var_epi8(_mm512_loadu_si512((const void *)a), perm, _mm512_loadu_si512((const void *)(a + 64))) : _mm512_permutex2var_epi8(nkp_ld4x16_avx512(a, bpi), perm, nkp_ld4x16_avx512(a + 4 * bpi, bpi)); }}\n",
                    o = 8 * t
                ));
            }
        }
        s.push_str(&qword_x(0));
        s.push_str("        for (int t = 0; t < 8; t++) _mm512_storeu_si512((void *)(rg + 64 * (g + 8 * t)), NKP_GF2P8AFF_avx512(I, y[t]));\n    }\n");
        s.push_str(&second_pass_in(1));
        if bpi == 16 {
            // ---- inbound, two groups at once: bytes o..o+15 of each instance (o + 16 <= bpi),
            // the groups at o and o + 8 from the same loads (half the loads and inserts of two
            // single-group passes).
            s.push_str(&format!(
                "static NKP_UNUSED {attr} void nkp_Bq16x2_in_u{ub}_avx512(const char *src, size_t bpi, size_t o, char *regs) {{\n    const __m512i pl = {}, ph = {};\n    const char *p0 = src + o;\n",
                idx_in(16, 0),
                idx_in(16, 1)
            ));
            s.push_str("    const __m512i I = _mm512_set1_epi64(0x8040201008040201ULL);\n    char *rg = regs + 8 * o * sizeof(__m512i);\n");
            s.push_str("    for (int g = 0; g < 8; g++) {\n        __m512i y[16];\n");
            for t in 0..8 {
                s.push_str(&format!(
                    "        {{ const char *a = p0 + 8 * bpi * (g + {o}); const __m512i A = bpi == 16 ? _mm512_loadu_si512((const void *)a) : nkp_ld4x16_avx512(a, bpi), B = bpi == 16 ? _mm512_loadu_si512((const void *)(a + 64)) : nkp_ld4x16_avx512(a + 4 * bpi, bpi);\n          y[{t}] = _mm512_permutex2var_epi8(A, pl, B); y[{u}] = _mm512_permutex2var_epi8(A, ph, B); }}\n",
                    o = 8 * t,
                    u = 8 + t
                ));
            }
            s.push_str(&qword_x(0));
            s.push_str(&qword_x(8));
            s.push_str("        for (int t = 0; t < 16; t++) _mm512_storeu_si512((void *)(rg + 64 * (64 * (t >> 3) + g + 8 * (t & 7))), NKP_GF2P8AFF_avx512(I, y[t]));\n    }\n");
            s.push_str(&second_pass_in(2));
        }
        // ---- outbound: group at byte o (bpi 8), groups o and o + 8 (bpi 16, o % 16 == 0)
        let ng = bpi / 8;
        s.push_str(&format!(
            "static NKP_UNUSED {attr} void nkp_Bq{bpi}_out_u{ub}_avx512(const char *regs, {}size_t o, const char *xs, char *dst, __m512i *scr) {{\n    const __m512i I = _mm512_set1_epi64(0x0102040810204080ULL);\n    const __m512i pa = {};\n",
            if bpi == 16 { "size_t bpi, " } else { "" },
            idx_out(bpi)
        ));
        if bpi == 16 {
            s.push_str("    const __m512i pb = _mm512_sub_epi8(pa, _mm512_set1_epi8(4));\n");
        }
        s.push_str("    const __m512i ra = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), rb = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);\n    const char *rg = regs + 8 * o * sizeof(__m512i);\n    char *p0 = dst + o;\n    const char *x0 = xs ? xs + o : p0;\n");
        s.push_str(&format!("    for (int gh = 0; gh < {}; gh++) {{\n        const int G = gh >> 3, h = gh & 7;\n        __m512i y[8];\n        for (int t = 0; t < 8; t++) y[t] = _mm512_loadu_si512((const void *)(rg + 64 * (64 * G + 8 * h + t)));\n", 8 * ng));
        s.push_str(&byte_x(&[2, 1, 0]));
        s.push_str("        for (int t = 0; t < 8; t++) scr[64 * G + t + 8 * h] = NKP_GF2P8AFF_avx512(I, y[t]);\n    }\n");
        s.push_str(&format!(
            "    for (int g = 0; g < 8; g++) {{\n        __m512i z[{ng}][8];\n"
        ));
        for gi in 0..ng {
            s.push_str(&format!("        {{ __m512i *y = z[{gi}];\n          for (int t = 0; t < 8; t++) y[t] = scr[{} + g + 8 * t];\n", 64 * gi));
            for d in [4usize, 2] {
                for t in (0..8).filter(|t| t & d == 0) {
                    s.push_str(&format!("          {{ const __m512i a = y[{t}], b = y[{u}]; y[{t}] = _mm512_permutex2var_epi64(a, ra, b); y[{u}] = _mm512_permutex2var_epi64(a, rb, b); }}\n", u = t + d));
                }
            }
            for t in (0..8).step_by(2) {
                s.push_str(&format!("          {{ const __m512i a = y[{t}], b = y[{u}]; y[{t}] = _mm512_unpacklo_epi64(a, b); y[{u}] = _mm512_unpackhi_epi64(a, b); }}\n", u = t + 1));
            }
            s.push_str("        }\n");
        }
        for t in 0..8 {
            if bpi == 8 {
                s.push_str(&format!(
                    "        {{ const size_t f = 64 * (g + {o}); __m512i v = _mm512_permutexvar_epi8(pa, z[0][{t}]); if (xs) v = _mm512_xor_si512(v, _mm512_loadu_si512((const void *)(x0 + f))); _mm512_storeu_si512((void *)(p0 + f), v); }}\n",
                    o = 8 * t
                ));
            } else {
                s.push_str(&format!(
                    "        {{ const size_t f = 8 * bpi * (g + {o}); __m512i v = _mm512_permutex2var_epi8(z[0][{t}], pa, z[1][{t}]), w = _mm512_permutex2var_epi8(z[0][{t}], pb, z[1][{t}]);\n          if (bpi != 16) {{ nkp_st4x16_avx512(p0 + f, xs ? x0 + f : NULL, bpi, v); nkp_st4x16_avx512(p0 + f + 4 * bpi, xs ? x0 + f + 4 * bpi : NULL, bpi, w); }} else {{\n          if (xs) {{ v = _mm512_xor_si512(v, _mm512_loadu_si512((const void *)(x0 + f))); w = _mm512_xor_si512(w, _mm512_loadu_si512((const void *)(x0 + f + 64))); }}\n          _mm512_storeu_si512((void *)(p0 + f), v); _mm512_storeu_si512((void *)(p0 + f + 64), w); }} }}\n",
                    o = 8 * t
                ));
            }
        }
        s.push_str("    }\n}\n");
    }
    s.push_str("#endif\n");
    s
}

/// Bitslice on AVX2 with GFNI (`#if defined(__GFNI__)`): whole 64-atom groups of instances of 8
/// or 16 bytes, the layout of [`b_group_routines`] by the network of [`b_gfni_avx512`] adapted
/// to 128-bit lanes (no `vpermb`). With instance i = 8q + k (256 per call; q4 = the 128-bit
/// lane of the register), per register:
/// - the lane exchange: `vperm2i128` of two loads 128 instances apart (bpi 16: each of the two
///   first joined with its neighbour's 8 bytes by `unpacklo/hi_epi64`), then one `pshufb`, so
///   that the lane holds (bpi 8) bytes (not k0, B0, B1, B2) or (bpi 16) (B0, not k1, B1, B2);
/// - two byte exchanges (shift + `vpblendvb`) that bring the other two bits of k into the
///   qword's byte index, and one `unpacklo/hi_epi64` that swaps the qword index with q3;
/// - one `gf2p8affineqb` (each qword's 8x8 bit matrix transposed);
/// - three byte exchanges with q0..q2.
///
/// Register bits swapped with B are taken complemented (the exchanges pair the register whose
/// bit is 1 with byte half 0), hence the `t ^ 3` in the first pass's slots. The outbound is the
/// inverse; for 16-byte instances it takes both groups of the 16 bytes at once. The inbound
/// also takes instances of more than 16 bytes (`nkp_Bq16s_in`): each group from the 16-byte
/// chunk of the instance that holds it (as in [`b_gfni_avx512`]), two instances per register
/// by a 16-byte load and an insert.
fn b_gfni_avx2(ub: u32) -> String {
    let rev = (ub / 8 - 1) as usize;
    let attr = target_attr(Arch::Avx2);
    // pshufb within a lane: out[d] = in[idx[d]].
    let fwd = |bpi: usize| -> [usize; 16] {
        core::array::from_fn(|d| {
            let (kx, b) = if bpi == 8 {
                (1 - (d & 1), (d >> 1) ^ rev)
            } else {
                (1 - ((d >> 1) & 1), ((d & 1) | ((d >> 2) << 1)) ^ rev)
            };
            8 * kx + b
        })
    };
    const MASKS: [&str; 3] = [
        "0xFF00FF00FF00FF00ULL",
        "0xFFFF0000FFFF0000ULL",
        "0xFFFFFFFF00000000ULL",
    ];
    // Exchange byte-index bit s with the register bit that tells a (bit 1 side: `lo`) from b.
    let swap = |lo: usize, hi: usize, st: usize| -> String {
        let sh = 8u32 << st;
        format!(
            "        {{ const __m256i x = y[{lo}], z = y[{hi}]; y[{lo}] = _mm256_blendv_epi8(x, _mm256_slli_epi64(z, {sh}), m{st}); y[{hi}] = _mm256_blendv_epi8(_mm256_srli_epi64(x, {sh}), z, m{st}); }}\n"
        )
    };
    let masks = {
        let mut s = String::new();
        for (st, m) in MASKS.iter().enumerate() {
            s.push_str(&format!(
                "    const __m256i m{st} = _mm256_set1_epi64x((long long){m});\n"
            ));
        }
        s
    };
    let mut s = String::new();
    s.push_str("#if defined(__GFNI__)\n#ifndef NKP_GF2P8AFF_avx2\n#define NKP_GF2P8AFF_avx2(x, a) _mm256_gf2p8affine_epi64_epi8(x, a, 0)\n#endif\n");
    // The 16 bytes at the same offset of two instances `bpi` apart in one vector.
    s.push_str(&format!(
        "#ifndef NKP_LD2X16_avx2\n#define NKP_LD2X16_avx2\nstatic inline __attribute__((always_inline)) NKP_UNUSED {attr} __m256i nkp_ld2x16_avx2(const char *a, size_t bpi) {{\n    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)a)), _mm_loadu_si128((const __m128i *)(const void *)(a + bpi)), 1);\n}}\n#endif\n"
    ));
    // 16s: instances of 16 bytes or more, the group's 16-byte chunk at the instance stride.
    for (bpi, strided) in [(8usize, false), (16, false), (16, true)] {
        let s1 = if bpi == 8 { 1 } else { 0 };
        let name = if strided {
            "16s".to_string()
        } else {
            bpi.to_string()
        };
        // ---- inbound
        s.push_str(&format!(
            "static NKP_UNUSED {attr} void nkp_Bq{name}_in_u{ub}_avx2(const char *src, {}size_t o, char *regs) {{\n    const __m256i P = {};\n    const __m256i I = _mm256_set1_epi64x(0x8040201008040201LL);\n{masks}{}    char *rg = regs + 8 * o * sizeof(__m256i);\n",
            if strided { "size_t bpi, " } else { "" },
            set_epi8_lanes(Arch::Avx2, &fwd(bpi)),
            if strided {
                // the 16-byte chunk holding the group; `hi`: its upper half
                format!("    {GROUP_CHUNK_C}\n    const int hi = o != c;\n    const char *p0 = src + c;\n")
            } else {
                "    const char *p0 = src + (o & ~(size_t)15);\n".to_string()
            }
        ));
        s.push_str("    for (int g = 0; g < 8; g++) {\n        __m256i y[8];\n");
        for u in 0..4 {
            let (k2, q3) = (u & 1, u >> 1);
            let q = format!("(g + {})", 8 * q3);
            if bpi == 8 {
                s.push_str(&format!(
                    "        {{ const __m256i X = _mm256_loadu_si256((const __m256i *)(const void *)(p0 + 8 * (8 * {q} + {k4}))), Y = _mm256_loadu_si256((const __m256i *)(const void *)(p0 + 8 * (8 * {q} + {k4y})));\n",
                    k4 = 4 * k2,
                    k4y = 128 + 4 * k2
                ));
            } else if !strided {
                s.push_str(&format!(
                    "        {{ const char *a = p0 + 16 * (8 * {q} + {k4}), *b = a + 16 * 128;\n          const __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)a), a1 = _mm256_loadu_si256((const __m256i *)(const void *)(a + 32)), b0 = _mm256_loadu_si256((const __m256i *)(const void *)b), b1 = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32));\n          const __m256i X = (o & 8) ? _mm256_unpackhi_epi64(a0, a1) : _mm256_unpacklo_epi64(a0, a1), Y = (o & 8) ? _mm256_unpackhi_epi64(b0, b1) : _mm256_unpacklo_epi64(b0, b1);\n",
                    k4 = 4 * k2
                ));
            } else {
                s.push_str(&format!(
                    "        {{ const char *a = p0 + bpi * (8 * {q} + {k4}), *b = a + bpi * 128;\n          const __m256i a0 = nkp_ld2x16_avx2(a, bpi), a1 = nkp_ld2x16_avx2(a + 2 * bpi, bpi), b0 = nkp_ld2x16_avx2(b, bpi), b1 = nkp_ld2x16_avx2(b + 2 * bpi, bpi);\n          const __m256i X = hi ? _mm256_unpackhi_epi64(a0, a1) : _mm256_unpacklo_epi64(a0, a1), Y = hi ? _mm256_unpackhi_epi64(b0, b1) : _mm256_unpacklo_epi64(b0, b1);\n",
                    k4 = 4 * k2
                ));
            }
            s.push_str(&format!(
                "          y[{}] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(X, Y, 0x20), P); y[{}] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(X, Y, 0x31), P); }}\n",
                2 * u,
                2 * u + 1
            ));
        }
        for t in (0..8).step_by(2) {
            s.push_str(&swap(t + 1, t, s1));
        }
        for t in (0..8).filter(|t| t & 2 == 0) {
            s.push_str(&swap(t + 2, t, 2));
        }
        for t in 0..4 {
            s.push_str(&format!("        {{ const __m256i a = y[{t}], b = y[{u}]; y[{t}] = _mm256_unpacklo_epi64(a, b); y[{u}] = _mm256_unpackhi_epi64(a, b); }}\n", u = t + 4));
        }
        s.push_str("        for (int t = 0; t < 8; t++) _mm256_storeu_si256((__m256i *)(void *)(rg + 32 * (g + 8 * (t ^ 3))), NKP_GF2P8AFF_avx2(I, y[t]));\n    }\n");
        s.push_str("    for (int h = 0; h < 8; h++) {\n        __m256i y[8];\n        for (int t = 0; t < 8; t++) y[t] = _mm256_loadu_si256((const __m256i *)(const void *)(rg + 32 * (t + 8 * h)));\n");
        for st in 0..3usize {
            let d = 1 << st;
            for j in (0..8).filter(|j| j & d == 0) {
                s.push_str(&swap(j, j + d, st));
            }
        }
        s.push_str("        for (int t = 0; t < 8; t++) _mm256_storeu_si256((__m256i *)(void *)(rg + 32 * (8 * h + 7 - t)), y[t]);\n    }\n}\n");
        if strided {
            continue;
        }
        // ---- outbound
        let ng = bpi / 8;
        s.push_str(&format!(
            "static NKP_UNUSED {attr} void nkp_Bq{bpi}_out_u{ub}_avx2(const char *regs, size_t o, const char *xs, char *dst, __m256i *scr) {{\n    const __m256i Pi = {};\n    const __m256i I = _mm256_set1_epi64x(0x0102040810204080LL);\n{masks}    const char *rg = regs + 8 * o * sizeof(__m256i);\n    char *p0 = dst + o;\n    const char *x0 = xs ? xs + o : p0;\n",
            set_epi8_lanes(Arch::Avx2, &inv16(&fwd(bpi)))
        ));
        s.push_str(&format!("    for (int gh = 0; gh < {}; gh++) {{\n        const int G = gh >> 3, h = gh & 7;\n        __m256i y[8];\n        for (int t = 0; t < 8; t++) y[t] = _mm256_loadu_si256((const __m256i *)(const void *)(rg + 32 * (64 * G + 8 * h + t)));\n", 8 * ng));
        for st in (0..3usize).rev() {
            let d = 1 << st;
            for j in (0..8).filter(|j| j & d == 0) {
                s.push_str(&swap(j, j + d, st));
            }
        }
        s.push_str("        for (int t = 0; t < 8; t++) scr[64 * G + t + 8 * h] = NKP_GF2P8AFF_avx2(I, y[t]);\n    }\n");
        s.push_str(&format!(
            "    for (int g = 0; g < 8; g++) {{\n        __m256i z[{ng}][8];\n"
        ));
        for gi in 0..ng {
            s.push_str(&format!("        {{ __m256i *y = z[{gi}];\n        for (int t = 0; t < 8; t++) y[t] = scr[{} + g + 8 * (t ^ 3)];\n", 64 * gi));
            for t in 0..4 {
                s.push_str(&format!("        {{ const __m256i a = y[{t}], b = y[{u}]; y[{t}] = _mm256_unpacklo_epi64(a, b); y[{u}] = _mm256_unpackhi_epi64(a, b); }}\n", u = t + 4));
            }
            for t in (0..8).filter(|t| t & 2 == 0) {
                s.push_str(&swap(t + 2, t, 2));
            }
            for t in (0..8).step_by(2) {
                s.push_str(&swap(t + 1, t, s1));
            }
            s.push_str(
                "        for (int t = 0; t < 8; t++) y[t] = _mm256_shuffle_epi8(y[t], Pi); }\n",
            );
        }
        for u in 0..4 {
            let (k2, q3) = (u & 1, u >> 1);
            let q = format!("(g + {})", 8 * q3);
            let (a, b) = (2 * u, 2 * u + 1);
            if bpi == 8 {
                s.push_str(&format!(
                    "        {{ const size_t fx = 8 * (8 * {q} + {k4}), fy = fx + 8 * 128;\n          __m256i vx = _mm256_permute2x128_si256(z[0][{a}], z[0][{b}], 0x20), vy = _mm256_permute2x128_si256(z[0][{a}], z[0][{b}], 0x31);\n          if (xs) {{ vx = _mm256_xor_si256(vx, _mm256_loadu_si256((const __m256i *)(const void *)(x0 + fx))); vy = _mm256_xor_si256(vy, _mm256_loadu_si256((const __m256i *)(const void *)(x0 + fy))); }}\n          _mm256_storeu_si256((__m256i *)(void *)(p0 + fx), vx); _mm256_storeu_si256((__m256i *)(void *)(p0 + fy), vy); }}\n",
                    k4 = 4 * k2
                ));
            } else {
                s.push_str(&format!(
                    "        {{ const size_t fx = 16 * (8 * {q} + {k4}), fy = fx + 16 * 128;\n          const __m256i X0 = _mm256_permute2x128_si256(z[0][{a}], z[0][{b}], 0x20), Y0 = _mm256_permute2x128_si256(z[0][{a}], z[0][{b}], 0x31), X1 = _mm256_permute2x128_si256(z[1][{a}], z[1][{b}], 0x20), Y1 = _mm256_permute2x128_si256(z[1][{a}], z[1][{b}], 0x31);\n          __m256i v[4] = {{ _mm256_unpacklo_epi64(X0, X1), _mm256_unpackhi_epi64(X0, X1), _mm256_unpacklo_epi64(Y0, Y1), _mm256_unpackhi_epi64(Y0, Y1) }};\n          const size_t f[4] = {{ fx, fx + 32, fy, fy + 32 }};\n          for (int i = 0; i < 4; i++) {{ if (xs) v[i] = _mm256_xor_si256(v[i], _mm256_loadu_si256((const __m256i *)(const void *)(x0 + f[i]))); _mm256_storeu_si256((__m256i *)(void *)(p0 + f[i]), v[i]); }} }}\n",
                    k4 = 4 * k2
                ));
            }
        }
        s.push_str("    }\n}\n");
    }
    s.push_str("#endif\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where [`small_slot_plan`] sends bit p of a 128-bit lane, step by step as the C does it.
    fn apply(plan: &SmallSlotPlan, p: usize) -> usize {
        let (byte, u) = (p / 8, p % 8);
        let byte = plan
            .p1
            .iter()
            .position(|&src| src == byte)
            .expect("p1 is a permutation");
        let mut q = byte * 8 + plan.lut[u] as usize;
        for &(s, mask) in plan.swaps {
            let s = s as usize;
            let (half, b) = (q / 64, q % 64);
            if (mask >> b) & 1 == 1 {
                q = half * 64 + b + s;
            } else if b >= s && (mask >> (b - s)) & 1 == 1 {
                q = half * 64 + b - s;
            }
        }
        q
    }

    #[test]
    fn std_small_slot_swaps_transpose_the_bit_index() {
        for sl in [1usize, 2, 4, 8] {
            let m = 64 / sl;
            let swaps = index_swaps(sl);
            assert!(swaps.len() <= 5);
            for i in 0..sl {
                for j in 0..m {
                    let mut x = 1u64 << (m * i + j);
                    for &(s, mask) in &swaps {
                        let t = ((x >> s) ^ x) & mask;
                        x ^= t ^ (t << s);
                    }
                    assert_eq!(x, 1u64 << (sl * j + i), "S={sl} i={i} j={j}");
                }
            }
        }
    }

    /// Positions through the C steps of [`gfni_slot_plan`] (a lane of 128 bits, p = 8 byte + bit).
    type Step<'a> = &'a dyn Fn(&[usize; 128]) -> [usize; 128];

    fn gfni_steps(st: &[usize; 128], steps: &[Step]) -> [usize; 128] {
        steps.iter().fold(*st, |s, f| f(&s))
    }

    #[test]
    fn gfni_slot_plan_produces_the_hslice_layout_and_inverts() {
        let g = gfni_slot_plan();
        let sh = |idx: [usize; 16]| {
            move |s: &[usize; 128]| -> [usize; 128] {
                core::array::from_fn(|p| s[8 * idx[p / 8] + p % 8])
            }
        };
        let tr = |s: &[usize; 128]| -> [usize; 128] {
            core::array::from_fn(|p| {
                let (q, j, i) = (p / 64, (p % 64) / 8, p % 8);
                s[64 * q + 8 * (7 - i) + j]
            })
        };
        let (sw, mk) = g.swap;
        let swap = move |s: &[usize; 128]| -> [usize; 128] {
            let mut o = *s;
            for q in 0..2 {
                for p in 0..64 {
                    if (mk >> p) & 1 == 1 {
                        o.swap(64 * q + p, 64 * q + p + sw as usize);
                    }
                }
            }
            o
        };
        let id: [usize; 128] = core::array::from_fn(|p| p);
        let (sa, sb) = (sh(g.a), sh(g.b));
        let fwd = gfni_steps(&id, &[&sa, &tr, &swap, &sb]);
        for (q, &p) in fwd.iter().enumerate() {
            let (i, b) = (p / 32, p % 32);
            assert_eq!(q, 4 * (31 - b) + i, "bit {b} of instance {i}");
        }
        let (sbi, sr, sra) = (sh(g.b_inv), sh(g.r), sh(g.ra_inv));
        let back = gfni_steps(&fwd, &[&sbi, &swap, &sr, &tr, &sra]);
        assert_eq!(back, id);
    }

    #[test]
    fn small_slot_plans_produce_the_hslice_layout() {
        for m in [32usize, 64] {
            let plan = small_slot_plan(m as u32);
            let sl = 128 / m;
            let mut seen = [false; 128];
            for p in 0..128 {
                let (i, b) = (p / m, p % m);
                let j = m - 1 - b;
                let q = apply(&plan, p);
                assert_eq!(q, sl * j + i, "m={m}: bit {b} of instance {i}");
                assert!(!seen[q]);
                seen[q] = true;
            }
        }
    }
}
