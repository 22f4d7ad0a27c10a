//! C runtime support text embedded at the top of every generated `.c` file.
//!
//! [`prelude`] returns the includes, the `NK_TARGET` function attribute and the `NK_*` macros /
//! `nk_*` static inline helpers the generated code uses for one target, slicing and word size.
//! Everything is constant-time: no data-dependent branch, index or loop bound.
//!
//! Conventions (the same on every target, so `codegen` emits one spelling):
//! - logic: `NK_AND(a,b) NK_OR NK_XOR NK_ANDN(a,b) (= ~a & b) NK_NOT(a) NK_ZERO NK_ONES`;
//! - vslice lanes of w bits (w in 8/16/32/64): `NK_SET1_w(c) NK_ADDw NK_SUBw NK_MULw NK_SHLw(a,k)
//!   NK_SHRw NK_SARw NK_ROTLw NK_ROTRw NK_BITMASKw(a,k)` (k a literal; `BITMASK` takes the
//!   MSB-first bit index);
//! - hslice: `NK_CONST128(hi, lo)` broadcasts a 128-bit pattern to every 128-bit lane,
//!   `NK_PSHUFB(x, hi, lo)` shuffles bytes inside each 128-bit lane with that control.
//!
//! On `std` the generated code uses plain C operators, so the prelude is only the includes.

use crate::ir::Slicing;
use crate::target::Arch;

/// The runtime text for `arch`, `slicing` and the programs' word size (`word_bits`; 0 when
/// words have mixed sizes, which only `std` vslice allows). `mul`: whether the C multiplies
/// (`NK_MUL<w>`); the `static` function behind a multiply that has no instruction of its own
/// (`nk_mul8`, `nk_mul64`) is emitted only then, so no unused function is left for `-Wall`
/// (the `#define` is there either way).
pub fn prelude(arch: Arch, slicing: Slicing, word_bits: u32, mul: bool) -> String {
    match arch {
        Arch::Std => std_prelude(),
        Arch::Sse | Arch::Avx2 | Arch::Avx512 => x86_prelude(arch, slicing, word_bits, mul),
        Arch::Neon => neon_prelude(slicing, word_bits, mul),
    }
}

/// The C type of one register (`DATATYPE`) for a target, slicing and word size.
pub fn datatype(arch: Arch, slicing: Slicing, word_bits: u32) -> &'static str {
    match (arch, slicing) {
        (Arch::Std, Slicing::V) => std_container(word_bits),
        (Arch::Std, _) => "uint64_t",
        (Arch::Sse, _) => "__m128i",
        (Arch::Avx2, _) => "__m256i",
        (Arch::Avx512, _) => "__m512i",
        (Arch::Neon, Slicing::V) => match word_bits {
            8 => "uint8x16_t",
            16 => "uint16x8_t",
            64 => "uint64x2_t",
            _ => "uint32x4_t",
        },
        (Arch::Neon, Slicing::H) => "uint8x16_t",
        (Arch::Neon, Slicing::B) => "uint32x4_t",
    }
}

/// The smallest `uintN_t` (N in 8/16/32/64) holding `bits` bits.
pub fn std_container(bits: u32) -> &'static str {
    match std_container_bits(bits) {
        8 => "uint8_t",
        16 => "uint16_t",
        32 => "uint32_t",
        _ => "uint64_t",
    }
}

/// Width of [`std_container`].
pub fn std_container_bits(bits: u32) -> u32 {
    match bits {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// The `#include` lines a target needs (also used by the generated header).
pub fn includes(arch: Arch) -> &'static str {
    match arch {
        Arch::Std => "#include <stdint.h>\n",
        Arch::Sse | Arch::Avx2 | Arch::Avx512 => "#include <stdint.h>\n#include <immintrin.h>\n",
        Arch::Neon => "#include <stdint.h>\n#include <arm_neon.h>\n",
    }
}

/// The function attribute enabling the target's instructions (empty on `std` and `neon`).
pub fn target_attribute(arch: Arch) -> &'static str {
    match arch {
        Arch::Std | Arch::Neon => "",
        Arch::Sse => "__attribute__((target(\"sse4.2\")))",
        Arch::Avx2 => "__attribute__((target(\"avx2\")))",
        Arch::Avx512 => "__attribute__((target(\"avx512f,avx512bw,avx512vl\")))",
    }
}

fn header(arch: Arch) -> String {
    let mut s = String::new();
    s.push_str("/* ---- nakiri runtime (");
    s.push_str(arch.name());
    s.push_str(") ---- */\n");
    s.push_str(includes(arch));
    s.push_str("#ifndef NK_TARGET\n#define NK_TARGET ");
    s.push_str(target_attribute(arch));
    s.push_str("\n#endif\n");
    s
}

fn std_prelude() -> String {
    let mut s = header(Arch::Std);
    s.push_str("/* std: plain C operators on uintN_t / uint64_t registers. */\n");
    s.push_str("/* ---- end of runtime ---- */\n");
    s
}

/// Replaces `@P` (intrinsic prefix), `@T` (vector type), `@S` (si128/si256/si512 suffix).
fn subst(template: &str, arch: Arch) -> String {
    let (p, t) = arch.x86_intrinsics().expect("x86 only");
    let si = match arch {
        Arch::Sse => "si128",
        Arch::Avx2 => "si256",
        _ => "si512",
    };
    template.replace("@P", p).replace("@T", t).replace("@S", si)
}

const X86_LOGIC: &str = "\
#define NK_AND(a, b) @P_and_@S((a), (b))
#define NK_OR(a, b) @P_or_@S((a), (b))
#define NK_XOR(a, b) @P_xor_@S((a), (b))
#define NK_ANDN(a, b) @P_andnot_@S((a), (b)) /* ~a & b */
#define NK_ZERO @P_setzero_@S()
#define NK_ONES @P_set1_epi32(-1)
/* All ones that the C compiler cannot see as such (an empty asm on the register), so that it
   does not rewrite x ^ ~0 into masks it then leaves out of its ternlogs (codegen::ops::OPAQUE_ONES). */
#if defined(__GNUC__) || defined(__clang__)
#define NK_ONES_OPAQUE ({ @T nk_o_ = NK_ONES; __asm__(\"\" : \"+x\"(nk_o_)); nk_o_; })
#else
#define NK_ONES_OPAQUE NK_ONES
#endif
#define NK_NOT(a) @P_xor_@S((a), NK_ONES)
";

const X86_SET1: &str = "\
#define NK_SET1_8(c) @P_set1_epi8((char)((c) & 0xFF))
#define NK_SET1_16(c) @P_set1_epi16((short)((c) & 0xFFFF))
#define NK_SET1_32(c) @P_set1_epi32((int)(uint32_t)(c))
";

fn x86_vslice(arch: Arch, w: u32, mul: bool) -> String {
    let mut s = String::new();
    s.push_str(X86_SET1);
    if arch == Arch::Avx512 {
        s.push_str("#define NK_SET1_64(c) @P_set1_epi64((long long)(uint64_t)(c))\n");
    } else {
        s.push_str("#define NK_SET1_64(c) @P_set1_epi64x((long long)(uint64_t)(c))\n");
    }
    // Add / Sub exist for every lane size.
    s.push_str(&format!(
        "#define NK_ADD{w}(a, b) @P_add_epi{w}((a), (b))\n"
    ));
    s.push_str(&format!(
        "#define NK_SUB{w}(a, b) @P_sub_epi{w}((a), (b))\n"
    ));
    match w {
        8 => {
            // No 8-bit shifts or multiplies on x86: 16-bit operations and byte masks.
            s.push_str(
                "#define NK_SHL8(a, k) NK_AND(@P_slli_epi16((a), (k)), NK_SET1_8(0xFF << (k)))\n",
            );
            s.push_str(
                "#define NK_SHR8(a, k) NK_AND(@P_srli_epi16((a), (k)), NK_SET1_8(0xFF >> (k)))\n",
            );
            s.push_str("/* arithmetic shift: ((x >> k) ^ s) - s with s the shifted sign bit */\n");
            s.push_str("#define NK_SAR8(a, k) NK_SUB8(NK_XOR(NK_SHR8((a), (k)), NK_SET1_8(0x80 >> (k))), NK_SET1_8(0x80 >> (k)))\n");
            if mul {
                s.push_str(
                    "static inline NK_TARGET @T nk_mul8(@T a, @T b)
{
    @T even = NK_AND(@P_mullo_epi16(a, b), NK_SET1_16(0x00FF));
    @T odd = @P_slli_epi16(@P_mullo_epi16(@P_srli_epi16(a, 8), @P_srli_epi16(b, 8)), 8);
    return NK_OR(even, odd);
}
",
                );
            }
            s.push_str("#define NK_MUL8(a, b) nk_mul8((a), (b))\n");
        }
        16 => {
            s.push_str("#define NK_SHL16(a, k) @P_slli_epi16((a), (k))\n");
            s.push_str("#define NK_SHR16(a, k) @P_srli_epi16((a), (k))\n");
            s.push_str("#define NK_SAR16(a, k) @P_srai_epi16((a), (k))\n");
            s.push_str("#define NK_MUL16(a, b) @P_mullo_epi16((a), (b))\n");
        }
        32 => {
            s.push_str("#define NK_SHL32(a, k) @P_slli_epi32((a), (k))\n");
            s.push_str("#define NK_SHR32(a, k) @P_srli_epi32((a), (k))\n");
            s.push_str("#define NK_SAR32(a, k) @P_srai_epi32((a), (k))\n");
            s.push_str("#define NK_MUL32(a, b) @P_mullo_epi32((a), (b))\n");
        }
        _ => {
            s.push_str("#define NK_SHL64(a, k) @P_slli_epi64((a), (k))\n");
            s.push_str("#define NK_SHR64(a, k) @P_srli_epi64((a), (k))\n");
            if arch == Arch::Avx512 {
                s.push_str("#define NK_SAR64(a, k) @P_srai_epi64((a), (k))\n");
            } else {
                s.push_str("/* no 64-bit arithmetic shift before AVX-512: ((x >> k) ^ s) - s */\n");
                s.push_str("#define NK_SAR64(a, k) NK_SUB64(NK_XOR(NK_SHR64((a), (k)), NK_SET1_64(UINT64_C(1) << (63 - (k)))), NK_SET1_64(UINT64_C(1) << (63 - (k))))\n");
            }
            if mul {
                s.push_str(
                    "/* 64-bit multiply (no AVX-512DQ needed): lo*lo + ((hi*lo + lo*hi) << 32) */
static inline NK_TARGET @T nk_mul64(@T a, @T b)
{
    @T lo = @P_mul_epu32(a, b);
    @T t1 = @P_mul_epu32(@P_srli_epi64(a, 32), b);
    @T t2 = @P_mul_epu32(a, @P_srli_epi64(b, 32));
    return @P_add_epi64(lo, @P_slli_epi64(@P_add_epi64(t1, t2), 32));
}
",
                );
            }
            s.push_str("#define NK_MUL64(a, b) nk_mul64((a), (b))\n");
        }
    }
    // Rotations as two shifts and an OR: where no one-instruction form is known to exist.
    let shift_rotates = format!(
        "#define NK_ROTL{w}(a, k) NK_OR(NK_SHL{w}((a), (k)), NK_SHR{w}((a), {w} - (k)))\n\
         #define NK_ROTR{w}(a, k) NK_OR(NK_SHR{w}((a), (k)), NK_SHL{w}((a), {w} - (k)))\n"
    );
    if arch == Arch::Avx512 && (w == 32 || w == 64) {
        s.push_str(&format!(
            "#define NK_ROTL{w}(a, k) @P_rol_epi{w}((a), (k))\n"
        ));
        s.push_str(&format!(
            "#define NK_ROTR{w}(a, k) @P_ror_epi{w}((a), (k))\n"
        ));
        if w == 64 {
            // codegen::ops::ROT64_P5_EVERY: byte j of each qword gathers the 8 bits from bit
            // (8j + k) mod 64 on, i.e. the qword rotated right by k
            s.push_str(
                "/* some 64-bit rotations on port 5 (vpmultishiftqb) rather than port 0 (vprorq) */\n\
                 #if defined(__AVX512VBMI__)\n\
                 #define NK_ROTR64_P5(a, k) @P_multishift_epi64_epi8(@P_set1_epi64((long long)((0x3830282018100800ULL + 0x0101010101010101ULL * (unsigned long long)(k)) & 0x3F3F3F3F3F3F3F3FULL)), (a))\n\
                 #else\n\
                 #define NK_ROTR64_P5(a, k) NK_ROTR64((a), (k))\n\
                 #endif\n\
                 #define NK_ROTL64_P5(a, k) NK_ROTR64_P5((a), (64 - (k)) & 63)\n",
            );
        }
    } else if w == 16 {
        // `vpshldw`/`vpshrdw` (AVX-512 VBMI2) when the C compiler targets a CPU that has it
        // (e.g. `-march=native` on Ice Lake and later, Zen 4): a 16-bit rotate in one instruction;
        // on xmm/ymm (SSE/AVX2 targets) with AVX-512VL too.
        if arch == Arch::Avx512 {
            s.push_str("#if defined(__AVX512VBMI2__)\n");
        } else {
            s.push_str("#if defined(__AVX512VBMI2__) && defined(__AVX512VL__)\n");
        }
        s.push_str("#define NK_ROTL16(a, k) @P_shldi_epi16((a), (a), (k))\n");
        s.push_str("#define NK_ROTR16(a, k) @P_shrdi_epi16((a), (a), (k))\n");
        s.push_str("#else\n");
        s.push_str(&shift_rotates);
        s.push_str("#endif\n");
    } else if w == 32 || w == 64 {
        // SSE/AVX2: `vprold`/`vprolq` on xmm/ymm (AVX-512VL) when the C compiler targets a CPU
        // that has it (`-march=native` on Skylake-X and later, Zen 4): one instruction instead of
        // two shifts and an OR; gcc does not form it from the shifts itself. ChaCha20 `-V` avx2
        // on the Intel machine of 2026-11-26: 1.33x faster raw, Serpent 1.32x, Clyde and ACE 1.7x
        // (README "Rotations with AVX-512VL").
        s.push_str("#if defined(__AVX512VL__)\n");
        s.push_str(&format!(
            "#define NK_ROTL{w}(a, k) @P_rol_epi{w}((a), (k))\n"
        ));
        s.push_str(&format!(
            "#define NK_ROTR{w}(a, k) @P_ror_epi{w}((a), (k))\n"
        ));
        s.push_str("#else\n");
        s.push_str(&shift_rotates);
        s.push_str("#endif\n");
    } else {
        s.push_str(&shift_rotates);
    }
    s.push_str("/* all ones where bit k (MSB-first) of the lane is set */\n");
    s.push_str(&format!(
        "#define NK_BITMASK{w}(a, k) NK_SAR{w}(NK_SHL{w}((a), (k)), {})\n",
        w - 1
    ));
    s
}

/// `NK_CONST128` and `NK_PSHUFB` (byte shuffles inside 128-bit lanes).
fn x86_pshufb(arch: Arch) -> String {
    let mut t =
        String::from("/* a 128-bit pattern (hi, lo 64-bit halves) in every 128-bit lane */\n");
    t.push_str(match arch {
        Arch::Sse => "#define NK_CONST128(hi, lo) _mm_set_epi64x((long long)(hi), (long long)(lo))\n",
        Arch::Avx2 => "#define NK_CONST128(hi, lo) _mm256_set_epi64x((long long)(hi), (long long)(lo), (long long)(hi), (long long)(lo))\n",
        _ => "#define NK_CONST128(hi, lo) _mm512_set_epi64((long long)(hi), (long long)(lo), (long long)(hi), (long long)(lo), (long long)(hi), (long long)(lo), (long long)(hi), (long long)(lo))\n",
    });
    t.push_str("/* byte shuffle inside each 128-bit lane (control byte 0x80 = zero) */\n");
    t.push_str("#define NK_PSHUFB(x, hi, lo) @P_shuffle_epi8((x), NK_CONST128(hi, lo))\n");
    t
}

fn x86_prelude(arch: Arch, slicing: Slicing, word_bits: u32, mul: bool) -> String {
    let mut s = header(arch);
    let mut t = String::from(X86_LOGIC);
    if arch == Arch::Avx512 {
        t.push_str("/* any boolean function of three registers: bit 4a+2b+c of imm */\n");
        t.push_str(
            "#define NK_TERNLOG(a, b, c, imm) _mm512_ternarylogic_epi64((a), (b), (c), (imm))\n",
        );
    }
    match slicing {
        Slicing::B => {}
        Slicing::V if word_bits == 1 => {} // 1-bit lanes: logic only
        Slicing::V => {
            t.push_str(&x86_vslice(arch, word_bits, mul));
            if word_bits >= 16 {
                t.push_str(&x86_pshufb(arch));
            }
        }
        Slicing::H => {
            t.push_str(&x86_pshufb(arch));
            t.push_str("/* shifts of 64-bit elements (slots smaller than a byte move inside their byte) */\n");
            t.push_str("#define NK_SHL_U64(a, k) @P_slli_epi64((a), (k))\n");
            t.push_str("#define NK_SHR_U64(a, k) @P_srli_epi64((a), (k))\n");
        }
    }
    s.push_str(&subst(&t, arch));
    s.push_str("/* ---- end of runtime ---- */\n");
    s
}

fn neon_prelude(slicing: Slicing, word_bits: u32, mul: bool) -> String {
    let mut s = header(Arch::Neon);
    // All logic goes through the lane type of DATATYPE.
    let (sfx, ty) = match slicing {
        Slicing::V => match word_bits {
            8 => ("u8", "uint8x16_t"),
            16 => ("u16", "uint16x8_t"),
            64 => ("u64", "uint64x2_t"),
            _ => ("u32", "uint32x4_t"),
        },
        Slicing::H => ("u8", "uint8x16_t"),
        Slicing::B => ("u32", "uint32x4_t"),
    };
    s.push_str(&format!("#define NK_AND(a, b) vandq_{sfx}((a), (b))\n"));
    s.push_str(&format!("#define NK_OR(a, b) vorrq_{sfx}((a), (b))\n"));
    s.push_str(&format!("#define NK_XOR(a, b) veorq_{sfx}((a), (b))\n"));
    s.push_str(&format!(
        "#define NK_ANDN(a, b) vbicq_{sfx}((b), (a)) /* ~a & b */\n"
    ));
    s.push_str(&format!("#define NK_ZERO vdupq_n_{sfx}(0)\n"));
    s.push_str(&format!("#define NK_NOT(a) veorq_{sfx}((a), NK_ONES)\n"));
    s.push_str(match sfx {
        "u8" => "#define NK_ONES vdupq_n_u8(0xFF)\n",
        "u16" => "#define NK_ONES vdupq_n_u16(0xFFFF)\n",
        "u32" => "#define NK_ONES vdupq_n_u32(0xFFFFFFFFu)\n",
        _ => "#define NK_ONES vdupq_n_u64(~UINT64_C(0))\n",
    });
    match slicing {
        Slicing::B => {}
        Slicing::V if word_bits == 1 => {} // 1-bit lanes: logic only
        Slicing::V => {
            let w = word_bits;
            let sw = format!("s{w}");
            s.push_str(&format!("#define NK_SET1_{w}(c) vdupq_n_{sfx}(c)\n"));
            s.push_str(&format!("#define NK_ADD{w}(a, b) vaddq_{sfx}((a), (b))\n"));
            s.push_str(&format!("#define NK_SUB{w}(a, b) vsubq_{sfx}((a), (b))\n"));
            if w == 64 {
                if mul {
                    s.push_str(&format!(
                        "/* 64-bit multiply: lo*lo + ((hi*lo + lo*hi) << 32) */
static inline {ty} nk_mul64({ty} a, {ty} b)
{{
    uint32x2_t al = vmovn_u64(a), bl = vmovn_u64(b);
    uint32x2_t ah = vshrn_n_u64(a, 32), bh = vshrn_n_u64(b, 32);
    uint64x2_t cross = vmlal_u32(vmull_u32(ah, bl), al, bh);
    return vaddq_u64(vmull_u32(al, bl), vshlq_n_u64(cross, 32));
}}
"
                    ));
                }
                s.push_str("#define NK_MUL64(a, b) nk_mul64((a), (b))\n");
            } else {
                s.push_str(&format!("#define NK_MUL{w}(a, b) vmulq_{sfx}((a), (b))\n"));
            }
            // vshlq_n / vshrq_n need 0 < k (shr) and k < w (shl); k == 0 is emitted as a copy.
            s.push_str(&format!(
                "#define NK_SHL{w}(a, k) vshlq_n_{sfx}((a), (k))\n"
            ));
            s.push_str(&format!(
                "#define NK_SHR{w}(a, k) vshrq_n_{sfx}((a), (k))\n"
            ));
            s.push_str(&format!(
                "#define NK_SAR{w}(a, k) vreinterpretq_{sfx}_{sw}(vshrq_n_{sw}(vreinterpretq_{sw}_{sfx}(a), (k)))\n"
            ));
            s.push_str(&format!(
                "#define NK_ROTL{w}(a, k) vsriq_n_{sfx}(vshlq_n_{sfx}((a), (k)), (a), {w} - (k))\n"
            ));
            s.push_str(&format!(
                "#define NK_ROTR{w}(a, k) vsliq_n_{sfx}(vshrq_n_{sfx}((a), (k)), (a), {w} - (k))\n"
            ));
            s.push_str(&format!(
                "#define NK_BITMASK{w}(a, k) vtstq_{sfx}((a), vdupq_n_{sfx}((uint{w}_t)1 << ({} - (k))))\n",
                w - 1
            ));
            if w >= 16 {
                s.push_str(
                    "#define NK_CONST128(hi, lo) vcombine_u8(vcreate_u8(lo), vcreate_u8(hi))\n",
                );
                s.push_str("/* byte shuffle (table lookup) inside the register */\n");
                s.push_str(&format!(
                    "#define NK_PSHUFB(x, hi, lo) vreinterpretq_{sfx}_u8(vqtbl1q_u8(vreinterpretq_u8_{sfx}(x), NK_CONST128(hi, lo)))\n"
                ));
            }
        }
        Slicing::H => {
            s.push_str(
                "#define NK_CONST128(hi, lo) vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)))\n",
            );
            s.push_str("/* byte table lookup; out-of-range control bytes (0x80) give zero */\n");
            s.push_str("#define NK_PSHUFB(x, hi, lo) vqtbl1q_u8((x), NK_CONST128(hi, lo))\n");
            s.push_str("/* shifts of 64-bit elements (slots smaller than a byte move inside their byte) */\n");
            s.push_str("#define NK_SHL_U64(a, k) vreinterpretq_u8_u64(vshlq_n_u64(vreinterpretq_u64_u8(a), (k)))\n");
            s.push_str("#define NK_SHR_U64(a, k) vreinterpretq_u8_u64(vshrq_n_u64(vreinterpretq_u64_u8(a), (k)))\n");
        }
    }
    s.push_str("/* ---- end of runtime ---- */\n");
    s
}
pub mod transpose;
