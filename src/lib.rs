//! nakiri: an optimizing compiler for the Usuba language.
//!
//! Pipeline (one module per stage, in order):
//! `syntax` (source → AST) → `sema` (AST → checked, monomorphised program) →
//! `normalize` (→ Usuba0 IR) → `opt` (IR → IR) → `codegen` (IR → C text, with `runtime`
//! C support code). `interp` runs IR on concrete inputs and defines the meaning every compiled
//! form is checked against. `tune` is the autotuner's core (candidates, estimates, search,
//! cache, report; its measurer, clock and cache storage are traits). `cli` is the command
//! line; only it touches files and processes (`cli::tune` measures for the autotuner).
//! See ARCHITECTURE.md.

pub mod cli;
pub mod codegen;
pub mod diag;
pub mod driver;
pub mod fxhash;
pub mod interp;
pub mod ir;
pub mod normalize;
pub mod opt;
pub mod runtime;
pub mod sema;
pub mod syntax;
pub mod target;
pub mod tune;
