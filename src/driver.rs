//! The pipeline as one readable function per entry point, with no I/O (files come through a
//! [`Loader`]). The CLI, the tests and the benchmarks all go through here.

use crate::codegen::{self, Arch, CodegenConfig, COutput};
use crate::diag::{Diagnostic, SourceMap};
use crate::ir::{self, Slicing};
use crate::sema::{self, Checked};
use crate::syntax::{self, ast, Loader};

/// Every option of one compilation.
#[derive(Clone, Debug)]
pub struct Config {
    pub slicing: Slicing,
    pub arch: Arch,
    pub include_dirs: Vec<String>,
    pub opt: crate::opt::OptConfig,
    /// Shown in the generated file's banner.
    pub flags_text: String,
    /// Which compiler's meaning the quirk rules follow (`--compat`; the usubac command-line
    /// spelling implies `Compat::Usubac`). See README "Coming from usubac".
    pub compat: Compat,
    /// usubac's `-keep-tables`: tables are typed by word size and compiled as lookups.
    pub keep_tables: bool,
    /// Entry ABI options of usubac's command line (`-bits-per-reg`, `-lf`, `-no-arr-entry`).
    pub abi: codegen::AbiConfig,
    /// The work budget (`--max-ops`): bounds operations, loop iterations and atoms in sema,
    /// instructions copied by inlining (N / 8), and bytes of C (× `codegen::C_BYTES_PER_OP`).
    pub max_ops: usize,
    /// Explicit spilling of kept-loop bodies on SIMD targets (`--spill` / `--no-spill`;
    /// `target::spill`).
    pub spill: bool,
}

/// Whose meaning the quirk rules (repeated `=`, the S-box database bit order) follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Compat {
    /// `language.md`, with a warning where usubac would read the program differently.
    #[default]
    Nakiri,
    /// usubac's meaning, with a one-line warning naming each quirk applied.
    Usubac,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            slicing: Slicing::V,
            arch: Arch::Std,
            include_dirs: vec![],
            opt: crate::opt::OptConfig::default(),
            flags_text: String::new(),
            compat: Compat::Nakiri,
            keep_tables: false,
            abi: codegen::AbiConfig::default(),
            max_ops: sema::elab::DEFAULT_MAX_OPS,
            spill: codegen::SPILL_DEFAULT,
        }
    }
}

/// Result of running the front end.
pub struct Front {
    pub sources: SourceMap,
    pub ast: Option<ast::Program>,
    pub checked: Option<Checked>,
    pub diags: Vec<Diagnostic>,
    /// What the optimiser did (after [`lower`] or [`compile`]).
    pub report: Option<crate::opt::Report>,
}

impl Front {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.is_error())
    }
    pub fn render_diags(&self) -> String {
        crate::diag::render(&self.sources, &self.diags)
    }
}

/// Parse only.
pub fn parse(name: &str, text: &str, cfg: &Config, loader: &dyn Loader) -> Front {
    let mut sources = SourceMap::default();
    let mut diags = Vec::new();
    let ast = syntax::parse_program(name, text, &cfg.include_dirs, loader, &mut sources, &mut diags);
    // Bound expression depth so later recursive passes cannot overflow the stack.
    for d in &ast.decls {
        if let ast::DeclKind::Node(bodies) = &d.kind {
            for b in bodies {
                check_depth(&b.eqs, &mut diags);
            }
        }
    }
    Front { sources, ast: Some(ast), checked: None, diags, report: None }
}

/// Largest expression depth accepted (left-associative chains count too).
pub const MAX_EXPR_DEPTH: usize = 1000;

fn check_depth(eqs: &[ast::Equation], diags: &mut Vec<Diagnostic>) {
    for e in eqs {
        match e {
            ast::Equation::Assign { rhs, span, .. } => {
                if syntax::expr_depth(rhs) > MAX_EXPR_DEPTH {
                    diags.push(
                        Diagnostic::error(*span, format!("expression nested more than {} levels deep", MAX_EXPR_DEPTH))
                            .label("too deep")
                            .help("split it with intermediate variables"),
                    );
                }
            }
            ast::Equation::Forall { body, .. } => check_depth(body, diags),
        }
    }
}

/// Parse and check (type check, monomorphise, elaborate to IR).
pub fn check(name: &str, text: &str, cfg: &Config, loader: &dyn Loader) -> Front {
    let mut front = parse(name, text, cfg, loader);
    if front.has_errors() {
        return front;
    }
    let mut opts = sema::Options::new(cfg.slicing);
    opts.compat_usubac = cfg.compat == Compat::Usubac;
    opts.keep_tables = cfg.keep_tables;
    opts.bits_per_reg = cfg.abi.bits_per_reg;
    opts.max_ops = cfg.max_ops;
    let (checked, mut diags) = sema::elaborate(front.ast.as_ref().unwrap(), &opts);
    front.diags.append(&mut diags);
    front.checked = checked;
    front
}

/// The optimised IR (front end, then the optimisation pipeline).
pub fn lower(name: &str, text: &str, cfg: &Config, loader: &dyn Loader) -> (Front, Option<ir::Program>) {
    let mut front = check(name, text, cfg, loader);
    let Some(checked) = &front.checked else { return (front, None) };
    let mut prog = checked.ir.clone();
    let mut ocfg = cfg.opt.clone();
    ocfg.arch = cfg.arch;
    ocfg.max_ops = cfg.max_ops / 8;
    match crate::opt::optimize(&mut prog, &checked.loop_hints, &ocfg) {
        Ok(r) => front.report = Some(r),
        Err(e) => {
            front.diags.push(Diagnostic::error_nospan(e.to_string()));
            return (front, None);
        }
    }
    if let Err(e) = ir::verify(&prog) {
        front.diags.push(Diagnostic::error_nospan(e.to_string()));
        return (front, None);
    }
    (front, Some(prog))
}

/// Source to C.
pub fn compile(name: &str, text: &str, cfg: &Config, loader: &dyn Loader, header_name: &str) -> (Front, Option<COutput>) {
    let (mut front, prog) = lower(name, text, cfg, loader);
    let Some(prog) = prog else { return (front, None) };
    let banner = format!(
        "Generated by nakiri {} from {}{}{}",
        env!("CARGO_PKG_VERSION"),
        name,
        if cfg.flags_text.is_empty() { "" } else { " with flags: " },
        cfg.flags_text
    );
    let max_bytes = cfg.max_ops.saturating_mul(codegen::C_BYTES_PER_OP);
    let mut abi = cfg.abi.clone();
    abi.entry_bit_params = front.checked.as_ref().is_some_and(|c| c.entry_bit_params);
    match codegen::generate_full(&prog, &CodegenConfig { arch: cfg.arch, header_name: header_name.to_string(), banner, spill: cfg.spill }, &abi, max_bytes) {
        Ok(out) => (front, Some(out)),
        Err(e) if e.0.contains("--max-ops") => {
            // The work budget: point at the entry node (the C is generated for all of it).
            let d = match front.ast.as_ref().and_then(|a| a.decls.last()) {
                Some(decl) => Diagnostic::error(decl.name.span, format!("cannot generate code: {}", e)).label("entry point"),
                None => Diagnostic::error_nospan(format!("cannot generate code: {}", e)),
            };
            front.diags.push(d);
            (front, None)
        }
        Err(e) => {
            front.diags.push(Diagnostic::error_nospan(format!("cannot generate code for {} ({}-slicing): {}", cfg.arch, cfg.slicing, e)));
            (front, None)
        }
    }
}
