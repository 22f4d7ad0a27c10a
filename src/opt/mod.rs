//! IR-to-IR optimisations, run in order by [`optimize`] (the verifier runs after each pass in
//! tests). Each pass is one file with a `run(&mut Program, &OptConfig)` function.

pub mod copy_prop;
pub mod inline;

pub use inline::InlinePolicy;

use crate::ir::Program;

#[derive(Clone, Debug)]
pub struct OptConfig {
    pub copy_prop: bool,
    pub inline: InlinePolicy,
}

impl Default for OptConfig {
    fn default() -> OptConfig {
        OptConfig { copy_prop: true, inline: InlinePolicy::Default }
    }
}

/// The optimisation pipeline.
pub fn optimize(prog: &mut Program, cfg: &OptConfig) {
    // Copies first, so inlining sees the real size of each node; again after inlining.
    if cfg.copy_prop {
        copy_prop::run(prog);
    }
    inline::run(prog, cfg.inline);
    if cfg.copy_prop {
        copy_prop::run(prog);
    }
}
