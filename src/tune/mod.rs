//! The autotuner's core: what can be tuned ([`Knobs`]), how a candidate is compiled and
//! estimated without running it ([`compile`], [`estimate`]), the search ([`search`]: greedy
//! coordinate descent with static pruning, a time budget and a final check against the
//! default), the cache key and entry format ([`cache`]) and the report ([`report`]: Markdown
//! table and an SVG plot).
//!
//! No I/O happens here: measuring (building C, spawning the timing harness), the clock and the
//! cache's storage are behind the small traits [`search::Measurer`], [`search::Clock`] and
//! [`cache::Store`]; `cli::tune` implements them with `cli::bench::harness` and a cache folder,
//! the tests with a fake timer, so the search is deterministic there.

pub mod cache;
pub mod compile;
pub mod estimate;
pub mod report;
pub mod search;

use crate::ir::Slicing;
use crate::opt::{InlinePolicy, LoopPolicy};
use crate::target::Arch;

/// What the tuner minimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// Cycles per byte of the raw entry in a hot loop.
    Hot,
    /// Cycles of one call on one block with evicted caches.
    Cold,
    /// Code bytes, among candidates within 5% of the fastest (hot) one.
    Size,
    /// Cycles per byte of the packed entry `E__packed` (transposition included; the only
    /// goal that searches `packed-interleave`).
    Packed,
}

impl Goal {
    pub fn parse(s: &str) -> Option<Goal> {
        match s {
            "hot" => Some(Goal::Hot),
            "cold" => Some(Goal::Cold),
            "size" => Some(Goal::Size),
            "packed" => Some(Goal::Packed),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Goal::Hot => "hot",
            Goal::Cold => "cold",
            Goal::Size => "size",
            Goal::Packed => "packed",
        }
    }
}

/// A C compiler and its flags, as the candidate is built (and as the report tells the user to
/// build the output).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cc {
    pub name: String,
    pub flags: Vec<String>,
}

impl Cc {
    pub fn label(&self) -> String {
        format!("{} {}", self.name, self.flags.join(" "))
    }
}

/// One point of the search space: every choice the tuner makes. The default candidate is
/// [`Knobs::default_for`]; `compile::configure` turns a candidate into a compiler config.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Knobs {
    pub loops: LoopPolicyKnob,
    /// Kept loops forced unrolled, by the name of their body node.
    pub unrolled_loops: Vec<String>,
    pub inline: InlineKnob,
    /// Per-node decisions overriding the policy (`true`: inline), by node name.
    pub inline_nodes: Vec<(String, bool)>,
    pub sched_bits: bool,
    /// The m-slice scheduler's window, or off.
    pub sched_ilp: Option<usize>,
    /// Interleaving factor and granularity (factor 1: off).
    pub interleave: (u32, usize),
    pub ternlog: bool,
    /// The `ternlog-order` pass (dying operands first, or under the AMD rules in vslice and
    /// hslice the latest operand first; only meaningful with `ternlog`, and false whenever
    /// `ternlog` is).
    pub ternlog_order: bool,
    /// The `not-absorb` pass (negations folded into their readers; only meaningful with
    /// `ternlog`, and false whenever `ternlog` is).
    pub not_absorb: bool,
    /// The `ternlog-dup` pass (shared operations recomputed in each reader's ternlog; only
    /// meaningful with `ternlog`, and false whenever `ternlog` is).
    pub ternlog_dup: bool,
    /// Explicit spilling and the lockstep scheduler (vslice on SSE/AVX2/AVX-512).
    pub spill: SpillKnob,
    /// The interleaved kernel behind the packed entry (`--packed-interleave`; `None`: the
    /// rule of `driver::packed_kernel`).
    pub packed_interleave: Option<u32>,
    /// Bitslice `const` inputs prepared compact behind the packed entry (`--packed-consts`;
    /// `None`: the rule of `driver::packed_compact_consts`).
    pub packed_consts: Option<bool>,
    /// Which database circuit an S-box table with several takes (`--sbox-circuit`; `None`:
    /// the rule of `sbox::default_goal`).
    pub sbox_circuit: Option<crate::normalize::sbox::CircuitGoal>,
    /// SSE/AVX2: negations through the opaque all-ones register (`--opaque-not`).
    pub opaque_not: bool,
    /// State slots of a memory-form kept loop held in registers across iterations
    /// (`--loop-regs N`; `None`: as the command line says, by default the rule of
    /// `codegen::memloop::register_slots_count`).
    pub loop_regs: Option<usize>,
    /// Memory-form loop bodies read each state slot once into an opaque register
    /// (`--state-loads`; `None`: the rule of `codegen::state_loads_rule`).
    pub state_loads: Option<bool>,
    /// x86-64: kept loops' bodies 64-byte aligned plus this many bytes (`--loop-align K`;
    /// `None`: the C compiler's placement).
    pub loop_align: Option<u32>,
    /// `sched-bits` keeps only a bottom-up order, or only a top-down one
    /// (`--sched-bits-up`; `None`: the rule of `sched_bits::UP_MAX_PER_MILLE`).
    pub sched_bits_up: Option<bool>,
    /// Bitslice on AVX-512: the raw entry on two 256-bit halves (`--entry-halves`), the
    /// program they run (`--halves-ir`: AVX2's or the AVX-512 one) and whether in place
    /// (`--halves-in-place`).
    pub entry_halves: bool,
    pub halves_ir: Arch,
    pub halves_in_place: bool,
    pub cc: Cc,
}

/// Explicit spilling of kept vsliced loop bodies (`--spill`/`--no-spill`) and the lockstep
/// scheduler that lets it keep loop-carried values in memory (`sched-pairs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpillKnob {
    /// No explicit spills: the C compiler allocates (`--no-spill`; sched-pairs off too).
    Off,
    /// Explicit spills in the body's order (`--disable sched-pairs`).
    Plan,
    /// Both (the default).
    Lockstep,
}

impl SpillKnob {
    pub const ALL: [SpillKnob; 3] = [SpillKnob::Off, SpillKnob::Plan, SpillKnob::Lockstep];
    pub fn name(self) -> &'static str {
        match self {
            SpillKnob::Off => "off",
            SpillKnob::Plan => "plan",
            SpillKnob::Lockstep => "lockstep",
        }
    }
    /// Whether explicit spilling can change the C for this slicing and target.
    pub fn applies(s: Slicing, a: Arch) -> bool {
        crate::target::spill::applies(s, a)
    }
}

/// [`LoopPolicy`], orderable. `Auto` is the default rule (`chains`, except round loops on
/// avx512, which it unrolls: `opt::auto_unrolled`); it is what `nakiri compile`
/// emits, so it must be the tuner's starting point (resolving it to `chains` made the
/// "default" of every `-B` avx512 run a kept-loop variant that `compile` does not emit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LoopPolicyKnob {
    Unroll,
    Chains,
    All,
    Auto,
}

impl LoopPolicyKnob {
    pub fn policy(self) -> LoopPolicy {
        match self {
            LoopPolicyKnob::Unroll => LoopPolicy::Unroll,
            LoopPolicyKnob::Chains => LoopPolicy::Chains,
            LoopPolicyKnob::All => LoopPolicy::All,
            LoopPolicyKnob::Auto => LoopPolicy::Auto,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            LoopPolicyKnob::Unroll => "unroll",
            LoopPolicyKnob::Chains => "chains",
            LoopPolicyKnob::All => "all",
            LoopPolicyKnob::Auto => "auto",
        }
    }
    fn of(p: LoopPolicy) -> LoopPolicyKnob {
        match p {
            LoopPolicy::Auto => LoopPolicyKnob::Auto,
            LoopPolicy::Chains => LoopPolicyKnob::Chains,
            LoopPolicy::All => LoopPolicyKnob::All,
            LoopPolicy::Unroll => LoopPolicyKnob::Unroll,
        }
    }
}

/// [`InlinePolicy`] without `Default`, orderable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InlineKnob {
    Small,
    All,
    Marked,
    /// The default rule (`InlinePolicy::Default`): what `compile` emits, where the rule
    /// depends on more than slicing and target (vslice on avx512: `all` unless a loop is kept).
    Default,
}

impl InlineKnob {
    pub fn policy(self) -> InlinePolicy {
        match self {
            InlineKnob::Small => InlinePolicy::Small,
            InlineKnob::All => InlinePolicy::All,
            InlineKnob::Marked => InlinePolicy::Marked,
            InlineKnob::Default => InlinePolicy::Default,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            InlineKnob::Small => "small",
            InlineKnob::All => "all",
            InlineKnob::Marked => "marked",
            InlineKnob::Default => "default",
        }
    }
    fn of(p: InlinePolicy, s: Slicing, a: Arch) -> InlineKnob {
        // Where the rule depends on the program (whether a loop stays), only `default` says it.
        if p.resolve(s, a, false) != p.resolve(s, a, true) {
            return InlineKnob::Default;
        }
        match p.resolve(s, a, false) {
            InlinePolicy::All => InlineKnob::All,
            InlinePolicy::Marked => InlineKnob::Marked,
            _ => InlineKnob::Small,
        }
    }
}

/// The knobs a search may move (`--knobs`, and usubac's `-bench-*` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    Loops,
    Inline,
    SchedBits,
    /// The direction of `sched-bits`' orders (`--sched-bits-up`), with `sched-bits` on.
    SchedBitsUp,
    SchedIlp,
    Interleave,
    Ternlog,
    /// The operand order of ternlogs (`ternlog-order`), with `ternlog` on.
    TernlogOrder,
    /// Negations absorbed by their readers (`not-absorb`), with `ternlog` on.
    NotAbsorb,
    /// Shared operations recomputed in their readers' ternlogs (`ternlog-dup`), with
    /// `ternlog` on.
    TernlogDup,
    Spill,
    /// The kernel behind the packed entry (goal `packed` only).
    PackedInterleave,
    /// Compact prepared consts behind the packed entry (goal `packed`, bitslice on SIMD).
    PackedConsts,
    /// The S-box circuit, where a table has several in the database (AES).
    SboxCircuit,
    /// Negations through an all-ones register gcc cannot see (`--opaque-not`; SSE/AVX2).
    OpaqueNot,
    /// State slots of a memory-form kept loop held in registers (`--loop-regs`; SIMD
    /// targets).
    LoopRegs,
    /// State slots of a memory-form kept loop read once into opaque registers
    /// (`--state-loads`; SIMD targets).
    StateLoads,
    /// Kept loops' bodies placed at a 64-byte line offset (`--loop-align`; x86-64 targets).
    LoopAlign,
    /// The raw entry on two 256-bit halves (`--entry-halves`, `--halves-ir`,
    /// `--halves-in-place`; bitslice on AVX-512).
    EntryHalves,
    Cc,
    /// Per-node inlining (after `Inline`).
    InlineNode,
    /// Per-loop unrolling (after `Loops`).
    Loop,
}

impl Dim {
    pub const ALL: [Dim; 22] = [
        Dim::Loops,
        Dim::Inline,
        Dim::SchedBits,
        Dim::SchedBitsUp,
        Dim::SchedIlp,
        Dim::Interleave,
        Dim::Ternlog,
        Dim::TernlogOrder,
        Dim::NotAbsorb,
        Dim::TernlogDup,
        Dim::Spill,
        Dim::PackedInterleave,
        Dim::PackedConsts,
        Dim::SboxCircuit,
        Dim::OpaqueNot,
        Dim::LoopRegs,
        Dim::StateLoads,
        Dim::LoopAlign,
        Dim::EntryHalves,
        Dim::Cc,
        Dim::InlineNode,
        Dim::Loop,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Dim::Loops => "loops",
            Dim::Inline => "inline",
            Dim::SchedBits => "sched-bits",
            Dim::SchedBitsUp => "sched-bits-up",
            Dim::SchedIlp => "sched-ilp",
            Dim::Interleave => "interleave",
            Dim::Ternlog => "ternlog",
            Dim::TernlogOrder => "ternlog-order",
            Dim::NotAbsorb => "not-absorb",
            Dim::TernlogDup => "ternlog-dup",
            Dim::Spill => "spill",
            Dim::PackedInterleave => "packed-interleave",
            Dim::PackedConsts => "packed-consts",
            Dim::SboxCircuit => "sbox-circuit",
            Dim::OpaqueNot => "opaque-not",
            Dim::LoopRegs => "loop-regs",
            Dim::StateLoads => "state-loads",
            Dim::LoopAlign => "loop-align",
            Dim::EntryHalves => "entry-halves",
            Dim::Cc => "cc",
            Dim::InlineNode => "inline-node",
            Dim::Loop => "loop",
        }
    }
    pub fn parse(s: &str) -> Option<Dim> {
        Dim::ALL.iter().copied().find(|d| d.name() == s)
    }
    pub fn names() -> String {
        Dim::ALL
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The offsets the `loop-align` knob tries (besides the C compiler's placement): all eight.
/// On Zen 3, Ascon's `-B` avx2 round loop ran 0.59-0.67 c/B at 0, 24, 40 and 56 bytes past a
/// 64-byte line and 0.88-0.93 at 8, 16, 32 and 48 (README "Stop 49"): no coarser set is safe.
pub const LOOP_ALIGN_TRIED: [u32; 8] = [0, 8, 16, 24, 32, 40, 48, 56];

/// Which knobs apply and which values each may take (the space of one tuning run).
#[derive(Clone, Debug)]
pub struct Space {
    pub slicing: Slicing,
    pub arch: Arch,
    pub dims: Vec<Dim>,
    /// Compilers with their flag sets (first = the default).
    pub ccs: Vec<Cc>,
    /// Whether the raw entry's ABI may change (interleaving doubles its parameters; the packed
    /// entry keeps its signature): without it, interleaving is not searched.
    pub allow_abi_change: bool,
    /// At most this many per-node inlining and per-loop candidates (largest work first).
    pub max_node_candidates: usize,
}

impl Space {
    /// Every knob that means something for this slicing and target.
    pub fn new(slicing: Slicing, arch: Arch, ccs: Vec<Cc>, allow_abi_change: bool) -> Space {
        let dims = Dim::ALL
            .iter()
            .copied()
            .filter(|d| match d {
                Dim::SchedBits => true,
                Dim::SchedBitsUp => slicing != Slicing::V,
                Dim::SchedIlp => slicing != Slicing::B,
                Dim::Ternlog | Dim::TernlogOrder | Dim::NotAbsorb | Dim::TernlogDup => {
                    arch == Arch::Avx512
                }
                Dim::OpaqueNot => matches!(arch, Arch::Sse | Arch::Avx2),
                Dim::LoopRegs | Dim::StateLoads => {
                    matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512)
                }
                Dim::EntryHalves => slicing == Slicing::B && arch == Arch::Avx512,
                // (the x86-64 assembler directives; NEON code has none)
                Dim::LoopAlign => arch != Arch::Neon,
                Dim::Spill => SpillKnob::applies(slicing, arch),
                Dim::Interleave => allow_abi_change,
                // Only goal `packed` measures what it changes ([`Space::for_goal`]).
                Dim::PackedInterleave | Dim::PackedConsts => false,
                // Only programs with a choice of circuit ([`Space::with_sbox_circuit`]).
                Dim::SboxCircuit => false,
                Dim::Cc => ccs.len() > 1,
                _ => true,
            })
            .collect();
        Space {
            slicing,
            arch,
            dims,
            ccs,
            allow_abi_change,
            max_node_candidates: 6,
        }
    }

    /// Adds the dimensions only `goal` measures (`packed-interleave` for goal `packed`, and
    /// `packed-consts` there in bitslice on SIMD targets).
    pub fn for_goal(&mut self, goal: Goal) {
        if goal != Goal::Packed {
            return;
        }
        let consts = self.slicing == Slicing::B
            && matches!(self.arch, Arch::Sse | Arch::Avx2 | Arch::Avx512);
        for (d, applies) in [(Dim::PackedInterleave, true), (Dim::PackedConsts, consts)] {
            if applies && !self.dims.contains(&d) {
                // before `cc`, after the others
                let at = self
                    .dims
                    .iter()
                    .position(|d| *d == Dim::Cc)
                    .unwrap_or(self.dims.len());
                self.dims.insert(at, d);
            }
        }
    }

    /// Adds `sbox-circuit`, for a program whose S-box tables compile differently with each
    /// circuit of the database (before `cc`, after the others).
    pub fn with_sbox_circuit(&mut self) {
        if !self.dims.contains(&Dim::SboxCircuit) {
            let at = self
                .dims
                .iter()
                .position(|d| *d == Dim::Cc)
                .unwrap_or(self.dims.len());
            self.dims.insert(at, Dim::SboxCircuit);
        }
    }

    /// Keeps only `keep` (and the per-node/per-loop refinements of kept `Inline`/`Loops`).
    pub fn restrict(&mut self, keep: &[Dim]) {
        self.dims.retain(|d| {
            keep.contains(d)
                || (*d == Dim::InlineNode && keep.contains(&Dim::Inline))
                || (*d == Dim::Loop && keep.contains(&Dim::Loops))
        });
    }

    /// nakiri's defaults for this slicing and target (what `nakiri compile` emits).
    /// (`spill`: the driver's `--spill`/`--no-spill`.)
    pub fn default_knobs(
        &self,
        opt: &crate::opt::OptConfig,
        spill: bool,
        opaque_not: bool,
    ) -> Knobs {
        Knobs {
            loops: LoopPolicyKnob::of(opt.loops),
            unrolled_loops: vec![],
            inline: InlineKnob::of(opt.inline, self.slicing, self.arch),
            inline_nodes: vec![],
            // Passes that do not apply here are recorded as off (the same C either way).
            sched_bits: opt.enabled(crate::opt::PassId::SchedBits)
                && opt.sched_bits_in.contains(self.slicing),
            sched_ilp: if opt.enabled(crate::opt::PassId::SchedIlp) && self.slicing != Slicing::B {
                Some(opt.sched_window)
            } else {
                None
            },
            interleave: (opt.interleave.max(1), opt.interleave_granularity),
            ternlog: opt.enabled(crate::opt::PassId::Ternlog) && self.arch == Arch::Avx512,
            ternlog_order: opt.enabled(crate::opt::PassId::Ternlog)
                && opt.enabled(crate::opt::PassId::TernlogOrder)
                && self.arch == Arch::Avx512,
            not_absorb: opt.enabled(crate::opt::PassId::Ternlog)
                && opt.enabled(crate::opt::PassId::NotAbsorb)
                && self.arch == Arch::Avx512,
            ternlog_dup: opt.enabled(crate::opt::PassId::Ternlog)
                && opt.enabled(crate::opt::PassId::TernlogDup)
                && self.arch == Arch::Avx512,
            spill: match (
                SpillKnob::applies(self.slicing, self.arch) && spill,
                opt.enabled(crate::opt::PassId::SchedPairs),
            ) {
                (false, _) => SpillKnob::Off,
                (true, false) => SpillKnob::Plan,
                (true, true) => SpillKnob::Lockstep,
            },
            packed_interleave: None,
            packed_consts: None,
            sbox_circuit: None,
            opaque_not: opaque_not && matches!(self.arch, Arch::Sse | Arch::Avx2),
            loop_regs: None,
            state_loads: None,
            loop_align: None,
            sched_bits_up: opt.sched_bits_up,
            entry_halves: false,
            halves_ir: crate::driver::HALVES_IR_DEFAULT,
            halves_in_place: crate::driver::HALVES_IN_PLACE_DEFAULT,
            cc: self.ccs[0].clone(),
        }
    }

    /// The values of a global dimension other than the current one (per-node and per-loop
    /// dimensions are listed by the search from the compiled program).
    pub fn alternatives(&self, d: Dim, cur: &Knobs) -> Vec<Knobs> {
        let mut out = Vec::new();
        let mut push = |k: Knobs| {
            if k != *cur && !out.contains(&k) {
                out.push(k);
            }
        };
        match d {
            Dim::Loops => {
                for l in [
                    LoopPolicyKnob::Unroll,
                    LoopPolicyKnob::Chains,
                    LoopPolicyKnob::All,
                ] {
                    push(Knobs {
                        loops: l,
                        unrolled_loops: vec![],
                        ..cur.clone()
                    });
                }
                // Unrolling pays when the bodies are inlined into the straight line, which a
                // one-knob move cannot see: also unroll with everything inlined.
                if cur.inline != InlineKnob::All {
                    push(Knobs {
                        loops: LoopPolicyKnob::Unroll,
                        unrolled_loops: vec![],
                        inline: InlineKnob::All,
                        inline_nodes: vec![],
                        ..cur.clone()
                    });
                }
            }
            Dim::Inline => {
                for i in [InlineKnob::Small, InlineKnob::All, InlineKnob::Marked] {
                    push(Knobs {
                        inline: i,
                        inline_nodes: vec![],
                        ..cur.clone()
                    });
                }
            }
            Dim::SchedBits => push(Knobs {
                sched_bits: !cur.sched_bits,
                ..cur.clone()
            }),
            Dim::SchedIlp => {
                for w in [None, Some(3), Some(10), Some(30)] {
                    push(Knobs {
                        sched_ilp: w,
                        ..cur.clone()
                    });
                }
            }
            Dim::Ternlog => push(Knobs {
                ternlog: !cur.ternlog,
                ternlog_order: !cur.ternlog,
                not_absorb: !cur.ternlog,
                ternlog_dup: !cur.ternlog,
                ..cur.clone()
            }),
            Dim::TernlogOrder => {
                if cur.ternlog {
                    push(Knobs {
                        ternlog_order: !cur.ternlog_order,
                        ..cur.clone()
                    })
                }
            }
            Dim::NotAbsorb => {
                if cur.ternlog {
                    push(Knobs {
                        not_absorb: !cur.not_absorb,
                        ..cur.clone()
                    })
                }
            }
            Dim::TernlogDup => {
                if cur.ternlog {
                    push(Knobs {
                        ternlog_dup: !cur.ternlog_dup,
                        ..cur.clone()
                    })
                }
            }
            Dim::Spill => {
                for s in SpillKnob::ALL {
                    push(Knobs {
                        spill: s,
                        ..cur.clone()
                    });
                }
            }
            Dim::Interleave => {
                push(Knobs {
                    interleave: (1, cur.interleave.1),
                    ..cur.clone()
                });
                for k in 2..=4u32 {
                    for g in [1usize, 10, 50] {
                        push(Knobs {
                            interleave: (k, g),
                            ..cur.clone()
                        });
                    }
                }
            }
            Dim::PackedInterleave => {
                for p in [None, Some(1), Some(2), Some(3)] {
                    push(Knobs {
                        packed_interleave: p,
                        ..cur.clone()
                    });
                }
            }
            Dim::PackedConsts => {
                for p in [None, Some(true), Some(false)] {
                    push(Knobs {
                        packed_consts: p,
                        ..cur.clone()
                    });
                }
            }
            Dim::SboxCircuit => {
                use crate::normalize::sbox::CircuitGoal;
                for g in [None, Some(CircuitGoal::Small), Some(CircuitGoal::Shallow)] {
                    push(Knobs {
                        sbox_circuit: g,
                        ..cur.clone()
                    });
                }
            }
            Dim::StateLoads => {
                for p in [None, Some(true), Some(false)] {
                    push(Knobs {
                        state_loads: p,
                        ..cur.clone()
                    });
                }
            }
            // (a program without kept loops emits the same C for each: those candidates are
            // not measured again)
            Dim::LoopAlign => {
                for a in std::iter::once(None).chain(LOOP_ALIGN_TRIED.into_iter().map(Some)) {
                    push(Knobs {
                        loop_align: a,
                        ..cur.clone()
                    });
                }
            }
            // (the direction means something only when sched-bits runs)
            Dim::SchedBitsUp if cur.sched_bits => {
                for p in [None, Some(true), Some(false)] {
                    push(Knobs {
                        sched_bits_up: p,
                        ..cur.clone()
                    });
                }
            }
            Dim::SchedBitsUp => {}
            Dim::OpaqueNot => push(Knobs {
                opaque_not: !cur.opaque_not,
                ..cur.clone()
            }),
            Dim::EntryHalves => {
                // off, and on with each program and layout (README, "The avx512 raw entry on
                // two 256-bit halves": each wins on some program)
                push(Knobs {
                    entry_halves: false,
                    halves_ir: crate::driver::HALVES_IR_DEFAULT,
                    halves_in_place: crate::driver::HALVES_IN_PLACE_DEFAULT,
                    ..cur.clone()
                });
                for ir in [Arch::Avx2, Arch::Avx512] {
                    for in_place in [false, true] {
                        push(Knobs {
                            entry_halves: true,
                            halves_ir: ir,
                            halves_in_place: in_place,
                            ..cur.clone()
                        });
                    }
                }
            }
            Dim::LoopRegs => {
                // none, the rule, a quarter, half and three quarters of the registers
                let regs = crate::target::Target::new(self.arch).n_regs as usize;
                for p in [
                    None,
                    Some(0),
                    Some(regs / 4),
                    Some(regs / 2),
                    Some(regs * 3 / 4),
                ] {
                    push(Knobs {
                        loop_regs: p,
                        ..cur.clone()
                    });
                }
            }
            Dim::Cc => {
                for c in &self.ccs {
                    push(Knobs {
                        cc: c.clone(),
                        ..cur.clone()
                    });
                }
            }
            Dim::InlineNode | Dim::Loop => {}
        }
        out
    }
}

impl Knobs {
    /// One line, `key=value` pairs (also the cache's and the report's form; [`Knobs::parse`]
    /// reads it back).
    pub fn to_line(&self) -> String {
        let mut s = format!("loops={} inline={}", self.loops.name(), self.inline.name());
        if !self.unrolled_loops.is_empty() {
            s.push_str(&format!(" unroll-loops={}", self.unrolled_loops.join(",")));
        }
        if !self.inline_nodes.is_empty() {
            let v: Vec<String> = self
                .inline_nodes
                .iter()
                .map(|(n, b)| format!("{}{}", if *b { "+" } else { "-" }, n))
                .collect();
            s.push_str(&format!(" inline-nodes={}", v.join(",")));
        }
        s.push_str(&format!(
            " sched-bits={}",
            if self.sched_bits { "on" } else { "off" }
        ));
        s.push_str(&format!(
            " sched-ilp={}",
            self.sched_ilp
                .map(|w| w.to_string())
                .unwrap_or_else(|| "off".into())
        ));
        s.push_str(&format!(
            " interleave={}x{}",
            self.interleave.0, self.interleave.1
        ));
        s.push_str(&format!(
            " ternlog={}",
            if self.ternlog { "on" } else { "off" }
        ));
        // (only when off, so that lines from before the knob keep their meaning)
        if self.ternlog && !self.ternlog_order {
            s.push_str(" ternlog-order=off");
        }
        if self.ternlog && !self.not_absorb {
            s.push_str(" not-absorb=off");
        }
        if self.ternlog && !self.ternlog_dup {
            s.push_str(" ternlog-dup=off");
        }
        s.push_str(&format!(" spill={}", self.spill.name()));
        if let Some(p) = self.packed_interleave {
            s.push_str(&format!(" packed-interleave={}", p));
        }
        if let Some(p) = self.packed_consts {
            s.push_str(&format!(
                " packed-consts={}",
                if p { "compact" } else { "full" }
            ));
        }
        if let Some(g) = self.sbox_circuit {
            s.push_str(&format!(" sbox-circuit={}", g.name()));
        }
        // (only when on, so that lines from before the knob keep their meaning)
        if self.opaque_not {
            s.push_str(" opaque-not=on");
        }
        if let Some(n) = self.loop_regs {
            s.push_str(&format!(" loop-regs={}", n));
        }
        if let Some(p) = self.state_loads {
            s.push_str(&format!(" state-loads={}", if p { "on" } else { "off" }));
        }
        if let Some(a) = self.loop_align {
            s.push_str(&format!(" loop-align={}", a));
        }
        if let Some(p) = self.sched_bits_up {
            s.push_str(&format!(" sched-bits-up={}", if p { "on" } else { "off" }));
        }
        if self.entry_halves {
            s.push_str(" entry-halves=on");
            if self.halves_ir != crate::driver::HALVES_IR_DEFAULT {
                s.push_str(&format!(" halves-ir={}", self.halves_ir));
            }
            if self.halves_in_place != crate::driver::HALVES_IN_PLACE_DEFAULT {
                s.push_str(&format!(
                    " halves-in-place={}",
                    if self.halves_in_place { "on" } else { "off" }
                ));
            }
        }
        s.push_str(&format!(" cc={}", self.cc.name));
        if !self.cc.flags.is_empty() {
            s.push_str(&format!(" cflags={}", self.cc.flags.join(",")));
        }
        s
    }

    pub fn parse(line: &str) -> Option<Knobs> {
        let mut k = Knobs {
            loops: LoopPolicyKnob::Unroll,
            unrolled_loops: vec![],
            inline: InlineKnob::Small,
            inline_nodes: vec![],
            sched_bits: false,
            sched_ilp: None,
            interleave: (1, 10),
            ternlog: false,
            ternlog_order: true,
            not_absorb: true,
            ternlog_dup: true,
            spill: SpillKnob::Off,
            packed_interleave: None,
            packed_consts: None,
            sbox_circuit: None,
            opaque_not: false,
            loop_regs: None,
            state_loads: None,
            loop_align: None,
            sched_bits_up: None,
            entry_halves: false,
            halves_ir: crate::driver::HALVES_IR_DEFAULT,
            halves_in_place: crate::driver::HALVES_IN_PLACE_DEFAULT,
            cc: Cc {
                name: String::new(),
                flags: vec![],
            },
        };
        let on = |v: &str| match v {
            "on" => Some(true),
            "off" => Some(false),
            _ => None,
        };
        for kv in line.split_whitespace() {
            let (key, v) = kv.split_once('=')?;
            match key {
                "loops" => {
                    k.loops = [
                        LoopPolicyKnob::Unroll,
                        LoopPolicyKnob::Chains,
                        LoopPolicyKnob::All,
                        LoopPolicyKnob::Auto,
                    ]
                    .into_iter()
                    .find(|l| l.name() == v)?
                }
                "inline" => {
                    k.inline = [
                        InlineKnob::Small,
                        InlineKnob::All,
                        InlineKnob::Marked,
                        InlineKnob::Default,
                    ]
                    .into_iter()
                    .find(|l| l.name() == v)?
                }
                "unroll-loops" => k.unrolled_loops = v.split(',').map(String::from).collect(),
                "inline-nodes" => {
                    for n in v.split(',') {
                        let (sign, name) = n.split_at(1);
                        k.inline_nodes.push((name.to_string(), sign == "+"));
                    }
                }
                "sched-bits" => k.sched_bits = on(v)?,
                "sched-ilp" => {
                    k.sched_ilp = if v == "off" {
                        None
                    } else {
                        Some(v.parse().ok()?)
                    }
                }
                "interleave" => {
                    let (a, b) = v.split_once('x')?;
                    k.interleave = (a.parse().ok()?, b.parse().ok()?);
                }
                "ternlog" => k.ternlog = on(v)?,
                "ternlog-order" => k.ternlog_order = on(v)?,
                "not-absorb" => k.not_absorb = on(v)?,
                "ternlog-dup" => k.ternlog_dup = on(v)?,
                "spill" => k.spill = SpillKnob::ALL.into_iter().find(|s| s.name() == v)?,
                "packed-interleave" => {
                    k.packed_interleave = Some(v.parse().ok().filter(|p| (1..=4).contains(p))?)
                }
                "packed-consts" => {
                    k.packed_consts = Some(match v {
                        "compact" => true,
                        "full" => false,
                        _ => return None,
                    })
                }
                "sbox-circuit" => {
                    k.sbox_circuit = Some(crate::normalize::sbox::CircuitGoal::parse(v)?)
                }
                "opaque-not" => k.opaque_not = on(v)?,
                "loop-regs" => k.loop_regs = Some(v.parse().ok()?),
                "state-loads" => k.state_loads = Some(on(v)?),
                "loop-align" => {
                    k.loop_align = Some(
                        v.parse()
                            .ok()
                            .filter(|&a| crate::codegen::loop_align_valid(a))?,
                    )
                }
                "sched-bits-up" => k.sched_bits_up = Some(on(v)?),
                "entry-halves" => k.entry_halves = on(v)?,
                "halves-ir" => {
                    k.halves_ir = match v {
                        "avx2" => Arch::Avx2,
                        "avx512" => Arch::Avx512,
                        _ => return None,
                    }
                }
                "halves-in-place" => k.halves_in_place = on(v)?,
                "cc" => k.cc.name = v.to_string(),
                "cflags" => k.cc.flags = v.split(',').map(String::from).collect(),
                _ => return None,
            }
        }
        k.ternlog_order &= k.ternlog;
        k.not_absorb &= k.ternlog;
        k.ternlog_dup &= k.ternlog;
        Some(k)
    }

    /// What differs from `base`, e.g. `loops=unroll inline=all` (`default` when nothing).
    pub fn diff(&self, base: &Knobs) -> String {
        let a: Vec<String> = self.to_line().split(' ').map(String::from).collect();
        let b: Vec<String> = base.to_line().split(' ').map(String::from).collect();
        let d: Vec<String> = a.iter().filter(|x| !b.contains(x)).cloned().collect();
        if d.is_empty() {
            "default".into()
        } else {
            d.join(" ")
        }
    }
}
