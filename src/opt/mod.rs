//! IR-to-IR optimisations, run in order by [`optimize`] (the verifier runs after each pass in
//! tests). Each pass is one file with a `run(&mut Program, &OptConfig)` function.

pub mod copy_prop;
pub mod inline;
pub mod outline;
pub mod reroll;

pub use inline::InlinePolicy;

use crate::ir::{LoopHints, Program, Slicing};

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
    /// `Chains` in vslice and hslice, `Unroll` in bitslice (default): kept loops were faster in
    /// vslice for every cipher measured, and slower in bitslice for the block ciphers (S-box
    /// layers over hundreds of registers), faster only for small-state permutations (the
    /// table in the README).
    Auto,
}

impl LoopPolicy {
    /// The policy that applies to a program of this slicing.
    pub fn resolve(self, slicing: Slicing) -> LoopPolicy {
        match (self, slicing) {
            (LoopPolicy::Auto, Slicing::B) => LoopPolicy::Unroll,
            (LoopPolicy::Auto, _) => LoopPolicy::Chains,
            (p, _) => p,
        }
    }
}

#[derive(Clone, Debug)]
pub struct OptConfig {
    pub copy_prop: bool,
    pub inline: InlinePolicy,
    /// Which loops to keep as C loops (`outline`, `reroll`).
    pub loops: LoopPolicy,
    /// Instructions all inlining together may copy (the driver passes `--max-ops` / 8).
    pub max_ops: usize,
}

impl Default for OptConfig {
    fn default() -> OptConfig {
        OptConfig { copy_prop: true, inline: InlinePolicy::Default, loops: LoopPolicy::Auto, max_ops: inline::MAX_INLINED_TOTAL }
    }
}

/// The optimisation pipeline. `hints` (from sema, for `prog` exactly as sema made it) say
/// where the unrolled loops are; pass an empty map for a program from elsewhere.
pub fn optimize(prog: &mut Program, hints: &LoopHints, cfg: &OptConfig) {
    let loops = cfg.loops.resolve(prog.slicing);
    if loops != LoopPolicy::Unroll {
        outline::run(prog, hints, loops == LoopPolicy::All);
    }
    // Copies first, so inlining sees the real size of each node; again after inlining.
    if cfg.copy_prop {
        copy_prop::run(prog);
    }
    inline::run_bounded(prog, cfg.inline, cfg.max_ops);
    if cfg.copy_prop {
        copy_prop::run(prog);
    }
    if loops != LoopPolicy::Unroll {
        reroll::run(prog, loops == LoopPolicy::All);
    }
}
