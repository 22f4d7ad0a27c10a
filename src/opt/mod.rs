//! IR-to-IR optimisations: an ordered list of passes ([`PIPELINE`]), each one file with a
//! `run(&mut Program, &OptConfig) -> Stats` function and a doc comment saying what it
//! requires, what it guarantees, and a before/after example (also a test under `tests/opt/`).
//! Any pass can be switched off by name (`--disable NAME`, usubac's `-no-CSE` etc.), its
//! output printed (`--dump-after NAME`), and [`optimize`] returns a [`Report`] with each pass's
//! time, counters and the IR size after it (`-v`).

pub mod copy_prop;
pub mod cost;
pub mod cse;
pub mod fold;
pub mod inline;
pub mod interleave;
pub mod loop_fuse;
pub mod not_absorb;
pub mod outline;
pub mod reroll;
pub mod rot_sum;
pub mod sched_bits;
pub mod sched_ilp;
pub mod sched_pairs;
pub mod ternlog;
pub mod ternlog_dup;
pub mod ternlog_order;
pub mod xor_share;

pub use inline::InlinePolicy;

use crate::ir::{self, LoopHints, Program, Slicing};
use crate::target::{Arch, Target, Uarch};
use std::time::{Duration, Instant};

/// Which source loops stay loops in the C (the others are unrolled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopPolicy {
    /// Unroll everything (`-unroll`, `--loops unroll`).
    Unroll,
    /// Keep loops whose iterations each read the previous one's results — round loops, key
    /// schedules — whose iterations cannot overlap anyway; unroll loops of independent
    /// iterations, whose unrolled copies the C compiler interleaves (`--loops chains`).
    Chains,
    /// Keep every loop that can be kept, independent iterations too: smallest code
    /// (`--loops all`).
    All,
    /// `Chains` in every slicing (default). Kept loops were faster in vslice for every cipher
    /// measured; in bitslice they were slower for the block ciphers until their state moved
    /// to memory (`codegen/memloop.rs`): since then `chains` is 0.73x the unrolled time on
    /// `std` and 0.86x on avx2 in geometric mean over the shipped ciphers (README, "Loops").
    /// On avx512 the unrolled code was faster in every slicing (1.10x in bitslice, 1.09x in
    /// hslice in geometric mean, Zen 4; in vslice with every node inlined): there round loops
    /// are unrolled unless their body passes state on ([`auto_unrolled`]).
    Auto,
}

impl LoopPolicy {
    /// The policy that applies to a program of this slicing.
    pub fn resolve(self, slicing: Slicing) -> LoopPolicy {
        match (self, slicing) {
            (LoopPolicy::Auto, _) => LoopPolicy::Chains,
            (p, _) => p,
        }
    }
}

/// One optimisation pass, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PassId {
    Outline,
    CopyProp,
    Inline,
    Interleave,
    Fold,
    Cse,
    XorShare,
    RotSum,
    Reroll,
    LoopFuse,
    Ternlog,
    NotAbsorb,
    SchedBits,
    SchedIlp,
    SchedPairs,
    TernlogDup,
    TernlogOrder,
}

impl PassId {
    pub const ALL: [PassId; 17] = [
        PassId::Outline,
        PassId::CopyProp,
        PassId::Inline,
        PassId::Interleave,
        PassId::Fold,
        PassId::Cse,
        PassId::XorShare,
        PassId::RotSum,
        PassId::Reroll,
        PassId::LoopFuse,
        PassId::Ternlog,
        PassId::NotAbsorb,
        PassId::SchedBits,
        PassId::SchedIlp,
        PassId::SchedPairs,
        PassId::TernlogDup,
        PassId::TernlogOrder,
    ];

    /// The name used by `--disable`, `--dump-after`, `-v` and the autotuner.
    pub fn name(self) -> &'static str {
        match self {
            PassId::Outline => "outline",
            PassId::CopyProp => "copy-prop",
            PassId::Inline => "inline",
            PassId::Interleave => "interleave",
            PassId::Fold => "fold",
            PassId::Cse => "cse",
            PassId::XorShare => "xor-share",
            PassId::RotSum => "rot-sum",
            PassId::Reroll => "reroll",
            PassId::LoopFuse => "loop-fuse",
            PassId::Ternlog => "ternlog",
            PassId::NotAbsorb => "not-absorb",
            PassId::TernlogDup => "ternlog-dup",
            PassId::SchedBits => "sched-bits",
            PassId::SchedIlp => "sched-ilp",
            PassId::SchedPairs => "sched-pairs",
            PassId::TernlogOrder => "ternlog-order",
        }
    }

    pub fn parse(s: &str) -> Option<PassId> {
        PassId::ALL
            .iter()
            .copied()
            .find(|p| p.name() == s || p.name().replace('-', "_") == s)
    }

    /// The valid names, for a usage error.
    pub fn names() -> String {
        PassId::ALL
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

use PassId::*;

/// The pipeline, in order; each line says why a pass sits where it does.
pub const PIPELINE: &[PassId] = &[
    Outline,      // first: loop hints are body positions as sema made them
    CopyProp,     // copies gone before inlining, so it sees each node's real size
    Inline,       // by policy; the default depends on slicing and target (see inline.rs)
    Interleave,   // on the inlined entry; before fold/cse, which merge the copies' const work
    Fold,         // after inlining: constants reach the callee bodies
    XorShare,     // before CSE, whose merged sums would split XOR trees; before ternlog
    RotSum,       // the same trees (vslice, hslice); before CSE, which merges equal factors
    CopyProp,     // removes the copies fold leaves, and what became dead
    Cse,          // after folding and copy-prop: folded operands expose more equal expressions
    CopyProp,     // removes the copies CSE leaves, and what became dead
    Reroll,       // needs the runs of calls in body order, after the body is final
    LoopFuse,     // the loops reroll made (vslice, hslice)
    Ternlog,      // target ops from here on (AVX-512 only); after CSE, which sees plain ops
    NotAbsorb,    // the negations ternlog fusion left (several readers); before copy-prop
    CopyProp,     // removes the operations folded into ternlogs
    SchedBits,    // nothing reorders after the schedulers (bitslice only)
    SchedIlp,     // (vslice and hslice only)
    SchedPairs,   // after sched-ilp, whose order it pairs: kept vsliced loop bodies on SIMD
    TernlogDup,   // after the schedulers: what it may extend depends on the final order
    TernlogOrder, // last: which operand dies where depends on the final order
];

#[derive(Clone, Debug)]
pub struct OptConfig {
    /// Passes switched off (`--disable`, usubac's `-no-CSE`, `-no-fold-const`, ...).
    pub disabled: Vec<PassId>,
    pub inline: InlinePolicy,
    /// Which loops to keep as C loops (`outline`, `reroll`).
    pub loops: LoopPolicy,
    /// The target the code is for (what costs and native operations passes may assume).
    pub arch: Arch,
    /// Whose measurements the rules that differ between processor families follow
    /// (`--uarch`; default: the host's).
    pub uarch: Uarch,
    /// Measure the most values live after every pass for the report (`-v`'s table): a pass
    /// over every node each time, 16% of compiling a 10 000-node program, so only when asked.
    pub report_max_live: bool,
    /// Print the IR after these passes into the report (`--dump-after`).
    pub dump_after: Vec<PassId>,
    /// Run the IR verifier after every pass (tests and debug builds).
    pub verify_each: bool,
    /// How many instructions ahead the m-slice scheduler looks (`-sched-n`).
    pub sched_window: usize,
    /// Interleaving factor (`-inter-factor`; 1 = off) and granularity (`-interleave`).
    pub interleave: u32,
    pub interleave_granularity: usize,
    /// Instructions all inlining together may copy (the driver passes `--max-ops` / 8).
    pub max_ops: usize,
    /// Loops to unroll although the policy keeps them, by the name of their body node (the
    /// autotuner's per-loop knob): `reroll` leaves runs of calls of these nodes alone, and
    /// `inline` treats them as ordinary nodes, not loop bodies.
    pub unrolled_loops: Vec<String>,
    /// The slicings the register-pressure scheduler (`sched-bits`) runs in
    /// (`--sched-bits-in`); the default is measured (`SchedBitsIn::default`).
    pub sched_bits_in: SchedBitsIn,
    /// Which orders `sched-bits` may keep (`--sched-bits-up` / `--no-sched-bits-up`):
    /// `Some(true)` only bottom-up ones, `Some(false)` only top-down ones, `None` (default)
    /// the rule of `sched_bits::UP_MAX_PER_MILLE`.
    pub sched_bits_up: Option<bool>,
    /// Kept loops whose state outgrows the registers will live in memory
    /// (`codegen/memloop.rs`, `--no-mem-loops`): `sched-bits` schedules their bodies for
    /// inputs read from memory and outputs stored as computed. The driver copies its own flag.
    pub mem_loops: bool,
    /// Keep bitsliced round loops fed by `const` inputs even where the Intel rule unrolls
    /// them for the raw entry ([`auto_unrolled`]): the driver sets it for the program behind
    /// `E__with_consts` (`driver::packed_consts_program`).
    pub keep_const_fed_loops: bool,
    /// Skip `outline` (set by [`optimize`] itself when it runs a program again because the
    /// loop policy unrolled every body `outline` made; see there).
    pub skip_outline: bool,
}

/// Where `sched-bits` runs. Bitsliced bodies always; hsliced ones by default too (their
/// S-box circuits are the same boolean DAGs, on 8-16 registers instead of 128: AES `-H`
/// avx2 1.1x faster, spills halved — README "The optimiser"); vsliced ones only on request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SchedBitsIn {
    B,
    #[default]
    BH,
    BHV,
}

impl SchedBitsIn {
    pub fn contains(self, s: Slicing) -> bool {
        match self {
            SchedBitsIn::B => s == Slicing::B,
            SchedBitsIn::BH => s != Slicing::V,
            SchedBitsIn::BHV => true,
        }
    }
    pub fn parse(v: &str) -> Option<SchedBitsIn> {
        match v.to_ascii_uppercase().as_str() {
            "B" => Some(SchedBitsIn::B),
            "BH" | "HB" => Some(SchedBitsIn::BH),
            "BHV" | "ALL" => Some(SchedBitsIn::BHV),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            SchedBitsIn::B => "B",
            SchedBitsIn::BH => "BH",
            SchedBitsIn::BHV => "BHV",
        }
    }
}

impl Default for OptConfig {
    fn default() -> OptConfig {
        OptConfig {
            // The m-slice scheduler measured no faster on this machine's out-of-order core
            // (ChaCha20, Serpent, RECTANGLE within 1-3%; Xoodoo and Ascon -V 1.15-1.19x slower
            // with the default window, from register pressure): a knob, off by default.
            disabled: vec![PassId::SchedIlp],
            inline: InlinePolicy::Default,
            loops: LoopPolicy::Auto,
            arch: Arch::Std,
            uarch: Uarch::host(),
            report_max_live: false,
            dump_after: Vec::new(),
            verify_each: cfg!(debug_assertions),
            sched_window: 10,
            interleave: 1,
            interleave_granularity: 10,
            max_ops: inline::MAX_INLINED_TOTAL,
            unrolled_loops: Vec::new(),
            sched_bits_in: SchedBitsIn::default(),
            sched_bits_up: None,
            mem_loops: true, // = codegen::MEM_LOOPS_DEFAULT (the driver copies its flag)
            keep_const_fed_loops: false,
            skip_outline: false,
        }
    }
}

impl OptConfig {
    pub fn enabled(&self, p: PassId) -> bool {
        !self.disabled.contains(&p)
    }
    pub fn enable(&mut self, p: PassId) {
        self.disabled.retain(|d| *d != p);
    }
    pub fn disable(&mut self, p: PassId) {
        if !self.disabled.contains(&p) {
            self.disabled.push(p);
        }
    }
    pub fn target(&self) -> Target {
        Target::new(self.arch)
    }
}

/// Counters of one pass run: what it rewrote, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats(pub Vec<(&'static str, usize)>);

impl Stats {
    pub fn add(&mut self, what: &'static str, n: usize) {
        match self.0.iter_mut().find(|(k, _)| *k == what) {
            Some(e) => e.1 += n,
            None => self.0.push((what, n)),
        }
    }
    pub fn get(&self, what: &str) -> usize {
        self.0.iter().find(|(k, _)| *k == what).map_or(0, |e| e.1)
    }
}

/// Size of the IR: instructions, atoms, and the most values live at once in one node (body
/// order, outputs live to the end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IrSize {
    pub instrs: usize,
    pub atoms: usize,
    pub max_live: usize,
}

impl IrSize {
    pub fn of(prog: &Program) -> IrSize {
        IrSize {
            max_live: prog.nodes.iter().map(cost::max_live).max().unwrap_or(0),
            ..IrSize::counts(prog)
        }
    }

    /// Instructions and atoms only (`max_live` 0).
    pub fn counts(prog: &Program) -> IrSize {
        IrSize {
            instrs: prog.nodes.iter().map(|n| n.body.len()).sum(),
            atoms: prog.nodes.iter().map(|n| n.vars.len()).sum(),
            max_live: 0,
        }
    }

    /// What the report records after a pass under `cfg` (`OptConfig::report_max_live`).
    fn for_report(prog: &Program, cfg: &OptConfig) -> IrSize {
        if cfg.report_max_live {
            IrSize::of(prog)
        } else {
            IrSize::counts(prog)
        }
    }
}

/// What [`optimize`] did: per pass run, its time, counters and the IR size after it; and the
/// IR text after each pass named in `dump_after`.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub passes: Vec<(PassId, Duration, Stats, IrSize)>,
    pub dumps: Vec<(PassId, String)>,
    /// The size before the first pass.
    pub initial: IrSize,
}

impl Report {
    /// The counter `what` of every run of `pass`, summed.
    pub fn count(&self, pass: PassId, what: &str) -> usize {
        self.passes
            .iter()
            .filter(|p| p.0 == pass)
            .map(|p| p.2.get(what))
            .sum()
    }

    /// The `-v` table.
    pub fn table(&self) -> String {
        let mut s = String::from("pass           time(ms)  instrs   atoms  max-live  rewrites\n");
        let i = self.initial;
        s.push_str(&format!(
            "{:13} {:9} {:7} {:7} {:9}\n",
            "(input)", "", i.instrs, i.atoms, i.max_live
        ));
        for (p, t, st, sz) in &self.passes {
            let what =
                st.0.iter()
                    .filter(|(_, n)| *n > 0)
                    .map(|(k, n)| format!("{} {}", k, n))
                    .collect::<Vec<_>>()
                    .join(", ");
            s.push_str(&format!(
                "{:13} {:9.2} {:7} {:7} {:9}  {}\n",
                p.name(),
                t.as_secs_f64() * 1000.0,
                sz.instrs,
                sz.atoms,
                sz.max_live,
                what
            ));
        }
        s
    }
}

/// A pass left IR that does not verify: a compiler bug.
#[derive(Clone, Debug)]
pub struct PassError {
    pub pass: PassId,
    pub error: String,
}

impl std::fmt::Display for PassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "internal error: the `{}` pass produced invalid IR: {}",
            self.pass.name(),
            self.error
        )
    }
}

/// Runs one pass.
/// State passed from one pass to a later one.
#[derive(Default)]
pub struct PassState {
    /// Loop bodies made by `outline` (kept as nodes by `inline`, turned into loops by `reroll`).
    pub loop_bodies: Vec<String>,
    /// Loop bodies the policy unrolls after all (`auto_unrolled`): `reroll` leaves them.
    pub unrolled: Vec<String>,
}

/// On Intel, the work per state atom (instructions of one round, callees counted through,
/// per output atom of the loop body) below which a bitsliced round loop stays a loop on
/// AVX-512 ([`auto_unrolled`]; every loop body of the program must be below it). Gimli (11.9) stays a loop, ChaCha20 (11.6) too, though it was
/// 1.05x faster unrolled. Above it, loops are kept only when none would gather its inputs
/// ([`loop_would_gather`]: AES 19-20 kept, Pyjamask 14.8 unrolled).
pub const INTEL_B_UNROLL_MIN_WORK_PER_ATOM: f64 = 12.0;

/// On AMD (Zen 4) in bitslice on AVX-512, the most bytes the state of a kept round loop may
/// take ([`auto_unrolled`]: the body's output atoms, 64 bytes each) for a program with a
/// single round loop that reads nothing but its state and constants
/// ([`loop_reads_only_state`]) to keep it: three quarters of Zen 4's 32 KiB L1D, the rest for
/// the round's spills (384 atoms).
/// Measured 2026-11-27 (`bench compare`, time unrolled / kept, raw and packed): PHOTON (256
/// atoms) 1.42-1.47, Ascon (320) 1.34-1.41, Subterranean (257) 1.32-1.36, Spongent (160)
/// 0.99-1.15 (packed 1.10-1.22), Gimli (384) 1.02-1.04 (packed 1.07-1.08), Xoodoo (384)
/// 0.97-1.05 (packed 1.01-1.06); ChaCha20 (512 atoms, 32 KiB) 0.76. Programs whose rounds read
/// round keys (gathered: GIFT 0.77-0.81, PRESENT 0.82-0.85, Pyjamask 0.92; from a pool:
/// SKINNY 0.69, Clyde 0.88-0.93) or that have two loops (AES 0.88-0.92, AES planes 0.87-0.90)
/// run faster unrolled.
pub const AMD_B_KEPT_STATE_MAX_BYTES: usize = 24 * 1024;

/// In vslice on SSE/AVX2, the work per state atom (as [`INTEL_B_UNROLL_MIN_WORK_PER_ATOM`])
/// below which round loops whose state outnumbers the registers stay loops ([`auto_unrolled`]).
/// Measured on Intel (Golden Cove), `-V` avx2, time of the loops kept / unrolled and inlined:
/// PRESENT 0.51 (64 atoms, 5.5 per atom), GIFT 0.57 (128, 4.0), SKINNY 0.61 (128, 5.2),
/// Spongent 0.79 (160, 3.8), but Subterranean 1.29 (257, 5.0: eight rounds only, kept by the
/// rule) and PHOTON 1.25 (256, 21.0), AES 1.11 (128, 21.9); every program whose state fits the
/// registers gained or held: RECTANGLE 1.27, BLAKE2s 1.21, GIFT-v 1.18, AES planes 1.15, Clyde
/// 1.15, AES const rk 1.09, Xoodoo 1.06, Pyjamask 1.02 (packed 0.88), Ascon 0.98.
pub const VSLICE_SIMD_UNROLL_MIN_WORK_PER_ATOM: f64 = 12.0;

/// In vslice on SSE/AVX2, the most instructions the unrolled rounds may have (work of each
/// body times its calls) for [`auto_unrolled`] to unroll them: PHOTON `-V` (64 000) was 1.25x
/// faster unrolled but 5 MB of C that gcc compiled in 53 s (6 s with its loop), AES `-V`
/// (35 000) 1.11x faster, 3 MB and 17 s; the programs under it have at most 6 000.
pub const VSLICE_SIMD_UNROLL_MAX_INSNS: u64 = 16_000;

/// Whether [`auto_unrolled`]'s vslice rule for SSE/AVX2 applies: measured on Intel only (on
/// AMD, Zen 3's measurements compared kept loops with unrolled rounds left as calls, and the
/// loops stay kept there, with small nodes inlined).
pub fn vslice_simd_unrolls(slicing: Slicing, cfg: &OptConfig) -> bool {
    slicing == Slicing::V
        && matches!(cfg.arch, Arch::Sse | Arch::Avx2)
        && cfg.uarch == Uarch::Intel
        && cfg.loops == LoopPolicy::Auto
}

/// Whether [`auto_unrolled`] may unroll any loop of a program of this slicing under `cfg`:
/// `--loops auto` on AVX-512, or in Intel's SSE/AVX2 vslice ([`vslice_simd_unrolls`]).
/// Elsewhere `auto` keeps every loop `chains` keeps.
pub fn auto_may_unroll(slicing: Slicing, cfg: &OptConfig) -> bool {
    cfg.loops == LoopPolicy::Auto && (cfg.arch == Arch::Avx512 || vslice_simd_unrolls(slicing, cfg))
}

/// Under `--loops auto`, the outlined loop bodies to unroll after all. On AVX-512 in bitslice
/// (measured on Zen 4, README "Loops": unrolled code 1.1-1.7x faster for AES, SKINNY, Ascon,
/// GIFT, Pyjamask, ChaCha20, BLAKE2s, Gimli, whose memory-form rounds move the whole state
/// through 512-bit loads and stores) and in hslice with words of at most 16 bits (1.09x in
/// geometric mean over the shipped sources: RECTANGLE 1.75x, SKINNY 1.57x, AES 1.06-1.47x;
/// Spongent, Subterranean lose 1.13-1.17x) and in vslice (with every node inlined, `InlinePolicy::Default`:
/// 1.04-2.8x faster for all sources but DES, PRESENT and Ascon p6/p8, which lose 2-9%; on
/// SSE/AVX2 too, but for light rounds over more state atoms than registers and programs whose
/// unrolled rounds exceed [`VSLICE_SIMD_UNROLL_MAX_INSNS`]),
/// every body except those that pass part of the state on
/// unchanged (a Feistel half, DES: its memory form reads that half from the generation
/// before and keeps its loop, 1.5x faster than unrolled). On Intel ([`Uarch::Intel`]) a
/// bitsliced program whose rounds all do little work per state atom
/// ([`INTEL_B_UNROLL_MIN_WORK_PER_ATOM`]) keeps every loop but those fed a `const` input,
/// which are unrolled for the raw entry and kept for `E__with_consts`
/// ([`OptConfig::keep_const_fed_loops`]: RECTANGLE); one with a heavier round keeps every loop
/// too when none would gather per-iteration inputs ([`loop_would_gather`]: AES, AES planes,
/// Clyde, PHOTON; Pyjamask is unrolled).
pub fn auto_unrolled(prog: &Program, bodies: &[String], cfg: &OptConfig) -> Vec<String> {
    if !auto_may_unroll(prog.slicing, cfg) {
        return Vec::new();
    }
    // In hslice only words of at most 16 bits: with 32- and 64-bit words it measured no gain
    // (Gimli 0.97x, Xoodoo, Ascon, Serpent, Clyde, ACE 1.00-1.02x), and hsliced additions
    // (BLAKE2s, ChaCha20 `-H`) expand to 10-15 MB of C once their rounds are unrolled.
    if prog.slicing == Slicing::H
        && prog
            .entry()
            .inputs
            .iter()
            .chain(&prog.entry().outputs)
            .any(|p| p.word_bits > 16)
    {
        return Vec::new();
    }
    let passes_through = |n: &crate::ir::Node| {
        let ins: crate::fxhash::FxHashSet<_> = n.flat_inputs().into_iter().collect();
        let copies: crate::fxhash::FxHashMap<_, _> = n
            .body
            .iter()
            .filter_map(|i| match i {
                crate::ir::Instr::Assign {
                    dst,
                    op: crate::ir::Op::Copy(src),
                } => Some((*dst, *src)),
                _ => None,
            })
            .collect();
        n.flat_outputs().iter().any(|o| {
            // follow copies back (acyclic: a body defines each atom once)
            let mut v = *o;
            while let Some(s) = copies.get(&v) {
                v = *s;
            }
            ins.contains(&v)
        })
    };
    // In bitslice, a round loop fed a `const` input (round keys, called with atoms of the
    // entry's const parameters) stays a loop: its iterations differ only in which key
    // registers they read, so unrolling folds nothing, and the unrolled body spilled more
    // (AES const rk: 14.7 against 8.1 spill loads and stores per block, 1.12x slower;
    // RECTANGLE 1.02x, Serpent and gift_v within noise; README, "On AVX-512 the unrolled code").
    // (On Intel light rounds are the exception, for the raw entry only: below.) On AMD the
    // same holds in hslice (Zen 4, `bench compare`, time unrolled / kept, raw and packed:
    // RECTANGLE 1.04 / 1.20, AES const rk 1.03 / 1.04, gift_v 0.99 / 1.00; in vslice it does
    // not: AES const rk 0.88 / 1.02, gift_v 0.85 / 0.95).
    let consts: crate::fxhash::FxHashSet<crate::ir::VarId> = prog
        .entry()
        .inputs
        .iter()
        .filter(|p| p.is_const)
        .flat_map(|p| p.atoms.iter().copied())
        .collect();
    let const_fed = |id: usize| {
        (prog.slicing == Slicing::B || (prog.slicing == Slicing::H && cfg.uarch == Uarch::Amd))
            && !consts.is_empty()
            && prog.entry().body.iter().any(
                |i| matches!(i, crate::ir::Instr::Call { callee, args, .. } if callee.0 as usize == id && args.iter().any(|a| consts.contains(a))),
            )
    };
    // On Intel in bitslice, a round loop whose body does little work per state atom stays a
    // loop: its memory form costs a load and a store per atom and round, which Intel's two
    // 512-bit load ports and store port absorb, while the unrolled rounds spill about as
    // much and their code (100-600 KB) streams through the front end. Measured on a Golden
    // Cove server core (README "Loops on Intel"), time kept / unrolled at work per atom:
    // Spongent 0.50 (3.8), GIFT 0.68 (4.0), Subterranean 0.56 (5.0), SKINNY 1.00 (5.2),
    // PRESENT 0.79 (5.5), Ascon 0.69 (5.6), Gimli 0.83 (11.9); rounds with more work gain
    // from unrolling as on Zen 4: ChaCha20 1.05 (11.6), Pyjamask 1.27 (14.8), AES 1.21-1.23
    // (19-20). On Zen 4 every one of those but Spongent and Subterranean was faster unrolled.
    // The program's heaviest round decides for all its loops: AES with a key per block keeps
    // its key-schedule loop (4.8) 1.16x slower than unrolled next to its unrolled rounds.
    // (Those AES figures predate `codegen::y_rows`, which made heavy rounds that gather
    // nothing faster kept: below.)
    let t = Target::new(cfg.arch);
    let mut memo = Vec::new();
    // A body's work per state atom (callees counted through) and its state atoms.
    let mut per_atom = |id: usize| {
        let outs = prog.nodes[id].flat_outputs().len().max(1);
        (
            cost::node_work(prog, id, &t, &mut memo) as f64 / outs as f64,
            outs,
        )
    };
    let ids: Vec<usize> = bodies
        .iter()
        .filter_map(|b| prog.nodes.iter().position(|n| &n.name == b))
        .collect();
    if vslice_simd_unrolls(prog.slicing, cfg) {
        // In vslice on SSE/AVX2 every loop stays when the unrolled rounds would be too big
        // ([`VSLICE_SIMD_UNROLL_MAX_INSNS`]), or when every body is light and moves more state
        // atoms than there are registers (bitsliced-style sources in `-V`: PRESENT, GIFT,
        // SKINNY, Spongent, Subterranean; [`VSLICE_SIMD_UNROLL_MIN_WORK_PER_ATOM`]);
        // otherwise the rounds are unrolled and inlined as on AVX-512.
        let calls_of = |id: usize| {
            prog.nodes
                .iter()
                .flat_map(|n| &n.body)
                .filter(|i| {
                    matches!(i, crate::ir::Instr::Call { callee, .. } if callee.0 as usize == id)
                })
                .count()
        };
        let unrolled: f64 = ids
            .iter()
            .map(|&id| {
                let (w, outs) = per_atom(id);
                w * outs as f64 * calls_of(id) as f64
            })
            .sum();
        let light_and_big = ids.iter().all(|&id| {
            let (w, outs) = per_atom(id);
            outs > t.n_regs as usize && w < VSLICE_SIMD_UNROLL_MIN_WORK_PER_ATOM
        });
        if unrolled > VSLICE_SIMD_UNROLL_MAX_INSNS as f64 || light_and_big {
            return Vec::new();
        }
    }
    // On AMD in bitslice, a single round loop that reads only its state keeps its loop when its
    // state fits [`AMD_B_KEPT_STATE_MAX_BYTES`]: its memory form then costs
    // less than the unrolled rounds' spills (Ascon: 10.9 + 5.2 spill loads and stores per
    // block kept against 23.5 + 11.8 unrolled).
    if prog.slicing == Slicing::B
        && cfg.uarch == Uarch::Amd
        && ids.len() == 1
        && loop_reads_only_state(prog, ids[0], &ids)
        && per_atom(ids[0]).1 * (t.reg_bits as usize / 8) <= AMD_B_KEPT_STATE_MAX_BYTES
    {
        return Vec::new();
    }
    let intel_b = prog.slicing == Slicing::B && cfg.uarch == Uarch::Intel;
    let light_rounds = intel_b
        && ids
            .iter()
            .all(|&id| per_atom(id).0 < INTEL_B_UNROLL_MIN_WORK_PER_ATOM);
    // On Intel in bitslice, heavy rounds keep their loops too when no kept loop would gather
    // (copy) per-iteration inputs computed by plain instructions: measured after
    // `codegen::y_rows` let the rounds read an earlier loop's round keys in place, time kept /
    // unrolled: AES planes 0.87, Clyde 0.84, AES 0.97, PHOTON 0.98; Pyjamask, whose rounds
    // would gather 14 x 128 round-key registers per call from its unrolled key schedule, 1.27.
    if intel_b && !light_rounds && !ids.iter().any(|&id| loop_would_gather(prog, id, &ids)) {
        return Vec::new();
    }
    if light_rounds {
        // Light rounds fed a `const` input are the exception, in the raw entry only: there
        // its key registers come from memory in either form, and the loop adds a load and a
        // store of every state atom per round. RECTANGLE (4.0 per atom): raw 0.90x the time
        // unrolled, but the packed entry's compact consts make the loop 1.35x faster than
        // the unrolled code, so `E__with_consts` is compiled from a program that keeps it
        // (`keep_const_fed_loops`; `driver::packed_consts_program`).
        if cfg.keep_const_fed_loops {
            return Vec::new();
        }
        return bodies
            .iter()
            .filter(|b| {
                prog.nodes
                    .iter()
                    .position(|n| &n.name == *b)
                    .is_some_and(|id| !passes_through(&prog.nodes[id]) && const_fed(id))
            })
            .cloned()
            .collect();
    }
    bodies
        .iter()
        .filter(|b| {
            prog.nodes
                .iter()
                .position(|n| &n.name == *b)
                .is_some_and(|id| !passes_through(&prog.nodes[id]) && !const_fed(id))
        })
        .cloned()
        .collect()
}

/// Whether the calls of loop body `id` (outlined, not yet re-rolled), kept as a loop, would
/// have per-iteration inputs that its memory form gathers into an array of its own (see
/// `codegen::memloop`): an argument that differs between the calls and is, in some call,
/// neither the state (a result of the call before), nor a result of a call of another loop
/// body in `bodies` (read in that loop's output rows: `codegen::y_rows`), nor an input of the
/// entry, nor a constant.
pub fn loop_would_gather(prog: &Program, id: usize, bodies: &[usize]) -> bool {
    // the positions gathered, unless they repeat enough to be read from a pool of their
    // distinct values (at most half as many as the reads: Clyde's tweakeys)
    loop_varying_inputs(prog, id, bodies)
        .iter()
        .any(|&(rest, distinct, calls)| 2 * distinct > rest * calls)
}

/// Whether every call of loop body `id` reads, besides the state (the call before's results),
/// only inputs that are the same in every call or "fine" as in [`loop_would_gather`]
/// (constants, the entry's inputs, another loop body's results): a permutation's rounds,
/// not a cipher's rounds reading round keys computed by plain instructions, even from a pool.
pub fn loop_reads_only_state(prog: &Program, id: usize, bodies: &[usize]) -> bool {
    loop_varying_inputs(prog, id, bodies)
        .iter()
        .all(|&(rest, _, _)| rest == 0)
}

/// For each node calling loop body `id` at least twice: (argument positions that are not the
/// state, differ between the calls and are not "fine" in some call; distinct values read
/// there; calls).
fn loop_varying_inputs(prog: &Program, id: usize, bodies: &[usize]) -> Vec<(usize, usize, usize)> {
    use crate::fxhash::FxHashSet as HashSet;
    use crate::ir::{Instr, Op, VarId};
    let entry = prog.nodes.len() - 1;
    prog.nodes
        .iter()
        .enumerate()
        .filter_map(|(ni, n)| {
            let calls: Vec<(&[VarId], &[VarId])> = n
                .body
                .iter()
                .filter_map(|i| match i {
                    Instr::Call { dsts, callee, args } if callee.0 as usize == id => {
                        Some((dsts.as_slice(), args.as_slice()))
                    }
                    _ => None,
                })
                .collect();
            if calls.len() < 2 {
                return None;
            }
            // constants, and what is computed from constants only (round constants made by
            // calls, folded later)
            let mut fine: HashSet<VarId> = HashSet::default();
            for i in &n.body {
                let consts = match i {
                    Instr::Assign {
                        op: Op::Const(_), ..
                    } => true,
                    Instr::Loop { .. } => false,
                    _ => i.uses().iter().all(|u| fine.contains(u)),
                };
                if consts {
                    fine.extend(i.defs());
                }
            }
            for i in &n.body {
                if let Instr::Call { dsts, callee, .. } = i {
                    if callee.0 as usize != id && bodies.contains(&(callee.0 as usize)) {
                        fine.extend(dsts.iter().copied());
                    }
                }
            }
            if ni == entry {
                fine.extend(n.flat_inputs());
            }
            let state: HashSet<usize> = (0..calls[1].1.len())
                .filter(|&p| calls[0].0.contains(&calls[1].1[p]))
                .collect();
            let rest: Vec<usize> = (0..calls[0].1.len())
                .filter(|p| !state.contains(p))
                .filter(|&p| calls.iter().any(|c| c.1[p] != calls[0].1[p]))
                .filter(|&p| calls.iter().any(|c| !fine.contains(&c.1[p])))
                .collect();
            let distinct: HashSet<VarId> = rest
                .iter()
                .flat_map(|&p| calls.iter().map(move |c| c.1[p]))
                .collect();
            Some((rest.len(), distinct.len(), calls.len()))
        })
        .collect()
}

/// Whether [`auto_unrolled`] may unroll a `const`-fed round loop of a program in `slicing`
/// under `cfg` (the Intel light-round exception), i.e. whether the program behind
/// `E__with_consts` may need optimising apart with [`OptConfig::keep_const_fed_loops`].
pub fn may_unroll_const_fed(slicing: Slicing, cfg: &OptConfig) -> bool {
    cfg.loops == LoopPolicy::Auto
        && cfg.arch == Arch::Avx512
        && cfg.uarch == Uarch::Intel
        && slicing == Slicing::B
        && !cfg.keep_const_fed_loops
}

pub fn run_pass(
    pass: PassId,
    prog: &mut Program,
    hints: &LoopHints,
    cfg: &OptConfig,
    state: &mut PassState,
) -> Stats {
    let loops = cfg.loops.resolve(prog.slicing);
    match pass {
        Outline => {
            let mut st = Stats::default();
            if loops != LoopPolicy::Unroll && !cfg.skip_outline {
                let o = outline::run(prog, hints, loops == LoopPolicy::All);
                st.add("outlined", o.outlined);
                state.loop_bodies = o.bodies;
            }
            st
        }
        CopyProp => copy_prop::run(prog),
        Inline => {
            state
                .loop_bodies
                .retain(|b| !cfg.unrolled_loops.contains(b));
            let more = auto_unrolled(prog, &state.loop_bodies, cfg);
            state.loop_bodies.retain(|b| !more.contains(b));
            state.unrolled.extend(more);
            // Vslice on SSE/AVX2 inlines every node only where the Intel rule above applies
            // (elsewhere the loops stay and so does the small-node policy).
            let small_nodes_only = prog.slicing == Slicing::V
                && matches!(cfg.arch, Arch::Sse | Arch::Avx2)
                && !vslice_simd_unrolls(prog.slicing, cfg);
            let policy = cfg.inline.resolve(
                prog.slicing,
                cfg.arch,
                !state.loop_bodies.is_empty() || small_nodes_only,
            );
            inline::run_bounded(prog, policy, &state.loop_bodies, cfg.max_ops)
        }
        Interleave => interleave::run(prog, cfg),
        Fold => fold::run(prog, cfg),
        Cse => cse::run(prog, cfg),
        XorShare => xor_share::run(prog),
        RotSum => rot_sum::run(prog, cfg),
        LoopFuse => loop_fuse::run(prog, cfg),
        Ternlog => ternlog::run(prog, cfg),
        NotAbsorb => not_absorb::run(prog, cfg),
        TernlogDup => ternlog_dup::run(prog, cfg),
        SchedIlp => {
            if sched_ilp::applies(prog.slicing) {
                sched_ilp::run(prog, cfg)
            } else {
                Stats::default()
            }
        }
        SchedPairs => sched_pairs::run(prog, cfg),
        TernlogOrder => ternlog_order::run(prog, cfg),
        SchedBits => {
            if cfg.sched_bits_in.contains(prog.slicing) {
                sched_bits::run(prog, cfg)
            } else {
                Stats::default()
            }
        }
        Reroll => {
            let mut st = Stats::default();
            if loops != LoopPolicy::Unroll {
                let skip: Vec<String> = cfg
                    .unrolled_loops
                    .iter()
                    .chain(&state.unrolled)
                    .cloned()
                    .collect();
                st.add(
                    "loops",
                    reroll::run_except(prog, loops == LoopPolicy::All, &skip).loops,
                );
            }
            st
        }
    }
}

/// Puts `node.body` in the order `order` (a permutation of its positions); shared by the
/// schedulers (`ir::verify` then checks definitions still come before uses).
pub fn apply_order(node: &mut crate::ir::Node, order: &[usize]) {
    let mut old: Vec<Option<crate::ir::Instr>> = std::mem::take(&mut node.body)
        .into_iter()
        .map(Some)
        .collect();
    node.body = order
        .iter()
        .map(|&i| old[i].take().expect("each position once"))
        .collect();
}

/// The optimisation pipeline. `hints` (from sema, for `prog` exactly as sema made it) say
/// where the unrolled loops are; pass an empty map for a program from elsewhere.
///
/// Where `inline` finds that the loop policy unrolls every loop body `outline` made (the Intel
/// rules of [`auto_unrolled`]), the program is optimised again from its input with `outline`
/// skipped: outlined and inlined back, the rounds had lost ternlog fusions and gained spills
/// against the same rounds never outlined (AES-128 `-B` avx512: 22 076 against 21 860
/// instructions, Belady spills 11 877 against 11 026; raw 0.966 → 0.934 c/B). The report is
/// the second run's.
pub fn optimize(
    prog: &mut Program,
    hints: &LoopHints,
    cfg: &OptConfig,
) -> Result<Report, PassError> {
    if !xor_share_by_estimate(prog, cfg) {
        return run_pipeline(prog, hints, cfg);
    }
    let mut without = prog.clone();
    let report = run_pipeline(prog, hints, cfg)?;
    let n_regs = cfg.target().n_regs as usize;
    // Only a straight-line result is weighed; whether loops stay does not depend on the pass
    // (on AMD, `auto_unrolled` looks at the loops' inputs and state size), so a program that
    // keeps one is not compiled a second time.
    let Some(b) = straight_line_cost(prog, n_regs) else {
        return Ok(report);
    };
    let mut off = cfg.clone();
    off.disable(XorShare);
    let report_without = run_pipeline(&mut without, hints, &off)?;
    match straight_line_cost(&without, n_regs) {
        // (by a margin: AES-128 `-B`, 0.5% cheaper without by estimate, ran 0.978x as fast)
        Some(a) if a * 50 < b * 49 => {
            *prog = without;
            // `-v` says why the pass is missing: a line in its place, with both estimates.
            let mut report = report_without;
            let mut st = Stats::default();
            st.add("off-by-estimate", a);
            st.add("against", b);
            if let Some(k) = report.passes.iter().position(|p| p.0 == Cse) {
                let size = report.passes[k].3;
                report
                    .passes
                    .insert(k + 1, (XorShare, Duration::ZERO, st, size));
            }
            Ok(report)
        }
        _ => Ok(report),
    }
}

/// Whether `optimize` compiles the program both with and without `xor-share` and keeps the
/// result without it when that is at least 2% cheaper by estimate ([`straight_line_cost`]):
/// bitslice on AVX-512, on AMD. There
/// sharing XOR pairs made PHOTON-256 0.82x as fast (2026-11-27, Zen 4: 4 700 operations
/// fewer per call, 8 100 more estimated spills; 0.86x when the pass was new), while Pyjamask
/// gained 1.29x (fewer operations and fewer spills); the estimate tells the two apart, and on
/// AVX2 it keeps the pass for both, as measured (PHOTON 1.33x, Pyjamask 1.21x). On Intel the
/// pass gained on PHOTON `-B` avx512 too (1.13x, 2026-11-26), so there it always runs.
fn xor_share_by_estimate(prog: &Program, cfg: &OptConfig) -> bool {
    prog.slicing == Slicing::B
        && cfg.arch == Arch::Avx512
        && cfg.uarch == Uarch::Amd
        && cfg.enabled(XorShare)
}

/// Operations plus estimated spilled loads and stores (`cost::spill_estimate`) of a program
/// that is one straight-line node (every call inlined, no kept loop); `None` otherwise, where
/// per-node sums would not weigh bodies by how often they run.
fn straight_line_cost(prog: &Program, n_regs: usize) -> Option<usize> {
    let [node] = prog.nodes.as_slice() else {
        return None;
    };
    if node
        .body
        .iter()
        .any(|i| !matches!(i, ir::Instr::Assign { .. }))
    {
        return None;
    }
    Some(node.body.len() + cost::spill_estimate(node, n_regs))
}

/// The pipeline, in order (see [`optimize`]).
fn run_pipeline(
    prog: &mut Program,
    hints: &LoopHints,
    cfg: &OptConfig,
) -> Result<Report, PassError> {
    let mut report = Report {
        initial: IrSize::for_report(prog, cfg),
        ..Report::default()
    };
    let mut state = PassState::default();
    let mut original = (cfg.loops.resolve(prog.slicing) != LoopPolicy::Unroll && !cfg.skip_outline)
        .then(|| prog.clone());
    for &pass in PIPELINE {
        if !cfg.enabled(pass) {
            continue;
        }
        let start = Instant::now();
        let stats = run_pass(pass, prog, hints, cfg, &mut state);
        let time = start.elapsed();
        if cfg.verify_each {
            ir::verify(prog).map_err(|e| PassError {
                pass,
                error: e.to_string(),
            })?;
        }
        if cfg.dump_after.contains(&pass) {
            report.dumps.push((pass, ir::print::to_string(prog)));
        }
        report
            .passes
            .push((pass, time, stats, IrSize::for_report(prog, cfg)));
        if pass == Inline && state.loop_bodies.is_empty() && !state.unrolled.is_empty() {
            if let Some(input) = original.take() {
                *prog = input;
                let again = OptConfig {
                    skip_outline: true,
                    ..cfg.clone()
                };
                return run_pipeline(prog, hints, &again);
            }
        }
    }
    Ok(report)
}

/// Test support: every node of every shipped cipher, in each slicing it supports, as checked
/// (before the pipeline), and, for the ciphers whose folder is in `optimised`, in bitslice
/// also after the avx512 pipeline (big flat bodies). `f` gets the file, slicing and node.
#[cfg(test)]
pub(crate) fn for_each_shipped_node(
    optimised: &[&str],
    mut f: impl FnMut(&str, Slicing, &ir::Node),
) {
    use crate::driver::{self, Config};
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for c in crate::cli::bench::ciphers::CIPHERS {
        let path = root.join(c.file).to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        for &s in c.slicings {
            let cfg = Config {
                slicing: s,
                arch: crate::target::Arch::Avx512,
                ..Config::default()
            };
            let optimise = s == Slicing::B
                && optimised
                    .iter()
                    .any(|d| c.file.starts_with(&format!("ciphers/{d}/")));
            let mut progs = Vec::new();
            if optimise {
                let (front, prog) = driver::lower(&path, &text, &cfg, &crate::cli::FsLoader);
                progs.push(front.checked.unwrap().ir);
                progs.push(prog.unwrap());
            } else {
                let front = driver::check(&path, &text, &cfg, &crate::cli::FsLoader);
                progs.push(front.checked.unwrap().ir);
            }
            for p in progs {
                for n in &p.nodes {
                    f(c.file, s, n);
                }
            }
        }
    }
}
