//! The pipeline as one readable function per entry point, with no I/O (files come through a
//! [`Loader`]). The CLI, the tests and the benchmarks all go through here.

use crate::codegen::{self, Arch, COutput, CodegenConfig};
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
    /// Kept loops whose state outgrows the registers keep it in memory (`--mem-loops` /
    /// `--no-mem-loops`; `codegen/memloop.rs`).
    pub mem_loops: bool,
    /// State slots of a memory-form loop kept in registers across iterations
    /// (`--loop-regs N`, 0: none; `None`: the rule of `codegen::memloop::register_slots_count`).
    pub loop_regs: Option<usize>,
    /// SSE/AVX2: negations XOR with an all-ones register the C compiler cannot see
    /// (`--opaque-not` / `--no-opaque-not`; [`codegen::OPAQUE_NOT_DEFAULT`]).
    pub opaque_not: bool,
    /// Interleaving factor of the kernel behind the packed entry (`--packed-interleave K`;
    /// `None` = the measured rule of [`packed_factor`]; 1 = the packed entry calls the raw one).
    pub packed_interleave: Option<u32>,
    /// The packed API's prepared `const` inputs in bitslice as one `uint64_t` per register
    /// (`--packed-consts compact|full|auto`; `None` = the measured rule of
    /// [`packed_compact_consts`]).
    pub packed_consts: Option<bool>,
    /// Which database circuit an S-box table with several takes (`--sbox-circuit
    /// small|shallow|auto`; `None` = the measured rule of
    /// [`crate::normalize::sbox::default_goal`]: small in bitslice, shallow otherwise).
    pub sbox_circuit: Option<crate::normalize::sbox::CircuitGoal>,
    /// Bitslice on AVX-512: the raw entry runs a 256-bit program on each half of its
    /// registers (`--entry-halves`; off by default: [`halves_program`]).
    pub entry_halves: bool,
    /// Which program those halves run (`--halves-ir avx2|avx512`): the source optimised for
    /// AVX2, or the AVX-512 program itself at 256 bits ([`halves_program`]).
    pub halves_ir: Arch,
    /// Whether those halves run in place on the entry's arrays, every array strided
    /// (`--halves-in-place`), or on copies of each half (`--no-halves-in-place`).
    pub halves_in_place: bool,
    /// Memory-form loop bodies read each state slot once into an opaque register
    /// (`--state-loads`, `--no-state-loads`; `None` = the measured rule of
    /// [`codegen::state_loads_rule`]).
    pub state_loads: Option<bool>,
    /// x86-64: kept loops' bodies aligned to 64 bytes plus this many bytes of no-ops
    /// (`--loop-align K`; `None`: the C compiler's placement). [`codegen::loop_align_c`].
    pub loop_align: Option<u32>,
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
            mem_loops: codegen::MEM_LOOPS_DEFAULT,
            loop_regs: None,
            opaque_not: codegen::OPAQUE_NOT_DEFAULT,
            packed_interleave: None,
            packed_consts: None,
            sbox_circuit: None,
            entry_halves: false,
            halves_ir: HALVES_IR_DEFAULT,
            halves_in_place: HALVES_IN_PLACE_DEFAULT,
            state_loads: None,
            loop_align: None,
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
    let ast = syntax::parse_program(
        name,
        text,
        &cfg.include_dirs,
        loader,
        &mut sources,
        &mut diags,
    );
    // Bound expression depth so later recursive passes cannot overflow the stack.
    for d in &ast.decls {
        if let ast::DeclKind::Node(bodies) = &d.kind {
            for b in bodies {
                check_depth(&b.eqs, &mut diags);
            }
        }
    }
    Front {
        sources,
        ast: Some(ast),
        checked: None,
        diags,
        report: None,
    }
}

/// Largest expression depth accepted (left-associative chains count too).
pub const MAX_EXPR_DEPTH: usize = 1000;

fn check_depth(eqs: &[ast::Equation], diags: &mut Vec<Diagnostic>) {
    for e in eqs {
        match e {
            ast::Equation::Assign { rhs, span, .. } => {
                if syntax::expr_depth(rhs) > MAX_EXPR_DEPTH {
                    diags.push(
                        Diagnostic::error(
                            *span,
                            format!("expression nested more than {} levels deep", MAX_EXPR_DEPTH),
                        )
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
    opts.sbox_circuit = cfg.sbox_circuit;
    let (checked, mut diags) = sema::elaborate(front.ast.as_ref().unwrap(), &opts);
    front.diags.append(&mut diags);
    front.checked = checked;
    front
}

/// The optimised IR (front end, then the optimisation pipeline).
pub fn lower(
    name: &str,
    text: &str,
    cfg: &Config,
    loader: &dyn Loader,
) -> (Front, Option<ir::Program>) {
    let mut front = check(name, text, cfg, loader);
    let Some(checked) = &front.checked else {
        return (front, None);
    };
    match optimize(checked.ir.clone(), &checked.loop_hints, cfg) {
        Ok((prog, r)) => {
            front.report = Some(r);
            (front, Some(prog))
        }
        Err(e) => {
            front.diags.push(Diagnostic::error_nospan(e));
            (front, None)
        }
    }
}

/// The optimiser's configuration under `cfg`: its `opt` part with the target, the operation
/// bound and the memory-form loops that the driver's config holds.
fn opt_config(cfg: &Config) -> crate::opt::OptConfig {
    let mut ocfg = cfg.opt.clone();
    ocfg.arch = cfg.arch;
    ocfg.max_ops = cfg.max_ops / 8;
    ocfg.mem_loops = cfg.mem_loops;
    ocfg
}

/// Runs the optimisation pipeline of `cfg` on `prog` (elaborated IR) and verifies the result.
pub fn optimize(
    mut prog: ir::Program,
    hints: &ir::LoopHints,
    cfg: &Config,
) -> Result<(ir::Program, crate::opt::Report), String> {
    let r = crate::opt::optimize(&mut prog, hints, &opt_config(cfg)).map_err(|e| e.to_string())?;
    ir::verify(&prog).map_err(|e| e.to_string())?;
    Ok((prog, r))
}

/// The interleaving factor of the kernel behind the packed entry for `prog` (optimised, not
/// interleaved) under `cfg`: `cfg.packed_interleave`, or the candidate of the measured rule
/// ([`packed_kernel`]). 1 means none: the packed entry calls the raw entry.
pub fn packed_factor(prog: &ir::Program, cfg: &Config) -> u32 {
    if prog.interleave > 1 || cfg.opt.interleave > 1 {
        return 1;
    }
    match cfg.packed_interleave {
        Some(k) => k.max(1),
        // A candidate: `packed_kernel` keeps it only where the estimate says two copies fit.
        None if matches!(prog.slicing, ir::Slicing::V | ir::Slicing::H) => 2,
        None => 1,
    }
}

/// Interleaving granularity of the kernel behind the packed entry: measured against 10 (the
/// raw entry's default), 50 made Ascon and Pyjamask 5-7% faster on sse/avx2 and the other
/// kernels within 2% (README "Interleaving behind the packed entry").
pub const PACKED_KERNEL_GRANULARITY: usize = 50;

/// The most excess spills per instruction (Belady's estimate beyond the input loads,
/// `tune::estimate::excess_spills`) a 2-way kernel may have for the rule to take it.
pub const PACKED_KERNEL_MAX_EXCESS: f64 = 0.15;

/// The most instructions (static estimate, `tune::estimate`) a straight-line one-copy program
/// (no kept loop) may have for the rule to take a 2-way kernel: two copies at about 6.5 bytes
/// per AVX-512 instruction must fit the 32 KiB L1 instruction cache. AES const rk `-V` on
/// avx512 (2963: a 66 KB kernel) was 1.12x slower through the kernel once its MixColumns
/// took two shuffles instead of three (docs/history.md, "Stop 30"); the programs that gain
/// stay under it (Pyjamask 1586, ACE 1617 on avx512).
pub const PACKED_KERNEL_MAX_STRAIGHT_INSNS: f64 = 2520.0;

/// On Intel (`--uarch`), a vsliced program whose one-copy critical path is at least this
/// fraction of its port bound (`tune::estimate`) gets the 2-way kernel even over the spill
/// bound: there its two copies' latency-bound chains gain more than the spills cost. Measured
/// on the Intel machine of 2026-11-26 (`bench compare`, packed entry, time with the kernel /
/// without): ChaCha20 (0.66 of its port bound) 0.81 std, 0.84 sse, 0.86 avx2; BLAKE2s (0.48)
/// 0.91, 0.91, 0.93; below it Xoodoo (0.35) 1.12 std, 0.88 sse, 1.13 avx2, AES planes and AES
/// const rk `-V` avx2 (0.34, 0.37) 1.32 and 1.18. On Zen 3 and Zen 4 the ARX programs were
/// neutral or slower with the kernel.
pub const PACKED_KERNEL_INTEL_V_MIN_CRIT_PORT: f64 = 0.45;

/// [`PACKED_KERNEL_INTEL_V_MIN_CRIT_PORT`] for SSE/AVX2 programs whose rounds are unrolled (no
/// kept loop: the Intel `-V` rule of `opt::vslice_simd_unrolls`). Measured on the Intel machine
/// (2026-11-27, `bench compare`, packed entry, time with the kernel / without, avx2 / sse):
/// Xoodoo (0.38 of its port bound unrolled) 0.814 / 0.809; below it AES const rk (0.31) 1.059 /
/// 0.969, Gimli (0.24) 1.089 / 0.967, AES planes (0.17) 2.25 / 2.23. With the round loop kept
/// (std, 0.39) Xoodoo stays 1.08x slower with the kernel, so the bound there is unchanged.
pub const PACKED_KERNEL_INTEL_V_MIN_CRIT_PORT_UNROLLED: f64 = 0.35;

/// In hslice the rule also asks the one-copy program to be latency-bound enough: its critical
/// path at least this fraction of its port bound (`tune::estimate`).
pub const PACKED_KERNEL_MIN_CRIT_PORT_H: f64 = 0.5;

/// [`PACKED_KERNEL_MIN_CRIT_PORT_H`] per target. On AVX-512 (measured on Zen 4, README
/// "Interleaving behind the packed entry") ACE (0.43) and Ascon (0.45) gained 6-8% from the
/// kernel and Xoodoo (0.40) lost 5%, so the bound is 0.42 there. On SSE/AVX2 on Intel
/// (`--uarch`; 2026-11-27, packed entry, time with the kernel / without, avx2 / sse) Xoodoo
/// (0.31) gains, 0.847 / 0.833, where Zen 3 lost (1.05 / 1.13), and the programs below it lose
/// or are neutral: AES const rk (0.29) 0.949 / 0.994 (its kernel fails the spill bound anyway),
/// AES planes (0.26) 1.10 / 1.02, Gimli (0.20) 1.01 / 1.02; so the bound is 0.3 there.
pub fn packed_kernel_min_crit_port_h(arch: Arch, uarch: crate::target::Uarch) -> f64 {
    match arch {
        Arch::Avx512 => 0.42,
        Arch::Sse | Arch::Avx2 if uarch == crate::target::Uarch::Intel => 0.3,
        _ => PACKED_KERNEL_MIN_CRIT_PORT_H,
    }
}

/// The interleaved kernel behind the packed entry (see [`packed_factor`]): `ir` (elaborated)
/// optimised again with interleaving, or `None` when the factor is 1 or interleaving fails
/// (the packed entry then calls the raw entry, as without a kernel).
///
/// The rule (no `--packed-interleave`), in vslice and hslice: a 2-way kernel when its estimated
/// excess spills stay at most [`PACKED_KERNEL_MAX_EXCESS`] per instruction, i.e. when two copies
/// still fit the target's registers. Measured on avx2/sse/std (README "Interleaving behind
/// the packed entry"): every vsliced program under the bound gained (Serpent, ACE, Ascon,
/// RECTANGLE, Clyde on std: 0.64-0.88x the time); those over it (ChaCha20, Xoodoo, BLAKE2s,
/// AES, DES, GIFT bitsliced-in-vslice) were neutral or slower. In hslice, also a 2-way kernel
/// when, besides the spill bound, the one-copy program's critical path is at least
/// [`packed_kernel_min_crit_port_h`] of its port bound. Measured (README "Interleaving behind
/// the packed entry"): on `std` every hslice program the rule takes gained (0.79-0.93x the
/// time: RECTANGLE, Ascon, ACE, Pyjamask, Serpent, GIFT-v, BLAKE2s, Clyde; ChaCha20 0.98) and
/// the ones it leaves (Gimli, Xoodoo, AES) lost 3-5%; on SSE/AVX2 (with rotations as lane
/// funnel shifts) it takes ACE 0.65x, Ascon 0.83x, RECTANGLE 0.87-0.89x, GIFT-v 0.87-0.89x,
/// is neutral on Serpent, BLAKE2s and Clyde (0.99-1.01x) and loses on Pyjamask (1.04-1.05x);
/// the ones it leaves lose with a kernel (Xoodoo 1.05-1.13x, Gimli 1.01-1.02x) or are
/// neutral (ChaCha20, AES). On AVX-512 (32 registers, Zen 4) every vsliced program passes the
/// spill bound: gains 1.04-1.35x (Serpent, GIFT-v, Ascon, Clyde, RECTANGLE, Pyjamask, ACE,
/// Xoodoo, Gimli), neutral on AES and ChaCha20, BLAKE2s 0.98x; in hslice it takes RECTANGLE,
/// GIFT-v, Ascon, ACE, Pyjamask (1.06-1.11x), Serpent and BLAKE2s (neutral) and Clyde (0.97x).
/// A straight-line program over [`PACKED_KERNEL_MAX_STRAIGHT_INSNS`] gets no straight kernel (two
/// copies would not fit the instruction cache); under `--loops auto` its kernel is built with
/// the round loops kept (`--loops chains`) instead, and the spill bound then decides as for any
/// other. Pyjamask `-V` on SSE/AVX2 (unrolled by the Intel vslice rule, 3784 instructions) gets
/// such a kernel: packed 1.12x (sse) / 1.13x (avx2) faster than with none (2026-11-27); AES
/// const rk and AES planes `-V` avx512 fail the spill bound with it and keep calling the raw
/// entry.
/// Where `loop-fuse` fired (in the kernel's optimisation), the rule takes no kernel: the
/// fused loops already run their chains side by side (README "Interleaving behind the packed
/// entry", "Fused loops take no kernel").
/// Bitslice gets a kernel only on request (`--packed-interleave`,
/// or `nakiri tune --goal packed`).
pub fn packed_kernel(
    ir: &ir::Program,
    hints: &ir::LoopHints,
    prog: &ir::Program,
    cfg: &Config,
) -> Option<ir::Program> {
    let k = packed_factor(prog, cfg);
    let auto = cfg.packed_interleave.is_none();
    if k <= 1 {
        return None;
    }
    use crate::tune::estimate::{estimate, excess_spills, issue_width};
    let too_many = |p: &ir::Program, insns: f64| {
        excess_spills(p, cfg.arch) / insns.max(1.0) > PACKED_KERNEL_MAX_EXCESS
    };
    // On Intel a latency-bound vsliced program takes the kernel whatever the spill bound says.
    let mut latency_bound = false;
    let mut keep_loops = false;
    if auto {
        let e = estimate(prog, cfg.arch);
        let port = (e.insns + e.spills) / issue_width(cfg.arch);
        let straight = !has_loops(prog);
        let min_crit = if straight && matches!(cfg.arch, Arch::Sse | Arch::Avx2) {
            PACKED_KERNEL_INTEL_V_MIN_CRIT_PORT_UNROLLED
        } else {
            PACKED_KERNEL_INTEL_V_MIN_CRIT_PORT
        };
        latency_bound = cfg.opt.uarch == crate::target::Uarch::Intel
            && prog.slicing == ir::Slicing::V
            && e.critical_path >= min_crit * port;
        // (One copy over the bound: two copies are too; saves optimising big programs twice.)
        if too_many(prog, e.insns) && !latency_bound {
            return None;
        }
        if straight && e.insns > PACKED_KERNEL_MAX_STRAIGHT_INSNS {
            // (where `--loops auto` unrolls nothing it kept every loop it could already, so a
            // kernel with loops kept would be this straight program twice)
            if !crate::opt::auto_may_unroll(prog.slicing, &opt_config(cfg)) {
                return None;
            }
            keep_loops = true;
        }
        if prog.slicing == ir::Slicing::H
            && e.critical_path < packed_kernel_min_crit_port_h(cfg.arch, cfg.opt.uarch) * port
        {
            return None;
        }
    }
    let mut kcfg = cfg.clone();
    kcfg.opt.interleave = k;
    kcfg.opt.interleave_granularity = PACKED_KERNEL_GRANULARITY;
    kcfg.opt.dump_after.clear();
    if keep_loops {
        kcfg.opt.loops = crate::opt::LoopPolicy::Chains;
    }
    let (kernel, report) = optimize(ir.clone(), hints, &kcfg).ok()?;
    // Kept loops that `loop-fuse` ran side by side already overlap their chains; two copies
    // of each fused iteration outgrew the registers (ACE `-V`, packed, time with the kernel /
    // without: avx2 1.39, sse 1.55, std 1.21), so the rule takes no kernel then.
    if auto && report.count(crate::opt::PassId::LoopFuse, "fused") > 0 {
        return None;
    }
    // (kept loops were the reason to build it: a program without any comes out straight again,
    // twice the size that was already too big; a 10 000-node call chain did, 3 MB of C)
    if keep_loops && !has_loops(&kernel) {
        return None;
    }
    if auto && !latency_bound && too_many(&kernel, estimate(&kernel, cfg.arch).insns) {
        return None;
    }
    Some(kernel)
}

/// Whether any node of `p` has a kept loop.
fn has_loops(p: &ir::Program) -> bool {
    p.nodes
        .iter()
        .any(|n| n.body.iter().any(|i| matches!(i, ir::Instr::Loop { .. })))
}

/// Whether the packed entry of `prog` keeps its prepared consts compact and calls
/// `E__with_consts` (`codegen::AbiConfig::compact_consts`; only bitslice with `const` inputs
/// on SSE/AVX2/AVX-512, [`codegen::compact_consts_apply`]): `cfg.packed_consts`, or the rule.
///
/// Sliced in full, a const bit costs a whole register of memory (RECTANGLE's 26 round keys:
/// 104 KiB per call on AVX-512, AES's 11: 88 KiB), streamed from L2 on every call; compact,
/// 8 bytes, but each read becomes a broadcast load of its own instead of a memory operand.
/// The rule, measured on Zen 4 (`bench compare`, packed entry): compact on AVX-512 (docs/history.md,
/// "Stop 29": RECTANGLE 1.18x, AES const rk 1.08x faster) and on AVX2 (README "Stop 44":
/// RECTANGLE 1.07-1.12x, Serpent 1.00-1.06x, AES const rk 0.97-1.05x, also when built without
/// AVX-512VL; at stop 29 AVX2 had measured 0.87x for AES, when gcc kept the broadcasts in
/// registers and spilled more, before the round loops were kept). The mode helpers gain
/// most: `aes128_ctr_xor` no longer writes and wipes 45 KB of round-key registers per call.
/// Full on SSE, where compact measured neutral (0.96-1.04x, two runs each in stops 29 and
/// 44). Intel (`--uarch`; Golden Cove, 2026-11-26) measured the same way: compact on AVX2
/// (RECTANGLE 1.14x, AES const rk 1.03x; AVX-512 1.29x and 1.12x), SSE neutral (0.98-1.00x).
pub fn packed_compact_consts(prog: &ir::Program, cfg: &Config) -> bool {
    if !codegen::compact_consts_apply(prog, cfg.arch) {
        return false;
    }
    match cfg.packed_consts {
        Some(v) => v,
        None => matches!(cfg.arch, Arch::Avx512 | Arch::Avx2),
    }
}

/// The program `E__with_consts` is compiled from when it is not the raw entry's: where the
/// loop rule unrolls a `const`-fed bitsliced round loop for the raw entry (on Intel, light
/// rounds on AVX-512, `opt::auto_unrolled`) and the packed entry takes compact consts, `ir`
/// (elaborated) optimised again keeping that loop (`OptConfig::keep_const_fed_loops`).
/// `None` when there is nothing to gain: no compact consts, an interleaved kernel behind the
/// packed entry, or the same loops as `prog`.
///
/// Measured on RECTANGLE `-B` avx512 (Intel, `bench compare`): the raw entry reads its round
/// keys as full registers (104 KiB per call) whichever the form, and is 0.90x the time
/// unrolled; `E__with_consts` reads them compact, where the kept loop is 0.74x the time of
/// the unrolled rounds (packed entry 0.90 against 1.22 c/B).
pub fn packed_consts_program(
    ir: &ir::Program,
    hints: &ir::LoopHints,
    prog: &ir::Program,
    kernel: Option<&ir::Program>,
    cfg: &Config,
) -> Option<ir::Program> {
    if kernel.is_some()
        || !crate::opt::may_unroll_const_fed(prog.slicing, &opt_config(cfg))
        || !packed_compact_consts(prog, cfg)
    {
        return None;
    }
    let mut kcfg = cfg.clone();
    kcfg.opt.keep_const_fed_loops = true;
    kcfg.opt.dump_after.clear();
    let (kept, _) = optimize(ir.clone(), hints, &kcfg).ok()?;
    let loops = |p: &ir::Program| {
        p.nodes
            .iter()
            .flat_map(|n| &n.body)
            .filter(|i| matches!(i, ir::Instr::Loop { .. }))
            .count()
    };
    (loops(&kept) > loops(prog)).then_some(kept)
}

/// The program the raw entry runs on each 256-bit half of its registers under
/// `--entry-halves` (bitslice on AVX-512), on copies of each half or in place
/// (`--halves-in-place`; `codegen`, `OpTarget::half` and `strided`): with
/// `--halves-ir avx2`, `ir` (elaborated) optimised for AVX2, with that target's rules (loops,
/// registers, no ternlog: gcc fuses on its own); with `--halves-ir avx512`, `prog` itself (the
/// AVX-512 program, its ternlogs at 256 bits through AVX-512VL). `None` without the flag or
/// elsewhere.
///
/// Measured on Zen 4 (README, "The avx512 raw entry on two 256-bit halves"): faster for the
/// programs whose AVX-512 kernel is bound by its loops' memory traffic (Ascon, Xoodoo,
/// Subterranean, Spongent), slower for the others. Hence a flag and a tuner knob, not a rule.
pub fn halves_program(
    ir: &ir::Program,
    hints: &ir::LoopHints,
    prog: &ir::Program,
    cfg: &Config,
) -> Option<ir::Program> {
    if !cfg.entry_halves || cfg.arch != Arch::Avx512 || cfg.slicing != ir::Slicing::B {
        return None;
    }
    if cfg.halves_ir == Arch::Avx512 {
        return Some(prog.clone());
    }
    let mut hcfg = cfg.clone();
    hcfg.arch = Arch::Avx2;
    hcfg.entry_halves = false;
    hcfg.opt.dump_after.clear();
    optimize(ir.clone(), hints, &hcfg).ok().map(|(p, _)| p)
}

/// `--halves-ir` when not given: the AVX2 program.
pub const HALVES_IR_DEFAULT: Arch = Arch::Avx2;

/// `--halves-in-place` when not given: on copies.
pub const HALVES_IN_PLACE_DEFAULT: bool = false;

/// The programs compiled beside the optimised `prog` into the same C file: the packed
/// entry's interleaved kernel ([`packed_kernel`]), the program behind `E__with_consts`
/// ([`packed_consts_program`]) and the raw entry's AVX2 halves ([`halves_program`]); each
/// `None` where it does not apply. `ir` and `hints`: the elaborated source.
#[derive(Default)]
pub struct Companions {
    pub kernel: Option<ir::Program>,
    pub consts_prog: Option<ir::Program>,
    pub halves: Option<ir::Program>,
}

pub fn companions(
    ir: &ir::Program,
    hints: &ir::LoopHints,
    prog: &ir::Program,
    cfg: &Config,
) -> Companions {
    let kernel = packed_kernel(ir, hints, prog, cfg);
    let consts_prog = packed_consts_program(ir, hints, prog, kernel.as_ref(), cfg);
    Companions {
        halves: halves_program(ir, hints, prog, cfg),
        kernel,
        consts_prog,
    }
}

/// Optimised IR to C, with the packed entry's interleaved kernel when there is one, and the
/// program behind `E__with_consts` when it is not `prog` ([`packed_consts_program`]).
pub fn generate(
    prog: &ir::Program,
    with: &Companions,
    cfg: &Config,
    header_name: &str,
    banner: String,
    entry_bit_params: bool,
) -> Result<COutput, codegen::CodegenError> {
    let (kernel, consts_prog, halves) = (
        with.kernel.as_ref(),
        with.consts_prog.as_ref(),
        with.halves
            .as_ref()
            .map(|h| (h, cfg.halves_ir, cfg.halves_in_place)),
    );
    let max_bytes = cfg.max_ops.saturating_mul(codegen::C_BYTES_PER_OP);
    let mut abi = cfg.abi.clone();
    abi.entry_bit_params = entry_bit_params;
    abi.compact_consts = kernel.is_none() && packed_compact_consts(prog, cfg);
    let ccfg = CodegenConfig {
        arch: cfg.arch,
        header_name: header_name.to_string(),
        banner,
        spill: cfg.spill,
        mem_loops: cfg.mem_loops,
        loop_regs: cfg.loop_regs,
        state_loads: cfg.state_loads,
        loop_align: cfg.loop_align,
        opaque_not: cfg.opaque_not,
        uarch: cfg.opt.uarch,
    };
    match codegen::generate_over(prog, kernel, consts_prog, halves, &ccfg, &abi, max_bytes) {
        // The kernel doubles the code: where only the raw entry fits the budget, drop it (and
        // the other program behind `E__with_consts`).
        Err(_) if kernel.is_some() || consts_prog.is_some() => {
            codegen::generate_over(prog, None, None, halves, &ccfg, &abi, max_bytes)
        }
        r => r,
    }
}

/// Source to C.
pub fn compile(
    name: &str,
    text: &str,
    cfg: &Config,
    loader: &dyn Loader,
    header_name: &str,
) -> (Front, Option<COutput>) {
    let (mut front, prog) = lower(name, text, cfg, loader);
    let Some(prog) = prog else {
        return (front, None);
    };
    // The processor family whose measured rules applied (`--uarch`; the host's unless given):
    // the same source and flags give other C on the other family.
    let banner = format!(
        "Generated by nakiri {} from {}{}{}\nDefault rules as measured on {} processors (--uarch {})",
        env!("CARGO_PKG_VERSION"),
        name,
        if cfg.flags_text.is_empty() {
            ""
        } else {
            " with flags: "
        },
        cfg.flags_text,
        match cfg.opt.uarch {
            crate::target::Uarch::Intel => "Intel",
            crate::target::Uarch::Amd => "AMD",
        },
        cfg.opt.uarch.name()
    );
    let checked = front
        .checked
        .as_ref()
        .expect("lowered programs are checked");
    let with = companions(&checked.ir, &checked.loop_hints, &prog, cfg);
    match generate(
        &prog,
        &with,
        cfg,
        header_name,
        banner,
        checked.entry_bit_params,
    ) {
        Ok(out) => (front, Some(out)),
        Err(e) if e.0.contains("--max-ops") => {
            // The work budget: point at the entry node (the C is generated for all of it).
            let d = match front.ast.as_ref().and_then(|a| a.decls.last()) {
                Some(decl) => {
                    Diagnostic::error(decl.name.span, format!("cannot generate code: {}", e))
                        .label("entry point")
                }
                None => Diagnostic::error_nospan(format!("cannot generate code: {}", e)),
            };
            front.diags.push(d);
            (front, None)
        }
        Err(e) => {
            front.diags.push(Diagnostic::error_nospan(format!(
                "cannot generate code for {} ({}-slicing): {}",
                cfg.arch, cfg.slicing, e
            )));
            (front, None)
        }
    }
}
