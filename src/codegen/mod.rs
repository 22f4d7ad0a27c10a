//! C generation from verified Usuba0 IR.
//!
//! [`generate`] turns a [`Program`] into a self-contained `.c` file (runtime prelude embedded,
//! see `crate::runtime`) and a matching header. Every atom becomes one C local of type
//! `DATATYPE` (on `std` vslice: the smallest `uintN_t` of its word size); every instruction one
//! line. The entry node becomes the raw entry point `void <Entry>__(inputs..., outputs...)`
//! (the original usubac's ABI, see `shared/spec/codegen.md`); the other nodes become `static`
//! helpers taking one argument per input atom and one pointer per output atom.
//! Register layouts are those of [`target`].

pub mod c_emit;
pub mod memloop;
mod ops;
pub mod packed;

pub use crate::target::{instances_per_call, layout as target, Arch};

use crate::ir::{Instr, LoopArg, LoopResult, Node, NodeId, Param, Program, Slicing, VarId};
use crate::target::spill;
use c_emit::{comment_lines, Namer};
pub use ops::simd_h_insns;
use ops::{Helpers, OpTarget};
use std::fmt;

/// A combination the chosen target cannot express (a user-facing message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError(pub String);

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CodegenError {}

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenConfig {
    pub arch: Arch,
    /// File name of the header (e.g. `out.h`), used for its include guard and mentioned in the `.c`.
    pub header_name: String,
    /// Comment put at the top of both files (compiler version, input file, flags).
    pub banner: String,
    /// Spill explicitly in kept-loop bodies on SIMD targets (`spill`); [`SPILL_DEFAULT`].
    pub spill: bool,
    /// Kept loops whose state outgrows the registers keep it in memory (`memloop`);
    /// [`MEM_LOOPS_DEFAULT`].
    pub mem_loops: bool,
    /// How many state slots of a memory-form loop stay in registers across
    /// iterations (`--loop-regs N`; `None`: the rule of [`memloop::register_slots_count`]).
    pub loop_regs: Option<usize>,
    /// SSE/AVX2: `NK_NOT(a)` XORs with the opaque all-ones register (`NK_ONES_OPAQUE`) instead
    /// of a constant the C compiler sees (`--opaque-not`; [`OPAQUE_NOT_DEFAULT`]).
    pub opaque_not: bool,
    /// Whose measured rules codegen's choices follow (`--uarch`): on AMD no 64-bit rotation
    /// takes the port-5 form ([`ops::ROT64_P5_EVERY`]).
    pub uarch: crate::target::Uarch,
    /// Memory-form loop bodies read each state slot once into an opaque register
    /// (`--state-loads`, `--no-state-loads`; `None`: [`state_loads_rule`] decides per loop
    /// body; `OpTarget::state_loads`).
    pub state_loads: Option<bool>,
    /// x86-64: each kept loop's body starts with an alignment to 64 bytes and `k` bytes of
    /// no-ops (`--loop-align K`; `None`: left to the C compiler). See [`loop_align_c`].
    pub loop_align: Option<u32>,
}

/// The C of `--loop-align k`, the first statement of a kept loop's body: the assembler aligns
/// that point to 64 bytes (the section's alignment rises to 64, so the place is kept through
/// linking) and pads `k` more bytes with 8-byte no-ops. Where the loop's instructions fall
/// in 64-byte lines then no longer depends on the code before it. On Zen 3, Ascon's 19 KB
/// `-B` avx2 round loop ran 0.59-0.67 c/B at four values of `k` and 0.88-0.93 at the other
/// four (README "Stop 49"); a knob for the tuner, since the good offsets depend on the body. Only for GCC-compatible compilers on
/// x86-64 (elsewhere the lines are preprocessed away).
pub fn loop_align_c(k: u32) -> Vec<String> {
    let mut asm = String::from(".p2align 6");
    for _ in 0..k / 8 {
        asm.push_str("\\n\\t.byte 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0");
    }
    vec![
        "#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)".to_string(),
        format!("    __asm__ volatile(\"{asm}\");"),
        "#endif".to_string(),
    ]
}

/// The values `--loop-align` takes: a multiple of 8 below 64.
pub fn loop_align_valid(k: u32) -> bool {
    k < 64 && k.is_multiple_of(8)
}

/// Memory-form loop bodies leave state reads to the C compiler unless told, which folds them
/// into the instructions that use them (a slot read by four of an S-box's instructions is
/// loaded four times). `--state-loads` (the tuner's `state-loads` knob) loads it once: faster
/// where the reads cluster (Ascon), slower where they spread (Xoodoo: the registers held
/// spill). By default [`state_loads_rule`] decides per loop body.
///
/// The rule, measured on Zen 4 (README "State loads by default on AVX2", `bench compare
/// --runs 3`, after CSE by value): on AVX2 a body takes them when its opaque loads would be at
/// least [`STATE_LOADS_MIN_PER_MILLE`] per mille of its instructions. Bodies that dense gained
/// 3-24% raw (GIFT 0.76, Subterranean 0.79, Ascon 0.89, PHOTON 0.95, Gimli 0.97, Spongent
/// 0.97; ChaCha20 1.01); sparser ones lost up to 3% (AES const rk 1.01 raw / 1.03 packed,
/// Pyjamask 1.01 / 1.02, AES planes 1.02). Off on AVX-512, where the same bodies measured
/// 0.94-1.06, and on `std` (not measured).
pub fn state_loads_rule(arch: Arch, loads: usize, instrs: usize) -> bool {
    matches!(arch, Arch::Avx2) && loads * 1000 >= STATE_LOADS_MIN_PER_MILLE * instrs.max(1)
}

/// [`state_loads_rule`]'s threshold: opaque state loads per thousand instructions of a body.
pub const STATE_LOADS_MIN_PER_MILLE: usize = 45;

/// `--state-loads`' choice at the read at body position `k` of a state input read at `uses`
/// (ascending), the previous read being at `last`: `None` when the read continues a run of
/// reads at most [`ops::STATE_LOAD_WINDOW`] apart (it reuses the run's name), else whether it
/// begins an opaque load (another read follows within the window) or stays a memory operand.
/// The emitter and [`state_load_count`] both decide by it.
fn state_load_at(uses: &[usize], last: Option<usize>, k: usize) -> Option<bool> {
    last.is_none_or(|l| k - l > ops::STATE_LOAD_WINDOW)
        .then(|| {
            uses.iter()
                .any(|&j| j > k && j - k <= ops::STATE_LOAD_WINDOW)
        })
}

/// How many opaque loads `--state-loads` makes of one state input read at body positions
/// `uses` (ascending).
fn state_load_count(uses: &[usize]) -> usize {
    let mut last: Option<usize> = None;
    uses.iter()
        .filter(|&&k| state_load_at(uses, last.replace(k), k) == Some(true))
        .count()
}

/// Negations stay visible to the C compiler by default: making them opaque (`--opaque-not`, the
/// tuner's `opaque-not` knob) changes what gcc fuses into its own `vpternlog`s on a CPU with
/// AVX-512VL, and the effect depends on the program (README "Opaque negations").
pub const OPAQUE_NOT_DEFAULT: bool = false;

/// Kept loops with a state bigger than the register file keep it in memory by default
/// (`memloop`; README "Loops").
pub const MEM_LOOPS_DEFAULT: bool = true;

/// Explicit spilling is on by default (measured: README "Explicit spilling").
pub const SPILL_DEFAULT: bool = true;

/// Entry ABI options from usubac's command line (all off by default).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AbiConfig {
    /// `-bits-per-reg N`: on `std` in -B/-H, `DATATYPE` is `uintN_t` (N in 8, 16, 32, 64).
    pub bits_per_reg: Option<u32>,
    /// `-lf`: each `const` input of the entry is passed as `uintN_t` (N = its word size, shape
    /// kept) and broadcast where it is used.
    pub lf: bool,
    /// `-no-arr-entry`: every entry parameter array is flattened to one C parameter per word
    /// (inputs by value, outputs by pointer), named `x__0__1` after its indices.
    pub no_arr_entry: bool,
    /// R7 (usubac's database S-box table as the entry): one scalar `a0, a1, …` per input atom
    /// and one pointer `b0, b1, …` per output atom (set by the driver from sema).
    pub entry_bit_params: bool,
    /// Bitslice on SSE/AVX2/AVX-512 (not usubac's): the packed API keeps its prepared `const`
    /// inputs as one `uint64_t` per register (0 or all ones: a const bit is the same in every
    /// instance) and calls `E__with_consts`, the raw entry compiled again to take them so and
    /// broadcast each where it is read. Set by the driver (`driver::packed_compact_consts`);
    /// where it does not apply ([`compact_consts_apply`]) it is ignored.
    pub compact_consts: bool,
}

/// Whether [`AbiConfig::compact_consts`] applies to `prog` on `arch`: bitslice on a SIMD x86
/// target, not interleaved, with `const` inputs that are all arrays (the default entry ABI is
/// checked by the caller).
pub fn compact_consts_apply(prog: &Program, arch: Arch) -> bool {
    let entry = prog.entry();
    prog.slicing == Slicing::B
        && matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512)
        && prog.interleave <= 1
        && entry.inputs.iter().any(|p| p.is_const)
        && entry
            .inputs
            .iter()
            .all(|p| !p.is_const || !p.c_dims.is_empty())
}

/// Whether the entries of `a` and `b` have the same parameters (names, atoms, `const`,
/// dimensions): what lets `E__with_consts` be compiled from another optimisation of the same
/// source than the raw entry.
fn same_entry_params(a: &Program, b: &Program) -> bool {
    let same = |x: &[crate::ir::Param], y: &[crate::ir::Param]| {
        x.len() == y.len()
            && x.iter().zip(y).all(|(p, q)| {
                p.name == q.name
                    && p.atoms.len() == q.atoms.len()
                    && p.is_const == q.is_const
                    && p.c_dims == q.c_dims
                    && p.word_bits == q.word_bits
            })
    };
    a.slicing == b.slicing
        && a.interleave == b.interleave
        && same(&a.entry().inputs, &b.entry().inputs)
        && same(&a.entry().outputs, &b.entry().outputs)
}

/// A register whose every 64-bit lane is the C expression `w` (a `uint64_t`).
fn bcast64(arch: Arch, w: &str) -> String {
    match arch {
        Arch::Sse => format!("_mm_set1_epi64x((long long){})", w),
        Arch::Avx2 => format!("_mm256_set1_epi64x((long long){})", w),
        Arch::Avx512 => format!("_mm512_set1_epi64((long long){})", w),
        _ => format!("(DATATYPE){}", w),
    }
}

/// The generated `.c` and `.h` texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct COutput {
    pub c: String,
    pub h: String,
}

/// Bytes of C the work budget allows per operation (`--max-ops N` allows N × this).
pub const C_BYTES_PER_OP: usize = 64;

/// Comment lines around the packed API's text in both files.
pub const PACKED_BEGIN: &str = "/* ---- packed API ---- */\n";
pub const PACKED_END: &str = "/* ---- end of packed API ---- */\n";

/// (memory form) Atoms a kept loop stored in its per-iteration output buffer `nk_l{k}_y`:
/// atom -> (k, iteration, slot, slots per iteration).
type YSrc = crate::fxhash::FxHashMap<VarId, (usize, usize, usize, usize)>;

/// When the C expressions `xs` (one per iteration) are `A[a + i*d]R` for one array name `A`,
/// one rest `R` and integers `a`, `d` (iteration `i`), the expression that reads them in place
/// with loop counter `ctr`: `A[a + ctr * d]R`. Its index depends on the counter only, so the
/// code stays constant-time.
fn strided_elements(xs: &[String], ctr: &str) -> Option<String> {
    if xs.len() < 2 {
        return None;
    }
    let split = |x: &str| -> Option<(String, i64, String)> {
        let open = x.find('[')?;
        let base = &x[..open];
        if base.is_empty() || !base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        let close = open + x[open..].find(']')?;
        let idx: i64 = x[open + 1..close].parse().ok()?;
        Some((base.to_string(), idx, x[close + 1..].to_string()))
    };
    let parts: Vec<(String, i64, String)> = xs.iter().map(|x| split(x)).collect::<Option<_>>()?;
    let (base, a, rest) = parts[0].clone();
    let d = parts[1].1 - a;
    let same = parts
        .iter()
        .enumerate()
        .all(|(i, (b, idx, r))| *b == base && *r == rest && *idx == a + d * i as i64);
    if !same || d <= 0 {
        return None;
    }
    Some(format!("{}[{} + {} * {}]{}", base, a, ctr, d, rest))
}

/// Where the per-iteration inputs a memory-form loop gathers (`cols[j][i]`: column `j` of
/// iteration `i`) are exactly the rows `off ..` of an earlier loop's output buffer `nk_l{k}_y`,
/// slot for slot and with the same row width: `(k, off)`, so the loop can read them in place.
fn y_rows<'a>(
    y_src: &YSrc,
    count: usize,
    width: usize,
    cols: impl Iterator<Item = &'a Vec<VarId>>,
) -> Option<(usize, usize)> {
    let mut base: Option<(usize, usize)> = None;
    let mut ncols = 0;
    for (j, vs) in cols.enumerate() {
        ncols += 1;
        for i in 0..count {
            let &(yk, yi, slot, yw) = y_src.get(vs.get(i)?)?;
            let here = (yk, yi.checked_sub(i)?);
            if slot != j || yw != width || *base.get_or_insert(here) != here {
                return None;
            }
        }
    }
    if ncols != width {
        return None;
    }
    base
}

/// The columns of a memory-form loop's gathered per-iteration inputs (`LoopArg::Each` arguments
/// the body reads as `memloop::In::Each`), in the order of `nk_x`'s slots.
fn gathered_cols<'a>(
    args: &'a [LoopArg],
    ml: &'a memloop::MemLoop,
) -> impl Iterator<Item = &'a Vec<VarId>> {
    args.iter().zip(&ml.ins).filter_map(|(a, w)| match (a, w) {
        (LoopArg::Each(vs), memloop::In::Each(_)) => Some(vs),
        _ => None,
    })
}

/// Per instruction of `node`: whether it is a memory-form loop that reads its gathered inputs
/// in place in an earlier memory-form loop's output buffer ([`y_rows`]), as `emit_function`
/// decides it (the same `y_src`, built in the same order, with the instruction index as the
/// loop's key). The C then never reads the atoms of those columns, so their locals (the earlier
/// loop's results copied out of `nk_l{k}_y`) are not declared where nothing else reads them:
/// AES `-B` declared 1152 such round-key bits, each an unused-variable warning.
fn gathers_in_place(node: &Node, memloops: &[Option<memloop::MemLoop>]) -> Vec<bool> {
    let mut y_src = YSrc::default();
    let mut r = vec![false; node.body.len()];
    for (i, ins) in node.body.iter().enumerate() {
        let Instr::Loop {
            callee,
            count,
            args,
            results,
            ..
        } = ins
        else {
            continue;
        };
        let Some(ml) = memloops[callee.0 as usize].as_ref() else {
            continue;
        };
        r[i] = ml.n_each > 0
            && ml.each_src == memloop::EachSrc::Gather
            && y_rows(&y_src, *count as usize, ml.n_each, gathered_cols(args, ml)).is_some();
        for (q, j, v) in y_result_rows(results) {
            y_src.insert(v, (i, j, q, ml.n_y));
        }
    }
    r
}

/// The per-iteration results of a memory-form loop as rows of its output buffer `nk_l{k}_y`:
/// (column q, row i, atom) for each result with rows, columns numbered in order.
fn y_result_rows(results: &[LoopResult]) -> impl Iterator<Item = (usize, usize, VarId)> + '_ {
    results
        .iter()
        .filter_map(|res| match res {
            LoopResult::State { each, .. } if each.is_empty() => None,
            LoopResult::State { each: vs, .. } | LoopResult::Each(vs) => Some(vs),
        })
        .enumerate()
        .flat_map(|(q, vs)| vs.iter().enumerate().map(move |(i, &v)| (q, i, v)))
}

/// `f` of each atom the C of instruction `ins` reads: [`Instr::for_each_use`], except, in a
/// memory-form loop, the gathered columns when it reads them in place (`in_place`,
/// [`gathers_in_place`]) and the constant bits it reads from its `nk_kb` table
/// (`memloop::In::ConstBit`): their locals were declared and never read (a `(void)` each).
fn for_each_c_use(
    ins: &Instr,
    in_place: bool,
    memloops: &[Option<memloop::MemLoop>],
    mut f: impl FnMut(VarId),
) {
    if let Instr::Loop {
        callee,
        state,
        args,
        ..
    } = ins
    {
        if let Some(ml) = memloops[callee.0 as usize]
            .as_ref()
            .filter(|ml| ml.ins.len() == args.len())
        {
            state.iter().for_each(|s| f(s.0));
            for (a, w) in args.iter().zip(&ml.ins) {
                match (a, w) {
                    (LoopArg::Each(_), memloop::In::Each(_)) if in_place => {}
                    (LoopArg::Each(_), memloop::In::ConstBit(_)) | (LoopArg::State(_), _) => {}
                    (LoopArg::Same(x), _) => f(*x),
                    (LoopArg::Each(xs), _) => xs.iter().for_each(|&v| f(v)),
                }
            }
            return;
        }
    }
    ins.for_each_use(f);
}

/// Local arrays of registers (kept loops' state, per-round inputs and outputs, call arguments
/// and results, spill slots and homes) carry `NK_ALIGN64`: a cache-line alignment on
/// AVX2 and AVX-512, nothing elsewhere. gcc aligns an AVX2 frame to 32 bytes only, and where it
/// landed mod 64 depended on the caller's stack (Linux randomises its low bits): AES planes
/// `-B` avx2 ran 1.10x slower with its frame at 32 mod 64 than at 0 (README, "Frames aligned
/// to a cache line"). With one 64-byte-aligned local the compiler realigns the frame, and its
/// own spill slots sit at fixed offsets from it. On SSE the speed did not follow the line
/// alignment (Ascon `-B` sse changed with the frame's position over hundreds of bytes), and
/// aligning it there measured slower on four rows, so the macro is empty there. The packed
/// steps' register buffers are left as they are: aligned, RECTANGLE `-H` avx2 packed took
/// 1.016x the time, and no row gained.
fn align64_c(arch: Arch) -> &'static str {
    if matches!(arch, Arch::Avx2 | Arch::Avx512) {
        "#if defined(__GNUC__) || defined(__clang__)\n#define NK_ALIGN64 __attribute__((aligned(64))) /* README, \"Frames aligned to a cache line\" */\n#else\n#define NK_ALIGN64\n#endif\n"
    } else {
        "#define NK_ALIGN64\n"
    }
}

/// The macro names the AVX2 runtime prelude defines for `slicing`, and `DATATYPE`: a
/// `--entry-halves` section saves, undefines and redefines them, and restores them after
/// (`#pragma push_macro` / `pop_macro`, GCC and clang). `NK_TARGET` is left alone, so the
/// section's functions keep the AVX-512 target attribute (AVX2 code with AVX-512VL's 32
/// registers and `vpternlog`, as gcc emits the avx2 build under `-march=native` on such a CPU).
fn halves_macros(slicing: Slicing) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for l in runtime::prelude(Arch::Avx2, slicing, 1, false).lines() {
        if let Some(rest) = l.trim_start().strip_prefix("#define ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != "NK_TARGET" && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names.push("NK_TERNLOG".to_string());
    names.push("DATATYPE".to_string());
    names
}

/// The `--entry-halves` section around `body` (the halves' helpers and functions): the
/// AVX-512 macros saved and undefined, the AVX2 prelude, `DATATYPE` as `__m256i` (named after
/// the halves' entry `h_entry`), then the AVX-512 macros restored.
fn halves_section(slicing: Slicing, entry_fn: &str, h_entry: &str, body: &str) -> String {
    let macros = halves_macros(slicing);
    let mut s = format!(
        "/* ---- {e}: the raw entry runs {h} on each 256-bit half of its registers\n   (--entry-halves; README, \"The avx512 raw entry on two 256-bit halves\") ---- */\n",
        e = entry_fn,
        h = h_entry
    );
    for m in &macros {
        s.push_str(&format!("#pragma push_macro(\"{m}\")\n#undef {m}\n"));
    }
    s.push_str(&runtime::prelude(Arch::Avx2, slicing, 1, false));
    // (the AVX-512 program's ternlogs at 256 bits: AVX-512VL, which `NK_TARGET` enables)
    s.push_str(
        "#define NK_TERNLOG(a, b, c, imm) _mm256_ternarylogic_epi64((a), (b), (c), (imm))\n",
    );
    s.push_str(&format!(
        "typedef __m256i {h}DATATYPE;\n#define DATATYPE {h}DATATYPE\n",
        h = h_entry
    ));
    s.push_str(body);
    for m in &macros {
        s.push_str(&format!("#undef {m}\n#pragma pop_macro(\"{m}\")\n"));
    }
    s.push_str("/* ---- end of the 256-bit halves ---- */\n");
    s
}

/// The parameters of the AVX-512 raw entry's prototype `proto` (`void E__(params)`, every
/// parameter `DATATYPE name[d0][d1]..`, inputs first): (name, dimensions) each. `None` when a
/// parameter is not such an array, or there are none, or fewer than `n_inputs`.
fn halves_params(proto: &str, n_inputs: usize) -> Option<Vec<(String, Vec<usize>)>> {
    let open = proto.find('(')?;
    let close = proto.rfind(')')?;
    let mut v = Vec::new();
    for prm in proto[open + 1..close].split(", ") {
        let rest = prm.strip_prefix("DATATYPE ")?;
        let b = rest.find('[')?;
        let (name, dims) = rest.split_at(b);
        let d: Vec<usize> = dims
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split("][")
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        v.push((name.to_string(), d));
    }
    if v.is_empty() || n_inputs > v.len() {
        return None;
    }
    Some(v)
}

/// The `--entry-halves` raw entry: `proto` (the AVX-512 entry's `void E__(params)`, every
/// parameter `DATATYPE name[d]..`, inputs first) calls `hname` (the halves' entry, each
/// parameter strided: `OpTarget::strided`) on the low 256-bit half of every register (instances
/// 0-255 of the bitslice layout), then on the high half (256-511), in place: pass `h` reads
/// and writes the 32 bytes at `32 * h` of every 64-byte register and nothing else. So the
/// passes cannot disturb each other unless an output overlaps an input at an offset that is
/// not a whole number of registers (pass 0's stores would land in pass 1's inputs): then the
/// inputs are copied first (addresses only decide this, never data). `None` when a parameter
/// is not a `DATATYPE` array.
fn halves_entry(proto: &str, hname: &str, n_inputs: usize) -> Option<String> {
    let params = halves_params(proto, n_inputs)?;
    let hdt = format!("{}DATATYPE", hname);
    let (ins, outs) = params.split_at(n_inputs);
    let bytes = |d: &[usize]| -> usize { d.iter().product::<usize>() * 64 };
    let mut s = String::new();
    s.push_str("/* raw entry point (--entry-halves): the 256-bit program on each half of every register, in place */\n");
    s.push_str(&format!("NK_TARGET {}\n{{\n", proto));
    // (each input's source: itself, or its copy when an output overlaps it out of step)
    let mut conds = Vec::new();
    for (o, od) in outs {
        for (i, id) in ins {
            conds.push(format!(
                "(((uintptr_t){o} - (uintptr_t){i}) % 64 != 0 && (uintptr_t){o} < (uintptr_t){i} + {ib} && (uintptr_t){i} < (uintptr_t){o} + {ob})",
                o = o,
                i = i,
                ib = bytes(id),
                ob = bytes(od)
            ));
        }
    }
    s.push_str(&format!(
        "    const int nk_copy = {};\n",
        if conds.is_empty() {
            "0".to_string()
        } else {
            conds.join("\n        || ")
        }
    ));
    for (name, d) in ins {
        s.push_str(&format!(
            "    DATATYPE nk_c_{n}{dims} NK_ALIGN64;\n    const char *nk_s_{n} = (const char *){n};\n    if (nk_copy) {{\n        __builtin_memcpy(nk_c_{n}, {n}, sizeof(nk_c_{n}));\n        nk_s_{n} = (const char *)nk_c_{n};\n    }}\n",
            n = name,
            dims = dims(d)
        ));
    }
    // a parameter `T x[a][b]` of the halves' entry is `T x[a][2 * b]`: a pointer to rows of 2b
    let cast = |d: &[usize]| -> String {
        if d.len() == 1 {
            format!("({} *)", hdt)
        } else {
            format!(
                "({} (*){})",
                hdt,
                dims(&{
                    let mut v = d[1..].to_vec();
                    if let Some(l) = v.last_mut() {
                        *l *= 2;
                    }
                    v
                })
            )
        }
    };
    s.push_str("    for (int nk_h = 0; nk_h < 2; nk_h++)\n");
    let mut args = Vec::new();
    for (name, d) in ins {
        args.push(format!("{}(void *)(nk_s_{} + 32 * nk_h)", cast(d), name));
    }
    for (name, d) in outs {
        args.push(format!("{}(void *)((char *){} + 32 * nk_h)", cast(d), name));
    }
    s.push_str(&format!("        {}({});\n", hname, args.join(", ")));
    s.push_str("}\n");
    Some(s)
}

/// The `--entry-halves --no-halves-in-place` raw entry: `proto` (the AVX-512 entry's `void E__(params)`, every
/// parameter `DATATYPE name[d]..`, inputs first) splits each input register into its two
/// 256-bit halves (instances 0-255 and 256-511 of the bitslice layout), calls `hname` (the
/// halves' entry, same parameters) on each half, and joins the outputs. A
/// program with one input and one output of the same shape runs in place on its halves.
/// `None` when a parameter is not a `DATATYPE` array.
fn halves_entry_copies(proto: &str, hname: &str, n_inputs: usize) -> Option<String> {
    // (name, `[d0][d1]..`, atoms)
    let params: Vec<(String, String, usize)> = halves_params(proto, n_inputs)?
        .into_iter()
        .map(|(name, d)| {
            let atoms = d.iter().try_fold(1usize, |a, &x| a.checked_mul(x))?;
            Some((name, dims(&d), atoms))
        })
        .collect::<Option<_>>()?;
    let hdt = format!("{}DATATYPE", hname);
    let (ins, outs) = params.split_at(n_inputs);
    let in_place = ins.len() == 1 && outs.len() == 1 && ins[0].1 == outs[0].1;
    let mut s = String::new();
    s.push_str("/* raw entry point (--entry-halves): each input's two 256-bit halves copied apart, the 256-bit program on each, the outputs joined */\n");
    s.push_str(&format!("NK_TARGET {}\n{{\n", proto));
    let local = |name: &str| format!("nk_h_{}", name);
    for (i, (name, dims, _)) in params.iter().enumerate() {
        if in_place && i == 1 {
            continue;
        }
        s.push_str(&format!(
            "    {} {}[2]{} NK_ALIGN64;\n",
            hdt,
            local(name),
            dims
        ));
    }
    for (name, _, atoms) in ins {
        s.push_str(&format!(
            "    for (size_t nk_k = 0; nk_k < {a}; nk_k++) {{\n        const DATATYPE nk_v = ((const DATATYPE *){n})[nk_k];\n        (({h} *){l}[0])[nk_k] = _mm512_castsi512_si256(nk_v);\n        (({h} *){l}[1])[nk_k] = _mm512_extracti64x4_epi64(nk_v, 1);\n    }}\n",
            a = atoms,
            n = name,
            h = hdt,
            l = local(name)
        ));
    }
    for half in 0..2 {
        let args: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, (name, _, _))| {
                let n = if in_place && i == 1 {
                    &params[0].0
                } else {
                    name
                };
                format!("{}[{}]", local(n), half)
            })
            .collect();
        s.push_str(&format!("    {}({});\n", hname, args.join(", ")));
    }
    for (i, (name, _, atoms)) in outs.iter().enumerate() {
        let l = if in_place && i == 0 {
            local(&params[0].0)
        } else {
            local(name)
        };
        s.push_str(&format!(
            "    for (size_t nk_k = 0; nk_k < {a}; nk_k++)\n        ((DATATYPE *){n})[nk_k] = _mm512_inserti64x4(_mm512_castsi256_si512((({h} *){l}[0])[nk_k]), (({h} *){l}[1])[nk_k], 1);\n",
            a = atoms,
            n = name,
            h = hdt,
            l = l
        ));
    }
    s.push_str("}\n");
    Some(s)
}

/// Word-size facts of a program, checked against the target.
struct Shape {
    /// Uniform word size of every atom (0 = mixed, only on `std` vslice).
    word: u32,
    /// The C type of `DATATYPE`.
    datatype: String,
    /// Word size used for `instances_per_call`.
    inst_bits: u32,
}

fn shape(prog: &Program, arch: Arch) -> Result<Shape, CodegenError> {
    let mut sizes: Vec<u32> = prog
        .nodes
        .iter()
        .flat_map(|n| n.vars.iter().map(|v| v.bits))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let entry = prog.entry();
    let entry_bits = entry
        .inputs
        .iter()
        .chain(&entry.outputs)
        .flat_map(|p| p.atoms.iter().map(|a| entry.bits(*a)))
        .max()
        .unwrap_or_else(|| sizes.iter().copied().max().unwrap_or(64));
    let list = sizes
        .iter()
        .map(|b| format!("u{}", b))
        .collect::<Vec<_>>()
        .join(", ");
    let word = match sizes.as_slice() {
        [] => 1,
        [w] => *w,
        _ => 0,
    };
    let slicing = prog.slicing;
    match (arch, slicing) {
        (_, Slicing::B) => {
            if sizes.iter().any(|&b| b != 1) {
                return Err(CodegenError(
                    "internal error: bitsliced program with atoms wider than one bit".into(),
                ));
            }
            Ok(Shape {
                word: 1,
                datatype: runtime::datatype(arch, slicing, 1).to_string(),
                inst_bits: 1,
            })
        }
        (Arch::Std, Slicing::V) => {
            let _ = entry_bits;
            let dt = runtime::std_container(std_v_datatype_bits(entry));
            Ok(Shape {
                word,
                datatype: dt.to_string(),
                inst_bits: entry_bits,
            })
        }
        (_, Slicing::V) => {
            if word == 0 {
                return Err(CodegenError(format!(
                    "vslice on {} needs every word of the program to have the same size, found {} (mixed sizes work with --arch std)",
                    arch, list
                )));
            }
            if (2..8).contains(&word) {
                // C8: words of 2..7 bits sit zero-extended in 8-bit lanes (as usubac's do).
                return Ok(Shape {
                    word,
                    datatype: runtime::datatype(arch, slicing, 8).to_string(),
                    inst_bits: 8,
                });
            }
            if ![1, 8, 16, 32, 64].contains(&word) {
                return Err(CodegenError(format!(
                    "vslice on {} has no lanes of {} bits (lane sizes: 8, 16, 32, 64, and 1-bit words laid out as in bitslice); use --arch std, -B or -H",
                    arch, word
                )));
            }
            Ok(Shape {
                word,
                datatype: runtime::datatype(arch, slicing, word).to_string(),
                inst_bits: word,
            })
        }
        (_, Slicing::H) => {
            if word == 0 {
                return Err(CodegenError(format!(
                    "hslice on {} needs every word of the program to have the same size, found {}",
                    arch, list
                )));
            }
            let l = arch.hslice_lane_bits();
            let s = arch.hslice_slot_bits(word);
            if s == 0 || (arch != Arch::Std && !l.is_multiple_of(word) && !s.is_multiple_of(8)) {
                return Err(CodegenError(format!(
                    "hslice on {} cannot hold {}-bit words: the word size must divide the {}-bit lane (1, 2, 4, 8, 16, 32, 64)",
                    arch, word, l
                )));
            }
            Ok(Shape {
                word,
                datatype: runtime::datatype(arch, slicing, word).to_string(),
                inst_bits: word,
            })
        }
    }
}

use crate::runtime;

/// Generates the C file and header for `prog` (verified IR) on `cfg.arch`.
pub fn generate(prog: &Program, cfg: &CodegenConfig) -> Result<COutput, CodegenError> {
    generate_full(prog, cfg, &AbiConfig::default(), usize::MAX)
}

/// [`generate`] with usubac's entry ABI options.
pub fn generate_with(
    prog: &Program,
    cfg: &CodegenConfig,
    abi: &AbiConfig,
) -> Result<COutput, CodegenError> {
    generate_full(prog, cfg, abi, usize::MAX)
}

/// [`generate`], giving up (with a message naming the limit) as soon as the C text passes
/// `max_bytes` (the work budget: `--max-ops` × [`C_BYTES_PER_OP`]).
pub fn generate_limited(
    prog: &Program,
    cfg: &CodegenConfig,
    max_bytes: usize,
) -> Result<COutput, CodegenError> {
    generate_full(prog, cfg, &AbiConfig::default(), max_bytes)
}

/// [`generate`] with every option: usubac's entry ABI and the C size limit.
pub fn generate_full(
    prog: &Program,
    cfg: &CodegenConfig,
    abi: &AbiConfig,
    max_bytes: usize,
) -> Result<COutput, CodegenError> {
    generate_over(prog, None, None, None, cfg, abi, max_bytes)
}

/// [`generate_full`], with the packed entry's whole steps run by `kernel`: `prog` compiled
/// again with interleaving (factor k > 1, `opt::interleave`; see `packed::emit_over`). The
/// kernel's functions are `static` and named apart from `prog`'s (its entry is
/// `<entry>__x<k>`); the raw entry and everything the header says are `prog`'s. Without a
/// packed API (usubac's ABI options) the kernel is not emitted.
///
/// `consts_prog`, where given, is the program `E__with_consts` (the raw entry taking compact
/// prepared consts, `AbiConfig::compact_consts`) is compiled from instead of `prog`: the same
/// source optimised with other loop decisions (`driver::packed_consts_program`). Its entry
/// must take and return what `prog`'s does; otherwise `prog` is used.
pub fn generate_over(
    prog: &Program,
    kernel: Option<&Program>,
    consts_prog: Option<&Program>,
    halves: Option<(&Program, Arch, bool)>,
    cfg: &CodegenConfig,
    abi: &AbiConfig,
    max_bytes: usize,
) -> Result<COutput, CodegenError> {
    let too_big = |what: &str| {
        CodegenError(format!(
            "the generated C is larger than {} bytes ({}; the work budget allows {} bytes of C per operation): raise it with `--max-ops N`",
            max_bytes, what, C_BYTES_PER_OP
        ))
    };
    let arch = cfg.arch;
    let slicing = prog.slicing;
    let mut sh = shape(prog, arch)?;
    let mut instances_override = None;
    let mut lane_bits = arch.hslice_lane_bits();
    if let Some(n) = abi.bits_per_reg {
        // C3: on std in -B/-H, DATATYPE is uintN_t.
        match (arch, slicing) {
            (Arch::Std, Slicing::B) if n != 64 => {
                sh.datatype = format!("uint{}_t", n);
                instances_override = Some(n as usize);
            }
            (Arch::Std, Slicing::H) if n != 64 => {
                // Lanes of N bits: m slots of N/m bits, so N/m instances per call.
                let m = sh.inst_bits.max(1);
                if n < m {
                    return Err(CodegenError(format!("`-bits-per-reg {}` in -H cannot hold {}-bit words: each bit of a word needs a slot of at least one bit of the register", n, m)));
                }
                sh.datatype = format!("uint{}_t", n);
                lane_bits = n;
                instances_override = Some((n / m) as usize);
            }
            _ => {}
        }
    }
    let t = OpTarget {
        arch,
        slicing,
        lane_bits,
        half: false,
        strided: false,
        state_loads: cfg.state_loads,
        loop_align: cfg.loop_align,
    };
    let entry = prog.entry();
    let instances = instances_override
        .unwrap_or_else(|| instances_per_call(arch, slicing, sh.inst_bits))
        * prog.interleave.max(1) as usize;

    // Global names: node functions, the DATATYPE typedef.
    let mut globals = Namer::new();
    let entry_fn = format!("{}__", c_emit::sanitize(&entry.name));
    globals.reserve(&entry_fn);
    let dt_name = format!("{}DATATYPE", entry_fn);
    globals.reserve(&dt_name);
    let default_abi =
        !(instances_override.is_some() || abi.lf || abi.no_arr_entry || abi.entry_bit_params);
    // The interleaved kernel behind the packed entry (only where the packed API exists).
    let kernel = kernel.filter(|k| {
        default_abi
            && shape(k, arch).is_ok_and(|ks| ks.datatype == sh.datatype)
            && packed::kernel_fits(prog, k, arch)
    });
    let kernel_fn = kernel.map(|k| globals.fresh(&format!("{}x{}", entry_fn, k.interleave)));
    let fn_names = function_names(prog, &entry_fn, &mut globals);
    let kernel_names = kernel
        .zip(kernel_fn.as_ref())
        .map(|(k, kf)| function_names(k, kf, &mut globals));
    // The raw entry again, taking the packed API's compact prepared consts (`E__with_consts`).
    let with_consts =
        abi.compact_consts && default_abi && kernel.is_none() && compact_consts_apply(prog, arch);
    let wc_prog = consts_prog
        .filter(|c| same_entry_params(prog, c))
        .unwrap_or(prog);
    let wc_names = with_consts.then(|| {
        let wf = globals.fresh(&format!("{}with_consts", entry_fn));
        function_names(wc_prog, &wf, &mut globals)
    });

    // `--entry-halves` (bitslice on AVX-512): the raw entry runs `halves` (optimised for
    // `h_arch`) on each 256-bit half of its registers, in place ([`halves_entry`]) or on
    // copies ([`halves_entry_copies`]).
    let halves = halves.filter(|(h, h_arch, _)| {
        arch == Arch::Avx512
            && slicing == Slicing::B
            && default_abi
            && matches!(h_arch, Arch::Avx2 | Arch::Avx512)
            && same_entry_params(prog, h)
    });
    let halves_names = halves.map(|(h, _, _)| {
        let hf = globals.fresh(&format!("{}h256_", entry_fn));
        function_names(h, &hf, &mut globals)
    });

    let mut helpers = Helpers::default();
    let mut funcs = String::new();
    let emit_all = |t: OpTarget,
                    p: &Program,
                    names: &[String],
                    entry: EntryKind,
                    funcs: &mut String,
                    helpers: &mut Helpers|
     -> Result<String, CodegenError> {
        // The compact-const copy: its entry and the loop bodies fed from its const inputs
        // read one uint64_t per register.
        let compact = entry == EntryKind::WithConsts;
        // Port-5 rotations relieve one copy's port pressure; interleaved copies have the ILP
        // already (measured: Ascon p8 packed 0.968 with them in its 2-way kernel).
        helpers.rot64_p5 = p.interleave <= 1 && cfg.uarch == crate::target::Uarch::Intel;
        let mut proto_out = String::new();
        // Nodes that are the body of a kept loop (computed once: per function it was quadratic),
        // and the loop-carried values each may keep in memory.
        let is_loop_body = p.loop_bodies();
        let carried = spill::carried(p);
        // Explicit spill plans (`spill.rs` says where they apply), where every atom is a DATATYPE.
        let plans: Vec<Option<spill::Plan>> = p
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if !cfg.spill
                    || i + 1 == p.nodes.len()
                    || !n.vars.iter().all(|v| t.atom_type(v.bits) == "DATATYPE")
                {
                    return None;
                }
                spill::plan_for(
                    n,
                    t.arch,
                    t.slicing,
                    is_loop_body[i],
                    if n.lockstep { &carried[i] } else { &[] },
                )
            })
            .collect();
        // Kept loops whose state lives in memory (`memloop.rs` says where).
        let memloops: Vec<Option<memloop::MemLoop>> = if cfg.mem_loops {
            let regs = crate::target::Target::new(t.arch).n_regs as usize;
            let last = p.nodes.len() - 1;
            let eligible = |i: usize| {
                i != last
                    && plans[i].is_none()
                    && array_abi_type(&p.nodes[i], &t).as_deref() == Some("DATATYPE")
            };
            let direct = |pi: usize| direct_array_param(&t, abi, &p.nodes[last].inputs[pi]);
            let const_bits = t.slicing == Slicing::B
                && matches!(t.arch, Arch::Std | Arch::Sse | Arch::Avx2 | Arch::Avx512);
            // (a half's strided element: 32 bytes used of each 64-byte register, and the
            // cache lines of the whole register touched)
            let reg_bytes = if t.strided {
                Arch::Avx512.reg_bits() as usize / 8
            } else if t.half {
                Arch::Avx2.reg_bits() as usize / 8
            } else {
                t.arch.reg_bits() as usize / 8
            };
            memloop::plans(
                p,
                regs,
                reg_bytes,
                &eligible,
                &direct,
                const_bits,
                cfg.loop_regs,
                t.arch,
            )
        } else {
            vec![None; p.nodes.len()]
        };
        for (i, n) in p.nodes.iter().enumerate() {
            let kind = if i + 1 == p.nodes.len() {
                entry
            } else {
                EntryKind::Node
            };
            let (text, proto) = emit_function(
                p,
                &t,
                abi,
                helpers,
                &globals,
                names,
                &is_loop_body,
                &plans,
                &memloops,
                i,
                kind,
                compact,
            )
            .map_err(|e| CodegenError(format!("node `{}`: {}", n.name, e)))?;
            funcs.push_str(&text);
            funcs.push('\n');
            if funcs.len() > max_bytes {
                return Err(too_big(&format!("at node `{}`", n.name)));
            }
            if kind != EntryKind::Node {
                proto_out = proto;
            }
        }
        Ok(proto_out)
    };
    let entry_proto = emit_all(t, prog, &fn_names, EntryKind::Raw, &mut funcs, &mut helpers)?;
    if let (Some((h, h_arch, in_place)), Some(hn)) = (halves, &halves_names) {
        let th = OpTarget {
            arch: h_arch,
            slicing,
            lane_bits: Arch::Avx2.hslice_lane_bits(),
            half: true,
            strided: in_place,
            // (the rule was measured on whole AVX2 programs, not on an AVX-512 entry's halves)
            state_loads: cfg.state_loads.or(Some(false)),
            loop_align: cfg.loop_align,
        };
        // The halves' helpers are typed by their DATATYPE: they get names of their own and
        // go in the section.
        let mut hhelpers = Helpers::default();
        hhelpers.name_prefix = "h256_";
        let mut hf = String::new();
        emit_all(th, h, hn, EntryKind::Kernel, &mut hf, &mut hhelpers)?;
        let h_entry = &hn[hn.len() - 1];
        let w = if in_place {
            halves_entry(&entry_proto, h_entry, entry.inputs.len())
        } else {
            halves_entry_copies(&entry_proto, h_entry, entry.inputs.len())
        };
        if let Some(w) = w {
            let mut body: String = hhelpers.defs.iter().map(|d| format!("{}\n", d)).collect();
            body.push_str(&hf);
            funcs = halves_section(slicing, &entry_fn, h_entry, &body);
            funcs.push_str(&w);
        }
    }
    // The kernel belongs to the packed API: its functions (and the permutation helpers only
    // it uses) go in the packed section, so the rest of the file is the raw program's.
    let mut kernel_c = String::new();
    let helpers_before = helpers.defs.len();
    if let (Some(k), Some(kn)) = (kernel, &kernel_names) {
        kernel_c.push_str(&format!(
            "/* ---- the {}-way interleaved kernel behind {}packed (not part of the raw API) ---- */\n",
            k.interleave, entry_fn
        ));
        let mut kf = String::new();
        emit_all(t, k, kn, EntryKind::Kernel, &mut kf, &mut helpers)?;
        for d in &helpers.defs[helpers_before..] {
            kernel_c.push_str(d);
            kernel_c.push('\n');
        }
        kernel_c.push_str(&kf);
    }
    let mut wc_proto = None;
    if let Some(wn) = &wc_names {
        kernel_c.push_str(&format!(
            "/* ---- {e}with_consts: {e} taking the const inputs as {e}prepare_consts leaves them (one uint64_t per register) ---- */\n",
            e = entry_fn
        ));
        let mut wf = String::new();
        let before = helpers.defs.len();
        wc_proto = Some(emit_all(
            t,
            wc_prog,
            wn,
            EntryKind::WithConsts,
            &mut wf,
            &mut helpers,
        )?);
        for d in &helpers.defs[before..] {
            kernel_c.push_str(d);
            kernel_c.push('\n');
        }
        kernel_c.push_str(&wf);
    }
    helpers.defs.truncate(helpers_before);

    // ---- packed API: filled in by `packed::emit` (src/codegen/packed.rs) ----
    let (packed_c, packed_h) = if !default_abi {
        let note = "/* packed API not available for this program:\n   it is generated for nakiri's default entry ABI (no -bits-per-reg, -lf, -no-arr-entry or per-bit S-box entry). */\n".to_string();
        (note.clone(), note)
    } else {
        let wc_fn = wc_names.as_ref().and_then(|n| n.last().map(|s| s.as_str()));
        let (c, mut h) = packed_section(prog, kernel.zip(kernel_fn.as_deref()), wc_fn, arch)?;
        if let (Some(wf), Some(proto)) = (wc_fn, &wc_proto) {
            let attr = runtime::target_attribute(arch);
            h.push_str(&format!(
                "/* {wf}: {e} with its const inputs as {e}prepare_consts leaves them in {e}consts\n   (one uint64_t, 0 or all ones, per register); the other parameters as for {e}. */\n#define {e}HAS_WITH_CONSTS 1\n{}{}{};\n",
                attr,
                if attr.is_empty() { "" } else { " " },
                proto.replace("DATATYPE", &dt_name),
                e = entry_fn
            ));
        }
        (format!("{}{}", kernel_c, c), h)
    };
    if funcs.len().saturating_add(packed_c.len()) > max_bytes {
        return Err(too_big("with the packed entry point"));
    }

    let word_desc = if sh.word == 0 {
        "mixed".to_string()
    } else {
        sh.word.to_string()
    };
    let desc = format!(
        "Generated by nakiri. Do not edit.\nslicing {}, word size {}, target {}, {} instance(s) per call of {}().\nInterface: {}",
        slicing, word_desc, arch, instances, entry_fn, cfg.header_name
    );
    let banner = format!(
        "/*\n{}{} */\n",
        comment_lines(&cfg.banner),
        comment_lines(&desc)
    );

    // ---- .c ----
    let mut c = String::new();
    c.push_str(&banner);
    c.push('\n');
    let lane_word = if slicing == Slicing::V && (2..8).contains(&sh.word) {
        8
    } else {
        sh.word
    };
    // (the multiply helper only when some function multiplies: `NK_MUL<w>(`)
    let mul = funcs.contains("NK_MUL")
        || packed_c.contains("NK_MUL")
        || helpers.defs.iter().any(|d| d.contains("NK_MUL"));
    c.push_str(&runtime::prelude(arch, slicing, lane_word, mul));
    if cfg.opaque_not && matches!(arch, Arch::Sse | Arch::Avx2) {
        c.push_str(
            "#undef NK_NOT\n#define NK_NOT(a) NK_XOR((a), NK_ONES_OPAQUE) /* --opaque-not */\n",
        );
    }
    c.push('\n');
    c.push_str(&format!("typedef {} {};\n", sh.datatype, dt_name));
    c.push_str(&format!("#define DATATYPE {}\n", dt_name));
    c.push_str(align64_c(arch));
    c.push('\n');
    if !helpers.defs.is_empty() {
        c.push_str("/* ---- bit and slot permutations ---- */\n");
        for d in &helpers.defs {
            c.push_str(d);
            c.push('\n');
        }
    }
    c.push_str("/* ---- nodes ---- */\n");
    c.push_str(&funcs);
    if !packed_c.is_empty() {
        c.push_str(PACKED_BEGIN);
        c.push_str(&packed_c);
        c.push_str(PACKED_END);
    }

    // ---- .h ----
    let guard = format!(
        "NAKIRI_{}_{}",
        c_emit::sanitize(&cfg.header_name).to_ascii_uppercase(),
        c_emit::sanitize(&entry.name).to_ascii_uppercase()
    );
    let mut h = String::new();
    h.push_str(&banner);
    h.push_str(&format!("#ifndef {g}\n#define {g}\n\n", g = guard));
    h.push_str(runtime::includes(arch));
    h.push('\n');
    h.push_str(&format!("typedef {} {};\n", sh.datatype, dt_name));
    h.push_str(&format!(
        "/* instances processed by one call of {}() */\n",
        entry_fn
    ));
    h.push_str(&format!("#define {}INSTANCES {}\n\n", entry_fn, instances));
    let attr = runtime::target_attribute(arch);
    let proto = entry_proto.replace("DATATYPE", &dt_name);
    if attr.is_empty() {
        h.push_str(&format!("{};\n", proto));
    } else {
        h.push_str(&format!("{} {};\n", attr, proto));
    }
    if !packed_h.is_empty() {
        h.push_str(PACKED_BEGIN);
        h.push_str(&packed_h);
        h.push_str(PACKED_END);
    }
    h.push_str(&format!("\n#endif /* {} */\n", guard));
    Ok(COutput { c, h })
}

/// C function names of `prog`'s nodes: `entry_fn` for the entry, fresh names for the others.
fn function_names(prog: &Program, entry_fn: &str, globals: &mut Namer) -> Vec<String> {
    let last = prog.nodes.len().saturating_sub(1);
    prog.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if i == last {
                entry_fn.to_string()
            } else {
                globals.fresh(&n.name)
            }
        })
        .collect()
}

/// What kind of C function a node becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EntryKind {
    /// A `static` node function (arguments in registers).
    Node,
    /// The raw entry point (usubac's ABI, exported).
    Raw,
    /// The entry of the interleaved kernel behind the packed entry: the raw ABI, `static`.
    Kernel,
    /// `E__with_consts`: the raw entry taking its `const` inputs in the packed API's compact
    /// prepared form ([`AbiConfig::compact_consts`]), exported.
    WithConsts,
}

/// The packed entry point's C definitions and header declarations.
/// ---- packed API hook: `packed::emit` is written separately in `src/codegen/packed.rs` ----
///
/// The raw entry point is what the original usubac produced, so a program whose raw entry can
/// be generated is not rejected because the packed API cannot cover it: both files then say
/// why the packed API is missing, in a comment inside the packed section.
fn packed_section(
    prog: &Program,
    kernel: Option<(&Program, &str)>,
    with_consts: Option<&str>,
    arch: Arch,
) -> Result<(String, String), CodegenError> {
    match packed::emit_over(prog, kernel, with_consts, arch) {
        Ok(r) => Ok(r),
        Err(e) => {
            let note = format!(
                "/* packed API not available for this program:\n{} */\n",
                comment_lines(&e.0)
            );
            Ok((note.clone(), note))
        }
    }
}

/// `-lf` in bitslice: a register whose every bit is `bit` (a C expression worth 0 or 1), with
/// no branch on it (the const input may be key material).
fn lf_bit_broadcast(arch: Arch, bit: &str) -> String {
    match arch {
        Arch::Std => format!("(DATATYPE)0 - (DATATYPE){}", bit),
        Arch::Sse => format!("_mm_set1_epi32((int)(0u - (uint32_t){}))", bit),
        Arch::Avx2 => format!("_mm256_set1_epi32((int)(0u - (uint32_t){}))", bit),
        Arch::Avx512 => format!("_mm512_set1_epi32((int)(0u - (uint32_t){}))", bit),
        Arch::Neon => format!("vdupq_n_u32(0u - (uint32_t){})", bit),
    }
}

/// `-lf` in hslice: the m-bit word `src` (a C `uintN_t` expression) laid out as an hslice
/// register, slot j all ones iff bit j (MSB first) of the word is set, built without a branch
/// by a generated helper `nk_lf_hK(w, half)` returning one 64-bit half of the lane.
fn lf_hslice_word(t: &OpTarget, helpers: &mut Helpers, m: u32, src: &str) -> String {
    let s = t.slot_bits(m);
    let lane = if t.arch == Arch::Std {
        t.lane_bits
    } else {
        128
    };
    let key = format!("lf-h/{}/{}/{}", m, s, lane);
    let name = helpers.get("nk_lf_h", key, |name| {
        let mut txt = format!(
            "/* -lf: an {}-bit const word as an hslice lane ({} bits per slot): slot j is all ones iff bit j (MSB first) is set; `half` selects bits 64*half.. of the lane */\nstatic inline uint64_t {}(uint64_t w, int half)\n{{\n    uint64_t lo = 0, hi = 0;\n",
            m, s, name
        );
        for j in 0..m {
            for h in 0..(lane as usize).div_ceil(64) as u32 {
                let base = h * 64;
                let (a, b) = ((j * s).max(base), ((j + 1) * s).min(base + 64));
                if a >= b {
                    continue;
                }
                let width = b - a;
                let mask = if width == 64 { u64::MAX } else { ((1u64 << width) - 1) << (a - base) };
                txt.push_str(&format!(
                    "    {} |= (UINT64_C(0) - ((w >> {}) & 1)) & {};\n",
                    if h == 0 { "lo" } else { "hi" },
                    m - 1 - j,
                    c_emit::lit(mask, 64)
                ));
            }
        }
        txt.push_str("    return half ? hi : lo;\n}\n");
        txt
    });
    if t.arch == Arch::Std {
        format!("(DATATYPE){}({}, 0)", name, src)
    } else {
        format!("NK_CONST128({n}({s}, 1), {n}({s}, 0))", n = name, s = src)
    }
}

/// One node as a C function. Returns (definition, prototype without `;` or attributes).
#[allow(clippy::too_many_arguments)]
fn emit_function(
    prog: &Program,
    t: &OpTarget,
    abi: &AbiConfig,
    helpers: &mut Helpers,
    globals: &Namer,
    fn_names: &[String],
    is_loop_body: &[bool],
    plans: &[Option<spill::Plan>],
    memloops: &[Option<memloop::MemLoop>],
    idx: usize,
    kind: EntryKind,
    compact: bool,
) -> Result<(String, String), String> {
    let is_entry = kind != EntryKind::Node;
    // (compact-const copy) entry input `pi` is a const input passed as one uint64_t per register
    let compact_param = |pi: usize| {
        compact
            && t.slicing == Slicing::B
            && prog
                .nodes
                .last()
                .is_some_and(|e| e.inputs.get(pi).is_some_and(|p| p.is_const))
    };
    let node = &prog.nodes[idx];
    // `globals` already holds every function name (`fresh` or `reserve`d above).
    let mut names = Namer::child(globals);
    let mut cname: Vec<Option<String>> = vec![None; node.vars.len()];
    let ty = |v: VarId| t.atom_type(node.bits(v));
    let mut params: Vec<String> = Vec::new();
    let mut prologue: Vec<String> = Vec::new();
    // (scalar-parameter style only) each input atom with its parameter name
    let mut scalar_inputs: Vec<(VarId, String)> = Vec::new();
    // Loads of input array elements, emitted just before their first use (in the scheduler's
    // order), so the C compiler does not keep every input live from the start. Safe with
    // in-place callers: every load still comes before the output stores, which are last.
    let mut loads: Vec<Option<String>> = vec![None; node.vars.len()];
    // (C lvalue, atom) pairs written at the end.
    let mut epilogue: Vec<(String, VarId)> = Vec::new();
    // (single-buffer memory form) per epilogue entry, the instruction after which it is stored
    // when later than its atom's definition (`memloop::single_buffer`)
    let mut epi_after: Vec<Option<usize>> = Vec::new();
    // Epilogue entries stored only when a flag is 0 (`if (!flag)`): an output array that a
    // kept loop's state lived in (`state_in_output`) already holds its values.
    let mut epi_cond: Vec<Option<String>> = Vec::new();
    // (entry) output parameters passed as one array: (parameter, C name, first epilogue entry)
    let mut out_arrays: Vec<(usize, String, usize)> = Vec::new();
    let std_v = t.arch == Arch::Std && t.slicing == Slicing::V;
    // (entry) the C name of each input parameter passed as an array read in place
    let mut param_names: Vec<Option<String>> = vec![None; node.inputs.len()];
    // (memory-form loop body) the outputs are stored as soon as they are computed
    let memory_form = memloops[idx].as_ref().filter(|_| !is_entry);
    // (memory form, `--state-loads`) each state input's memory expression, and the
    // instruction of its last read
    let mut state_src: Vec<Option<String>> = vec![None; node.vars.len()];
    let mut state_read: Vec<Option<usize>> = vec![None; node.vars.len()];

    // Atoms read by an instruction or written to an output (unused input array elements are
    // not loaded, so the C compiles warning-free).
    // (The gathered inputs a loop reads in place in an earlier loop's buffer are not read.)
    let in_place = gathers_in_place(node, memloops);
    let mut used = vec![false; node.vars.len()];
    for (i, ins) in node.body.iter().enumerate() {
        for_each_c_use(ins, in_place[i], memloops, |u| used[u.0 as usize] = true);
    }
    for a in node.flat_outputs() {
        used[a.0 as usize] = true;
    }
    if let Some(ml) = memory_form {
        // Only the outputs the loop stores are read (a state passed on unchanged is read from
        // the generation before instead): what only they needed is not emitted.
        used = vec![false; node.vars.len()];
        for (a, ws) in node.flat_outputs().iter().zip(&ml.outs) {
            if !ws.is_empty() {
                used[a.0 as usize] = true;
            }
        }
        for (i, ins) in node.body.iter().enumerate().rev() {
            if matches!(ins, Instr::Assign { dst, .. } if !used[dst.0 as usize]) {
                continue;
            }
            for_each_c_use(ins, in_place[i], memloops, |u| used[u.0 as usize] = true);
        }
    }
    if is_entry {
        let dt_bits = if std_v { std_v_datatype_bits(node) } else { 0 };
        // `x__3__1` for flat index i of c_dims (usubac's names of flattened elements).
        // R7: the parameters of usubac's database circuit, `a0, a1, …` in and `b0, …` out.
        let mut bit_param = 0usize;
        for (pi, p) in node.inputs.iter().enumerate() {
            let pname = names.fresh(&p.name);
            if direct_array_param(t, abi, p) {
                param_names[pi] = Some(pname.clone());
            }
            let whole_param = !(p.c_dims.is_empty() || abi.no_arr_entry || abi.entry_bit_params)
                || abi.lf && p.is_const;
            if whole_param && !p.atoms.iter().any(|a| used[a.0 as usize]) {
                // (an array parameter of the ABI the program never reads)
                prologue.push(format!("(void){};", pname));
            }
            if abi.lf && p.is_const {
                // -lf (C7): the const input is passed as uintN_t words and broadcast here.
                let m = p.word_bits;
                let n = runtime::std_container_bits(m);
                let bit_dim = t.slicing == Slicing::B && m > 1;
                let shape: Vec<usize> = if bit_dim {
                    p.c_dims[..p.c_dims.len() - 1].to_vec()
                } else {
                    p.c_dims.clone()
                };
                params.push(format!("uint{}_t {}{}", n, pname, dims(&shape)));
                let apw = if t.slicing == Slicing::B {
                    m as usize
                } else {
                    1
                };
                for w in 0..p.atoms.len() / apw {
                    let src = if shape.is_empty() {
                        pname.clone()
                    } else {
                        format!("{}{}", pname, index(&shape, w))
                    };
                    for j in 0..apw {
                        let a = p.atoms[w * apw + j];
                        if !used[a.0 as usize] {
                            continue;
                        }
                        let an = names.fresh(&node.var(a).name);
                        let e = match (t.arch, t.slicing) {
                            (Arch::Std, Slicing::V) => format!("{} & {}", src, c_emit::lit(crate::ir::mask(m), n)),
                            (_, Slicing::B) => lf_bit_broadcast(t.arch, &format!("(({} >> {}) & 1)", src, m as usize - 1 - j)),
                            (_, Slicing::V) if [8, 16, 32, 64].contains(&m) => format!("NK_SET1_{}({})", m, src),
                            (_, Slicing::V) if (2..8).contains(&m) => format!("NK_SET1_8({} & {})", src, c_emit::lit(crate::ir::mask(m), 8)),
                            (_, Slicing::H) => lf_hslice_word(t, helpers, m, &src),
                            _ => return Err(format!("`-lf` (const inputs passed unsliced) is not supported for {}-bit words in {}-slicing on {}", m, t.slicing, t.arch)),
                        };
                        prologue.push(format!("{} {} = {};", ty(a), an, e));
                        cname[a.0 as usize] = Some(an);
                    }
                }
                continue;
            }
            if p.c_dims.is_empty() || abi.no_arr_entry || abi.entry_bit_params {
                for (i, &a) in p.atoms.iter().enumerate() {
                    let n =
                        atom_param_name(&mut names, abi, "a", &mut bit_param, &pname, &p.c_dims, i);
                    params.push(format!("DATATYPE {}", n));
                    if !used[a.0 as usize] {
                        // (a parameter of the ABI the program never reads: -Wunused-parameter)
                        prologue.push(format!("(void){};", n));
                    }
                    let m = node.bits(a);
                    if std_v && m < dt_bits && used[a.0 as usize] {
                        prologue.push(format!(
                            "{} &= {};",
                            n,
                            c_emit::lit(crate::ir::mask(m), dt_bits)
                        ));
                    }
                    cname[a.0 as usize] = Some(n);
                }
            } else if compact_param(pi) {
                // One uint64_t per register (0 or all ones), broadcast where read.
                params.push(format!("uint64_t {}{}", pname, dims(&p.c_dims)));
                for (i, &a) in p.atoms.iter().enumerate() {
                    if used[a.0 as usize] {
                        let w = format!("{}{}", pname, index(&p.c_dims, i));
                        cname[a.0 as usize] = Some(bcast64(t.width_arch(), &w));
                    }
                }
            } else {
                params.push(array_param(t, &pname, &p.c_dims));
                for (i, &a) in p.atoms.iter().enumerate() {
                    if !used[a.0 as usize] {
                        continue;
                    }
                    let m = node.bits(a);
                    let src = format!("{}{}", pname, t.index(&p.c_dims, i));
                    if std_v && m < runtime::std_container_bits(m) {
                        let an = names.fresh(&node.var(a).name);
                        loads[a.0 as usize] = Some(format!(
                            "{} {} = {} & {};",
                            ty(a),
                            an,
                            src,
                            c_emit::lit(crate::ir::mask(m), 64)
                        ));
                        cname[a.0 as usize] = Some(an);
                    } else if std_v {
                        // std vslice: the atom's C type may be narrower than DATATYPE; the
                        // typed local truncates what the caller left above the word.
                        let an = names.fresh(&node.var(a).name);
                        loads[a.0 as usize] = Some(format!("{} {} = {};", ty(a), an, src));
                        cname[a.0 as usize] = Some(an);
                    } else {
                        // Read from the argument array where used: the C compiler folds the
                        // load into the instruction instead of keeping (and spilling) a copy.
                        cname[a.0 as usize] = Some(src);
                    }
                }
            }
        }
        bit_param = 0;
        for (po, p) in node.outputs.iter().enumerate() {
            let pname = names.fresh(&p.name);
            if p.c_dims.is_empty() || abi.no_arr_entry || abi.entry_bit_params {
                for (i, &a) in p.atoms.iter().enumerate() {
                    let n =
                        atom_param_name(&mut names, abi, "b", &mut bit_param, &pname, &p.c_dims, i);
                    params.push(format!("DATATYPE *{}", n));
                    epilogue.push((format!("*{}", n), a));
                }
            } else {
                params.push(array_param(t, &pname, &p.c_dims));
                out_arrays.push((po, pname.clone(), epilogue.len()));
                for (i, &a) in p.atoms.iter().enumerate() {
                    epilogue.push((format!("{}{}", pname, t.index(&p.c_dims, i)), a));
                }
            }
        }
    } else if let Some(ml) = memory_form {
        // Memory-form loop body (`memloop.rs`): state in, state out, this iteration's
        // inputs, the loop's constant inputs, this iteration's outputs.
        // (compact-const copy) the iteration inputs, or the indexed table's base, are a const
        // input of the entry: one uint64_t per register
        let x_compact =
            matches!(ml.each_src, memloop::EachSrc::Param { param, .. } if compact_param(param));
        let b_compact =
            matches!(&ml.tables.indexed, Some((memloop::Base::Param(p), _)) if compact_param(*p));
        let group_of = |names: &mut Namer,
                        n: usize,
                        nm: &str,
                        out: bool,
                        ety: &str,
                        params: &mut Vec<String>| {
            let name = names.fresh(nm);
            if n > 0 {
                params.push(format!(
                    "{}{} *restrict {}",
                    if out { "" } else { "const " },
                    ety,
                    name
                ));
            }
            name
        };
        let group = |names: &mut Namer, n: usize, nm: &str, out: bool, params: &mut Vec<String>| {
            group_of(names, n, nm, out, "DATATYPE", params)
        };
        let (s_in, s_out) = if ml.single.is_some() {
            // one buffer, read and overwritten in place (`memloop::single_buffer`)
            let name = names.fresh("nk_st");
            params.push(format!("DATATYPE *{}", name));
            (vec![name.clone()], name)
        } else {
            let s_in: Vec<String> = (0..ml.ring - 1)
                .map(|b| {
                    group(
                        &mut names,
                        ml.n_slots,
                        &format!("nk_s{}", b),
                        false,
                        &mut params,
                    )
                })
                .collect();
            (
                s_in,
                group(&mut names, ml.n_slots, "nk_t", true, &mut params),
            )
        };
        let x_in = group_of(
            &mut names,
            ml.n_each,
            "nk_x",
            false,
            if x_compact { "uint64_t" } else { "DATATYPE" },
            &mut params,
        );
        let c_in = group(&mut names, ml.n_same, "nk_c", false, &mut params);
        let y_out = group(&mut names, ml.n_y, "nk_y", true, &mut params);
        let b_in = group_of(
            &mut names,
            ml.tables.indexed.is_some() as usize,
            "nk_b",
            false,
            if b_compact { "uint64_t" } else { "DATATYPE" },
            &mut params,
        );
        let ix_in = names.fresh("nk_ix");
        if ml.tables.indexed.is_some() {
            params.push(format!(
                "const {} *restrict {}",
                ml.tables.index_type(),
                ix_in
            ));
        }
        let kb_in = names.fresh("nk_kb");
        if !ml.tables.const_bits.is_empty() {
            params.push(format!("const uint64_t *restrict {}", kb_in));
        }
        // the state slots kept in registers (`memloop::register_slots`): one pointer each, to
        // a local of the caller (with two buffers, a second one for the slot's next value)
        let mut reg_next: crate::fxhash::FxHashMap<usize, String> =
            crate::fxhash::FxHashMap::default();
        let reg_slot: crate::fxhash::FxHashMap<usize, String> = ml
            .reg_slots
            .iter()
            .map(|&j| {
                let name = names.fresh(&format!("nk_r{}", j));
                params.push(format!("DATATYPE *restrict {}", name));
                if ml.single.is_none() {
                    let next = names.fresh(&format!("nk_rn{}", j));
                    params.push(format!("DATATYPE *restrict {}", next));
                    reg_next.insert(j, next);
                }
                (j, name)
            })
            .collect();
        // which state buffers the body reads and writes (a slot kept in a register is not)
        let mut s_read = vec![false; s_in.len()];
        let mut s_written = false;
        for (&a, w) in node.flat_inputs().iter().zip(&ml.ins) {
            if used[a.0 as usize] {
                cname[a.0 as usize] = Some(match w {
                    memloop::In::State { slot, .. } if reg_slot.contains_key(slot) => {
                        format!("(*{})", reg_slot[slot])
                    }
                    memloop::In::State { back, slot } => {
                        s_read[*back] = true;
                        let e = format!("{}[{}]", s_in[*back], t.at(*slot));
                        if t.state_loads != Some(false) {
                            state_src[a.0 as usize] = Some(e.clone());
                        }
                        e
                    }
                    memloop::In::Each(k) if x_compact => {
                        bcast64(t.width_arch(), &format!("{}[{}]", x_in, k))
                    }
                    memloop::In::Each(k) => format!("{}[{}]", x_in, t.at(*k)),
                    memloop::In::Same(k) => format!("{}[{}]", c_in, t.at(*k)),
                    memloop::In::Indexed(k) if b_compact => {
                        bcast64(t.width_arch(), &format!("{}[{}[{}]]", b_in, ix_in, k))
                    }
                    memloop::In::Indexed(k) if t.stride() > 1 => {
                        format!("{}[{} * {}[{}]]", b_in, t.stride(), ix_in, k)
                    }
                    memloop::In::Indexed(k) => format!("{}[{}[{}]]", b_in, ix_in, k),
                    memloop::In::ConstBit(k) => {
                        bcast64(t.width_arch(), &format!("{}[{}]", kb_in, k))
                    }
                });
            }
        }
        for (&a, ws) in node.flat_outputs().iter().zip(&ml.outs) {
            for w in ws {
                epilogue.push((
                    match w {
                        memloop::Out::State(j) if reg_slot.contains_key(j) => {
                            format!("*{}", reg_next.get(j).unwrap_or(&reg_slot[j]))
                        }
                        memloop::Out::State(j) => {
                            s_written = true;
                            format!("{}[{}]", s_out, t.at(*j))
                        }
                        memloop::Out::Each(k) => format!("{}[{}]", y_out, t.at(*k)),
                    },
                    a,
                ));
                epi_after.push(match w {
                    memloop::Out::State(j) => ml.single.as_ref().and_then(|after| after[*j]),
                    _ => None,
                });
            }
        }
        // State buffers the body never touches (every slot it reads or writes kept in a
        // register, or none): marked used, so the C compiles warning-free with -Wextra.
        let single = ml.single.is_some();
        for (b, name) in s_in.iter().enumerate() {
            if !(s_read[b] || single && s_written) {
                prologue.push(format!("(void){};", name));
            }
        }
        if !single && ml.n_slots > 0 && !s_written {
            prologue.push(format!("(void){};", s_out));
        }
    } else if let Some(elem) = array_abi_type(node, t) {
        // Array ABI: `const T in[N], T out[M]` (far cheaper for C compilers than hundreds of
        // scalar and pointer parameters).
        let ins = node.flat_inputs();
        let outs = node.flat_outputs();
        let in_name = names.fresh("nk_in");
        let out_name = names.fresh("nk_out");
        if !ins.is_empty() {
            params.push(format!("const {} {}[{}]", elem, in_name, ins.len()));
        }
        if !outs.is_empty() {
            params.push(format!("{} {}[{}]", elem, out_name, outs.len()));
        }
        for (i, &a) in ins.iter().enumerate() {
            if !used[a.0 as usize] {
                continue;
            }
            cname[a.0 as usize] = Some(format!("{}[{}]", in_name, i));
        }
        for (i, &a) in outs.iter().enumerate() {
            epilogue.push((format!("{}[{}]", out_name, i), a));
        }
    } else {
        for &a in &node.flat_inputs() {
            let an = names.fresh(&node.var(a).name);
            params.push(format!("{} {}", ty(a), an));
            scalar_inputs.push((a, an.clone()));
            cname[a.0 as usize] = Some(an);
        }
        // Output pointers are named after the atoms they receive (`<atom>__out`).
        for p in &node.outputs {
            for &a in &p.atoms {
                let on = names.fresh(&format!("{}__out", node.var(a).name));
                params.push(format!("{} *{}", ty(a), on));
                epilogue.push((format!("*{}", on), a));
            }
        }
    }

    // Names of the remaining atoms, in definition order.
    for ins in &node.body {
        for d in ins.defs() {
            if cname[d.0 as usize].is_none() {
                cname[d.0 as usize] = Some(names.fresh(&node.var(d).name));
            }
        }
    }
    let plan = &plans[idx];
    if let Some(p) = plan {
        if !p.homes.is_empty() {
            params.push(format!("DATATYPE nk_home[{}]", p.homes.len()));
        }
    }
    // Scalar parameters the body never reads (unused inputs; homed ones, read from
    // `nk_home`): marked used, so the C compiles warning-free with -Wextra.
    for (i, (a, an)) in scalar_inputs.iter().enumerate() {
        if !used[a.0 as usize]
            || plan
                .as_ref()
                .is_some_and(|p| p.homes.iter().any(|h| h.input == i))
        {
            prologue.push(format!("(void){};", an));
        }
    }
    let cname = std::cell::RefCell::new(cname);
    let nm = |v: VarId| {
        cname.borrow()[v.0 as usize]
            .clone()
            .unwrap_or_else(|| "/*undefined*/0".to_string())
    };

    let mut body: Vec<String> = prologue;
    if let Some(p) = plan {
        let homes = if p.homes.is_empty() {
            String::new()
        } else {
            format!(", {} kept in memory across iterations", p.homes.len())
        };
        body.push(format!(
            "/* explicit spills: {} values{} (target/spill.rs) */",
            p.slots, homes
        ));
        if p.slots > 0 {
            body.push(format!("DATATYPE nk_sp[{}] NK_ALIGN64;", p.slots));
        }
    }
    let mut emit_actions = |body: &mut Vec<String>, k: usize| {
        let Some(p) = plan else { return };
        let at = |l: &spill::Loc| match l {
            spill::Loc::Slot(s) => format!("nk_sp[{s}]"),
            spill::Loc::Home(h) => format!("nk_home[{h}]"),
        };
        for a in &p.before[k] {
            match a {
                spill::Action::Spill(v, l) => {
                    let m = at(l);
                    body.push(format!(
                        "{m} = {}; __asm__ volatile(\"\" : \"+m\"({m}));",
                        nm(*v)
                    ));
                }
                spill::Action::Reload(v, l) => {
                    let r = names.fresh("nk_rl");
                    body.push(format!("DATATYPE {r} = {};", at(l)));
                    cname.borrow_mut()[v.0 as usize] = Some(r);
                }
            }
        }
    };
    // (memory form) epilogue entries per atom, stored right after the atom is computed
    let mut early: crate::fxhash::FxHashMap<VarId, Vec<usize>> =
        crate::fxhash::FxHashMap::default();
    let mut stored = vec![false; epilogue.len()];
    let mut held: crate::fxhash::FxHashMap<usize, Vec<usize>> = crate::fxhash::FxHashMap::default();
    if memory_form.is_some() {
        for (e, (_, a)) in epilogue.iter().enumerate() {
            early.entry(*a).or_default().push(e);
        }
    }
    // (`--state-loads`) the instructions reading each state input
    let mut state_uses: Vec<Vec<usize>> = vec![Vec::new(); node.vars.len()];
    for (k, ins) in node.body.iter().enumerate() {
        for u in ins.uses() {
            if state_src[u.0 as usize].is_some() {
                state_uses[u.0 as usize].push(k);
            }
        }
    }
    // (by default) the rule decides from how many opaque loads the body would take
    if t.state_loads.is_none() && state_src.iter().any(Option::is_some) {
        let loads: usize = state_uses.iter().map(|u| state_load_count(u)).sum();
        if !state_loads_rule(t.arch, loads, node.body.len()) {
            state_src.iter_mut().for_each(|s| *s = None);
        }
    }
    let mut y_src = YSrc::default();
    for (k, ins) in node.body.iter().enumerate() {
        emit_actions(&mut body, k);
        for u in ins.uses() {
            if let Some(l) = loads[u.0 as usize].take() {
                body.push(l);
            }
            // (`--state-loads`) a state slot read again within the window goes into a register
            // the C compiler cannot re-read from memory; a lone read stays a memory operand
            if let Some(src) = &state_src[u.0 as usize] {
                let i = u.0 as usize;
                let last = state_read[i].replace(k);
                if let Some(again) = state_load_at(&state_uses[i], last, k) {
                    if again {
                        // (`nk_` names are the generator's own: no atom's C name clashes)
                        let r = format!("nk_ld{}_{}", i, k);
                        body.push(format!(
                            "DATATYPE {r} = {src}; __asm__(\"\" : \"+{}\"({r}));",
                            match t.arch {
                                Arch::Std => "r",
                                Arch::Neon => "w",
                                _ => "v",
                            }
                        ));
                        cname.borrow_mut()[i] = Some(r);
                    } else {
                        cname.borrow_mut()[i] = Some(src.clone());
                    }
                }
            }
        }
        match ins {
            // (what the C does not read: in a memory-form body, what only unstored outputs
            // needed; elsewhere the constant bits kept loops read from their tables)
            Instr::Assign { dst, .. } if !used[dst.0 as usize] => {}
            Instr::Assign { dst, op } => {
                let m = node.bits(*dst);
                let e = ops::op_expr(t, helpers, node, m, op, &nm)?;
                body.push(format!("{} {} = {};", ty(*dst), nm(*dst), e));
            }
            Instr::Call { dsts, callee, args } => {
                let a: Vec<String> = args.iter().map(|x| nm(*x)).collect();
                let r: Vec<(String, String)> = dsts
                    .iter()
                    .map(|d| {
                        (
                            ty(*d).to_string(),
                            if used[d.0 as usize] {
                                nm(*d)
                            } else {
                                String::new()
                            },
                        )
                    })
                    .collect();
                let k = body.len();
                emit_call(
                    &mut body,
                    prog,
                    t,
                    fn_names,
                    *callee,
                    &a,
                    &r,
                    &k.to_string(),
                    None,
                );
            }
            Instr::Loop {
                callee,
                count,
                state,
                args,
                results,
            } if memloops[callee.0 as usize].is_some() => {
                // The memory form (`memloop.rs`): state double-buffered (or one buffer
                // overwritten in place), inputs read in place.
                let ml = memloops[callee.0 as usize]
                    .as_ref()
                    .expect("checked by the guard");
                let at = k;
                let param_name = |p: usize| {
                    param_names[p].clone().ok_or_else(|| "internal error: a loop reads an entry input that is not an array parameter".to_string())
                };
                let k = body.len();
                let fname = &fn_names[callee.0 as usize];
                body.push(format!(
                    "/* kept loop: {} calls of {}, its state in memory (codegen/memloop.rs) */",
                    count, fname
                ));
                let st = format!("nk_l{}_st", k);
                let ring = if ml.single.is_some() {
                    1
                } else {
                    ml.ring as i64
                };
                // generation g lives in buffer g mod ring
                let buf = |g: i64| g.rem_euclid(ring);
                // one buffer, or two whose generations all start in the current one
                let io = if is_entry
                    && (ring == 1 || (ring == 2 && ml.state_at.iter().all(|(b, _)| *b == 0)))
                {
                    state_in_output(node, t, state, args, ml, at, &out_arrays, &param_names, &nm)
                } else {
                    None
                };
                let init_lines: Vec<String> = state
                    .iter()
                    .enumerate()
                    .map(|(j, (init, _))| {
                        let (back, slot) = ml.state_at[j];
                        format!(
                            "{}[{}][{}] = {};",
                            st,
                            buf(-(back as i64)),
                            t.at(slot),
                            nm(*init)
                        )
                    })
                    .collect();
                if let Some(io) = &io {
                    // The state lives in the output array, which the input array fills
                    // (`state_in_output`); a stack buffer is the fallback when the output
                    // overlaps an input other than exactly the state's (then in place).
                    let n = ml.n_slots;
                    // (in a half, the strided buffer: `n` elements of this half, the other's
                    // between them)
                    let sn = t.at(n);
                    let dj = helpers.get("nk_disjoint", "nk_disjoint".to_string(), |name| {
                        format!(
                            "/* the byte ranges [a, a + na) and [b, b + nb) do not overlap (addresses, not data: no secret-dependent branch) */\nstatic inline int {}(const void *a, uintptr_t na, const void *b, uintptr_t nb)\n{{\n    return (uintptr_t)a + na <= (uintptr_t)b || (uintptr_t)b + nb <= (uintptr_t)a;\n}}\n",
                            name
                        )
                    });
                    let bytes = format!("sizeof(DATATYPE) * {}", sn);
                    let mut conds = vec![format!(
                        "((const void *){o} == (const void *){q} || {dj}({o}, {b}, {q}, {b}))",
                        o = io.out_name,
                        q = io.in_name,
                        b = bytes,
                        dj = dj
                    )];
                    for (name, size) in &io.others {
                        conds.push(format!(
                            "{}({}, {}, {}, {})",
                            dj, io.out_name, bytes, name, size
                        ));
                    }
                    let flag = format!("nk_l{}_io", k);
                    let memcpy = if t.stride() > 1 {
                        // this half's elements only: the other half's pass copies its own
                        format!(
                            "    if ((const void *){o} != (const void *){q}) for (size_t nk_k = 0; nk_k < {n}; nk_k++) ((DATATYPE *){o})[{s} * nk_k] = ((const DATATYPE *){q})[{s} * nk_k];",
                            o = io.out_name,
                            q = io.in_name,
                            n = n,
                            s = t.stride()
                        )
                    } else {
                        format!(
                            "    if ((const void *){o} != (const void *){q}) __builtin_memcpy({o}, {q}, {b});",
                            o = io.out_name,
                            q = io.in_name,
                            b = bytes
                        )
                    };
                    if ring == 1 {
                        body.push(format!("DATATYPE {}_buf[1][{}] NK_ALIGN64;", st, sn));
                        body.push(format!("DATATYPE (*{st})[{sn}] = {st}_buf;"));
                        body.push(format!("const int {} = {};", flag, conds.join(" && ")));
                        body.push(format!("if ({}) {{", flag));
                        body.push(format!(
                            "    {} = (DATATYPE (*)[{}])(void *){};",
                            st, sn, io.out_name
                        ));
                        body.push(memcpy);
                        body.push("} else {".to_string());
                        body.extend(init_lines.iter().map(|l| format!("    {}", l)));
                        body.push("}".to_string());
                    } else {
                        // Two buffers: the output array is the one the last generation lands
                        // in; the first generation is the input (copied once) when that is the
                        // same buffer, else the stack buffer filled as before.
                        let last = *count as usize % 2;
                        body.push(format!("DATATYPE {}_buf[2][{}] NK_ALIGN64;", st, sn));
                        body.push(format!(
                            "DATATYPE *{st}[2] = {{ {st}_buf[0], {st}_buf[1] }};"
                        ));
                        body.push(format!("const int {} = {};", flag, conds.join(" && ")));
                        body.push(format!(
                            "if ({}) {}[{}] = (DATATYPE *)(void *){};",
                            flag, st, last, io.out_name
                        ));
                        if last == 0 {
                            body.push(format!("if ({}) {{", flag));
                            body.push(memcpy);
                            body.push("} else {".to_string());
                            body.extend(init_lines.iter().map(|l| format!("    {}", l)));
                            body.push("}".to_string());
                        } else {
                            body.extend(init_lines.iter().cloned());
                        }
                    }
                    epi_cond.resize(epilogue.len(), None);
                    for e in io.epi.clone() {
                        epi_cond[e] = Some(flag.clone());
                    }
                } else {
                    body.push(format!(
                        "DATATYPE {}[{}][{}] NK_ALIGN64;",
                        st,
                        ring,
                        t.at(ml.n_slots)
                    ));
                    body.extend(init_lines);
                }
                let gen = |back: i64| {
                    if ring == 1 {
                        format!("{st}[0]")
                    } else if ring == 2 {
                        format!("{st}[(nk_i + {}) & 1]", buf(-back))
                    } else {
                        format!("{st}[(nk_i + {}) % {}]", buf(-back), ring)
                    }
                };
                // The generations' pointers pass through an empty `asm`: without it gcc relates
                // the buffers of consecutive iterations and keeps copies of the state in its
                // own stack slots (Spongent -B avx2: 1215 instructions per round against 957).
                let mut pre = Vec::new();
                let mut call = Vec::new();
                let gens: Vec<i64> = if ring == 1 {
                    vec![-1]
                } else {
                    (0..ring - 1).chain([-1]).collect()
                };
                for b in gens {
                    let pn = format!(
                        "nk_p{}",
                        if b < 0 {
                            "t".to_string()
                        } else {
                            b.to_string()
                        }
                    );
                    pre.push(format!("DATATYPE *{} = {};", pn, gen(b)));
                    pre.push(format!("__asm__(\"\" : \"+r\"({}));", pn));
                    call.push(pn);
                }
                if ml.n_each > 0 {
                    match ml.each_src {
                        memloop::EachSrc::Param { param, stride } => {
                            let pn = param_name(param)?;
                            let ety = if compact_param(param) {
                                "uint64_t"
                            } else {
                                "DATATYPE"
                            };
                            let stride = if compact_param(param) {
                                stride
                            } else {
                                t.at(stride)
                            };
                            call.push(format!("(const {} *){} + nk_i * {}", ety, pn, stride));
                        }
                        memloop::EachSrc::Gather
                            if let Some((yk, off)) = y_rows(
                                &y_src,
                                *count as usize,
                                ml.n_each,
                                gathered_cols(args, ml),
                            ) =>
                        {
                            // every row is a row of an earlier loop's output buffer: read it
                            // there (AES's round keys from its key-schedule loop), no copy
                            debug_assert!(in_place[at], "gathers_in_place disagrees");
                            call.push(format!("nk_l{}_y[nk_i + {}]", yk, off));
                        }
                        memloop::EachSrc::Gather => {
                            debug_assert!(!in_place[at], "gathers_in_place disagrees");
                            let rows: Vec<String> = (0..*count as usize)
                                .map(|i| {
                                    let xs: Vec<String> = args
                                        .iter()
                                        .zip(&ml.ins)
                                        .filter_map(|(a, w)| match (a, w) {
                                            (LoopArg::Each(vs), memloop::In::Each(_)) => {
                                                Some(nm(vs[i]))
                                            }
                                            _ => None,
                                        })
                                        .flat_map(|x| vec![x; t.stride()])
                                        .collect();
                                    format!("{{ {} }}", xs.join(", "))
                                })
                                .collect();
                            body.push(format!(
                                "const DATATYPE nk_l{}_x[{}][{}] NK_ALIGN64 = {{ {} }};",
                                k,
                                count,
                                t.at(ml.n_each),
                                rows.join(", ")
                            ));
                            call.push(format!("nk_l{}_x[nk_i]", k));
                        }
                    }
                }
                if ml.n_same > 0 {
                    let cs: Vec<String> = args
                        .iter()
                        .filter_map(|a| {
                            if let LoopArg::Same(v) = a {
                                Some(nm(*v))
                            } else {
                                None
                            }
                        })
                        .flat_map(|x| vec![x; t.stride()])
                        .collect();
                    body.push(format!(
                        "const DATATYPE nk_l{}_c[{}] NK_ALIGN64 = {{ {} }};",
                        k,
                        t.at(ml.n_same),
                        cs.join(", ")
                    ));
                    call.push(format!("nk_l{}_c", k));
                }
                if ml.n_y > 0 {
                    body.push(format!(
                        "DATATYPE nk_l{}_y[{}][{}] NK_ALIGN64;",
                        k,
                        count,
                        t.at(ml.n_y)
                    ));
                    call.push(format!("nk_l{}_y[nk_i]", k));
                }
                // Constant tables, indexed by the loop counter only (`memloop::Tables`).
                let table = |rows: Vec<String>| {
                    rows.iter()
                        .map(|r| format!("{{ {} }}", r))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                if let Some((base, ix)) = &ml.tables.indexed {
                    let rows = ix
                        .iter()
                        .map(|r| {
                            r.iter()
                                .map(|i| i.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        })
                        .collect();
                    body.push(format!(
                        "static const {} nk_l{}_ix[{}][{}] = {{ {} }};",
                        ml.tables.index_type(),
                        k,
                        count,
                        ix[0].len(),
                        table(rows)
                    ));
                    match base {
                        memloop::Base::Param(param) => {
                            let ety = if compact_param(*param) {
                                "uint64_t"
                            } else {
                                "DATATYPE"
                            };
                            call.push(format!("(const {} *){}", ety, param_name(*param)?))
                        }
                        memloop::Base::Pool(vs) => {
                            let xs: Vec<String> =
                                vs.iter().flat_map(|v| vec![nm(*v); t.stride()]).collect();
                            body.push(format!(
                                "const DATATYPE nk_l{}_u[{}] NK_ALIGN64 = {{ {} }};",
                                k,
                                t.at(vs.len()),
                                xs.join(", ")
                            ));
                            call.push(format!("nk_l{}_u", k));
                        }
                    }
                    call.push(format!("nk_l{}_ix[nk_i]", k));
                }
                if !ml.tables.const_bits.is_empty() {
                    let kb = &ml.tables.const_bits;
                    let rows = kb
                        .iter()
                        .map(|r| {
                            r.iter()
                                .map(|b| if *b { "UINT64_MAX" } else { "0" })
                                .collect::<Vec<_>>()
                                .join(", ")
                        })
                        .collect();
                    body.push(format!(
                        "static const uint64_t nk_l{}_kb[{}][{}] = {{ {} }};",
                        k,
                        count,
                        kb[0].len(),
                        table(rows)
                    ));
                    // (the constants' locals are not read: `for_each_c_use`)
                    call.push(format!("nk_l{}_kb[nk_i]", k));
                }
                // the slots kept in registers (`memloop::register_slots`): locals, loaded from
                // the buffer before the loop and stored back after it (two buffers: each slot's
                // next value in a second local, copied over after each iteration)
                let two = ml.single.is_none();
                for &j in &ml.reg_slots {
                    body.push(format!("DATATYPE nk_l{k}_r{j} = {st}[0][{}];", t.at(j)));
                    call.push(format!("&nk_l{k}_r{j}"));
                    if two {
                        body.push(format!("DATATYPE nk_l{k}_rn{j};"));
                        call.push(format!("&nk_l{k}_rn{j}"));
                    }
                }
                body.push(format!("for (int nk_i = 0; nk_i < {}; nk_i++) {{", count));
                if let Some(a) = t.loop_align {
                    body.extend(loop_align_c(a));
                }
                body.extend(pre.iter().map(|l| format!("    {}", l)));
                body.push(format!("    {}({});", fname, call.join(", ")));
                if two {
                    for &j in &ml.reg_slots {
                        body.push(format!("    nk_l{k}_r{j} = nk_l{k}_rn{j};"));
                    }
                }
                body.push("}".to_string());
                for &j in &ml.reg_slots {
                    body.push(format!(
                        "{st}[{}][{}] = nk_l{k}_r{j};",
                        buf(*count as i64),
                        t.at(j)
                    ));
                }
                for (j, (_, last)) in state.iter().enumerate() {
                    if used[last.0 as usize] {
                        let (back, slot) = ml.state_at[j];
                        body.push(format!(
                            "{} {} = {}[{}][{}];",
                            ty(*last),
                            nm(*last),
                            st,
                            buf(*count as i64 - back as i64),
                            t.at(slot)
                        ));
                    }
                }
                for (q, i, v) in y_result_rows(results) {
                    y_src.insert(v, (k, i, q, ml.n_y));
                    if used[v.0 as usize] {
                        body.push(format!(
                            "{} {} = nk_l{}_y[{}][{}];",
                            ty(v),
                            nm(v),
                            k,
                            i,
                            t.at(q)
                        ));
                    }
                }
            }
            Instr::Loop {
                callee,
                count,
                state,
                args,
                results,
            } => {
                let k = body.len();
                let c = &prog.nodes[callee.0 as usize];
                body.push(format!(
                    "/* kept loop: {} calls of {} */",
                    count, fn_names[callee.0 as usize]
                ));
                let sname = |j: usize| format!("nk_l{}_s{}", k, j);
                for (j, (init, _)) in state.iter().enumerate() {
                    body.push(format!("{} {} = {};", ty(*init), sname(j), nm(*init)));
                }
                // Loop-carried values the body keeps in memory (`spill::Home`): state j of
                // each, stored before the first iteration, read after the last.
                let homes = plans[callee.0 as usize]
                    .as_ref()
                    .map_or(&[][..], |p| &p.homes[..]);
                let home_state = |h: &spill::Home| match args[h.input] {
                    LoopArg::State(j) => j as usize,
                    _ => unreachable!("a home is a loop state"),
                };
                let hname = format!("nk_l{}_home", k);
                if !homes.is_empty() {
                    body.push(format!("DATATYPE {}[{}] NK_ALIGN64;", hname, homes.len()));
                    for (h, home) in homes.iter().enumerate() {
                        body.push(format!("{}[{}] = {};", hname, h, sname(home_state(home))));
                    }
                }
                let ci = c.flat_inputs();
                let co = c.flat_outputs();
                let mut a = Vec::new();
                for (p, arg) in args.iter().enumerate() {
                    a.push(match arg {
                        LoopArg::State(j) => sname(*j as usize),
                        LoopArg::Same(v) => nm(*v),
                        LoopArg::Each(vs) => {
                            let xs: Vec<String> = vs.iter().map(|v| nm(*v)).collect();
                            if let Some(e) = strided_elements(&xs, "nk_i") {
                                // elements of one array at a constant stride (round keys of
                                // a `const` parameter): read in place, no copy
                                e
                            } else {
                                body.push(format!(
                                    "const {} nk_l{}_x{}[{}] NK_ALIGN64 = {{ {} }};",
                                    t.atom_type(c.bits(ci[p])),
                                    k,
                                    p,
                                    count,
                                    xs.join(", ")
                                ));
                                format!("nk_l{}_x{}[nk_i]", k, p)
                            }
                        }
                    });
                }
                let mut r = Vec::new();
                let mut updates = Vec::new();
                for (o, res) in results.iter().enumerate() {
                    let tyo = t.atom_type(c.bits(co[o])).to_string();
                    let tmp = format!("nk_l{}_t{}", k, o);
                    if homes.iter().any(|h| h.output == o) {
                        r.push((tyo, String::new()));
                        continue;
                    }
                    let kept = match res {
                        LoopResult::State { state: j, each } => {
                            updates.push(format!("{} = {};", sname(*j as usize), tmp));
                            !each.is_empty()
                        }
                        LoopResult::Each(_) => true,
                    };
                    if kept {
                        body.push(format!("{} nk_l{}_y{}[{}];", tyo, k, o, count));
                        updates.push(format!("nk_l{}_y{}[nk_i] = {};", k, o, tmp));
                    }
                    r.push((tyo, tmp));
                }
                body.push(format!("for (int nk_i = 0; nk_i < {}; nk_i++) {{", count));
                if let Some(a) = t.loop_align {
                    body.extend(loop_align_c(a));
                }
                let mut inner = Vec::new();
                emit_call(
                    &mut inner,
                    prog,
                    t,
                    fn_names,
                    *callee,
                    &a,
                    &r,
                    &k.to_string(),
                    (!homes.is_empty()).then_some(&hname),
                );
                inner.extend(updates);
                body.extend(inner.into_iter().map(|l| format!("    {}", l)));
                body.push("}".to_string());
                // (results nothing reads are not declared: no unused-variable warnings)
                for (j, (_, last)) in state.iter().enumerate() {
                    if used[last.0 as usize] {
                        let from = match homes.iter().position(|h| home_state(h) == j) {
                            Some(h) => format!("{}[{}]", hname, h),
                            None => sname(j),
                        };
                        body.push(format!("{} {} = {};", ty(*last), nm(*last), from));
                    }
                }
                for (o, res) in results.iter().enumerate() {
                    let (LoopResult::Each(vs) | LoopResult::State { each: vs, .. }) = res;
                    for (i, v) in vs.iter().enumerate() {
                        if used[v.0 as usize] {
                            body.push(format!("{} {} = nk_l{}_y{}[{}];", ty(*v), nm(*v), k, o, i));
                        }
                    }
                }
            }
        }
        for d in ins.defs() {
            for &e in early.get(&d).map_or(&[][..], |v| &v[..]) {
                match epi_after.get(e).copied().flatten() {
                    // (single buffer) the slot's current value is still read later
                    Some(r) if r > k => held.entry(r).or_default().push(e),
                    _ => {
                        body.push(format!("{} = {};", epilogue[e].0, nm(d)));
                        stored[e] = true;
                    }
                }
            }
        }
        for e in held.remove(&k).unwrap_or_default() {
            body.push(format!("{} = {};", epilogue[e].0, nm(epilogue[e].1)));
            stored[e] = true;
        }
    }
    emit_actions(&mut body, node.body.len());
    for (_, a) in &epilogue {
        if let Some(l) = loads[a.0 as usize].take() {
            body.push(l);
        }
    }
    epi_cond.resize(epilogue.len(), None);
    let mut cond_stores: Vec<(String, String)> = Vec::new();
    for (o, (lv, a)) in epilogue.iter().enumerate() {
        if stored[o] {
            continue;
        }
        if let Some(flag) = &epi_cond[o] {
            cond_stores.push((flag.clone(), format!("{} = {};", lv, nm(*a))));
            continue;
        }
        // (a homed output is in `nk_home`, where the loop around reads it)
        if plan.as_ref().is_some_and(|p| p.home_of_output(o).is_some()) {
            if let Some(ptr) = lv.strip_prefix('*') {
                body.push(format!("(void){};", ptr)); // (an output pointer not written)
            }
            continue;
        }
        body.push(format!("{} = {};", lv, nm(*a)));
    }
    let mut flags: Vec<&String> = cond_stores.iter().map(|(f, _)| f).collect();
    flags.dedup();
    for f in flags {
        body.push(format!("if (!{}) {{", f));
        for (g, l) in &cond_stores {
            if g == f {
                body.push(format!("    {}", l));
            }
        }
        body.push("}".to_string());
    }

    let fname = &fn_names[idx];
    let proto = format!(
        "void {}({})",
        fname,
        if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        }
    );
    let mut s = String::new();
    if kind == EntryKind::Raw {
        s.push_str(&format!(
            "/* raw entry point: {}INSTANCES instances per call (see the header) */\n",
            fname
        ));
        s.push_str(&format!("NK_TARGET {}\n", proto));
    } else if kind == EntryKind::Kernel {
        s.push_str(&format!("static NK_TARGET {}\n", proto));
    } else if kind == EntryKind::WithConsts {
        s.push_str(&format!("NK_TARGET {}\n", proto));
    } else {
        // The body of a kept loop is inlined into the loop by the C compiler: its argument
        // arrays then become registers (measured 1.1-1.7x faster than calling it).
        let loop_body = is_loop_body[idx];
        let kw = match node.inline {
            _ if loop_body => "static inline __attribute__((always_inline))",
            Some(true) => "static inline",
            Some(false) => "static __attribute__((noinline))",
            // Small nodes (an S-box, a quarter round, a linear layer) get the `inline` hint:
            // gcc -O3 inlines them anyway, but -O2 (a common default) did not, and passed
            // their argument arrays through memory: Serpent -V avx2 was 2.4x slower at -O2
            // than at -O3 (702 vs 83 stack references), ChaCha20, Gimli, BLAKE2s and Clyde
            // likewise. Bigger nodes are left to the C compiler's judgement: hinting them
            // changed AES's -O3 code, in both directions.
            None if body.len() <= SMALL_NODE_LINES => "static inline",
            None => "static",
        };
        s.push_str(&format!("{} NK_TARGET {}\n", kw, proto));
    }
    s.push_str("{\n");
    for l in &body {
        s.push_str("    ");
        s.push_str(l);
        s.push('\n');
    }
    s.push_str("}\n");
    Ok((s, proto))
}

/// Node functions of at most this many C statements are declared `static inline` when the
/// optimiser left their inlining to the C compiler (see the function definitions above).
const SMALL_NODE_LINES: usize = 32;

/// Lines calling node `callee` with argument expressions `args`, declaring each result as a
/// local `(C type, name)` of `results` (an empty name: a result nothing reads). `tag` makes
/// the temporaries' names unique; `home`: the array of the callee's loop-carried values kept
/// in memory (`spill::Home`), passed last.
#[allow(clippy::too_many_arguments)]
fn emit_call(
    body: &mut Vec<String>,
    prog: &Program,
    t: &OpTarget,
    fn_names: &[String],
    callee: NodeId,
    args: &[String],
    results: &[(String, String)],
    tag: &str,
    home: Option<&String>,
) {
    let c = &prog.nodes[callee.0 as usize];
    if let Some(elem) = array_abi_type(c, t) {
        let mut call_args = Vec::new();
        if !args.is_empty() {
            body.push(format!(
                "const {} nk_a{}[{}] NK_ALIGN64 = {{ {} }};",
                elem,
                tag,
                args.len(),
                args.join(", ")
            ));
            call_args.push(format!("nk_a{}", tag));
        }
        if !results.is_empty() {
            body.push(format!(
                "{} nk_r{}[{}] NK_ALIGN64;",
                elem,
                tag,
                results.len()
            ));
            call_args.push(format!("nk_r{}", tag));
        }
        call_args.extend(home.cloned());
        body.push(format!(
            "{}({});",
            fn_names[callee.0 as usize],
            call_args.join(", ")
        ));
        for (i, (ty, name)) in results.iter().enumerate() {
            // an empty name: a result nothing reads
            if !name.is_empty() {
                body.push(format!("{} {} = nk_r{}[{}];", ty, name, tag, i));
            }
        }
    } else {
        // Declare the results (grouped by type), then call with their addresses (a result
        // nothing reads still needs a variable to point to).
        let results: Vec<(String, String)> = results
            .iter()
            .enumerate()
            .map(|(i, (t, n))| {
                (
                    t.clone(),
                    if n.is_empty() {
                        format!("nk_d{}_{}", tag, i)
                    } else {
                        n.clone()
                    },
                )
            })
            .collect();
        let mut i = 0;
        while i < results.len() {
            let tyi = &results[i].0;
            let mut group = vec![results[i].1.clone()];
            let mut j = i + 1;
            while j < results.len() && &results[j].0 == tyi && group.len() < 8 {
                group.push(results[j].1.clone());
                j += 1;
            }
            body.push(format!("{} {};", tyi, group.join(", ")));
            i = j;
        }
        let mut a: Vec<String> = args.to_vec();
        a.extend(results.iter().map(|(_, d)| format!("&{}", d)));
        a.extend(home.cloned());
        body.push(format!(
            "{}({});",
            fn_names[callee.0 as usize],
            a.join(", ")
        ));
    }
}

/// The element type of the array ABI for a helper node, when all its atoms share one C type.
fn array_abi_type(node: &Node, t: &OpTarget) -> Option<String> {
    // `_inline` nodes keep scalar parameters: the C compiler inlines them anyway.
    if node.inline == Some(true) {
        return None;
    }
    let mut all = node.flat_inputs();
    all.extend(node.flat_outputs());
    let first = t.atom_type(node.bits(*all.first()?));
    if all.iter().all(|a| t.atom_type(node.bits(*a)) == first) {
        Some(first.to_string())
    } else {
        None
    }
}

/// Whether the entry reads input parameter `p` in place from an array parameter of the
/// same shape, element `p.atoms[i]` at flat index i (the array branch of `emit_function`).
fn direct_array_param(t: &OpTarget, abi: &AbiConfig, p: &Param) -> bool {
    let std_v = t.arch == Arch::Std && t.slicing == Slicing::V;
    let lf_const = abi.lf && p.is_const;
    let one_param_per_word = p.c_dims.is_empty() || abi.no_arr_entry || abi.entry_bit_params;
    !lf_const && !one_param_per_word && !std_v
}

/// Width of `DATATYPE` on `std` vslice (C6): usubac's choice from the entry's first word
/// size (4 and 8 → 8, 16 → 16, 32 → 32, anything else → 64), widened if a parameter needs
/// more.
pub(crate) fn std_v_datatype_bits(entry: &Node) -> u32 {
    let first = entry
        .inputs
        .first()
        .or(entry.outputs.first())
        .map(|p| p.word_bits)
        .unwrap_or(64);
    let usubac = match first {
        4 | 8 => 8,
        16 => 16,
        32 => 32,
        _ => 64,
    };
    usubac.max(runtime::std_container_bits(entry_max_bits(entry)))
}

fn entry_max_bits(node: &Node) -> u32 {
    node.inputs
        .iter()
        .chain(&node.outputs)
        .flat_map(|p: &Param| p.atoms.iter().map(|a| node.bits(*a)))
        .max()
        .unwrap_or(64)
}

/// The C name of one atom of an entry parameter passed atom by atom: `a0, a1, ..` (inputs) /
/// `b0, b1, ..` (outputs; `prefix`) numbered across parameters for the per-bit S-box ABI (R7),
/// else the parameter's name (a scalar) or its flattened element name (`-no-arr-entry`).
fn atom_param_name(
    names: &mut Namer,
    abi: &AbiConfig,
    prefix: &str,
    bit_param: &mut usize,
    pname: &str,
    c_dims: &[usize],
    i: usize,
) -> String {
    if abi.entry_bit_params {
        *bit_param += 1;
        names.fresh(&format!("{}{}", prefix, *bit_param - 1))
    } else if c_dims.is_empty() {
        pname.to_string()
    } else {
        names.fresh(&format!(
            "{}{}",
            pname,
            index(c_dims, i).replace('[', "__").replace(']', "")
        ))
    }
}

/// A kept memory-form loop of an entry whose state can live in the output array itself
/// ([`state_in_output`]).
struct StateInOutput {
    /// The output array parameter holding the state, and the input array filling it.
    out_name: String,
    in_name: String,
    /// The other input arrays (C name, byte size): the output must not overlap them.
    others: Vec<(String, String)>,
    /// The output's epilogue entries, already holding their values on the fast path.
    epi: std::ops::Range<usize>,
}

/// Whether a single-buffer memory-form loop (`memloop.rs`) at instruction `at` of an entry can
/// keep its state in an output array instead of a stack buffer: its initial state is an input
/// array element for element (slot i = flat element i) that nothing else reads, and its final
/// state is an output array element for element. Then the input is copied into the output
/// once, the loop runs there, and nothing is copied out: one state-sized copy and one buffer
/// fewer (Ascon `-B` avx512: the round's working set 20 KB smaller, README "The state in the
/// output array"). Every input parameter must be an array read in place (the generated code
/// checks at run time that the output overlaps none of them, except the state's input exactly,
/// and falls back to the stack buffer otherwise, so in-place and aliasing callers stay right).
#[allow(clippy::too_many_arguments)]
fn state_in_output(
    node: &crate::ir::Node,
    t: &OpTarget,
    state: &[(VarId, VarId)],
    args: &[LoopArg],
    ml: &memloop::MemLoop,
    at: usize,
    out_arrays: &[(usize, String, usize)],
    param_names: &[Option<String>],
    nm: &dyn Fn(VarId) -> String,
) -> Option<StateInOutput> {
    let n = ml.n_slots;
    if state.len() != n || param_names.iter().any(|p| p.is_none()) {
        return None;
    }
    let slot = |j: usize| ml.state_at[j].1;
    // an output atom is the loop's final state directly or through a copy
    let copies: crate::fxhash::FxHashMap<VarId, VarId> = node
        .body
        .iter()
        .filter_map(|i| match i {
            Instr::Assign {
                dst,
                op: crate::ir::Op::Copy(x),
            } => Some((*dst, *x)),
            _ => None,
        })
        .collect();
    let source = |a: VarId| copies.get(&a).copied().unwrap_or(a);
    let (po, out_name, e0) = out_arrays.iter().find(|(po, _, _)| {
        let p = &node.outputs[*po];
        p.atoms.len() == n
            && state
                .iter()
                .enumerate()
                .all(|(j, (_, last))| source(p.atoms[slot(j)]) == *last)
    })?;
    let qi = node.inputs.iter().position(|q| {
        q.atoms.len() == n
            && state
                .iter()
                .enumerate()
                .all(|(j, (init, _))| q.atoms[slot(j)] == *init)
    })?;
    let q = &node.inputs[qi];
    let in_name = param_names[qi].clone()?;
    // the state's initial values are the input array's elements, read nowhere else
    for (j, (init, _)) in state.iter().enumerate() {
        if nm(*init) != format!("{}{}", in_name, t.index(&q.c_dims, slot(j))) {
            return None;
        }
    }
    let qset: crate::fxhash::FxHashSet<VarId> = q.atoms.iter().copied().collect();
    for (i, ins) in node.body.iter().enumerate() {
        let reads_q = if i == at {
            args.iter().any(|a| match a {
                LoopArg::State(_) => false,
                LoopArg::Same(x) => qset.contains(x),
                LoopArg::Each(xs) => xs.iter().any(|x| qset.contains(x)),
            })
        } else {
            ins.uses().iter().any(|u| qset.contains(u))
        };
        if reads_q {
            return None;
        }
    }
    if node.flat_outputs().iter().any(|a| qset.contains(a)) {
        return None;
    }
    // each output atom is the state's, once (no output element written from elsewhere)
    let outs = &node.outputs[*po].atoms;
    let distinct: crate::fxhash::FxHashSet<VarId> = outs.iter().copied().collect();
    if distinct.len() != n {
        return None;
    }
    let others = node
        .inputs
        .iter()
        .enumerate()
        .filter(|(pi, _)| *pi != qi)
        .map(|(pi, p)| {
            (
                param_names[pi].clone().unwrap_or_default(),
                // (an array parameter: a pointer to its first dimension's elements, strided
                // in a half when that is its last)
                format!(
                    "sizeof({}[0]) * {}",
                    param_names[pi].clone().unwrap_or_default(),
                    p.c_dims.first().copied().unwrap_or(1)
                        * if p.c_dims.len() == 1 { t.stride() } else { 1 }
                ),
            )
        })
        .collect();
    Some(StateInOutput {
        out_name: out_name.clone(),
        in_name,
        others,
        epi: *e0..*e0 + n,
    })
}

/// An entry's `DATATYPE` array parameter `name` of dimensions `d`: `DATATYPE name[d0]..`, or
/// in a half of the AVX-512 entry (`OpTarget::half`) a pointer to its strided rows
/// (`DATATYPE (*name)[2 * dk]`, `DATATYPE *name` in one dimension). The high half's pass gets
/// the array 32 bytes in, where the full strided size would overrun it by those 32 bytes
/// though no element there is read: C compilers warn of a declared size (`-Wstringop-overflow`),
/// not of a pointer's.
fn array_param(t: &OpTarget, name: &str, d: &[usize]) -> String {
    if t.strided && !d.is_empty() {
        if d.len() == 1 {
            format!("DATATYPE *{}", name)
        } else {
            format!("DATATYPE (*{}){}", name, t.dims(&d[1..]))
        }
    } else {
        format!("DATATYPE {}{}", name, t.dims(d))
    }
}

fn dims(d: &[usize]) -> String {
    d.iter().map(|x| format!("[{}]", x)).collect()
}

/// `[i0][i1]..` of flat row-major index `flat` over `d`.
fn index(d: &[usize], flat: usize) -> String {
    dims(&index_of(d, flat))
}

/// The indices `i0, i1, ..` of flat row-major index `flat` over `d`.
fn index_of(d: &[usize], mut flat: usize) -> Vec<usize> {
    let mut idx = vec![0usize; d.len()];
    for k in (0..d.len()).rev() {
        idx[k] = flat % d[k];
        flat /= d[k];
    }
    idx
}
