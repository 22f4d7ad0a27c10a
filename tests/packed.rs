//! The packed entry point and the transposition routines (`codegen::packed`,
//! `runtime::transpose`).
//!
//! - `transpositions_round_trip_and_match_target_layout`: hand-built IR programs whose entry
//!   only uses bitwise ops (`Not`/`Xor`), a *fake* raw entry written by this file (bytewise on
//!   the registers, so layout-agnostic) that also dumps the registers it receives; checks
//!   (a) packed outputs = interpreter outputs for n in {0, 1, I-1, I, I+1, 3I+5} (which needs
//!   transpose-in then transpose-out to be exact inverses, padding and tails right, nothing
//!   written past the n instances), and (b) the dumped registers are bit for bit the layout
//!   `codegen::target` describes (computed here independently), for B, V and H on every arch.
//! - `generated_code_end_to_end`: the same through `codegen::generate` (the real raw entry).
//! - Variants this CPU may lack, run under test-only emulations written from Intel's
//!   documented semantics: hslice with GFNI (`gf2p8affineqb` emulated, everything else native
//!   SSE/AVX2), and the avx512 8-bit vslice (plain and VBMI `vpermi2b`), bitslice and 8/16-bit
//!   hslice (plain and VBMI + GFNI) routines (every AVX-512 intrinsic they use emulated on a
//!   64-byte struct), against the layout
//!   definition; plus compile-and-`objdump` checks that the instructions appear exactly when
//!   the compiler targets GFNI / VBMI.

mod common;

use common::{build_and_run, Rng};
use nakiri::codegen::packed::{self, PackedLayout};
use nakiri::codegen::Arch;
use nakiri::interp;
use nakiri::ir::{Instr, Node, Op, Param, Program, Slicing, VarId};
use std::collections::HashMap;
use std::fmt::Write;

// ---------------------------------------------------------------- IR builder

#[derive(Clone)]
struct Spec {
    name: &'static str,
    /// Source dimensions (without the bitslice bit dimension).
    dims: Vec<usize>,
    /// Word size m.
    m: u32,
    is_const: bool,
}

fn sp(name: &'static str, dims: &[usize], m: u32) -> Spec {
    Spec {
        name,
        dims: dims.to_vec(),
        m,
        is_const: false,
    }
}
fn cs(name: &'static str, dims: &[usize], m: u32) -> Spec {
    Spec {
        name,
        dims: dims.to_vec(),
        m,
        is_const: true,
    }
}

fn make_param(node: &mut Node, slicing: Slicing, s: &Spec) -> Param {
    let words: usize = s.dims.iter().product();
    let mut c_dims = s.dims.clone();
    let (natoms, abits) = if slicing == Slicing::B {
        if s.m > 1 {
            c_dims.push(s.m as usize);
        }
        (words * s.m as usize, 1)
    } else {
        (words, s.m)
    };
    let atoms = (0..natoms)
        .map(|i| node.new_var(format!("{}__{}", s.name, i), abits))
        .collect();
    Param {
        name: s.name.to_string(),
        c_dims,
        word_bits: s.m,
        atoms,
        is_const: s.is_const,
    }
}

/// Entry `name`: output atom a = Not(in0[a % |in0|]) ^ in1[a % |in1|] ^ ... (all atoms of the
/// same width), so every output depends on every input.
fn build(slicing: Slicing, name: &str, ins: &[Spec], outs: &[Spec]) -> Program {
    let mut node = Node {
        name: name.to_string(),
        inputs: vec![],
        outputs: vec![],
        vars: vec![],
        body: vec![],
        inline: None,
        lockstep: false,
    };
    let inputs: Vec<Param> = ins
        .iter()
        .map(|s| make_param(&mut node, slicing, s))
        .collect();
    let outputs: Vec<Param> = outs
        .iter()
        .map(|s| make_param(&mut node, slicing, s))
        .collect();
    let mut tmp = 0;
    for o in &outputs {
        for (a, &dst) in o.atoms.iter().enumerate() {
            let bits = node.bits(dst);
            let pick = |p: &Param| p.atoms[a % p.atoms.len()];
            let mut cur = pick(&inputs[0]);
            let mut ops = vec![Op::Not(cur)];
            for p in &inputs[1..] {
                ops.push(Op::Xor(VarId(u32::MAX), pick(p)));
            }
            let n = ops.len();
            for (i, mut op) in ops.into_iter().enumerate() {
                let d = if i + 1 == n {
                    dst
                } else {
                    tmp += 1;
                    node.new_var(format!("t{tmp}"), bits)
                };
                if let Op::Xor(x, _) = &mut op {
                    *x = cur;
                }
                node.body.push(Instr::Assign { dst: d, op });
                cur = d;
            }
        }
    }
    node.inputs = inputs;
    node.outputs = outputs;
    let prog = Program {
        slicing,
        nodes: vec![node],
        interleave: 1,
    };
    nakiri::ir::verify(&prog).expect("test program verifies");
    prog
}

// ---------------------------------------------------------------- fake raw entry

/// A raw entry `<E>__` in C running the (bitwise-only) IR body bytewise on the registers, and
/// recording the registers of its first call after `<E>_dumped = 0` in `<E>_dump`.
fn fake_raw_entry(prog: &Program, lay: &PackedLayout) -> String {
    let node = prog.entry();
    let e = &node.name;
    let attr = nakiri::runtime::target_attribute(lay.arch);
    let mut c = String::new();
    let in_bytes: usize = lay
        .params
        .iter()
        .filter(|p| p.is_input)
        .map(|p| p.atoms * reg_size(lay, p))
        .sum();
    writeln!(
        c,
        "unsigned char {e}_dump[{}]; int {e}_dumped;",
        in_bytes.max(1)
    )
    .unwrap();
    let mut args = vec![];
    for p in &lay.params {
        let dims: String = p.c_dims.iter().map(|d| format!("[{d}]")).collect();
        if p.c_dims.is_empty() {
            args.push(format!(
                "{} {}{}",
                p.reg_type,
                if p.is_input { "" } else { "*" },
                p.name
            ));
        } else {
            args.push(format!("{} {}{}", p.reg_type, p.name, dims));
        }
    }
    // The body as a table: {op (0 = not, 1 = xor), dst, a, b}.
    let ops: Vec<String> = node
        .body
        .iter()
        .map(|ins| match ins {
            Instr::Assign {
                dst,
                op: Op::Not(a),
            } => format!("{{0,{},{},0}}", dst.0, a.0),
            Instr::Assign {
                dst,
                op: Op::Xor(a, b),
            } => format!("{{1,{},{},{}}}", dst.0, a.0, b.0),
            _ => panic!("fake raw entry: unsupported instruction"),
        })
        .collect();
    writeln!(c, "static const int {e}_ops[][4] = {{{}}};", ops.join(",")).unwrap();
    let ids = |p: &Param| {
        p.atoms
            .iter()
            .map(|a| a.0.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    for p in node.inputs.iter().chain(&node.outputs) {
        writeln!(c, "static const int {e}_ids_{}[] = {{{}}};", p.name, ids(p)).unwrap();
    }
    writeln!(c, "{attr} void {e}__({}) {{", args.join(", ")).unwrap();
    let sz = reg_size(lay, &lay.params[0]);
    writeln!(c, "    static unsigned char V[{}][{sz}];", node.vars.len()).unwrap();
    writeln!(c, "    size_t off = 0;").unwrap();
    for p in &node.inputs {
        let src = if p.c_dims.is_empty() {
            format!("(const unsigned char *)&{}", p.name)
        } else {
            format!("(const unsigned char *){}", p.name)
        };
        writeln!(
            c,
            "    for (size_t i = 0; i < {n}; i++) {{ memcpy(V[{e}_ids_{nm}[i]], {src} + i * {sz}, {sz}); if (!{e}_dumped) memcpy({e}_dump + off, V[{e}_ids_{nm}[i]], {sz}); off += {sz}; }}",
            n = p.atoms.len(),
            nm = p.name
        )
        .unwrap();
    }
    writeln!(c, "    {e}_dumped = 1;").unwrap();
    writeln!(
        c,
        "    for (size_t k = 0; k < sizeof {e}_ops / sizeof {e}_ops[0]; k++) {{ const int *o = {e}_ops[k]; for (int i = 0; i < {sz}; i++) V[o[1]][i] = o[0] ? V[o[2]][i] ^ V[o[3]][i] : (unsigned char)~V[o[2]][i]; }}"
    )
    .unwrap();
    for p in &node.outputs {
        writeln!(
            c,
            "    for (size_t i = 0; i < {n}; i++) memcpy((unsigned char *){nm} + i * {sz}, V[{e}_ids_{nm}[i]], {sz});",
            n = p.atoms.len(),
            nm = p.name
        )
        .unwrap();
    }
    c.push_str("}\n");
    c
}

/// Bytes of one register of parameter p.
fn reg_size(lay: &PackedLayout, p: &packed::PackedParam) -> usize {
    match (lay.arch, lay.slicing) {
        // std vslice registers are the raw entry's DATATYPE, one for every parameter (usubac's
        // rule, compat.md C6): the layout's atom width.
        (Arch::Std, Slicing::V) => {
            nakiri::runtime::std_container_bits(lay.atom_bits.max(p.word_bits)) as usize / 8
        }
        (a, _) => a.reg_bits() as usize / 8,
    }
}

// ---------------------------------------------------------------- memory formats (from the doc)

fn elem_bytes(p: &packed::PackedParam) -> usize {
    if p.bit_string {
        1
    } else {
        p.word_bits as usize / 8
    }
}

/// One instance's words in the documented memory format, as bytes (host = little endian).
fn encode(p: &packed::PackedParam, words: &[u64], pad: u8) -> Vec<u8> {
    if p.bit_string {
        let m = p.word_bits as usize;
        let mut out = vec![0u8; p.elems];
        for (w, &v) in words.iter().enumerate() {
            for b in 0..m {
                let pos = w * m + b;
                let bit = ((v >> (m - 1 - b)) & 1) as u8;
                out[pos / 8] |= bit << (7 - pos % 8);
            }
        }
        // Garbage in the padding bits (must be ignored on input).
        let used = words.len() * m;
        if !used.is_multiple_of(8) {
            out[used / 8] |= pad & (0xFFu8 >> (used % 8));
        }
        out
    } else {
        let b = p.word_bits as usize / 8;
        words
            .iter()
            .flat_map(|w| w.to_le_bytes()[..b].to_vec())
            .collect()
    }
}

fn c_array(p: &packed::PackedParam, bytes: &[u8]) -> String {
    let eb = elem_bytes(p);
    let vals: Vec<String> = bytes
        .chunks(eb)
        .map(|ch| {
            let mut v = 0u64;
            for (i, b) in ch.iter().enumerate() {
                v |= (*b as u64) << (8 * i);
            }
            format!("0x{v:x}u")
        })
        .collect();
    if vals.is_empty() {
        "0".into()
    } else {
        vals.join(",")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------- the register layout of target.rs

/// The registers one raw call must receive for `inst` instances of per-parameter atom values
/// (`atoms[param][instance][atom]`), instances >= `n` being zero except for const parameters.
fn expected_regs(lay: &PackedLayout, atoms: &[Vec<Vec<u64>>], n: usize) -> Vec<u8> {
    let mut out = vec![];
    let inst = lay.instances;
    for (p, vals) in lay.params.iter().filter(|p| p.is_input).zip(atoms) {
        let sz = reg_size(lay, p);
        // `a` indexes each instance's atoms (vals[j][a]), not one slice.
        #[allow(clippy::needless_range_loop)]
        for a in 0..p.atoms {
            let mut reg = vec![0u8; sz];
            for j in 0..inst {
                let v = if p.is_const {
                    vals[0][a]
                } else if j < n {
                    vals[j][a]
                } else {
                    0
                };
                match lay.slicing {
                    Slicing::B => {
                        // bit k of 64-bit LE lane l holds instance 64l+k
                        let (l, k) = (j / 64, j % 64);
                        if v & 1 == 1 {
                            reg[8 * l + k / 8] |= 1 << (k % 8);
                        }
                    }
                    Slicing::V => {
                        // lane j (m bits, memory order, LE) = instance j's word
                        let mb = sz / inst; // bytes per lane
                        for by in 0..mb {
                            reg[j * mb + by] = (v >> (8 * by)) as u8;
                        }
                    }
                    Slicing::H => {
                        // lanes of L bits, m slots of S bits; bit i of slot s = bit s (MSB-first)
                        // of instance lane*S+i
                        let l_bits = lay.arch.hslice_lane_bits() as usize;
                        let m = p.word_bits as usize;
                        let s_bits = l_bits / m;
                        let (lane, i) = (j / s_bits, j % s_bits);
                        for s in 0..m {
                            if (v >> (m - 1 - s)) & 1 == 1 {
                                let bit = lane * l_bits + s * s_bits + i;
                                reg[bit / 8] |= 1 << (bit % 8);
                            }
                        }
                    }
                }
            }
            out.extend(reg);
        }
    }
    out
}

// ---------------------------------------------------------------- driver

struct Case {
    prog: Program,
    lay: PackedLayout,
    /// Per input param: per instance (1 for const): source words.
    inputs: Vec<Vec<Vec<u64>>>,
    ns: Vec<usize>,
}

fn make_case(prog: Program, arch: Arch, rng: &mut Rng) -> Case {
    let lay =
        packed::layout(&prog, arch).unwrap_or_else(|e| panic!("{}: {}", prog.entry().name, e));
    let inst = lay.instances;
    let maxn = 3 * inst + 5;
    let mut ns = vec![0, 1, inst.saturating_sub(1), inst, inst + 1, maxn];
    ns.sort();
    ns.dedup();
    let inputs = lay
        .params
        .iter()
        .filter(|p| p.is_input)
        .map(|p| {
            let cnt = if p.is_const { 1 } else { maxn };
            (0..cnt)
                .map(|_| (0..p.words).map(|_| rng.bits(p.word_bits)).collect())
                .collect()
        })
        .collect();
    Case {
        prog,
        lay,
        inputs,
        ns,
    }
}

/// C text driving one case: prints `OUT e n param hex` for each n and output, `CANARY ...` if
/// something was written past n instances, and `DUMP e full|part hex` of the registers of the
/// first raw call for n = I and n = I/2+1.
fn driver_fn(case: &Case, rng: &mut Rng, dumps: bool) -> String {
    let lay = &case.lay;
    let e = &lay.entry;
    let maxn = *case.ns.last().unwrap();
    let mut c = String::new();
    let mut args = vec![];
    let mut k = 0;
    for p in &lay.params {
        if p.is_input {
            let bytes: Vec<u8> = case.inputs[k]
                .iter()
                .flat_map(|w| encode(p, w, rng.next() as u8))
                .collect();
            writeln!(
                c,
                "static const {} {e}_in_{}[] = {{{}}};",
                p.elem_type,
                p.name,
                c_array(p, &bytes)
            )
            .unwrap();
            args.push(format!("{e}_in_{}", p.name));
            k += 1;
        } else {
            writeln!(
                c,
                "static {} {e}_out_{}[{} + 64];",
                p.elem_type,
                p.name,
                maxn * p.elems
            )
            .unwrap();
            args.push(format!("{e}_out_{}", p.name));
        }
    }
    if dumps {
        writeln!(c, "extern unsigned char {e}_dump[]; extern int {e}_dumped;").unwrap();
    }
    writeln!(c, "static void run_{e}(void) {{").unwrap();
    writeln!(
        c,
        "    static const size_t ns[] = {{{}}};",
        case.ns
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(",")
    )
    .unwrap();
    writeln!(c, "    for (size_t t = 0; t < {}; t++) {{", case.ns.len()).unwrap();
    writeln!(c, "        size_t n = ns[t];").unwrap();
    for p in lay.params.iter().filter(|p| !p.is_input) {
        writeln!(
            c,
            "        memset({e}_out_{}, 0xA5, sizeof {e}_out_{});",
            p.name, p.name
        )
        .unwrap();
    }
    writeln!(c, "        {e}__packed(n, {});", args.join(", ")).unwrap();
    for p in lay.params.iter().filter(|p| !p.is_input) {
        let o = format!("{e}_out_{}", p.name);
        writeln!(
            c,
            "        printf(\"OUT {e} %zu {} \", n); hexdump({o}, n * {} * sizeof {o}[0]);",
            p.name, p.elems
        )
        .unwrap();
        writeln!(
            c,
            "        for (size_t i = n * {el} * sizeof {o}[0]; i < sizeof {o}; i++) if (((unsigned char *){o})[i] != 0xA5) {{ printf(\"CANARY {e} %zu {nm}\\n\", n); break; }}",
            el = p.elems,
            nm = p.name
        )
        .unwrap();
    }
    writeln!(c, "    }}").unwrap();
    // In place: the first non-const input and the first output share one buffer when their
    // formats agree (the documented aliasing rule).
    if let Some((pi, po)) = inplace_pair(lay) {
        let i_in = lay
            .params
            .iter()
            .position(|p| p.name == pi.name && p.is_input)
            .unwrap();
        let mut a2 = args.clone();
        a2[i_in] = format!("{e}_out_{}", po.name);
        writeln!(
            c,
            "    memcpy({e}_out_{}, {e}_in_{}, sizeof {e}_in_{});",
            po.name, pi.name, pi.name
        )
        .unwrap();
        writeln!(c, "    {e}__packed({maxn}, {});", a2.join(", ")).unwrap();
        writeln!(c, "    printf(\"INPLACE {e} \"); hexdump({e}_out_{}, {maxn} * {} * sizeof {e}_out_{}[0]);", po.name, po.elems, po.name).unwrap();
    }
    let in_bytes: usize = lay
        .params
        .iter()
        .filter(|p| p.is_input)
        .map(|p| p.atoms * reg_size(lay, p))
        .sum();
    for (tag, n) in [("full", lay.instances), ("part", lay.instances / 2 + 1)]
        .into_iter()
        .filter(|_| dumps)
    {
        writeln!(
            c,
            "    {e}_dumped = 0; {e}__packed({n}, {});",
            args.join(", ")
        )
        .unwrap();
        writeln!(
            c,
            "    printf(\"DUMP {e} {tag} \"); hexdump({e}_dump, {in_bytes});"
        )
        .unwrap();
    }
    writeln!(c, "}}").unwrap();
    c
}

/// The first non-const input and the first output, if they have the same memory format.
fn inplace_pair(lay: &PackedLayout) -> Option<(&packed::PackedParam, &packed::PackedParam)> {
    let pi = lay.params.iter().find(|p| p.is_input && !p.is_const)?;
    let po = lay.params.iter().find(|p| !p.is_input)?;
    (pi.elem_type == po.elem_type && pi.elems == po.elems).then_some((pi, po))
}

const DRIVER_HEAD: &str = r#"#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
static void hexdump(const void *p, size_t len) {
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++) printf("%02x", b[i]);
    printf("\n");
}
"#;

/// Checks the driver's output against the interpreter and the reference layout.
fn check_output(cases: &[Case], out: &str, check_dumps: bool) {
    let archs: std::collections::BTreeSet<String> =
        cases.iter().map(|c| c.lay.arch.to_string()).collect();
    let mut seen: HashMap<String, String> = HashMap::new();
    let (mut n_out, mut n_dump) = (0, 0);
    for line in out.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        assert!(parts[0] != "CANARY", "written past the n instances: {line}");
        let key = parts[..parts.len() - 1].join(" ");
        seen.insert(key, parts.last().unwrap().to_string());
    }
    for case in cases {
        let lay = &case.lay;
        let e = &lay.entry;
        let maxn = *case.ns.last().unwrap();
        // Interpreter results per instance.
        let results: Vec<Vec<Vec<u64>>> = (0..maxn)
            .map(|i| {
                let ins: Vec<Vec<u64>> = lay
                    .params
                    .iter()
                    .filter(|p| p.is_input)
                    .zip(&case.inputs)
                    .map(|(p, v)| {
                        if p.is_const {
                            v[0].clone()
                        } else {
                            v[i].clone()
                        }
                    })
                    .collect();
                interp::run_entry(&case.prog, &ins)
            })
            .collect();
        for &n in &case.ns {
            for (o, p) in lay.params.iter().filter(|p| !p.is_input).enumerate() {
                let want: Vec<u8> = results[..n]
                    .iter()
                    .flat_map(|r| encode(p, &r[o], 0))
                    .collect();
                let key = format!("OUT {e} {n} {}", p.name);
                let got = seen
                    .get(&key)
                    .unwrap_or_else(|| panic!("missing `{key}` in output"));
                assert_eq!(
                    got,
                    &hex(&want),
                    "{key} ({} {}slice): packed output differs from the interpreter",
                    lay.arch,
                    lay.slicing
                );
                n_out += 1;
            }
        }
        if let Some((_, po)) = inplace_pair(lay) {
            let o = lay
                .params
                .iter()
                .filter(|p| !p.is_input)
                .position(|p| p.name == po.name)
                .unwrap();
            let want: Vec<u8> = results.iter().flat_map(|r| encode(po, &r[o], 0)).collect();
            let key = format!("INPLACE {e}");
            let got = seen.get(&key).unwrap_or_else(|| panic!("missing `{key}`"));
            assert_eq!(
                got,
                &hex(&want),
                "{key} ({} {}slice): in-place call differs",
                lay.arch,
                lay.slicing
            );
            n_out += 1;
        }
        if check_dumps {
            let atoms: Vec<Vec<Vec<u64>>> = lay
                .params
                .iter()
                .filter(|p| p.is_input)
                .zip(&case.inputs)
                .zip(&case.prog.entry().inputs)
                .map(|((_, v), ip)| {
                    v.iter()
                        .map(|w| interp::words_to_atoms(case.prog.slicing, ip, w))
                        .collect()
                })
                .collect();
            for (tag, n) in [("full", lay.instances), ("part", lay.instances / 2 + 1)] {
                let key = format!("DUMP {e} {tag}");
                let got = seen.get(&key).unwrap_or_else(|| panic!("missing `{key}`"));
                let want = expected_regs(lay, &atoms, n);
                assert_eq!(
                    got,
                    &hex(&want),
                    "{key} ({} {}slice): registers are not in the target.rs layout",
                    lay.arch,
                    lay.slicing
                );
                n_dump += 1;
            }
        }
    }
    println!("checked {n_out} packed outputs and {n_dump} register dumps on {archs:?}");
    assert!(n_out > 0 && (n_dump > 0 || !check_dumps));
}

fn arch_mask(archs: &[Arch]) -> (u32, Vec<Arch>) {
    let mut mask = 0;
    let mut run = vec![];
    for (i, a) in archs.iter().enumerate() {
        if a.runs_here() {
            mask |= 1 << i;
            run.push(*a);
        } else {
            println!("skipped: {a}");
        }
    }
    (mask, run)
}

const X86: [Arch; 4] = [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512];

fn programs(arch: Arch) -> Vec<Program> {
    let a = arch.name();
    let mut progs = vec![];
    // Bitslice: native words of every size, 1-bit and odd-size bit strings, const, scalars,
    // parameters of more than 64 atoms, with a last partial 64-bit group of 1 bit to 6 bytes (on
    // SIMD the whole-group routine on the window of 8 bytes ending at the string's end), and
    // instances of 16 bytes and more both ways (pairs of groups from one 16-byte chunk: `a`,
    // `g`, `c`, `f`, `r`, `y`, `e`).
    progs.push(build(
        Slicing::B,
        &format!("b1_{a}"),
        &[
            sp("x", &[3], 32),
            cs("k", &[5], 8),
            sp("z", &[], 1),
            sp("w", &[13], 1),
            sp("q", &[3], 4),
            sp("a", &[4], 32),
        ],
        &[
            sp("y", &[3], 32),
            sp("o", &[64], 1),
            sp("p", &[], 16),
            sp("r", &[2], 64),
            sp("s", &[5], 4),
            sp("g", &[4], 32),
        ],
    ));
    progs.push(build(
        Slicing::B,
        &format!("b2_{a}"),
        &[
            sp("x", &[3, 4], 8),
            cs("k", &[], 64),
            sp("t", &[9], 8),
            sp("u", &[71], 1),
            sp("c", &[5], 64),
            sp("f", &[263], 1),
        ],
        &[
            sp("y", &[2], 64),
            sp("n", &[7], 16),
            sp("v", &[5], 16),
            sp("e", &[257], 1),
        ],
    ));
    // Vslice, every native word size.
    for m in [8u32, 16, 32, 64] {
        progs.push(build(
            Slicing::V,
            &format!("v{m}_{a}"),
            &[sp("x", &[3], m), cs("k", &[2], m), sp("z", &[], m)],
            &[sp("y", &[3], m), sp("s", &[], m)],
        ));
        // Words per instance beyond one register's lanes K: whole KxK groups and a partial
        // group (2K+3), exactly K, and K-1.
        let k = (arch.reg_bits() / m) as usize;
        let k = if arch == Arch::Std { 5 } else { k };
        // Instances of exactly 2, 4 and 8 words (contiguous lane chunks on SIMD).
        progs.push(build(
            Slicing::V,
            &format!("vs{m}_{a}"),
            &[sp("x", &[4], m)],
            &[sp("y", &[8], m), sp("s", &[2], m)],
        ));
        progs.push(build(
            Slicing::V,
            &format!("vw{m}_{a}"),
            &[sp("x", &[2 * k + 3], m), cs("k", &[k - 1], m)],
            &[sp("y", &[2 * k + 3], m), sp("s", &[k], m)],
        ));
    }
    if arch == Arch::Std {
        for m in [1u32, 4, 12] {
            progs.push(build(
                Slicing::V,
                &format!("v{m}_{a}"),
                &[sp("x", &[3], m), cs("k", &[2], m)],
                &[sp("y", &[5], m)],
            ));
        }
    }
    // Hslice, every word size dividing the lane.
    for m in [1u32, 2, 4, 8, 16, 32, 64] {
        progs.push(build(
            Slicing::H,
            &format!("h{m}_{a}"),
            &[sp("x", &[3], m), cs("k", &[2], m), sp("z", &[], m)],
            &[sp("y", &[4], m), sp("s", &[], m)],
        ));
    }
    progs
}

#[test]
fn transpositions_round_trip_and_match_target_layout() {
    let mut rng = Rng(0x5eed_0001);
    let mut files: Vec<(String, String)> = vec![];
    let mut main = String::from(DRIVER_HEAD);
    let mut cases = vec![];
    let (mask, _) = arch_mask(&X86);
    let mut calls = String::new();
    for (ai, arch) in X86.iter().enumerate() {
        // One translation unit per arch: all its packed entry points (they share routines).
        let mut tu = String::from("#include <string.h>\n");
        writeln!(calls, "    if (mask & {}) {{", 1 << ai).unwrap();
        for prog in programs(*arch) {
            let case = make_case(prog, *arch, &mut rng);
            let (c, h) = packed::emit(&case.prog, *arch).unwrap();
            tu.push_str(nakiri::runtime::includes(*arch));
            tu.push_str(&h);
            tu.push_str(&fake_raw_entry(&case.prog, &case.lay));
            tu.push_str(&c);
            main.push_str(&h);
            main.push_str(&driver_fn(&case, &mut rng, true));
            writeln!(calls, "        run_{}();", case.lay.entry).unwrap();
            cases.push(case);
        }
        writeln!(calls, "    }}").unwrap();
        files.push((format!("packed_{}.c", arch.name()), tu));
    }
    main.push_str(
        "int main(void) {\n    unsigned mask = 0;\n    if (scanf(\"%u\", &mask) != 1) return 2;\n",
    );
    main.push_str(&calls);
    main.push_str("    return 0;\n}\n");
    files.push(("main.c".into(), main));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let out = build_and_run("packed", &refs, &[], &format!("{mask}\n"));
    let run: Vec<Case> = cases
        .into_iter()
        .filter(|c| c.lay.arch.runs_here())
        .collect();
    assert!(!run.is_empty());
    check_output(&run, &out, true);
}

#[test]
fn layout_rejects_what_no_register_can_hold() {
    // vslice on SIMD needs native words; hslice needs m dividing the lane.
    let p = build(
        Slicing::V,
        "bad_v",
        &[sp("x", &[2], 4)],
        &[sp("y", &[2], 4)],
    );
    assert!(packed::emit(&p, Arch::Avx2).is_err());
    assert!(packed::emit(&p, Arch::Std).is_ok());
    let p = build(
        Slicing::H,
        "bad_h",
        &[sp("x", &[2], 3)],
        &[sp("y", &[2], 3)],
    );
    assert!(packed::emit(&p, Arch::Sse).is_err());
    let mut p = build(
        Slicing::V,
        "mixed",
        &[sp("k", &[2], 16)],
        &[sp("y", &[2], 16)],
    );
    let extra = make_param(&mut p.nodes[0], Slicing::V, &sp("x", &[2], 8));
    p.nodes[0].inputs.push(extra);
    assert!(packed::emit(&p, Arch::Sse).is_err());
    assert!(packed::emit(&p, Arch::Std).is_ok());
}

#[test]
fn header_declares_the_documented_signature() {
    let p = build(
        Slicing::V,
        "Cipher",
        &[sp("plain", &[4], 16), cs("key", &[26, 4], 16)],
        &[sp("cipher", &[4], 16)],
    );
    let (c, h) = packed::emit(&p, Arch::Avx2).unwrap();
    assert!(h.contains("void Cipher__packed(size_t n, const uint16_t *plain, const uint16_t *key, uint16_t *cipher);"), "{h}");
    assert!(h.contains("size_t Cipher__instances(void);"));
    assert!(h.contains("#define Cipher__INSTANCES 16"));
    assert!(c.contains("size_t Cipher__instances(void) { return 16; }"));
    let b = build(Slicing::B, "P", &[sp("n", &[64], 1)], &[sp("o", &[64], 1)]);
    let (_, h) = packed::emit(&b, Arch::Std).unwrap();
    assert!(
        h.contains("void P__packed(size_t n_, const uint8_t *n, uint8_t *o);"),
        "{h}"
    );
}

// ---------------------------------------------------------------- end to end through codegen

/// Builds an entry node op by op.
struct Builder {
    node: Node,
    tmp: usize,
}

impl Builder {
    fn new(name: &str) -> Builder {
        Builder {
            node: Node {
                name: name.into(),
                inputs: vec![],
                outputs: vec![],
                vars: vec![],
                body: vec![],
                inline: None,
                lockstep: false,
            },
            tmp: 0,
        }
    }
    fn param(&mut self, slicing: Slicing, s: Spec, input: bool) -> Vec<VarId> {
        let p = make_param(&mut self.node, slicing, &s);
        let atoms = p.atoms.clone();
        if input {
            self.node.inputs.push(p);
        } else {
            self.node.outputs.push(p);
        }
        atoms
    }
    fn op(&mut self, bits: u32, op: Op) -> VarId {
        self.tmp += 1;
        let d = self.node.new_var(format!("t{}", self.tmp), bits);
        self.node.body.push(Instr::Assign { dst: d, op });
        d
    }
    fn set(&mut self, dst: VarId, op: Op) {
        self.node.body.push(Instr::Assign { dst, op });
    }
    fn finish(self, slicing: Slicing) -> Program {
        let prog = Program {
            slicing,
            nodes: vec![self.node],
            interleave: 1,
        };
        nakiri::ir::verify(&prog).expect("test program verifies");
        prog
    }
}

/// Bitslice: native words, const and non-const bit strings, a b1 scalar, a const u32.
fn e2e_bitslice(name: &str) -> Program {
    let s = Slicing::B;
    let mut b = Builder::new(name);
    let x = b.param(s, sp("x", &[2], 16), true);
    let k = b.param(s, cs("k", &[12], 1), true);
    let z = b.param(s, sp("z", &[], 1), true);
    let c = b.param(s, cs("c", &[], 32), true);
    let y = b.param(s, sp("y", &[2], 16), false);
    let o = b.param(s, sp("o", &[5], 1), false);
    let q = b.param(s, sp("q", &[], 64), false);
    for a in 0..32 {
        let t1 = b.op(1, Op::And(x[a], k[a % 12]));
        let t2 = b.op(1, Op::Xor(t1, z[0]));
        let t3 = b.op(1, Op::Not(x[(a + 1) % 32]));
        let t4 = b.op(1, Op::Andn(t3, c[a]));
        b.set(y[a], Op::Or(t2, t4));
    }
    for j in 0..5 {
        let t = b.op(1, Op::Xor(x[j], k[j]));
        let one = b.op(1, Op::Const((j % 2) as u64));
        b.set(o[j], Op::Xor(t, one));
    }
    b.set(q[0], Op::Copy(z[0]));
    for j in 1..64 {
        b.set(q[j], Op::Xor(x[j % 32], c[(j * 7) % 32]));
    }
    b.finish(s)
}

/// Vslice on m-bit words: arithmetic, rotations, a const vector.
fn e2e_vslice(name: &str, m: u32) -> Program {
    let s = Slicing::V;
    let mut b = Builder::new(name);
    let x = b.param(s, sp("x", &[3], m), true);
    let k = b.param(s, cs("k", &[2], m), true);
    let z = b.param(s, sp("z", &[], m), true);
    let y = b.param(s, sp("y", &[3], m), false);
    let o = b.param(s, sp("o", &[], m), false);
    for a in 0..3 {
        let t1 = b.op(m, Op::Add(x[a], k[a % 2]));
        let t2 = b.op(m, Op::Rotl(t1, 3 % m));
        b.set(y[a], Op::Xor(t2, z[0]));
    }
    let t1 = b.op(m, Op::Mul(x[1], x[2]));
    let t2 = b.op(m, Op::Shr(x[0], 1 % m));
    let t3 = b.op(m, Op::Sub(t1, t2));
    let c = b.op(m, Op::Const(0x5a5a_5a5a_5a5a_5a5a & nakiri::ir::mask(m)));
    b.set(o[0], Op::Xor(t3, c));
    b.finish(s)
}

/// Hslice on m-bit words: bit permutations (slot shuffles), rotations, bitmask when `perms`
/// (SIMD hslice permutes whole-byte slots only, so m <= 16 there), else logic only.
fn e2e_hslice(name: &str, m: u32, perms: bool) -> Program {
    let s = Slicing::H;
    let mut b = Builder::new(name);
    let x = b.param(s, sp("x", &[3], m), true);
    let k = b.param(s, cs("k", &[2], m), true);
    let z = b.param(s, sp("z", &[], m), true);
    let y = b.param(s, sp("y", &[3], m), false);
    let o = b.param(s, sp("o", &[], m), false);
    let rev: Vec<u32> = (0..m).rev().collect();
    for a in 0..3 {
        let t1 = if perms {
            b.op(m, Op::Shuffle(x[a], rev.clone()))
        } else {
            b.op(m, Op::Not(x[a]))
        };
        let t2 = if perms {
            b.op(m, Op::Rotl(k[a % 2], 1 % m))
        } else {
            b.op(m, Op::Copy(k[a % 2]))
        };
        let t3 = b.op(m, Op::Xor(t1, t2));
        b.set(y[a], Op::Or(t3, z[0]));
    }
    let t1 = if perms {
        b.op(m, Op::Bitmask(x[1], m - 1))
    } else {
        b.op(m, Op::Andn(x[1], x[2]))
    };
    let t2 = b.op(m, Op::And(t1, z[0]));
    let t3 = if perms {
        b.op(m, Op::Shr(x[0], 1 % m))
    } else {
        b.op(m, Op::Const(0x3c3c_3c3c_3c3c_3c3c & nakiri::ir::mask(m)))
    };
    b.set(o[0], Op::Xor(t2, t3));
    b.finish(s)
}

#[test]
fn generated_code_end_to_end() {
    let mut rng = Rng(0x5eed_0002);
    let mut files: Vec<(String, String)> = vec![];
    let mut main = String::from(DRIVER_HEAD);
    let mut cases = vec![];
    let (mask, _) = arch_mask(&X86);
    let mut calls = String::new();
    for (ai, arch) in X86.iter().enumerate() {
        let a = arch.name();
        // Every arch gets bitslice; the vslice/hslice word sizes rotate over the archs (each
        // size runs somewhere; the transposes of every size and arch are covered above).
        let (vs, hs): (&[u32], &[u32]) = match arch {
            Arch::Std => (&[8, 64, 4], &[4, 32]),
            Arch::Sse => (&[16, 32], &[8, 64]),
            Arch::Avx2 => (&[8, 64], &[16, 32]),
            _ => (&[16, 32], &[4, 8]),
        };
        let mut progs = vec![e2e_bitslice(&format!("eb_{a}"))];
        for &m in vs {
            progs.push(e2e_vslice(&format!("ev{m}_{a}"), m));
        }
        for &m in hs {
            progs.push(e2e_hslice(
                &format!("eh{m}_{a}"),
                m,
                m <= 16 || *arch == Arch::Std,
            ));
        }
        writeln!(calls, "    if (mask & {}) {{", 1 << ai).unwrap();
        for prog in progs {
            let case = make_case(prog, *arch, &mut rng);
            let e = case.lay.entry.clone();
            let cfg = nakiri::codegen::CodegenConfig {
                arch: *arch,
                header_name: format!("{e}.h"),
                banner: "packed test".into(),
                spill: nakiri::codegen::SPILL_DEFAULT,
                mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
                loop_regs: None,
                opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                uarch: nakiri::target::Uarch::host(),
                state_loads: None,
                loop_align: None,
            };
            let out = nakiri::codegen::generate(&case.prog, &cfg)
                .unwrap_or_else(|err| panic!("generate {e}: {err}"));
            assert!(
                out.c.contains(&format!("{e}__packed("))
                    && out.h.contains(&format!("{e}__packed(")),
                "{e}: no packed entry point in the generated files"
            );
            files.push((format!("{e}.c"), out.c));
            files.push((format!("{e}.h"), out.h));
            writeln!(main, "#include \"{e}.h\"").unwrap();
            main.push_str(&driver_fn(&case, &mut rng, false));
            writeln!(calls, "        run_{e}();").unwrap();
            cases.push(case);
        }
        writeln!(calls, "    }}").unwrap();
    }
    main.push_str(
        "int main(void) {\n    unsigned mask = 0;\n    if (scanf(\"%u\", &mask) != 1) return 2;\n",
    );
    main.push_str(&calls);
    main.push_str("    return 0;\n}\n");
    files.push(("main.c".into(), main));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let out = build_and_run("packed-e2e", &refs, &[], &format!("{mask}\n"));
    let run: Vec<Case> = cases
        .into_iter()
        .filter(|c| c.lay.arch.runs_here())
        .collect();
    assert!(!run.is_empty());
    check_output(&run, &out, false);
}

// ---------------------------------------------------------------- interleaving, prepared consts, helpers

const API_SRC: &str = "node f (x:u16x4, k:const u16x4[2], z:u16) returns (y:u16x4, s:u16)
let
  s = z ^ x[0] ^ k[1][2];
  forall i in [0,3] { y[i] = ((x[i] ^ k[0][i]) <<< 3) ^ k[1][i] ^ z }
tel
";

/// Through the real codegen, on every native arch, B/V/H: the entry compiled with
/// `--interleave 1` and `3`, and with `--packed-interleave 3` (a 3-way interleaved kernel
/// behind the packed entry of a non-interleaved raw entry), gives, through `f__packed` and
/// through `f__packed_with` (prepared constants at a 64-byte aligned and at an odd address),
/// the interpreter's outputs of the *non-interleaved* program for n = 0, 1, 5, I-1, I+1,
/// around one step of the kernel and 2·step+7; for a non-interleaved raw entry in B and V,
/// `f__pack_x`/`f__bcast_*` + the raw entry + `f__unpack_y` with an XOR source give
/// x ^ outputs for a partial call.
#[test]
fn interleaved_prepared_consts_and_helpers() {
    use nakiri::driver::Config;
    let mut rng = Rng(0x5eed_0003);
    let mut checked = 0;
    for arch in common::native_archs("packed API: interleave / packed_with / helpers") {
        for slicing in [Slicing::B, Slicing::V, Slicing::H] {
            let base_cfg = Config {
                slicing,
                arch,
                ..Config::default()
            };
            let plain = common::lower_src_cfg("api.ua", API_SRC, &base_cfg);
            // (raw entry interleaving, interleaving of the kernel behind the packed entry)
            for (k, kf) in [(1u32, 1u32), (3, 1), (1, 3)] {
                let mut cfg = base_cfg.clone();
                cfg.opt.interleave = k;
                cfg.packed_interleave = Some(kf);
                let prog = common::lower_src_cfg("api.ua", API_SRC, &cfg);
                assert_eq!(prog.interleave, k);
                let lay = packed::layout(&prog, arch)
                    .unwrap_or_else(|e| panic!("{arch} -{slicing} k={k}: {e}"));
                assert_eq!(
                    lay.params.len(),
                    5,
                    "copies are not parameters of the packed API"
                );
                let (front, out) = nakiri::driver::compile(
                    "api.ua",
                    API_SRC,
                    &cfg,
                    &nakiri::syntax::MemLoader::default(),
                    "f.h",
                );
                let out = out.unwrap_or_else(|| panic!("{}", front.render_diags()));
                assert!(
                    out.h.contains("f__packed_with(") && out.h.contains("f__prepare_consts("),
                    "{arch} -{slicing} k={k}: no packed API\n{}",
                    out.h
                );
                // The kernel is internal: the header describes the raw entry only.
                assert_eq!(
                    out.c.contains("static NK_TARGET void f__x3("),
                    kf == 3,
                    "{arch} -{slicing} kernel x{kf}"
                );
                assert!(!out.h.contains("f__x3"), "the kernel is not in the header");
                assert!(
                    out.h
                        .contains(&format!("#define f__INSTANCES {}\n", lay.instances)),
                    "{arch} -{slicing}: INSTANCES is the raw entry's"
                );
                let step = lay.step() * kf as usize;
                let maxn = 2 * step + 7;
                let ns = [
                    0usize,
                    1,
                    5.min(maxn),
                    lay.instances - 1,
                    lay.instances + 1,
                    step - 1,
                    step,
                    step + lay.step() + 1,
                    maxn,
                ];
                // Random inputs, one const value.
                let (px, pk, pz) = (&lay.params[0], &lay.params[1], &lay.params[2]);
                let xs: Vec<Vec<u64>> = (0..maxn)
                    .map(|_| (0..4).map(|_| rng.bits(16)).collect())
                    .collect();
                let kv: Vec<u64> = (0..8).map(|_| rng.bits(16)).collect();
                let zs: Vec<Vec<u64>> = (0..maxn).map(|_| vec![rng.bits(16)]).collect();
                let xor: Vec<u8> = (0..maxn * 8).map(|_| rng.next() as u8).collect();
                let bytes = |p: &packed::PackedParam, v: &[Vec<u64>]| -> Vec<u8> {
                    v.iter().flat_map(|w| encode(p, w, 0)).collect()
                };
                let mut d = String::from(DRIVER_HEAD);
                d.push_str("#include <stdlib.h>\n#include \"f.h\"\n");
                writeln!(
                    d,
                    "static const uint16_t X[] = {{{}}};",
                    c_array(px, &bytes(px, &xs))
                )
                .unwrap();
                writeln!(
                    d,
                    "static const uint16_t K[] = {{{}}};",
                    c_array(pk, &encode(pk, &kv, 0))
                )
                .unwrap();
                writeln!(
                    d,
                    "static const uint16_t Z[] = {{{}}};",
                    c_array(pz, &bytes(pz, &zs))
                )
                .unwrap();
                writeln!(d, "static const uint16_t XR[] = {{{}}};", c_array(px, &xor)).unwrap();
                writeln!(d, "static uint16_t Y[{} + 16], S[{} + 16];", maxn * 4, maxn).unwrap();
                // The raw call passes registers by value: it runs in a function with the target's
                // attribute (the caller's ABI must match the raw entry's).
                let attr = nakiri::runtime::target_attribute(arch);
                writeln!(d, "{attr} static void helpers(void);").unwrap();
                d.push_str("int main(void) {\n    helpers();\n    f__consts *cs = aligned_alloc(64, 2 * sizeof(f__consts));\n    unsigned char *odd = malloc(sizeof(f__consts) + 1);\n");
                d.push_str(
                    "    f__prepare_consts(cs, K);\n    memcpy(odd + 1, cs, sizeof(f__consts));\n",
                );
                for &n in &ns {
                    for (tag, call) in [
                        ("packed", format!("f__packed({n}, X, K, Z, Y, S)")),
                        ("with", format!("f__packed_with({n}, cs, X, Z, Y, S)")),
                        (
                            "odd",
                            format!(
                                "f__packed_with({n}, (const f__consts *)(odd + 1), X, Z, Y, S)"
                            ),
                        ),
                    ] {
                        writeln!(
                            d,
                            "    memset(Y, 0xA5, sizeof Y); memset(S, 0xA5, sizeof S); {call};"
                        )
                        .unwrap();
                        writeln!(d, "    printf(\"{tag} {n} \"); hexdump(Y, {n} * 8); printf(\"{tag}s {n} \"); hexdump(S, {n} * 2);").unwrap();
                        writeln!(d, "    for (size_t i = {n} * 8; i < sizeof Y; i++) if (((unsigned char *)Y)[i] != 0xA5) printf(\"CANARY\\n\");").unwrap();
                    }
                }
                d.push_str("    f__wipe_consts(cs); free(cs); free(odd);\n    return 0;\n}\n");
                let helpers = lay.has_param_helpers();
                let hn = lay.instances / 2 + 1;
                writeln!(d, "{attr} static void helpers(void) {{").unwrap();
                if helpers {
                    let dims = |p: &packed::PackedParam| {
                        p.c_dims
                            .iter()
                            .map(|d| format!("[{d}]"))
                            .collect::<String>()
                    };
                    writeln!(
                        d,
                        "    static {} rx{}, rk{}, ry{}; static {} rz{}, rs{};",
                        px.reg_type,
                        dims(px),
                        dims(pk),
                        dims(px),
                        pz.reg_type,
                        dims(pz),
                        dims(pz)
                    )
                    .unwrap();
                    let (z_arg, s_arg, z_ptr) = if pz.c_dims.is_empty() {
                        ("rz", "&rs", "&rz")
                    } else {
                        ("rz", "rs", "rz")
                    };
                    writeln!(d, "    f__pack_x({hn}, X, rx); f__bcast_k(K, rk); f__pack_z({hn}, Z, {z_ptr});").unwrap();
                    writeln!(d, "    f__(rx, rk, {z_arg}, ry, {s_arg});").unwrap();
                    writeln!(d, "    memset(Y, 0xA5, sizeof Y); memcpy(Y, XR, {hn} * 8); f__unpack_y({hn}, ry, Y, Y);").unwrap();
                    writeln!(d, "    printf(\"helpers {hn} \"); hexdump(Y, {hn} * 8);").unwrap();
                    writeln!(d, "    for (size_t i = {hn} * 8; i < sizeof Y; i++) if (((unsigned char *)Y)[i] != 0xA5) printf(\"CANARY\\n\");").unwrap();
                }
                d.push_str("}\n");
                let stdout = build_and_run(
                    &format!("api-{arch}-{slicing}-{k}-{kf}"),
                    &[("f.c", &out.c), ("f.h", &out.h), ("main.c", &d)],
                    &[],
                    "",
                );
                assert!(
                    !stdout.contains("CANARY"),
                    "{arch} -{slicing} k={k} kernel x{kf}: written past n instances"
                );
                let want: Vec<Vec<Vec<u64>>> = (0..maxn)
                    .map(|i| interp::run_entry(&plain, &[xs[i].clone(), kv.clone(), zs[i].clone()]))
                    .collect();
                let lines: HashMap<String, String> = stdout
                    .lines()
                    .map(|l| {
                        l.rsplit_once(' ')
                            .map(|(a, b)| (a.to_string(), b.to_string()))
                            .unwrap_or((l.trim().to_string(), String::new()))
                    })
                    .collect();
                for &n in &ns {
                    let wy: Vec<u8> = want[..n]
                        .iter()
                        .flat_map(|r| encode(&lay.params[3], &r[0], 0))
                        .collect();
                    let ws: Vec<u8> = want[..n]
                        .iter()
                        .flat_map(|r| encode(&lay.params[4], &r[1], 0))
                        .collect();
                    for tag in ["packed", "with", "odd"] {
                        assert_eq!(
                            lines[&format!("{tag} {n}")],
                            hex(&wy),
                            "{arch} -{slicing} interleave {k}, kernel x{kf}: {tag} n={n}: y"
                        );
                        assert_eq!(
                            lines[&format!("{tag}s {n}")],
                            hex(&ws),
                            "{arch} -{slicing} interleave {k}, kernel x{kf}: {tag} n={n}: s"
                        );
                        checked += 1;
                    }
                }
                if helpers {
                    let wy: Vec<u8> = want[..hn]
                        .iter()
                        .flat_map(|r| encode(&lay.params[3], &r[0], 0))
                        .zip(&xor)
                        .map(|(a, b)| a ^ b)
                        .collect();
                    assert_eq!(
                        lines[&format!("helpers {hn}")],
                        hex(&wy),
                        "{arch} -{slicing}: pack/bcast/raw/unpack with xor"
                    );
                    checked += 1;
                }
            }
        }
    }
    println!("checked {checked} outputs");
    assert!(checked > 0);
}

/// Outputs whose bitsliced transposition takes each of `nkp_B_outx`'s paths: `y` 128 atoms and
/// 16 bytes per instance (two groups joined by `nkp_Bg2_out`), `w` 120 atoms in bytes (a whole
/// group, then a last group of 56 atoms that the shuffle routine's overlapping window writes
/// without an XOR source and the 64x64 transposes with one), `d` 96 atoms (a whole group and a
/// 32-atom tail), `e` 256 atoms (two joined pairs).
const OUTX_SRC: &str =
    "node g (x:u16x8, a:u8x15, c:u32x3, h:u16x16) returns (y:u16x8, w:u8x15, d:u32x3, e:u16x16)
let
  forall i in [0,7] { y[i] = (x[i] <<< 3) ^ x[(i + 1) % 8] }
  forall i in [0,14] { w[i] = a[i] ^ (a[(i + 2) % 15] <<< 1) }
  forall i in [0,2] { d[i] = (c[i] <<< 7) ^ c[(i + 1) % 3] }
  forall i in [0,15] { e[i] = h[(i + 5) % 16] ^ (h[i] >>> 2) }
tel
";

/// On every native SIMD target in bitslice: a full raw call (every instance) unpacked with an
/// XOR source gives x ^ outputs, both into another buffer and in place (`dst == x`), for every
/// path of `nkp_B_outx` (see `OUTX_SRC`); the packed entry (no XOR source) gives the outputs.
#[test]
fn bitslice_unpack_xor_fused_full_call() {
    use nakiri::driver::Config;
    let mut rng = Rng(0x5eed_0011);
    let mut checked = 0;
    for arch in common::native_archs("bitslice unpack with an XOR source") {
        if arch == Arch::Std {
            continue;
        }
        let cfg = Config {
            slicing: Slicing::B,
            arch,
            ..Config::default()
        };
        let plain = common::lower_src_cfg("outx.ua", OUTX_SRC, &cfg);
        let lay = packed::layout(&plain, arch).unwrap_or_else(|e| panic!("{arch}: {e}"));
        let (front, out) = nakiri::driver::compile(
            "outx.ua",
            OUTX_SRC,
            &cfg,
            &nakiri::syntax::MemLoader::default(),
            "g.h",
        );
        let out = out.unwrap_or_else(|| panic!("{}", front.render_diags()));
        assert!(
            out.c.contains("nkp_Bg2_out_u16_"),
            "{arch}: the joined-groups routine is generated"
        );
        let n = lay.instances;
        let ins: Vec<&packed::PackedParam> = lay.params.iter().filter(|p| p.is_input).collect();
        let outs: Vec<&packed::PackedParam> = lay.params.iter().filter(|p| !p.is_input).collect();
        let widths = [16u32, 8, 32, 16];
        let vals: Vec<Vec<Vec<u64>>> = ins
            .iter()
            .zip(widths)
            .map(|(p, m)| {
                (0..n)
                    .map(|_| (0..p.words).map(|_| rng.bits(m)).collect())
                    .collect()
            })
            .collect();
        let xors: Vec<Vec<u8>> = outs
            .iter()
            .map(|p| {
                (0..n * p.elems * elem_bytes(p))
                    .map(|_| rng.next() as u8)
                    .collect()
            })
            .collect();
        let bytes = |p: &packed::PackedParam, v: &[Vec<u64>]| -> Vec<u8> {
            v.iter().flat_map(|w| encode(p, w, 0)).collect()
        };
        let attr = nakiri::runtime::target_attribute(arch);
        let mut d = String::from(DRIVER_HEAD);
        d.push_str("#include \"g.h\"\n");
        for (i, p) in ins.iter().enumerate() {
            writeln!(
                d,
                "static const {} IN{i}[] = {{{}}};",
                p.elem_type,
                c_array(p, &bytes(p, &vals[i]))
            )
            .unwrap();
        }
        for (i, p) in outs.iter().enumerate() {
            writeln!(
                d,
                "static const {} XR{i}[] = {{{}}};",
                p.elem_type,
                c_array(p, &xors[i])
            )
            .unwrap();
            writeln!(
                d,
                "static {} O{i}[{} + 64], P{i}[{} + 64];",
                p.elem_type,
                n * p.elems,
                n * p.elems
            )
            .unwrap();
        }
        let dims = |p: &packed::PackedParam| {
            p.c_dims
                .iter()
                .map(|d| format!("[{d}]"))
                .collect::<String>()
        };
        writeln!(d, "{attr} static void run(void) {{").unwrap();
        for (i, p) in ins.iter().enumerate() {
            writeln!(
                d,
                "    static {} r{i}{};\n    g__pack_{}({n}, IN{i}, r{i});",
                p.reg_type,
                dims(p),
                p.c_name
            )
            .unwrap();
        }
        for (i, p) in outs.iter().enumerate() {
            writeln!(d, "    static {} q{i}{};", p.reg_type, dims(p)).unwrap();
        }
        let args: Vec<String> = (0..ins.len())
            .map(|i| format!("r{i}"))
            .chain((0..outs.len()).map(|i| format!("q{i}")))
            .collect();
        writeln!(d, "    g__({});", args.join(", ")).unwrap();
        for (i, p) in outs.iter().enumerate() {
            writeln!(d, "    memset(O{i}, 0xA5, sizeof O{i}); g__unpack_{c}({n}, q{i}, XR{i}, O{i}); printf(\"sep{i} \"); hexdump(O{i}, sizeof O{i});", c = p.c_name).unwrap();
            writeln!(d, "    memset(P{i}, 0xA5, sizeof P{i}); memcpy(P{i}, XR{i}, sizeof XR{i}); g__unpack_{c}({n}, q{i}, P{i}, P{i}); printf(\"inp{i} \"); hexdump(P{i}, sizeof P{i});", c = p.c_name).unwrap();
        }
        d.push_str("}\nint main(void) {\n    run();\n");
        let pargs: Vec<String> = (0..ins.len())
            .map(|i| format!("IN{i}"))
            .chain((0..outs.len()).map(|i| format!("O{i}")))
            .collect();
        d.push_str(&format!(
            "    {}\n",
            (0..outs.len())
                .map(|i| format!("memset(O{i}, 0xA5, sizeof O{i});"))
                .collect::<String>()
        ));
        writeln!(d, "    g__packed({n}, {});", pargs.join(", ")).unwrap();
        for i in 0..outs.len() {
            writeln!(d, "    printf(\"packed{i} \"); hexdump(O{i}, sizeof O{i});").unwrap();
        }
        d.push_str("    return 0;\n}\n");
        let stdout = common::build_and_run(
            &format!("outx-{arch}"),
            &[("g.c", &out.c), ("g.h", &out.h), ("main.c", &d)],
            &[],
            "",
        );
        let lines: HashMap<String, String> = stdout
            .lines()
            .filter_map(|l| {
                l.split_once(' ')
                    .map(|(a, b)| (a.to_string(), b.to_string()))
            })
            .collect();
        let want: Vec<Vec<Vec<u64>>> = (0..n)
            .map(|k| {
                interp::run_entry(
                    &plain,
                    &vals.iter().map(|v| v[k].clone()).collect::<Vec<_>>(),
                )
            })
            .collect();
        for (i, p) in outs.iter().enumerate() {
            let plain_out: Vec<u8> = want.iter().flat_map(|r| encode(p, &r[i], 0)).collect();
            let canary = vec![0xA5u8; 64 * elem_bytes(p)];
            let with = |v: Vec<u8>| -> String { hex(&[v, canary.clone()].concat()) };
            let xored: Vec<u8> = plain_out.iter().zip(&xors[i]).map(|(a, b)| a ^ b).collect();
            assert_eq!(
                lines[&format!("sep{i}")],
                with(xored.clone()),
                "{arch}: unpack_{} with an XOR source",
                p.c_name
            );
            assert_eq!(
                lines[&format!("inp{i}")],
                with(xored),
                "{arch}: unpack_{} with an XOR source, in place",
                p.c_name
            );
            assert_eq!(
                lines[&format!("packed{i}")],
                with(plain_out),
                "{arch}: packed entry, output {}",
                p.c_name
            );
            checked += 3;
        }
    }
    println!("checked {checked} outputs");
}

/// `E__xor_p` sources: a const input, a one-word input (a register passed by value), 32-bit
/// output words (`XORV_A`); 8-bit words and no consts (`XORV_B`).
const XORV_A: &str = "node f (k:const u32x4, c:u32, s:u32x16) returns (o:u32x16)
let
  forall i in [0,15] { o[i] = ((s[i] <<< 5) + k[i % 4]) ^ s[(i + 3) % 16] ^ c }
tel
";
/// Instances of several 128-bit chunks on AVX-512 (`XORV_C`, 12 words of 32 bits: the
/// output's lane shuffles and whole-register stores across chunks; `XORV_D`, 4 of 64 bits).
const XORV_C: &str = "node f (s:u32x12) returns (o:u32x12)
let
  forall i in [0,11] { o[i] = (s[i] <<< 5) ^ s[(i + 3) % 12] }
tel
";
const XORV_D: &str = "node f (s:u64x4, c:u64) returns (o:u64x4)
let
  forall i in [0,3] { o[i] = (s[i] <<< 7) ^ s[(i + 1) % 4] ^ c }
tel
";
const XORV_B: &str = "node f (a:u8x16, b:u8x16) returns (w:u8x16)
let
  forall i in [0,15] { w[i] = (a[i] + b[(i + 1) % 16]) ^ (a[(i + 7) % 16] <<< 3) }
tel
";

/// On every native SIMD target in vslice: `E__xor_p` (the raw entry and the XOR-ing output
/// transposition in one function) on one raw call's registers gives x ^ outputs, into another
/// buffer and in place, with canaries after; the header announces it with `E__HAS_XOR_p`.
#[test]
fn vslice_kernel_with_xor_output() {
    use nakiri::driver::Config;
    let mut rng = Rng(0x5eed_0012);
    let mut checked = 0;
    for arch in common::native_archs("vslice E__xor_p") {
        if arch == Arch::Std {
            let cfg = Config {
                slicing: Slicing::V,
                arch,
                ..Config::default()
            };
            let (_, out) = nakiri::driver::compile(
                "xv.ua",
                XORV_B,
                &cfg,
                &nakiri::syntax::MemLoader::default(),
                "f.h",
            );
            assert!(
                !out.unwrap().h.contains("f__xor_"),
                "std: no E__xor_p (no vector output network)"
            );
            continue;
        }
        for (tag, src) in [("a", XORV_A), ("b", XORV_B), ("c", XORV_C), ("d", XORV_D)] {
            let cfg = Config {
                slicing: Slicing::V,
                arch,
                ..Config::default()
            };
            let plain = common::lower_src_cfg("xv.ua", src, &cfg);
            let lay = packed::layout(&plain, arch).unwrap_or_else(|e| panic!("{arch}: {e}"));
            let (front, out) = nakiri::driver::compile(
                "xv.ua",
                src,
                &cfg,
                &nakiri::syntax::MemLoader::default(),
                "f.h",
            );
            let out = out.unwrap_or_else(|| panic!("{}", front.render_diags()));
            let o = lay
                .xor_out()
                .unwrap_or_else(|| panic!("{arch} {tag}: E__xor_p expected"));
            assert!(
                out.h
                    .contains(&format!("#define f__HAS_XOR_{} 1", o.c_name)),
                "{arch} {tag}: header announces f__xor_{}",
                o.c_name
            );
            let n = lay.instances;
            let ins: Vec<&packed::PackedParam> = lay.params.iter().filter(|p| p.is_input).collect();
            // one value per instance, except const inputs: the same for every instance
            let vals: Vec<Vec<Vec<u64>>> = ins
                .iter()
                .map(|p| {
                    let one: Vec<u64> = (0..p.words).map(|_| rng.bits(p.word_bits)).collect();
                    (0..n)
                        .map(|_| {
                            if p.is_const {
                                one.clone()
                            } else {
                                (0..p.words).map(|_| rng.bits(p.word_bits)).collect()
                            }
                        })
                        .collect()
                })
                .collect();
            let xr: Vec<u8> = (0..n * o.elems * elem_bytes(o))
                .map(|_| rng.next() as u8)
                .collect();
            let bytes = |p: &packed::PackedParam, v: &[Vec<u64>]| -> Vec<u8> {
                v.iter().flat_map(|w| encode(p, w, 0)).collect()
            };
            let attr = nakiri::runtime::target_attribute(arch);
            let dims = |p: &packed::PackedParam| {
                p.c_dims
                    .iter()
                    .map(|d| format!("[{d}]"))
                    .collect::<String>()
            };
            let mut d = String::from(DRIVER_HEAD);
            d.push_str("#include \"f.h\"\n");
            for (i, p) in ins.iter().enumerate() {
                writeln!(
                    d,
                    "static const {} IN{i}[] = {{{}}};",
                    p.elem_type,
                    c_array(p, &bytes(p, &vals[i]))
                )
                .unwrap();
            }
            writeln!(
                d,
                "static const {} XR[] = {{{}}};",
                o.elem_type,
                c_array(o, &xr)
            )
            .unwrap();
            writeln!(
                d,
                "static {t} O[{m} + 64], P[{m} + 64];",
                t = o.elem_type,
                m = n * o.elems
            )
            .unwrap();
            writeln!(d, "{attr} static void run(void) {{").unwrap();
            let mut args: Vec<String> = Vec::new();
            if lay.has_consts() {
                d.push_str("    static f__consts cs;\n");
                let cargs: Vec<String> = ins
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_const)
                    .map(|(i, _)| format!("IN{i}"))
                    .collect();
                writeln!(d, "    f__prepare_consts(&cs, {});", cargs.join(", ")).unwrap();
                args.push("&cs".into());
            }
            for (i, p) in ins.iter().enumerate().filter(|(_, p)| !p.is_const) {
                writeln!(
                    d,
                    "    static {} r{i}{};\n    f__pack_{}({n}, IN{i}, &r{i});",
                    p.reg_type,
                    dims(p),
                    p.c_name
                )
                .unwrap();
                args.push(format!("&r{i}"));
            }
            let args = args.join(", ");
            writeln!(d, "    memset(O, 0xA5, sizeof O); f__xor_{c}({args}, XR, O); printf(\"sep \"); hexdump(O, sizeof O);", c = o.c_name).unwrap();
            writeln!(d, "    memset(P, 0xA5, sizeof P); memcpy(P, XR, sizeof XR); f__xor_{c}({args}, P, P); printf(\"inp \"); hexdump(P, sizeof P);", c = o.c_name).unwrap();
            d.push_str("}\nint main(void) {\n    run();\n    return 0;\n}\n");
            let stdout = common::build_and_run(
                &format!("xorv-{tag}-{arch}"),
                &[("f.c", &out.c), ("f.h", &out.h), ("main.c", &d)],
                &[],
                "",
            );
            let lines: HashMap<String, String> = stdout
                .lines()
                .filter_map(|l| {
                    l.split_once(' ')
                        .map(|(a, b)| (a.to_string(), b.to_string()))
                })
                .collect();
            let want: Vec<u8> = (0..n)
                .flat_map(|k| {
                    encode(
                        o,
                        &interp::run_entry(
                            &plain,
                            &vals.iter().map(|v| v[k].clone()).collect::<Vec<_>>(),
                        )[0],
                        0,
                    )
                })
                .collect();
            let xored: Vec<u8> = want.iter().zip(&xr).map(|(a, b)| a ^ b).collect();
            let expect = hex(&[xored, vec![0xA5u8; 64 * elem_bytes(o)]].concat());
            assert_eq!(
                lines["sep"], expect,
                "{arch} {tag}: f__xor_{} into another buffer",
                o.c_name
            );
            assert_eq!(
                lines["inp"], expect,
                "{arch} {tag}: f__xor_{} in place",
                o.c_name
            );
            checked += 2;
        }
    }
    println!("checked {checked} calls");
}

/// Test-only emulation of GFNI's `gf2p8affine_epi64_epi8` (imm 0), written from Intel's
/// pseudo-code: result byte j of each qword, bit i = parity(A.byte[7-i] AND x.byte[j]).
/// Only this instruction is emulated; everything else runs on the real SSE/AVX2 unit.
const GFNI_EMULATION: &str = r#"#include <immintrin.h>
#include <stdint.h>
static void emu_gf2p8affine(const uint8_t *x, const uint8_t *a, uint8_t *o, int n) {
    for (int q = 0; q < n / 8; q++)
        for (int j = 0; j < 8; j++) {
            unsigned r = 0;
            for (int i = 0; i < 8; i++) {
                unsigned v = a[8 * q + 7 - i] & x[8 * q + j], p = 0;
                for (int b = 0; b < 8; b++) p ^= (v >> b) & 1u;
                r |= p << i;
            }
            o[8 * q + j] = (uint8_t)r;
        }
}
__attribute__((target("sse4.2"))) static __m128i emu_gf_sse(__m128i x, __m128i a) {
    uint8_t X[16], A[16], O[16];
    _mm_storeu_si128((__m128i *)X, x); _mm_storeu_si128((__m128i *)A, a);
    emu_gf2p8affine(X, A, O, 16);
    return _mm_loadu_si128((const __m128i *)O);
}
__attribute__((target("avx2"))) static __m256i emu_gf_avx2(__m256i x, __m256i a) {
    uint8_t X[32], A[32], O[32];
    _mm256_storeu_si256((__m256i *)X, x); _mm256_storeu_si256((__m256i *)A, a);
    emu_gf2p8affine(X, A, O, 32);
    return _mm256_loadu_si256((const __m256i *)O);
}
#define NKP_GF2P8AFF_sse(x, a) emu_gf_sse(x, a)
#define NKP_GF2P8AFF_avx2(x, a) emu_gf_avx2(x, a)
/* Defined here, after <immintrin.h>: GCC's target pragmas inside the intrinsics headers reset
   the ISA macros to the real flags, so -D__GFNI__ on the command line would not survive. */
#ifndef __GFNI__
#define __GFNI__ 1
#endif
"#;

/// The hslice 8/16/32/64-bit routines' GFNI variant (`#if defined(__GFNI__)`), which this CPU may
/// lack: compiled with `__GFNI__` defined and the instruction emulated (above), run through the same
/// round trips and register-layout checks as the plain path.
#[test]
fn hslice_gfni_variant_matches_layout_under_emulation() {
    let mut rng = Rng(0x5eed_0003);
    let archs = [Arch::Sse, Arch::Avx2];
    let (mask, _) = arch_mask(&archs);
    let mut files: Vec<(String, String)> = vec![];
    let mut main = String::from(DRIVER_HEAD);
    let mut cases = vec![];
    let mut calls = String::new();
    for (ai, arch) in archs.iter().enumerate() {
        let mut tu = String::from(GFNI_EMULATION);
        tu.push_str("#include <string.h>\n");
        writeln!(calls, "    if (mask & {}) {{", 1 << ai).unwrap();
        for prog in programs(*arch) {
            let name = prog.nodes.last().unwrap().name.clone();
            if !["h8_", "h16_", "h32_", "h64_"]
                .iter()
                .any(|p| name.starts_with(p))
            {
                continue;
            }
            let case = make_case(prog, *arch, &mut rng);
            let (c, h) = packed::emit(&case.prog, *arch).unwrap();
            assert!(
                c.contains("NKP_GF2P8AFF_"),
                "no GFNI variant emitted for {name}"
            );
            tu.push_str(nakiri::runtime::includes(*arch));
            tu.push_str(&h);
            tu.push_str(&fake_raw_entry(&case.prog, &case.lay));
            tu.push_str(&c);
            main.push_str(&h);
            main.push_str(&driver_fn(&case, &mut rng, true));
            writeln!(calls, "        run_{}();", case.lay.entry).unwrap();
            cases.push(case);
        }
        writeln!(calls, "    }}").unwrap();
        files.push((format!("gfni_{}.c", arch.name()), tu));
    }
    main.push_str(
        "int main(void) {\n    unsigned mask = 0;\n    if (scanf(\"%u\", &mask) != 1) return 2;\n",
    );
    main.push_str(&calls);
    main.push_str("    return 0;\n}\n");
    files.push(("main.c".into(), main));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let out = build_and_run("packed_gfni", &refs, &[], &format!("{mask}\n"));
    let run: Vec<Case> = cases
        .into_iter()
        .filter(|c| c.lay.arch.runs_here())
        .collect();
    if run.is_empty() {
        println!("skipped: no SSE/AVX2 here");
        return;
    }
    check_output(&run, &out, true);
}

/// With the C compiler targeting GFNI the hslice routines use `vgf2p8affineqb` (and never
/// without it), on SSE/AVX2/AVX-512: a compile-and-disassemble check (no need to run).
#[test]
fn hslice_gfni_instruction_only_with_gfni() {
    let dir = std::env::temp_dir().join(format!("nakiri_gfni_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    for (arch, flags) in [
        (Arch::Sse, vec!["-msse4.2"]),
        (Arch::Avx2, vec!["-mavx2"]),
        (Arch::Avx512, vec!["-mavx512f", "-mavx512bw", "-mavx512vl"]),
    ] {
        let mut rng = Rng(7);
        let prog = programs(arch)
            .into_iter()
            .find(|p| p.nodes.last().unwrap().name.starts_with("h8_"))
            .unwrap();
        let case = make_case(prog, arch, &mut rng);
        let (c, h) = packed::emit(&case.prog, arch).unwrap();
        let tu = format!(
            "{}{}{}{}",
            nakiri::runtime::includes(arch),
            h,
            fake_raw_entry(&case.prog, &case.lay),
            c
        );
        let src = dir.join(format!("g_{}.c", arch.name()));
        std::fs::write(&src, tu).unwrap();
        for gfni in [true, false] {
            let obj = dir.join(format!("g_{}_{gfni}.o", arch.name()));
            let mut cmd = std::process::Command::new(&cc);
            cmd.args(["-O2", "-c"]).args(&flags);
            if gfni {
                cmd.arg("-mgfni");
            }
            let st = cmd.arg(&src).arg("-o").arg(&obj).output().unwrap();
            assert!(
                st.status.success(),
                "{}: {}",
                arch,
                String::from_utf8_lossy(&st.stderr)
            );
            let dis = std::process::Command::new("objdump")
                .arg("-d")
                .arg(&obj)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&dis.stdout);
            assert_eq!(
                text.contains("gf2p8affineqb"),
                gfni,
                "{arch} with gfni={gfni}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Test-only plain-C emulation of the few AVX-512 intrinsics the 8-bit vslice routines use,
/// written from Intel's documented semantics: `__m512i` becomes a struct of 64 bytes, each
/// intrinsic a function on it (macros defined after <immintrin.h>, so the generated text is
/// compiled unchanged), and the routines' `target("avx512...")` attribute is neutralised so
/// that nothing is compiled for AVX-512. `__AVX512VBMI__` is defined here (not with -D: GCC's
/// target pragmas in the intrinsics headers reset ISA macros) when `vbmi`.
fn avx512_emulation(vbmi: bool) -> String {
    let mut s = String::from(
        r#"#include <immintrin.h>
#include <stdint.h>
#include <string.h>
typedef struct { uint8_t b[64]; } emu512;
#define __m512i emu512
static emu512 emu_loadu(const void *p) { emu512 r; memcpy(r.b, p, 64); return r; }
static void emu_storeu(void *p, emu512 v) { memcpy(p, v.b, 64); }
static emu512 emu_cast128(__m128i v) { emu512 r; memset(r.b, 0, 64); _mm_storeu_si128((__m128i *)r.b, v); return r; }
static __m128i emu_cast512(emu512 v) { return _mm_loadu_si128((const __m128i *)v.b); }
static __m128i emu_extract(emu512 v, int l) { return _mm_loadu_si128((const __m128i *)(v.b + 16 * (l & 3))); }
static emu512 emu_insert(emu512 a, __m128i v, int l) { _mm_storeu_si128((__m128i *)(a.b + 16 * (l & 3)), v); return a; }
static emu512 emu_xor(emu512 a, emu512 b) { for (int i = 0; i < 64; i++) a.b[i] ^= b.b[i]; return a; }
static emu512 emu_zero(void) { emu512 r; memset(r.b, 0, 64); return r; }
/* VPUNPCKLBW/VPUNPCKHBW: per 128-bit lane, interleave the low (high) 8 bytes of a and b. */
static emu512 emu_unpack(emu512 a, emu512 b, int hi) {
    emu512 r;
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < 8; k++) {
            r.b[16 * l + 2 * k] = a.b[16 * l + 8 * hi + k];
            r.b[16 * l + 2 * k + 1] = b.b[16 * l + 8 * hi + k];
        }
    return r;
}
/* VPERMI2B/VPERMT2B: byte e = (idx[e] bit 6 ? b : a)[idx[e] bits 0..5]. */
static emu512 emu_perm2(emu512 a, emu512 idx, emu512 b) {
    emu512 r;
    for (int e = 0; e < 64; e++) r.b[e] = (idx.b[e] & 64) ? b.b[idx.b[e] & 63] : a.b[idx.b[e] & 63];
    return r;
}
#define _mm512_loadu_si512(p) emu_loadu(p)
#define _mm512_storeu_si512(p, v) emu_storeu(p, v)
#define _mm512_castsi128_si512(v) emu_cast128(v)
#define _mm512_castsi512_si128(v) emu_cast512(v)
#define _mm512_extracti32x4_epi32(v, l) emu_extract(v, l)
#define _mm512_inserti32x4(a, v, l) emu_insert(a, v, l)
#define _mm512_xor_si512(a, b) emu_xor(a, b)
#define _mm512_setzero_si512() emu_zero()
#define _mm512_unpacklo_epi8(a, b) emu_unpack(a, b, 0)
#define _mm512_unpackhi_epi8(a, b) emu_unpack(a, b, 1)
#define _mm512_permutex2var_epi8(a, i, b) emu_perm2(a, i, b)
/* VPSHUFB: per 128-bit lane, byte e = idx bit 7 ? 0 : a[idx & 15]. */
static emu512 emu_pshufb(emu512 a, emu512 i) {
    emu512 r;
    for (int e = 0; e < 64; e++) r.b[e] = (i.b[e] & 0x80) ? 0 : a.b[(e & ~15) + (i.b[e] & 15)];
    return r;
}
static emu512 emu_shift64(emu512 a, int j, int left) {
    for (int q = 0; q < 8; q++) {
        uint64_t v; memcpy(&v, a.b + 8 * q, 8);
        v = j > 63 ? 0 : left ? v << j : v >> j;
        memcpy(a.b + 8 * q, &v, 8);
    }
    return a;
}
static emu512 emu_and(emu512 a, emu512 b) { for (int i = 0; i < 64; i++) a.b[i] &= b.b[i]; return a; }
static emu512 emu_set64(const long long *e) { emu512 r; for (int q = 0; q < 8; q++) memcpy(r.b + 8 * q, &e[7 - q], 8); return r; }
static emu512 emu_set1_64(long long x) { emu512 r; for (int q = 0; q < 8; q++) memcpy(r.b + 8 * q, &x, 8); return r; }
static emu512 emu_set8(const char *e) { emu512 r; for (int i = 0; i < 64; i++) r.b[i] = (uint8_t)e[63 - i]; return r; }
#define _mm512_shuffle_epi8(a, i) emu_pshufb(a, i)
#define _mm512_srli_epi64(a, j) emu_shift64(a, j, 0)
#define _mm512_slli_epi64(a, j) emu_shift64(a, j, 1)
#define _mm512_and_si512(a, b) emu_and(a, b)
#define _mm512_set1_epi64(x) emu_set1_64(x)
#define _mm512_set_epi64(...) emu_set64((const long long[]){__VA_ARGS__})
#define _mm512_set_epi8(...) emu_set8((const char[]){__VA_ARGS__})
/* VSHUFI64X2: lanes 0, 1 from a, 2, 3 from b, chosen by the 2-bit fields of imm. */
static emu512 emu_shuf_i64x2(emu512 a, emu512 b, int imm) {
    emu512 r;
    for (int l = 0; l < 4; l++) memcpy(r.b + 16 * l, (l < 2 ? a.b : b.b) + 16 * ((imm >> (2 * l)) & 3), 16);
    return r;
}
/* VPUNPCKL/H{WD,DQ,QDQ}: per 128-bit lane, interleave the low (high) 8/E elements of E bytes
   of a and b. */
static emu512 emu_unpackn(emu512 a, emu512 b, int hi, int e) {
    emu512 r;
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < 8 / e; k++) {
            memcpy(r.b + 16 * l + 2 * e * k, a.b + 16 * l + 8 * hi + e * k, e);
            memcpy(r.b + 16 * l + 2 * e * k + e, b.b + 16 * l + 8 * hi + e * k, e);
        }
    return r;
}
#define emu_unpack16(a, b, hi) emu_unpackn(a, b, hi, 2)
/* GF2P8AFFINEQB, imm 0: byte j of each qword, bit i = parity(a.byte[7-i] & x.byte[j]). */
static emu512 emu_gf2p8(emu512 x, emu512 a) {
    emu512 r;
    for (int q = 0; q < 8; q++)
        for (int j = 0; j < 8; j++) {
            unsigned o = 0;
            for (int i = 0; i < 8; i++) {
                unsigned v = a.b[8 * q + 7 - i] & x.b[8 * q + j], p = 0;
                for (int t = 0; t < 8; t++) p ^= (v >> t) & 1u;
                o |= p << i;
            }
            r.b[8 * q + j] = (uint8_t)o;
        }
    return r;
}
#define _mm512_shuffle_i64x2(a, b, imm) emu_shuf_i64x2(a, b, imm)
#define _mm512_unpacklo_epi16(a, b) emu_unpack16(a, b, 0)
#define _mm512_unpackhi_epi16(a, b) emu_unpack16(a, b, 1)
#define _mm512_unpacklo_epi32(a, b) emu_unpackn(a, b, 0, 4)
#define _mm512_unpackhi_epi32(a, b) emu_unpackn(a, b, 1, 4)
#define _mm512_unpacklo_epi64(a, b) emu_unpackn(a, b, 0, 8)
#define _mm512_unpackhi_epi64(a, b) emu_unpackn(a, b, 1, 8)
#define NKP_GF2P8AFF_avx512(x, a) emu_gf2p8(x, a)
/* VPERMB: byte e = a[idx[e] & 63]. */
static emu512 emu_perm1(emu512 idx, emu512 a) {
    emu512 r;
    for (int e = 0; e < 64; e++) r.b[e] = a.b[idx.b[e] & 63];
    return r;
}
/* VPERMT2Q: qword e = (idx[e] bit 3 ? b : a)[idx[e] & 7]. */
static emu512 emu_perm2q(emu512 a, emu512 idx, emu512 b) {
    emu512 r;
    for (int e = 0; e < 8; e++) {
        uint64_t i; memcpy(&i, idx.b + 8 * e, 8);
        memcpy(r.b + 8 * e, ((i & 8) ? b.b : a.b) + 8 * (i & 7), 8);
    }
    return r;
}
/* VPTERNLOGQ: bit = imm[(a << 2) | (b << 1) | c]. */
static emu512 emu_ternlog(emu512 a, emu512 b, emu512 c, int imm) {
    emu512 r;
    for (int e = 0; e < 64; e++) {
        uint8_t o = 0;
        for (int t = 0; t < 8; t++) {
            const int i = (((a.b[e] >> t) & 1) << 2) | (((b.b[e] >> t) & 1) << 1) | ((c.b[e] >> t) & 1);
            o |= (uint8_t)(((imm >> i) & 1) << t);
        }
        r.b[e] = o;
    }
    return r;
}
static emu512 emu_sub8(emu512 a, emu512 b) { for (int i = 0; i < 64; i++) a.b[i] = (uint8_t)(a.b[i] - b.b[i]); return a; }
static emu512 emu_set1_8(char x) { emu512 r; memset(r.b, (uint8_t)x, 64); return r; }
#define _mm512_permutexvar_epi8(i, a) emu_perm1(i, a)
#define _mm512_permutex2var_epi64(a, i, b) emu_perm2q(a, i, b)
#define _mm512_ternarylogic_epi64(a, b, c, imm) emu_ternlog(a, b, c, imm)
#define _mm512_sub_epi8(a, b) emu_sub8(a, b)
#define _mm512_set1_epi8(x) emu_set1_8(x)
#define target(x) unused
"#,
    );
    if vbmi {
        s.push_str("#ifndef __AVX512VBMI__\n#define __AVX512VBMI__ 1\n#endif\n#ifndef __GFNI__\n#define __GFNI__ 1\n#endif\n");
    }
    s
}

/// The avx512 8-, 16- and 32-bit vslice routines (lane chunks; their `vpermi2b` forms under
/// `__AVX512VBMI__`: both ways for bytes, inbound for 16- and 32-bit words), run through the
/// emulation above against the layout definition (lane i of register a = word a of instance
/// i) for every W from 1 to 70 and 128, in and out, with and without the XOR operand, nothing
/// written past the instances.
#[test]
fn avx512_vslice_matches_layout_under_emulation() {
    let body = r#"
#include <stdio.h>
#include <stdlib.h>
typedef uint$M_t el;
enum { NI = 512 / $M };
static el src[NI * 128 + 64], xs[NI * 128 + 64], dst[NI * 128 + 64], regs[NI * 128];
int main(void) {
    unsigned seed = 12345, bad = 0, runs = 0;
    for (size_t W = 1; W <= 128; W++) {
        if (W > 70 && W != 128) continue;
        for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) { seed = seed * 1103515245u + 12345u; src[i] = (el)(seed >> 7) * (el)0x01010101u; xs[i] = (el)((seed >> 3) * 2654435761u); }
        memset(regs, 0xA5, sizeof regs);
        nkp_V_in_u$M_avx512(src, W, regs);
        for (size_t a = 0; a < W; a++)
            for (size_t i = 0; i < NI; i++)
                if (regs[a * NI + i] != src[i * W + a]) { if (bad++ < 5) printf("in W=%zu a=%zu i=%zu\n", W, a, i); }
        for (size_t i = W * 64; i < sizeof regs; i++) if (((const uint8_t *)regs)[i] != 0xA5) { bad++; break; }
        for (int withx = 0; withx < 2; withx++) {
            memset(dst, 0x5A, sizeof dst);
            nkp_V_outx_u$M_avx512(regs, W, withx ? xs : NULL, dst);
            for (size_t n = 0; n < NI * W; n++)
                if (dst[n] != (el)(src[n] ^ (withx ? xs[n] : 0))) { if (bad++ < 5) printf("out W=%zu x=%d n=%zu\n", W, withx, n); }
            for (size_t n = NI * W * sizeof(el); n < sizeof dst; n++) if (((const uint8_t *)dst)[n] != 0x5A) { bad++; printf("past end W=%zu\n", W); break; }
        }
        runs++;
    }
    printf("runs %u bad %u\n", runs, bad);
    return 0;
}
"#;
    for (m, vbmi) in [8u32, 16, 32]
        .into_iter()
        .flat_map(|m| [(m, false), (m, true)])
    {
        let c = format!(
            "{}{}{}{}",
            avx512_emulation(vbmi),
            nakiri::runtime::transpose::common(),
            nakiri::runtime::transpose::v_routines(Arch::Avx512, m, m),
            body.replace("$M", &m.to_string())
        );
        let out = build_and_run(
            &format!("emu512_m{m}{}", if vbmi { "_vbmi" } else { "" }),
            &[("t.c", c.as_str())],
            &["-msse4.2", "-Wno-psabi"],
            "",
        );
        assert_eq!(out.trim(), "runs 71 bad 0", "m={m} vbmi={vbmi}:\n{out}");
    }
}

/// With the C compiler targeting AVX-512 VBMI the 8-bit vslice routines use `vpermi2b` /
/// `vpermt2b`, and never without it (compile and disassemble only).
#[test]
fn avx512_vbmi_instruction_only_with_vbmi() {
    let dir = std::env::temp_dir().join(format!("nakiri_vbmi_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let c = format!(
        "{}{}__attribute__((target(\"avx512f,avx512bw,avx512vl\"))) void f(const uint8_t *s, void *r, uint8_t *d) {{ nkp_V_in_u8_avx512(s, 4, r); nkp_V_out_u8_avx512(r, 4, d); nkp_V_in_u8_avx512(s, 16, r); }}\n",
        nakiri::runtime::transpose::common(),
        nakiri::runtime::transpose::v_routines(Arch::Avx512, 8, 8)
    );
    let src = dir.join("v.c");
    std::fs::write(&src, c).unwrap();
    for vbmi in [true, false] {
        let obj = dir.join(format!("v_{vbmi}.o"));
        let mut cmd = std::process::Command::new(&cc);
        cmd.args(["-O2", "-c", "-mavx512f", "-mavx512bw", "-mavx512vl"]);
        if vbmi {
            cmd.arg("-mavx512vbmi");
        }
        let st = cmd.arg(&src).arg("-o").arg(&obj).output().unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        let dis = std::process::Command::new("objdump")
            .arg("-d")
            .arg(&obj)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&dis.stdout);
        assert_eq!(
            text.contains("vpermi2b") || text.contains("vpermt2b"),
            vbmi,
            "vbmi={vbmi}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bitslice layout check shared by the AVX-512 and AVX2 tests (macros `NKT_NI` instances,
/// `NKT_RB` register bytes, `NKT_SUF` the target's suffix): in, out and out with XOR, for
/// every unit size, whole and partial groups and bit strings.
const B_LAYOUT_BODY: &str = r#"
#include <stdio.h>
static uint8_t src[NKT_NI * 64 + 64], dst[NKT_NI * 64 + 64], xsb[NKT_NI * 64 + 64], regs[520 * NKT_RB];
static unsigned seed = 99;
static unsigned bit_of(const uint8_t *inst, unsigned ub, size_t a) {
    uint64_t u = 0; memcpy(&u, inst + (a / ub) * (ub / 8), ub / 8);
    return (unsigned)(u >> (ub - 1 - a % ub)) & 1u;
}
#define CASE(UB, UNITS, NATOMS) do { \
    const size_t bpi = (UNITS) * (UB) / 8; \
    for (size_t i = 0; i < sizeof src; i++) { seed = seed * 1103515245u + 12345u; src[i] = (uint8_t)(seed >> 16); } \
    memset(regs, 0xA5, sizeof regs); \
    NKT_CAT(nkp_B_in_u##UB, NKT_SUF)((const uint##UB##_t *)(const void *)src, UNITS, NATOMS, regs); \
    for (size_t a = 0; a < (NATOMS); a++) \
        for (size_t i = 0; i < NKT_NI; i++) { \
            const unsigned got = (regs[a * NKT_RB + 8 * (i / 64) + (i % 64) / 8] >> (i % 8)) & 1u; \
            if (got != bit_of(src + i * bpi, UB, a)) { if (bad++ < 5) printf("in u%d a=%zu i=%zu\n", UB, a, i); } \
        } \
    for (size_t n = (NATOMS) * NKT_RB; n < sizeof regs; n++) if (regs[n] != 0xA5) { bad++; printf("regs past end u%d\n", UB); break; } \
    memset(dst, 0x5A, sizeof dst); \
    NKT_CAT(nkp_B_out_u##UB, NKT_SUF)(regs, UNITS, NATOMS, (uint##UB##_t *)(void *)dst); \
    for (size_t i = 0; i < NKT_NI; i++) \
        for (size_t a = 0; a < (NATOMS); a++) \
            if (bit_of(dst + i * bpi, UB, a) != bit_of(src + i * bpi, UB, a)) { if (bad++ < 5) printf("out u%d a=%zu i=%zu\n", UB, a, i); } \
    for (size_t n = NKT_NI * bpi; n < sizeof dst; n++) if (dst[n] != 0x5A) { bad++; printf("dst past end u%d\n", UB); break; } \
    for (size_t i = 0; i < sizeof xsb; i++) { seed = seed * 1103515245u + 12345u; xsb[i] = (uint8_t)(seed >> 16); } \
    memcpy(dst, xsb, sizeof dst); \
    NKT_CAT(nkp_B_outx_u##UB, NKT_SUF)(regs, UNITS, NATOMS, (const uint##UB##_t *)(const void *)dst, (uint##UB##_t *)(void *)dst); \
    for (size_t i = 0; i < NKT_NI; i++) \
        for (size_t a = 0; a < (NATOMS); a++) \
            if (bit_of(dst + i * bpi, UB, a) != (bit_of(src + i * bpi, UB, a) ^ bit_of(xsb + i * bpi, UB, a))) { if (bad++ < 5) printf("outx u%d a=%zu i=%zu\n", UB, a, i); } \
    runs++; \
} while (0)
int main(void) {
    unsigned bad = 0, runs = 0;
    CASE(8, 16, 128); CASE(8, 2, 13); CASE(8, 9, 72); CASE(8, 8, 64); CASE(8, 33, 257); CASE(8, 9, 71);
    CASE(16, 4, 64); CASE(16, 7, 112); CASE(16, 1, 16);
    CASE(32, 3, 96); CASE(32, 4, 128); CASE(32, 3, 90); CASE(16, 5, 79);
    CASE(64, 2, 128); CASE(64, 1, 64); CASE(64, 3, 192); CASE(8, 16, 125); CASE(32, 2, 64);
    CASE(32, 8, 256); CASE(8, 48, 384); CASE(64, 8, 512); CASE(16, 20, 320); CASE(8, 48, 380);
    CASE(32, 5, 160); CASE(64, 5, 320); CASE(8, 24, 192); CASE(8, 40, 313); CASE(8, 20, 150);
    CASE(32, 12, 384); CASE(32, 16, 512);
    printf("runs %u bad %u\n", runs, bad);
    return 0;
}
"#;
const B_LAYOUT_MACROS_512: &str = "#define NKT_NI 512\n#define NKT_RB 64\n#define NKT_SUF avx512\n#define NKT_CAT2(a, b) a##_##b\n#define NKT_CAT(a, b) NKT_CAT2(a, b)\n";
const B_LAYOUT_MACROS_256: &str = "#define NKT_NI 256\n#define NKT_RB 32\n#define NKT_SUF avx2\n#define NKT_CAT2(a, b) a##_##b\n#define NKT_CAT(a, b) NKT_CAT2(a, b)\n";

/// The AVX2 bitslice routines' GFNI form (whole groups of 8- and 16-byte instances), which this
/// CPU may lack: compiled with `__GFNI__` defined and `gf2p8affineqb` emulated (the rest runs
/// on the real AVX2 unit), against the layout definition; and the plain form alongside.
#[test]
fn avx2_bitslice_gfni_matches_layout_under_emulation() {
    if !std::is_x86_feature_detected!("avx2") {
        println!("skipped: no AVX2 here");
        return;
    }
    for gfni in [false, true] {
        let c = format!(
            "{}#include <string.h>\n{}{}{}{}",
            if gfni {
                GFNI_EMULATION
            } else {
                "#include <immintrin.h>\n#include <stdint.h>\n"
            },
            nakiri::runtime::transpose::common(),
            nakiri::runtime::transpose::b_routines(Arch::Avx2),
            B_LAYOUT_MACROS_256,
            B_LAYOUT_BODY
        );
        assert!(c.contains("nkp_Bq16_out_u8_avx2"));
        let out = build_and_run(
            &format!("gfni_avx2_b{}", gfni as u8),
            &[("t.c", c.as_str())],
            &["-Wno-psabi"],
            "",
        );
        assert_eq!(out.trim(), "runs 30 bad 0", "gfni={gfni}: {out}");
    }
}

/// The avx512 bitslice routines (whole 64-bit groups by the byte + bit stages, the partial
/// group by the swap network) through the same emulation, against the layout definition (bit
/// k of 64-bit lane l of register a = bit a, MSB-first, of instance 64l+k), in and out, for
/// every unit size, whole and partial groups and bit strings.
#[test]
fn avx512_bitslice_matches_layout_under_emulation() {
    let body = B_LAYOUT_BODY;
    // Plain, and with VBMI + GFNI (whole groups of 8- and 16-byte instances by `vpermb`,
    // qword exchanges, `gf2p8affineqb` and byte exchanges).
    for vbmi in [false, true] {
        let c = format!(
            "{}{}{}{}{}",
            avx512_emulation(vbmi),
            nakiri::runtime::transpose::common(),
            nakiri::runtime::transpose::b_routines(Arch::Avx512),
            B_LAYOUT_MACROS_512,
            body
        );
        assert!(c.contains("nkp_Bq16_in_u8_avx512"));
        let out = build_and_run(
            &format!("emu512_b{}", vbmi as u8),
            &[("t.c", c.as_str())],
            &["-msse4.2", "-Wno-psabi"],
            "",
        );
        assert_eq!(out.trim(), "runs 30 bad 0", "vbmi={vbmi}: {out}");
    }
}

/// The avx512 hslice 8- and 16-bit routines (vslice chunks + byte shuffles + 8x8 bit
/// transposes; with `vbmi` also their `vpermi2b` and `gf2p8affineqb` forms) through the
/// emulation, against the layout definition: register (call c, word a), 128-bit lane L, slot j
/// (S = 128/m bits from the lane's LSB), bit i = bit j (MSB-first) of word a of instance
/// c*R/m + L*S + i.
#[test]
fn avx512_hslice_matches_layout_under_emulation() {
    let body = r#"
#include <stdio.h>
static uint8_t src[512 * 16 + 64], dst[512 * 16 + 64], regs[8 * 8 * 64 * 2];
static unsigned seed = 7;
#define CASE(M, W) do { \
    const size_t S = 128 / (M), NI = 512, PER = 512 / (M); \
    for (size_t i = 0; i < sizeof src; i++) { seed = seed * 1103515245u + 12345u; src[i] = (uint8_t)(seed >> 16); } \
    memset(regs, 0xA5, sizeof regs); \
    nkp_H_in_u##M##_avx512_m##M((const uint##M##_t *)(const void *)src, W, W, regs); \
    for (size_t n = 0; n < NI; n++) \
        for (size_t a = 0; a < (W); a++) { \
            uint##M##_t w; memcpy(&w, src + (n * (W) + a) * sizeof w, sizeof w); \
            const size_t c = n / PER, L = (n % PER) / S, i = (n % PER) % S; \
            for (size_t j = 0; j < (M); j++) { \
                const size_t bit = L * 128 + j * S + i; \
                const unsigned got = (regs[(c * (W) + a) * 64 + bit / 8] >> (bit % 8)) & 1u; \
                if (got != ((w >> ((M) - 1 - j)) & 1u)) { if (bad++ < 5) printf("in m%d W%d n=%zu a=%zu j=%zu\n", M, W, n, a, j); } \
            } \
        } \
    memset(dst, 0x5A, sizeof dst); \
    nkp_H_out_u##M##_avx512_m##M(regs, W, W, (uint##M##_t *)(void *)dst); \
    if (memcmp(dst, src, NI * (W) * sizeof(uint##M##_t))) { bad++; printf("out m%d W%d\n", M, W); } \
    for (size_t n = NI * (W) * sizeof(uint##M##_t); n < sizeof dst; n++) if (dst[n] != 0x5A) { bad++; printf("past end m%d W%d\n", M, W); break; } \
    runs++; \
} while (0)
int main(void) {
    unsigned bad = 0, runs = 0;
    CASE(8, 1); CASE(8, 3); CASE(8, 4); CASE(8, 8); CASE(8, 16);
    CASE(16, 1); CASE(16, 3); CASE(16, 4); CASE(16, 8);
    CASE(32, 1); CASE(32, 3); CASE(32, 4); CASE(64, 1); CASE(64, 2);
    printf("runs %u bad %u\n", runs, bad);
    return 0;
}
"#;
    for vbmi in [false, true] {
        let c = format!(
            "{}{}{}{}{}{}{}",
            avx512_emulation(vbmi),
            nakiri::runtime::transpose::common(),
            nakiri::runtime::transpose::h_routines(Arch::Avx512, 8),
            nakiri::runtime::transpose::h_routines(Arch::Avx512, 16),
            nakiri::runtime::transpose::h_routines(Arch::Avx512, 32),
            nakiri::runtime::transpose::h_routines(Arch::Avx512, 64),
            body
        );
        if vbmi {
            assert!(
                c.contains("NKP_GF2P8AFF_avx512(gi"),
                "no GFNI form in the avx512 hslice routines"
            );
        }
        let out = build_and_run(
            if vbmi { "emu512_h_vbmi" } else { "emu512_h" },
            &[("t.c", c.as_str())],
            &["-msse4.2", "-Wno-psabi"],
            "",
        );
        assert_eq!(out.trim(), "runs 14 bad 0", "vbmi+gfni={vbmi}:\n{out}");
    }
}

// ---------------------------------------------------------------- the interleaved kernel behind E__packed

/// [`packed_matches_interp`] on `file` compiled with `cfg` (its lowered program), over one
/// whole raw step of instances and `extra` more.
fn cfg_matches_interp(
    file: &str,
    src: &str,
    cfg: &nakiri::driver::Config,
    out: &nakiri::codegen::COutput,
    extra: usize,
    rng: &mut Rng,
    what: &str,
) {
    let prog = common::lower_src_cfg(file, src, cfg);
    let n = packed::layout(&prog, cfg.arch).unwrap().step() + extra;
    packed_matches_interp(&prog, out, cfg.arch, n, rng, what);
}

/// Every shipped cipher in vslice on every native arch, compiled as `nakiri compile` does
/// (the rule of `driver::packed_kernel` decides whether the packed entry runs whole steps
/// through a 2-way interleaved kernel), run through `E__packed` on 2 kernel steps + 3
/// random instances (kernel steps, then raw calls for the tail) and compared with the
/// interpreter; every shipped cipher in hslice by the rule (a kernel for the latency-bound
/// ones); and the kernel forced in hslice and bitslice. The
/// rule must pick Serpent (all targets) and leave ChaCha20 on avx2 alone on AMD, not on Intel
/// (measured: README "Interleaving behind the packed entry").
/// `n` random instances (const inputs shared) through the packed entry of `out` natively on
/// `arch`, each equal to the interpreter's result for `prog`.
fn packed_matches_interp(
    prog: &Program,
    out: &nakiri::codegen::COutput,
    arch: Arch,
    n: usize,
    rng: &mut Rng,
    what: &str,
) {
    let insts = common::random_instances(prog, n, rng);
    let want = common::run_interp(prog, &insts);
    let got = common::run_native_out(prog, out, arch, &insts);
    for k in 0..n {
        assert_eq!(
            got[k], want[k],
            "{what}: instance {k} of {n} differs from the interpreter"
        );
    }
}

#[test]
fn interleaved_kernel_behind_the_packed_entry_on_shipped_ciphers() {
    interleaved_kernel_on_shipped_ciphers(0);
}

/// The other half of the cases of
/// [`interleaved_kernel_behind_the_packed_entry_on_shipped_ciphers`] (two tests, so that the
/// harness runs the halves on both cores: one test took 140 s of the binary's ~180).
#[test]
fn interleaved_kernel_behind_the_packed_entry_on_shipped_ciphers_second_half() {
    interleaved_kernel_on_shipped_ciphers(1);
}

/// Half `part` (0 or 1) of the (target, case) pairs, alternately.
fn interleaved_kernel_on_shipped_ciphers(part: usize) {
    use nakiri::driver::{self, Config};
    let mut files: Vec<String> = Vec::new();
    for d in std::fs::read_dir(common::root().join("ciphers")).unwrap() {
        let d = d.unwrap().path();
        if !d.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&d).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "ua") {
                files.push(
                    f.strip_prefix(common::root())
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    files.sort();
    let mut cases: Vec<(String, Slicing, Option<u32>)> = files
        .iter()
        .map(|f| (f.clone(), Slicing::V, None))
        .collect();
    // Hslice by the rule: a kernel on std where it measured faster, never on SIMD targets.
    cases.extend(files.iter().map(|f| (f.clone(), Slicing::H, None)));
    cases.push(("ciphers/rectangle/rectangle.ua".into(), Slicing::H, Some(2)));
    cases.push(("ciphers/rectangle/rectangle.ua".into(), Slicing::B, Some(2)));
    // A kept loop whose 2-way body is spilled explicitly, with homes (what the rule gives
    // ChaCha20 on avx512, run here on sse/avx2).
    cases.push(("ciphers/chacha20/chacha20.ua".into(), Slicing::V, Some(2)));
    let mut rng = Rng(0x5eed_0077 + part as u64);
    let mut with_kernel = Vec::new();
    let mut pair = 0usize;
    for arch in common::native_archs("packed API: interleaved kernel on shipped ciphers") {
        for (file, slicing, force) in &cases {
            pair += 1;
            if pair % 2 != part {
                continue;
            }
            let cfg = Config {
                slicing: *slicing,
                arch,
                packed_interleave: *force,
                ..Config::default()
            };
            let src = std::fs::read_to_string(common::root().join(file)).unwrap();
            let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, "out.h");
            let Some(out) = out else { continue }; // not every cipher compiles in every slicing
            let prog = common::lower_src_cfg(file, &src, &cfg);
            let e = nakiri::codegen::c_emit::sanitize(&prog.entry().name);
            let has = out.c.contains(&format!("static NK_TARGET void {e}__x2("));
            let name = file.rsplit('/').next().unwrap();
            if (name == "serpent.ua" && *slicing == Slicing::V) || force.is_some() {
                assert!(
                    has,
                    "{file} -{slicing} {arch}: expected an interleaved kernel"
                );
            }
            if name == "chacha20.ua" && arch == Arch::Avx2 && force.is_none() {
                // AMD: two copies spill, measured no gain; Intel: latency-bound, 0.86x the time
                // (-V); -H: 0.49 of its port bound, over Intel SSE/AVX2's 0.3 (neutral, 0.995)
                let intel = cfg.opt.uarch == nakiri::target::Uarch::Intel;
                assert_eq!(
                    has, intel,
                    "{file} -{slicing} {arch}: the rule interleaves ChaCha20 on avx2 on Intel only"
                );
            }
            if name == "ace.ua" && force.is_none() {
                // Its Simeck boxes' kept loops are fused (`loop-fuse`): their chains already
                // overlap, and two copies of each fused iteration measured slower.
                assert!(
                    !has,
                    "{file} -{slicing} {arch}: no kernel once loops are fused"
                );
            }
            if *slicing == Slicing::H && force.is_none() {
                // Measured gains (README): taken on every target; measured losses: left.
                if ["rectangle.ua", "serpent.ua", "ascon.ua", "gift_v.ua"].contains(&name) {
                    assert!(
                        has,
                        "{file} -{slicing} {arch}: the hslice rule should give a kernel"
                    );
                }
                if ["gimli.ua", "xoodoo.ua", "aes_rk.ua", "aes_planes.ua"].contains(&name) {
                    // Intel SSE/AVX2: Xoodoo measured faster with it (0.31 of its port bound,
                    // over that target's 0.3: `driver::packed_kernel_min_crit_port_h`)
                    let intel_simd = cfg.opt.uarch == nakiri::target::Uarch::Intel
                        && matches!(arch, Arch::Sse | Arch::Avx2);
                    assert_eq!(
                        has,
                        intel_simd && name == "xoodoo.ua",
                        "{file} -{slicing} {arch}: the hslice rule's kernel"
                    );
                }
            }
            if !has {
                continue;
            }
            let Ok(lay) = packed::layout(&prog, arch) else {
                panic!("{file}: kernel without packed layout")
            };
            let n = 2 * 2 * lay.step() + 3;
            packed_matches_interp(
                &prog,
                &out,
                arch,
                n,
                &mut rng,
                &format!("{file} -{slicing} {arch}"),
            );
            with_kernel.push(format!("{name} -{slicing} {arch}"));
        }
    }
    println!("interleaved kernel checked on: {}", with_kernel.join(", "));
    assert!(with_kernel.len() >= 2);
    if part == 1 {
        return;
    }
    // AVX-512 cannot run here: its kernels (the rule also takes ChaCha20 and Xoodoo there,
    // with 32 registers) at least compile warning-free, with no `-m` flag.
    if !Arch::Avx512.runs_here() {
        for file in [
            "ciphers/serpent/serpent.ua",
            "ciphers/chacha20/chacha20.ua",
            "ciphers/xoodoo/xoodoo.ua",
        ] {
            let cfg = Config {
                slicing: Slicing::V,
                arch: Arch::Avx512,
                ..Config::default()
            };
            let src = std::fs::read_to_string(common::root().join(file)).unwrap();
            let out = driver::compile(file, &src, &cfg, &common::Fs, "out.h")
                .1
                .unwrap();
            assert!(out.c.contains("__x2("), "{file}: avx512 kernel");
            let dir = common::scratch_dir("kernel-avx512");
            std::fs::write(dir.join("out.c"), &out.c).unwrap();
            std::fs::write(dir.join("out.h"), &out.h).unwrap();
            let r = std::process::Command::new(common::cc())
                .args([
                    "-O1", "-Wall", "-Wextra", "-Werror", "-c", "out.c", "-o", "out.o",
                ])
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(
                r.status.success(),
                "{file} avx512: {}",
                String::from_utf8_lossy(&r.stderr)
            );
        }
    }
}

/// The kernel doubles the C: where the work budget (`--max-ops`) leaves room for the raw
/// program but not for the kernel too, the compile still succeeds, without the kernel.
#[test]
fn the_kernel_is_dropped_when_only_the_raw_program_fits_the_budget() {
    use nakiri::driver::{self, Config};
    let src = std::fs::read_to_string(common::root().join("ciphers/serpent/serpent.ua")).unwrap();
    let compile = |cfg: &Config| driver::compile("serpent.ua", &src, cfg, &common::Fs, "out.h").1;
    let mut base = Config {
        slicing: Slicing::V,
        arch: Arch::Avx2,
        ..Config::default()
    };
    // Small nodes inlined only (Intel's default inlines all of Serpent `-V` on avx2, within
    // the same budget, which then also bounds how much is inlined).
    base.opt.inline = nakiri::opt::InlinePolicy::Small;
    let with = compile(&base).unwrap();
    let without = compile(&Config {
        packed_interleave: Some(1),
        ..base.clone()
    })
    .unwrap();
    assert!(with.c.contains("Serpent__x2(") && !without.c.contains("Serpent__x2("));
    // A budget between the two sizes.
    let mid = (without.c.len() + with.c.len()) / 2 / nakiri::codegen::C_BYTES_PER_OP;
    let out = compile(&Config {
        max_ops: mid,
        ..base
    })
    .expect("the raw program fits the budget");
    assert!(!out.c.contains("Serpent__x2("), "no room for the kernel");
    assert!(
        out.h.contains("Serpent__packed("),
        "the packed entry is still there, over the raw entry"
    );
}

/// Bitslice `const` inputs prepared compact (`--packed-consts`, `E__with_consts`: one
/// `uint64_t` per register, broadcast where read): forced on, forced off and by the rule, on
/// every native SIMD target (the rule for both processor families, `--uarch`), the packed
/// entry of both shipped bitsliced programs with `const` inputs (RECTANGLE's round keys read
/// in a kept loop, AES's too) matches the interpreter.
#[test]
fn compact_consts_behind_the_packed_entry() {
    use nakiri::driver::{self, Config};
    let mut rng = Rng(0x5eed_c0c5);
    let mut checked = Vec::new();
    for arch in common::native_archs("packed API: compact consts") {
        for file in ["ciphers/rectangle/rectangle.ua", "ciphers/aes/aes_rk.ua"] {
            use nakiri::target::Uarch;
            for (force, uarch) in [
                (Some(true), Uarch::host()),
                (Some(false), Uarch::host()),
                (None, Uarch::Amd),
                (None, Uarch::Intel),
            ] {
                let mut cfg = Config {
                    slicing: Slicing::B,
                    arch,
                    packed_consts: force,
                    ..Config::default()
                };
                cfg.opt.uarch = uarch;
                let src = std::fs::read_to_string(common::root().join(file)).unwrap();
                let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, "out.h");
                let out = out.unwrap_or_else(|| panic!("{file} -B {arch}: no C"));
                let prog = common::lower_src_cfg(file, &src, &cfg);
                let e = nakiri::codegen::c_emit::sanitize(&prog.entry().name);
                let has = out.c.contains(&format!("void {e}__with_consts("));
                let simd = matches!(arch, Arch::Sse | Arch::Avx2 | Arch::Avx512);
                let want_compact = match force {
                    Some(v) => v && simd,
                    // the rule: AVX-512 and AVX2, on both processor families
                    None => matches!(arch, Arch::Avx512 | Arch::Avx2),
                };
                assert_eq!(
                    has, want_compact,
                    "{file} -B {arch} {force:?} {uarch:?}: E__with_consts emitted?"
                );
                assert_eq!(
                    out.h.contains(&format!("#define {e}__HAS_WITH_CONSTS 1")),
                    want_compact,
                    "{file} -B {arch} {force:?}: the header's HAS_WITH_CONSTS"
                );
                let lay = packed::layout(&prog, arch).unwrap();
                let n = 2 * lay.step() + 5;
                packed_matches_interp(
                    &prog,
                    &out,
                    arch,
                    n,
                    &mut rng,
                    &format!("{file} -B {arch} {force:?}"),
                );
                // On Intel's AVX-512 rule RECTANGLE's raw entry is unrolled and
                // `E__with_consts` keeps the round loop (`driver::packed_consts_program`): its
                // loop body reads the compact words.
                if force.is_none() && arch == Arch::Avx512 && file.contains("rectangle") {
                    let loops = prog
                        .nodes
                        .iter()
                        .flat_map(|n| &n.body)
                        .filter(|i| matches!(i, nakiri::ir::Instr::Loop { .. }))
                        .count();
                    let intel = uarch == Uarch::Intel;
                    assert_eq!(
                        loops,
                        if intel { 0 } else { 1 },
                        "{file} {uarch:?}: raw loops"
                    );
                    assert!(
                        out.c
                            .lines()
                            .any(|l| l.contains(&format!("void {e}__loop0"))
                                && l.contains("(DATATYPE *v_nk_st, const uint64_t *restrict")),
                        "{file} {uarch:?}: E__with_consts keeps the loop over compact consts"
                    );
                }
                if has {
                    checked.push(format!("{file} {arch}"));
                }
            }
        }
    }
    println!("compact consts checked on: {}", checked.join(", "));
}

/// Outside the fused steps, an output takes the register array of an input of the same type
/// and shape, and the raw entry runs in place (`packed::shared_register_arrays`): Ascon's
/// state, AES's plaintext (not its key, a different input). The packed KATs and round trips
/// run these entries against the interpreter; here the C has the form.
#[test]
fn outputs_share_input_register_arrays() {
    for (file, call, gone) in [
        (
            "ciphers/ascon/ascon.ua",
            "ascon_p12__(nkp_r_s[0 + nkp_c], nkp_r_s[0 + nkp_c]);",
            "nkp_r_o",
        ),
        (
            "ciphers/aes/aes.ua",
            "aes128__(nkp_r_plain[0 + nkp_c], nkp_r_key[0 + nkp_c], nkp_r_plain[0 + nkp_c]);",
            "nkp_r_cipher",
        ),
    ] {
        for arch in [Arch::Std, Arch::Avx2, Arch::Avx512] {
            let prog = common::lower_file(file, Slicing::B);
            let out = nakiri::codegen::generate(
                &prog,
                &nakiri::codegen::CodegenConfig {
                    arch,
                    header_name: "p.h".into(),
                    banner: String::new(),
                    spill: nakiri::codegen::SPILL_DEFAULT,
                    mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
                    loop_regs: None,
                    opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                    uarch: nakiri::target::Uarch::host(),
                    state_loads: None,
                    loop_align: None,
                },
            )
            .unwrap();
            assert!(out.c.contains(call), "{file} {arch}: the raw call in place");
            assert!(
                !out.c.contains(&format!("{gone}[")),
                "{file} {arch}: no array of its own for the output"
            );
        }
    }
}

/// The AVX-512 bitslice transpositions' VBMI + GFNI form (`vpermb`/`vpermt2b`, qword
/// exchanges, `gf2p8affineqb`; two groups per load for instances of 16 bytes or more, windows
/// at any offset), natively where this CPU has those extensions (reported as skipped
/// otherwise), through the packed entry of shipped ciphers whose instances are 8, 16, 20, 33,
/// 40 and 48 bytes, against the interpreter. The C is compiled with `-mavx512vbmi -mgfni`, the
/// code path a `-march=native` build takes here (the other tests compile with no `-m` flag).
#[test]
fn bitslice_gfni_transposition_natively() {
    #[cfg(target_arch = "x86_64")]
    {
        if !(Arch::Avx512.runs_here()
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("gfni"))
        {
            println!("skipped: no AVX-512 VBMI + GFNI here");
            return;
        }
        use nakiri::driver::{self, Config};
        let mut rng = Rng(0x5eed_0135);
        for file in [
            "ciphers/present/present.ua",
            "ciphers/aes/aes.ua",
            "ciphers/spongent160/spongent160.ua",
            "ciphers/subterranean/subterranean.ua",
            "ciphers/ascon/ascon.ua",
            "ciphers/gimli/gimli.ua",
        ] {
            let cfg = Config {
                slicing: Slicing::B,
                arch: Arch::Avx512,
                ..Config::default()
            };
            let src = std::fs::read_to_string(common::root().join(file)).unwrap();
            let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, "out.h");
            let out = out.unwrap_or_else(|| panic!("{file} -B avx512 compiles"));
            let prog = common::lower_src_cfg(file, &src, &cfg);
            let lay = packed::layout(&prog, Arch::Avx512).unwrap();
            let n = lay.step() + 5;
            let insts = common::random_instances(&prog, n, &mut rng);
            let want = common::run_interp(&prog, &insts);
            let got = common::run_native_out_flags(
                &prog,
                &out,
                Arch::Avx512,
                &insts,
                &["-mavx512f", "-mavx512bw", "-mavx512vbmi", "-mgfni"],
            );
            for k in 0..n {
                assert_eq!(got[k], want[k], "{file}: instance {k} of {n}");
            }
        }
    }
}

/// `--entry-halves` (bitslice on AVX-512): the raw entry runs a 256-bit program on each half
/// of its registers (`driver::halves_program`): the program optimised for AVX2 (`--halves-ir
/// avx2`) or the AVX-512 program itself (`--halves-ir avx512`, its ternlogs at 256 bits), on
/// copies of each half (`codegen::halves_entry_copies`) or in place with every `DATATYPE`
/// array strided (`--halves-in-place`: `codegen::halves_entry`, `OpTarget::strided`). Through the packed entry, which calls the raw one here (full consts for
/// RECTANGLE, so that its const input goes through the halves too), Xoodoo, Ascon (one input,
/// one output: in place; the state in the output array), Subterranean, Spongent (two state
/// buffers), RECTANGLE (a const input and a separate output) and GIFT (whose AVX2 program needs
/// a helper the AVX-512 one does not: `h256_nk_disjoint0`, in the section) match the
/// interpreter on a whole step and a partial one, each program under some of the four
/// combinations (every combination on at least one program of each kind). Elsewhere the flags
/// change nothing.
#[test]
fn entry_halves_matches_the_interpreter() {
    use nakiri::driver::{self, Config};
    let mut rng = Rng(0x5eed_4a1f);
    let files = [
        "ciphers/xoodoo/xoodoo.ua",
        "ciphers/ascon/ascon.ua",
        "ciphers/subterranean/subterranean.ua",
        "ciphers/spongent160/spongent160.ua",
        "ciphers/rectangle/rectangle.ua",
        "ciphers/gift/gift.ua",
    ];
    let cfg_for = |arch: Arch, halves: bool, ir: Arch, in_place: bool| Config {
        slicing: Slicing::B,
        arch,
        packed_consts: Some(false),
        entry_halves: halves,
        halves_ir: ir,
        halves_in_place: in_place,
        ..Config::default()
    };
    // (program, program the halves run, in place)
    let cases = |file: &str| -> Vec<(Arch, bool)> {
        let (a2, a5) = (Arch::Avx2, Arch::Avx512);
        match file {
            f if f.contains("xoodoo") => vec![(a2, false), (a5, true)],
            f if f.contains("ascon") => vec![(a2, true), (a5, false)],
            f if f.contains("subterranean") => vec![(a5, false)],
            f if f.contains("spongent") => vec![(a5, true)],
            f if f.contains("rectangle") => vec![(a2, false)],
            _ => vec![(a2, true)],
        }
    };
    for file in files {
        let src = std::fs::read_to_string(common::root().join(file)).unwrap();
        // Off AVX-512 the flag is ignored: the same C.
        {
            let arch = Arch::Avx2;
            let c = |h: bool| {
                let cfg = cfg_for(arch, h, Arch::Avx512, true);
                driver::compile(file, &src, &cfg, &common::Fs, "out.h")
                    .1
                    .unwrap_or_else(|| panic!("{file} -B {arch}: no C"))
                    .c
            };
            assert_eq!(
                c(true),
                c(false),
                "{file} -B {arch}: --entry-halves ignored"
            );
        }
        for (ir, in_place) in cases(file) {
            let cfg = cfg_for(Arch::Avx512, true, ir, in_place);
            let what =
                format!("{file} -B avx512 --entry-halves --halves-ir {ir} in place {in_place}");
            let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, "out.h");
            let out = out.unwrap_or_else(|| panic!("{what}: no C"));
            assert!(
                out.c.contains("raw entry point (--entry-halves)")
                    && out.c.contains("#pragma pop_macro(\"DATATYPE\")"),
                "{what}: the halves entry and section"
            );
            assert_eq!(
                out.c
                    .contains("the 256-bit program on each half of every register, in place"),
                in_place,
                "{what}: in place or on copies"
            );
            // the AVX-512 program's ternlogs stay, at 256 bits; the AVX2 one has none
            let section = &out.c[out.c.find("raw entry runs").unwrap()..];
            let section = &section[..section.find("---- end of the 256-bit halves").unwrap()];
            assert_eq!(
                section.contains("NK_TERNLOG(v"),
                ir == Arch::Avx512,
                "{what}: ternlogs in the halves"
            );
            if !Arch::Avx512.runs_here() {
                continue;
            }
            let prog = common::lower_src_cfg(file, &src, &cfg);
            let lay = packed::layout(&prog, Arch::Avx512).unwrap();
            let n = lay.step() + 300;
            packed_matches_interp(&prog, &out, Arch::Avx512, n, &mut rng, &what);
        }
    }
}

/// The `--entry-halves --halves-in-place` raw entry runs its two passes in place, so it must stay right for
/// every caller aliasing the AVX-512 entry allows: called natively (no packed entry between),
/// with the output disjoint from the inputs, equal to the first input (in place), overlapping
/// it a whole number of registers after or before it (each pass still sees its own half), half
/// a register after or before it (out of step: pass 0's stores would land in pass 1's inputs, so
/// the entry copies its inputs first), and over the round keys' end (GIFT). Each must give what
/// the default C (no halves) gives on separate buffers. Ascon (the AVX2 program): one input,
/// the state kept in the output array; GIFT (the AVX-512 program): one-dimensional arrays and
/// a key input.
#[test]
fn entry_halves_raw_entry_handles_aliasing() {
    use nakiri::driver::{self, Config};
    if !Arch::Avx512.runs_here() {
        println!("skipped: --entry-halves aliasing: this CPU lacks AVX-512");
        return;
    }
    for (file, entry, ins) in [
        ("ciphers/ascon/ascon.ua", "ascon_p12__", vec![320usize]),
        ("ciphers/gift/gift.ua", "Gift128__", vec![128usize, 128]),
    ] {
        let src = std::fs::read_to_string(common::root().join(file)).unwrap();
        let c_for = |halves: bool, ir: Arch, h: &str| {
            let cfg = Config {
                slicing: Slicing::B,
                arch: Arch::Avx512,
                entry_halves: halves,
                halves_ir: ir,
                halves_in_place: true,
                ..Config::default()
            };
            let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, h);
            out.unwrap_or_else(|| panic!("{file}: no C"))
        };
        let old = c_for(false, Arch::Avx2, "ref.h");
        // (the entry's aliasing logic is the same for both programs: one each)
        let ir = if file.contains("ascon") {
            Arch::Avx2
        } else {
            Arch::Avx512
        };
        {
            let new = c_for(true, ir, "new.h");
            assert!(
                new.c.contains("nk_copy"),
                "{file} --halves-ir {ir}: halves entry"
            );
            let (sb, ob) = (ins[0] * 64, ins[0] * 64);
            let kb = ins.get(1).map_or(0, |n| n * 64);
            let mut checks = String::new();
            for (what, at_in, at_out) in [
                ("in place", 0i64, 0i64),
                ("a register after", 0, 64),
                ("a register before", 64, 0),
                ("half a register after", 0, 32),
                ("half a register before", 32, 0),
                ("a quarter after", 0, (ob / 4) as i64 + 32),
            ] {
                checks.push_str(&format!(
                    "    memset(big, 0, sizeof big);\n    memcpy(big + {i}, s, {sb});\n    {c}\n    if (memcmp(big + {o}, want, {ob})) {{ printf(\"{w}\\n\"); bad = 1; }}\n",
                    i = at_in,
                    o = at_out,
                    sb = sb,
                    ob = ob,
                    w = what,
                    c = common::alias_call(entry, ins.len(), &format!("big + {}", at_in), &format!("big + {}", at_out)),
                ));
            }
            if kb > 0 {
                // the output over the keys' end, half a register out of step
                checks.push_str(&format!(
                    "    memcpy(big, k, {kb});\n    {e}(s, big, big + {kb} - 32);\n    if (memcmp(big + {kb} - 32, want, {ob})) {{ printf(\"over the keys\\n\"); bad = 1; }}\n",
                    kb = kb,
                    ob = ob,
                    e = entry
                ));
            }
            let out = common::run_aliasing(
                &format!("halves-alias-{}-{}", entry, ir),
                entry,
                &new,
                &old,
                ins.len(),
                (sb, kb, ob),
                &checks,
            );
            assert_eq!(
                out.trim(),
                "ok",
                "{file} --entry-halves --halves-ir {ir}: {out}"
            );
        }
    }
}

/// `--state-loads`: a memory-form kept loop's body reads each state slot into a register the
/// C compiler cannot trace back to memory (an empty `asm` on it), again only after a window of
/// instructions without a read (`OpTarget::state_loads`). On every native target, Ascon's
/// bitsliced round loop (one buffer, read and overwritten in place: each load must still come
/// before its slot's store) and Spongent's (two buffers on AVX-512), and RECTANGLE's on
/// AVX-512, match the interpreter through the packed entry with the flag; the flag changes the
/// C only where a memory-form loop exists, and adds opaque loads to Ascon's and Spongent's
/// AVX-512 loops (a slot read only once within the window stays a memory operand).
#[test]
fn state_loads_match_the_interpreter() {
    use nakiri::driver::{self, Config};
    let mut rng = Rng(0x5eed_10ad);
    let mut seen = 0;
    for arch in common::native_archs("packed API: --state-loads") {
        for file in [
            "ciphers/ascon/ascon.ua",
            "ciphers/spongent160/spongent160.ua",
            "ciphers/rectangle/rectangle.ua",
        ] {
            if file.contains("rectangle") && arch != Arch::Avx512 {
                continue;
            }
            let src = std::fs::read_to_string(common::root().join(file)).unwrap();
            let c_for = |on: bool| {
                let mut cfg = Config {
                    slicing: Slicing::B,
                    arch,
                    state_loads: Some(on),
                    ..Config::default()
                };
                cfg.opt.uarch = nakiri::target::Uarch::Amd;
                let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, "out.h");
                (cfg, out.unwrap_or_else(|| panic!("{file} -B {arch}: no C")))
            };
            let (_, off) = c_for(false);
            let (cfg, on) = c_for(true);
            let memloop = off.c.contains("its state in memory (codegen/memloop.rs)");
            assert!(
                !off.c.contains("DATATYPE nk_ld"),
                "{file} -B {arch}: none with --no-state-loads"
            );
            // (a body whose slots are each read once within the window keeps its C)
            assert!(
                memloop || !on.c.contains("DATATYPE nk_ld"),
                "{file} -B {arch}: opaque state loads only where a memory-form loop is"
            );
            if arch == Arch::Avx512 && !file.contains("rectangle") {
                assert!(
                    on.c.contains("DATATYPE nk_ld"),
                    "{file} -B {arch}: state loads"
                );
            }
            if !memloop {
                assert_eq!(on.c, off.c, "{file} -B {arch}: no memory-form loop, same C");
                continue;
            }
            cfg_matches_interp(
                file,
                &src,
                &cfg,
                &on,
                5,
                &mut rng,
                &format!("{file} -B {arch} --state-loads"),
            );
            seen += 1;
        }
    }
    assert!(seen > 0);
}

/// `--loop-align K` (`codegen::loop_align_c`): the no-ops and the alignment at the head of each
/// kept loop's body change no result. Ascon's and RECTANGLE's bitsliced round loops (Ascon's
/// in memory form, RECTANGLE's fed by const round keys) match the interpreter through the
/// packed entry on every native target with K = 0 and 56, and the assembler accepted them.
#[test]
fn loop_align_matches_the_interpreter() {
    use nakiri::driver::{self, Config};
    let mut rng = Rng(0x5eed_a119);
    let mut seen = 0;
    for arch in common::native_archs("packed API: --loop-align") {
        for file in ["ciphers/ascon/ascon.ua", "ciphers/rectangle/rectangle.ua"] {
            let src = std::fs::read_to_string(common::root().join(file)).unwrap();
            for k in [0u32, 56] {
                let mut cfg = Config {
                    slicing: Slicing::B,
                    arch,
                    loop_align: Some(k),
                    ..Config::default()
                };
                cfg.opt.uarch = nakiri::target::Uarch::Amd;
                let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, "out.h");
                let out = out.unwrap_or_else(|| panic!("{file} -B {arch}: no C"));
                assert!(
                    out.c.contains(".p2align 6"),
                    "{file} -B {arch}: a kept loop, aligned"
                );
                cfg_matches_interp(
                    file,
                    &src,
                    &cfg,
                    &out,
                    3,
                    &mut rng,
                    &format!("{file} -B {arch} --loop-align {k}"),
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 0);
}

/// A memory-form kept loop keeps some of its state slots in registers from one iteration to
/// the next (`codegen::memloop::register_slots`, `--loop-regs N`): none, the rule's count and
/// every slot, on every native target (the AMD loop rules, so that the programs keep their
/// round loop on AVX-512 whatever the host), RECTANGLE's and Ascon's bitsliced round loops
/// (one buffer) and Spongent's (two buffers, on AVX-512) match the interpreter through the
/// packed entry, and the loop body takes one pointer per slot kept (two with two buffers).
#[test]
fn loop_state_slots_in_registers() {
    use nakiri::driver::{self, Config};
    let mut rng = Rng(0x5eed_4e95);
    let mut seen = 0;
    for arch in common::native_archs("packed API: loop state slots in registers") {
        let n_regs = nakiri::target::Target::new(arch).n_regs as usize;
        for (file, n_slots) in [
            ("ciphers/rectangle/rectangle.ua", 64usize),
            ("ciphers/ascon/ascon.ua", 320),
            ("ciphers/spongent160/spongent160.ua", 160),
        ] {
            for regs in [Some(0), None, Some(100_000)] {
                let mut cfg = Config {
                    slicing: Slicing::B,
                    arch,
                    loop_regs: regs,
                    ..Config::default()
                };
                cfg.opt.uarch = nakiri::target::Uarch::Amd;
                let src = std::fs::read_to_string(common::root().join(file)).unwrap();
                let (_, out) = driver::compile(file, &src, &cfg, &common::Fs, "out.h");
                let out = out.unwrap_or_else(|| panic!("{file} -B {arch}: no C"));
                // the loop bodies' signatures (the raw entry's, and E__with_consts' where
                // there is one)
                let sigs: Vec<&str> = out
                    .c
                    .lines()
                    .filter(|l| {
                        l.contains("void ")
                            && (l.contains("(DATATYPE *v_nk_st, ")
                                || l.contains("(const DATATYPE *restrict v_nk_s0, "))
                    })
                    .collect();
                if sigs.is_empty() {
                    // (Spongent keeps its loop on AVX-512 only)
                    assert!(!file.contains("rectangle"), "{file} -B {arch}: a kept loop");
                }
                for s in &sigs {
                    // (two buffers: a pointer to the current and one to the next value each)
                    let got = s.matches("DATATYPE *restrict v_nk_r").count()
                        - s.matches("DATATYPE *restrict v_nk_rn").count();
                    match regs {
                        Some(k) => assert_eq!(
                            got,
                            k.min(n_slots),
                            "{file} -B {arch} {regs:?}: slots kept in registers in {s}"
                        ),
                        None => assert_eq!(
                            got,
                            nakiri::codegen::memloop::register_slots_count(arch, n_regs)
                                .min(n_slots),
                            "{file} -B {arch}: the rule's slots kept in registers in {s}"
                        ),
                    }
                }
                cfg_matches_interp(
                    file,
                    &src,
                    &cfg,
                    &out,
                    3,
                    &mut rng,
                    &format!("{file} -B {arch} loop_regs {regs:?}"),
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 0);
}
