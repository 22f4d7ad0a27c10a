//! Semantic analysis: name resolution, type checking and monomorphisation, done by
//! *elaborating* the program from its entry node (the last declaration).
//!
//! Requires: a parsed [`ast::Program`]. Guarantees on success: a [`Checked`] program whose
//! `ir` is verified Usuba0 (loops unrolled, tuples, tables, perms, node arrays, `:=` gone,
//! equations in dependency order), plus per-instance type information for `--dump typed` and
//! where each unrolled loop's iterations are (`loop_hints`, for `opt::outline`).
//! Every user error is a [`Diagnostic`] with a span; the loop iteration is named when an error
//! arises inside a `forall`. Work is bounded (`Options::max_ops`), so no input hangs it.
//!
//! Each call site specialises its callee for the concrete argument types (`v4` with 16-bit
//! V words, with 1-bit B words, ...). In bitslice every m-bit word is m one-bit atoms, so
//! `u<B>32` and `b32` match; arithmetic, shifts and shuffles on bitsliced words are lowered
//! here to logic (ripple-carry adders etc.); in hslice arithmetic is lowered to slot shifts.
//!
//! Example: `node f(a: u32, b: u32) returns (c: u32) let c = (a + b) <<< 7 tel` with `-V`
//! elaborates to `t0:32 = add a b; t1:32 = rotl t0 7; c:32 = copy t1`.

pub mod elab;
pub mod types;

pub use elab::{elaborate, Checked, InstanceInfo, Options};
