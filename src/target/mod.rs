//! The machine model, below `opt`, `codegen` and `runtime`: which targets exist, their register
//! layouts (`layout`), and what each can do natively and at what cost (`Target`). Passes ask
//! it questions ("is a 32-bit rotate one instruction here?", "how many registers?") instead
//! of keeping target facts of their own.

pub mod layout;
pub mod shuffle;
pub mod spill;

pub use layout::{instances_per_call, Arch};

use crate::ir::{Op, Slicing};

/// A native capability a pass or the code generator may rely on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `vpternlog`: any boolean function of three registers in one instruction (AVX-512F).
    Ternlog,
    /// Native lane rotates for 32- and 64-bit lanes (`vprold`/`vprolq`, AVX-512F).
    Rotate32_64,
    /// Native 16-bit lane rotates through double shifts (`vpshldw`, AVX-512 VBMI2): not assumed
    /// by the cost model (the `avx512` target is F/BW/VL); the runtime's `NK_ROTL16` uses it
    /// when the C compiler defines `__AVX512VBMI2__` (e.g. `-march=native` on a CPU with it).
    Rotate16,
    /// `andn` as one instruction (`pandn`/`vpandn`/`vpandnq`, BMI1 `andn` on GP registers).
    Andn,
}

/// The processor family whose measurements the default rules follow (`--uarch`). A few
/// defaults were measured to go opposite ways on the two x86-64 families this project has run
/// on — AMD Zen 4 (2026-11-24/25) and an Intel Golden Cove server core (Sapphire Rapids
/// class, 2026-11-26) — e.g. which bitsliced round loops `--loops auto` unrolls on AVX-512
/// (`opt::auto_unrolled`). By default it is the host's ([`Uarch::host`]), as the generated C
/// is built with `-march=native`; `--uarch amd|intel` pins it (tests do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Uarch {
    /// AMD (and any CPU not recognised as Intel): the rules as measured on Zen 4.
    Amd,
    /// Intel: the rules as measured on a Golden Cove server core.
    Intel,
}

impl Uarch {
    /// The family of the CPU this process runs on (its CPUID vendor string); `Amd` off x86-64.
    pub fn host() -> Uarch {
        #[cfg(target_arch = "x86_64")]
        {
            // CPUID leaf 0 (the vendor string) exists on every x86-64 processor.
            let r = std::arch::x86_64::__cpuid(0);
            let mut v = Vec::with_capacity(12);
            for w in [r.ebx, r.edx, r.ecx] {
                v.extend_from_slice(&w.to_le_bytes());
            }
            Uarch::from_vendor(&String::from_utf8_lossy(&v))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Uarch::Amd
        }
    }

    /// From a CPUID vendor string or a `/proc/cpuinfo` text.
    pub fn from_vendor(vendor: &str) -> Uarch {
        if vendor.contains("GenuineIntel") {
            Uarch::Intel
        } else {
            Uarch::Amd
        }
    }

    /// `--uarch` values: `amd` (or `zen`), `intel`, `host`.
    pub fn parse(s: &str) -> Option<Uarch> {
        match s.to_ascii_lowercase().as_str() {
            "amd" | "zen" | "zen4" => Some(Uarch::Amd),
            "intel" => Some(Uarch::Intel),
            "host" | "native" | "auto" => Some(Uarch::host()),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Uarch::Amd => "amd",
            Uarch::Intel => "intel",
        }
    }
}

/// The target of one compilation: architecture, slicing-independent register facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub arch: Arch,
    /// Register width in bits.
    pub reg_bits: u32,
    /// Architectural registers available to the C compiler's allocator for our values.
    pub n_regs: u32,
}

/// Cost of one IR operation as the code generator emits it, in instructions issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpCost {
    pub insns: u32,
}

impl Target {
    pub fn new(arch: Arch) -> Target {
        let n_regs = match arch {
            // rsp and rbp are not free; a few more hold pointers and loop counters.
            Arch::Std => 13,
            Arch::Sse | Arch::Avx2 => 16,
            Arch::Avx512 | Arch::Neon => 32,
        };
        Target {
            arch,
            reg_bits: arch.reg_bits(),
            n_regs,
        }
    }

    pub fn has(&self, f: Feature) -> bool {
        match f {
            Feature::Ternlog | Feature::Rotate32_64 => self.arch == Arch::Avx512,
            Feature::Rotate16 => false,
            // GP: BMI1 is not assumed by `cc -O3` without -march; SIMD has it everywhere.
            Feature::Andn => self.arch != Arch::Std,
        }
    }

    /// What `op` on atoms of `bits` bits costs in `slicing` (instructions the generated C needs;
    /// wiring such as bitsliced shifts costs nothing: it is renaming).
    pub fn cost(&self, op: &Op, bits: u32, slicing: Slicing) -> OpCost {
        let simd = self.arch != Arch::Std;
        let insns = match op {
            Op::Const(_) | Op::Copy(_) => 0,
            Op::Not(_) => 1,
            Op::And(..) | Op::Or(..) | Op::Xor(..) => 1,
            Op::Andn(..) => {
                if self.has(Feature::Andn) {
                    1
                } else {
                    2
                }
            }
            Op::Ternlog(..) => 1,
            Op::Add(..) | Op::Sub(..) => 1,
            Op::Mul(..) => {
                if simd && bits == 64 {
                    6
                } else {
                    1
                }
            }
            Op::Rotl(..) | Op::Rotr(..) => match slicing {
                Slicing::V => {
                    if !simd
                        || (self.has(Feature::Rotate32_64) && bits >= 32)
                        || (bits == 16 && self.has(Feature::Rotate16))
                    {
                        1
                    } else {
                        3
                    }
                }
                _ => 1,
            },
            Op::Shl(..) | Op::Shr(..) | Op::Sar(..) => 1,
            Op::Shuffle(..) | Op::Bitmask(..) => {
                if slicing == Slicing::V {
                    bits.min(8)
                } else {
                    1
                }
            }
            Op::Pack(..) => 2,
        };
        OpCost { insns }
    }

    /// [`Target::cost`] as `codegen` emits the op where the two differ: a vslice rotation by
    /// whole bytes of a word of 16 bits or more on SIMD, which `cost` charges as two shifts and
    /// an OR, is one byte shuffle (`codegen::ops`); a vslice bit permutation on SIMD, which
    /// `cost` charges a flat 8, is the terms of its [`shuffle::plan`] (3 to 14 instructions
    /// on the shipped ciphers). Used by `opt::rot_sum` and `bench limits`.
    pub fn emitted_cost(&self, op: &Op, bits: u32, slicing: Slicing) -> OpCost {
        let c = self.cost(op, bits, slicing);
        match op {
            // On `std` the helper ANDs and shifts each group of bits moving by one distance.
            Op::Shuffle(_, perm) if slicing == Slicing::V && self.arch == Arch::Std => {
                let terms: Vec<shuffle::Term> = shuffle::groups(bits, perm)
                    .into_iter()
                    .map(|(d, msk)| shuffle::Term::Masked { d, msk })
                    .collect();
                OpCost {
                    insns: shuffle::insns(&terms, 64, false),
                }
            }
            // Whole bytes moved: one byte shuffle (`codegen::ops::simd_v`).
            Op::Shuffle(_, perm)
                if slicing == Slicing::V
                    && bits >= 16
                    && shuffle::byte_shuffle(bits, perm).is_some() =>
            {
                OpCost { insns: 1 }
            }
            // As `codegen::ops::simd_v` calls the helper: words of 2..7 bits in 8-bit lanes
            // without x86's lane shifts or rotations.
            Op::Shuffle(_, perm) if slicing == Slicing::V && bits >= 2 => {
                let (w, x86) = if bits < 8 {
                    (8, false)
                } else {
                    (bits, self.arch.x86_intrinsics().is_some())
                };
                let native_rot = self.has(Feature::Rotate32_64) && w >= 32;
                OpCost {
                    insns: shuffle::insns(
                        &shuffle::plan(w, bits, perm, x86, !native_rot),
                        w,
                        native_rot,
                    ),
                }
            }
            Op::Rotl(_, r) | Op::Rotr(_, r)
                if slicing == Slicing::V
                    && self.arch != Arch::Std
                    && bits >= 16
                    && r.is_multiple_of(8) =>
            {
                OpCost {
                    insns: c.insns.min(1),
                }
            }
            _ => c,
        }
    }
}
