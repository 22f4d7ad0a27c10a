//! Targets and register layouts: the single source of truth shared by the C generator, the
//! packed API and the tests.
//!
//! Layout of one register (R bits) — which instance's which bit lives where:
//! - **B** (bitslice): atoms are single bits. Bit k of the register (LSB-numbered within the
//!   register seen as an array of 64-bit little-endian lanes: lane l = bytes 8l..8l+7 in memory)
//!   holds the atom's value for instance `64*l + k`. R instances per call.
//! - **V** (vslice): the register is an array of m-bit lanes (memory order); lane i holds the
//!   atom's m-bit word of instance i. R/m instances per call. On `std`, DATATYPE is `uintM_t`
//!   (one instance per call).
//! - **H** (hslice): the register is cut in lanes of L bits (L = 128 on SSE/AVX2/AVX-512/NEON,
//!   L = 64 on `std`); each lane has m slots of S = L/m bits (see `hslice_slot_bits` when m
//!   does not divide L); slot j is bits [j*S, (j+1)*S) of
//!   the lane counted from its least significant bit (so byte j in memory when S = 8). Bit i
//!   (LSB-numbered) of slot j holds bit j (MSB-first) of the word of instance `lane*S + i`.
//!   R/m instances per call. Bit permutations of words become slot permutations.

use crate::ir::Slicing;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    Std,
    Sse,
    Avx2,
    Avx512,
    Neon,
}

impl Arch {
    pub const ALL: [Arch; 5] = [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512, Arch::Neon];

    /// Accepts the native and the original usubac spellings.
    pub fn parse(s: &str) -> Option<Arch> {
        Some(match s.to_ascii_lowercase().as_str() {
            "std" | "gp" => Arch::Std,
            "sse" | "sse4" | "sse4.2" => Arch::Sse,
            "avx" | "avx2" => Arch::Avx2,
            "avx512" => Arch::Avx512,
            "neon" | "arm" => Arch::Neon,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Arch::Std => "std",
            Arch::Sse => "sse",
            Arch::Avx2 => "avx2",
            Arch::Avx512 => "avx512",
            Arch::Neon => "neon",
        }
    }

    /// x86 SIMD targets: the intrinsics' prefix and the vector type (`_mm256`, `__m256i`);
    /// `None` elsewhere. The one table the runtime, the transpositions and codegen's helpers
    /// spell intrinsics from.
    pub fn x86_intrinsics(self) -> Option<(&'static str, &'static str)> {
        match self {
            Arch::Sse => Some(("_mm", "__m128i")),
            Arch::Avx2 => Some(("_mm256", "__m256i")),
            Arch::Avx512 => Some(("_mm512", "__m512i")),
            Arch::Std | Arch::Neon => None,
        }
    }

    /// Register width in bits.
    pub fn reg_bits(self) -> u32 {
        match self {
            Arch::Std => 64,
            Arch::Sse | Arch::Neon => 128,
            Arch::Avx2 => 256,
            Arch::Avx512 => 512,
        }
    }

    /// Width of an hslice lane (see module doc).
    pub fn hslice_lane_bits(self) -> u32 {
        match self {
            Arch::Std => 64,
            _ => 128,
        }
    }

    /// Width S of one hslice slot for m-bit words: L/m when m divides the lane L. Otherwise
    /// (C8: e.g. 6-bit words) the m slots leave the top of the lane unused: S = floor(L/m) on
    /// `std`, and whole bytes, S = 8*floor(16/m), on SIMD for m < 16 (byte shuffles).
    pub fn hslice_slot_bits(self, m: u32) -> u32 {
        let l = self.hslice_lane_bits();
        if m == 0 || l.is_multiple_of(m) || self == Arch::Std || m >= 16 {
            l / m.max(1)
        } else {
            8 * (16 / m)
        }
    }

    /// Whether code for this target can run on the current CPU.
    pub fn runs_here(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Arch::Std => true,
                Arch::Sse => std::is_x86_feature_detected!("sse4.2"),
                Arch::Avx2 => std::is_x86_feature_detected!("avx2"),
                Arch::Avx512 => {
                    std::is_x86_feature_detected!("avx512f")
                        && std::is_x86_feature_detected!("avx512bw")
                        && std::is_x86_feature_detected!("avx512vl")
                }
                Arch::Neon => false,
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            matches!(self, Arch::Std | Arch::Neon)
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            self == Arch::Std
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Number of instances one call of the raw entry processes. `word_bits` is the atoms' word
/// size (ignored in bitslice).
pub fn instances_per_call(arch: Arch, slicing: Slicing, word_bits: u32) -> usize {
    match slicing {
        Slicing::B => arch.reg_bits() as usize,
        Slicing::V if arch == Arch::Std => 1,
        Slicing::V | Slicing::H => (arch.reg_bits() / word_bits.max(1)) as usize,
    }
}
