//! IR-to-IR optimisations, run in order by [`optimize`] (the verifier runs after each pass in
//! tests). Each pass is one file with a `run(&mut Program, &OptConfig)` function.

pub mod copy_prop;
pub mod inline;
pub mod outline;
pub mod reroll;

pub use inline::InlinePolicy;

use crate::ir::{LoopHints, Program};

#[derive(Clone, Debug)]
pub struct OptConfig {
    pub copy_prop: bool,
    pub inline: InlinePolicy,
    /// Keep loops (`reroll`); off with `-unroll`.
    pub keep_loops: bool,
}

impl Default for OptConfig {
    fn default() -> OptConfig {
        OptConfig { copy_prop: true, inline: InlinePolicy::Default, keep_loops: true }
    }
}

/// The optimisation pipeline. `hints` (from sema, for `prog` exactly as sema made it) say
/// where the unrolled loops are; pass an empty map for a program from elsewhere.
pub fn optimize(prog: &mut Program, hints: &LoopHints, cfg: &OptConfig) {
    if cfg.keep_loops {
        outline::run(prog, hints);
    }
    // Copies first, so inlining sees the real size of each node; again after inlining.
    if cfg.copy_prop {
        copy_prop::run(prog);
    }
    inline::run(prog, cfg.inline);
    if cfg.copy_prop {
        copy_prop::run(prog);
    }
    if cfg.keep_loops {
        reroll::run(prog);
    }
}
