//! C generation tests: hand-built IR programs covering every op × slicing × word size, compiled
//! and run on every target this CPU supports, checked instance by instance against the
//! reference interpreter; plus error cases, determinism, flag-free compilation and golden files.

mod common;

use common::{build_and_run, cc, scratch_dir, Rng};
use nakiri::codegen::{generate, instances_per_call, Arch, COutput, CodegenConfig};
use nakiri::interp::run_node;
use nakiri::ir::{self, mask, Instr, Node, NodeId, Op, Param, Program, Slicing, VarId};
use std::process::Command;

// ------------------------------------------------------------------ IR builder

struct NB {
    n: Node,
}

impl NB {
    fn new(name: &str) -> NB {
        NB {
            n: Node {
                name: name.into(),
                inputs: vec![],
                outputs: vec![],
                vars: vec![],
                body: vec![],
                inline: None,
                lockstep: false,
            },
        }
    }
    /// A parameter of `count(dims)` atoms of `bits` bits (`word_bits` = source word size).
    fn input(
        &mut self,
        pname: &str,
        dims: &[usize],
        bits: u32,
        word_bits: u32,
        is_const: bool,
    ) -> Vec<VarId> {
        let count: usize = dims.iter().product();
        let atoms: Vec<VarId> = (0..count)
            .map(|i| {
                let nm = if dims.is_empty() {
                    pname.to_string()
                } else {
                    format!("{}__{}", pname, i)
                };
                self.n.new_var(nm, bits)
            })
            .collect();
        self.n.inputs.push(Param {
            name: pname.into(),
            c_dims: dims.to_vec(),
            word_bits,
            atoms: atoms.clone(),
            is_const,
        });
        atoms
    }
    fn op(&mut self, bits: u32, op: Op) -> VarId {
        let name = format!("t{}", self.n.vars.len());
        self.named(&name, bits, op)
    }
    fn named(&mut self, name: &str, bits: u32, op: Op) -> VarId {
        let id = self.n.new_var(name.to_string(), bits);
        self.n.body.push(Instr::Assign { dst: id, op });
        id
    }
    fn call(&mut self, nodes: &[Node], callee: usize, args: Vec<VarId>) -> Vec<VarId> {
        let c = &nodes[callee];
        let dsts: Vec<VarId> = c
            .flat_outputs()
            .iter()
            .map(|o| {
                let name = format!("r{}", self.n.vars.len());
                self.n.new_var(name, c.bits(*o))
            })
            .collect();
        self.n.body.push(Instr::Call {
            dsts: dsts.clone(),
            callee: NodeId(callee as u32),
            args,
        });
        dsts
    }
    fn output(&mut self, pname: &str, dims: &[usize], word_bits: u32, atoms: Vec<VarId>) {
        self.n.outputs.push(Param {
            name: pname.into(),
            c_dims: dims.to_vec(),
            word_bits,
            atoms,
            is_const: false,
        });
    }
}

// ------------------------------------------------------------------ test programs

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// bitslice (logic only)
    B,
    /// vslice, every op
    V,
    /// vslice with `Pack` and half-size words (std only)
    VPack,
    /// hslice: logic, constants and slot permutations
    H,
    /// hslice, logic and constants only
    HLogic,
}

#[derive(Clone, Debug)]
enum K {
    Const(u64),
    Copy,
    Not,
    And,
    Or,
    Xor,
    Andn,
    Add,
    Sub,
    Mul,
    Shl(u32),
    Shr(u32),
    Sar(u32),
    Rotl(u32),
    Rotr(u32),
    Shuffle(Vec<u32>),
    Bitmask(u32),
}

fn inst(k: &K, a: VarId, b: VarId) -> Op {
    match k {
        K::Const(c) => Op::Const(*c),
        K::Copy => Op::Copy(a),
        K::Not => Op::Not(a),
        K::And => Op::And(a, b),
        K::Or => Op::Or(a, b),
        K::Xor => Op::Xor(a, b),
        K::Andn => Op::Andn(a, b),
        K::Add => Op::Add(a, b),
        K::Sub => Op::Sub(a, b),
        K::Mul => Op::Mul(a, b),
        K::Shl(n) => Op::Shl(a, *n),
        K::Shr(n) => Op::Shr(a, *n),
        K::Sar(n) => Op::Sar(a, *n),
        K::Rotl(n) => Op::Rotl(a, *n),
        K::Rotr(n) => Op::Rotr(a, *n),
        K::Shuffle(p) => Op::Shuffle(a, p.clone()),
        K::Bitmask(n) => Op::Bitmask(a, *n),
    }
}

fn amounts(m: u32) -> Vec<u32> {
    let mut v = vec![0, 1, m / 2, m - 1, 3 % m];
    v.retain(|&x| x < m);
    v.sort_unstable();
    v.dedup();
    v
}

fn random_perm(m: u32, rng: &mut Rng) -> Vec<u32> {
    let mut p: Vec<u32> = (0..m).collect();
    for i in (1..m as usize).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        p.swap(i, j);
    }
    p
}

fn op_kinds(kind: Kind, m: u32, rng: &mut Rng) -> Vec<K> {
    let mut v = vec![K::Copy, K::Not, K::And, K::Or, K::Xor, K::Andn];
    if kind == Kind::B {
        v.extend([K::Const(0), K::Const(1)]);
        return v;
    }
    v.extend([
        K::Const(rng.bits(m)),
        K::Const(mask(m)),
        K::Const(1),
        K::Const(0),
    ]);
    if kind == Kind::HLogic {
        return v;
    }
    if matches!(kind, Kind::V | Kind::VPack) {
        v.extend([K::Add, K::Sub, K::Mul, K::Add, K::Mul]);
    }
    for k in amounts(m) {
        v.extend([
            K::Shl(k),
            K::Shr(k),
            K::Sar(k),
            K::Rotl(k),
            K::Rotr(k),
            K::Bitmask(k),
        ]);
    }
    if m >= 16 && m.is_multiple_of(8) {
        // byte-granular rotations and a byte swap (byte-shuffle paths)
        v.extend([K::Rotl(8), K::Rotr(8), K::Rotl(m - 8)]);
        let nb = m / 8;
        v.push(K::Shuffle(
            (0..m).map(|j| (nb - 1 - j / 8) * 8 + j % 8).collect(),
        ));
    }
    if m >= 16 && m.is_multiple_of(8) {
        // AES's ShiftRows on a plane: bit class c (j mod 4) rotated by 4c (rotations by 4 and
        // 12 share one rotation on SSE/AVX2)
        v.push(K::Shuffle((0..m).map(|j| (j + 4 * (j % 4)) % m).collect()));
    }
    if m >= 32 {
        // each 16- and 32-bit lane rotated by 4 (one lane shift per direction, no AND, on
        // x86 SIMD), and the low half moved up whole (a shift alone) with the high half
        // permuted at random
        for l in [16, 32]
            .into_iter()
            .filter(|&l| l < m && m.is_multiple_of(l))
        {
            v.push(K::Shuffle(
                (0..m).map(|j| j / l * l + (j % l + l - 4) % l).collect(),
            ));
        }
        let half = random_perm(m / 2, rng);
        v.push(K::Shuffle(
            (0..m)
                .map(|j| {
                    if j < m / 2 {
                        j + m / 2
                    } else {
                        half[(j - m / 2) as usize]
                    }
                })
                .collect(),
        ));
    }
    v.push(K::Shuffle(random_perm(m, rng)));
    v.push(K::Shuffle((0..m).rev().collect()));
    v.push(K::Shuffle(
        (0..m).map(|_| (rng.next() % m as u64) as u32).collect(),
    ));
    v
}

/// Helper nodes: `mix` (inline), `wrap` (noinline, calls `mix`), `abs` (no hint; a libc name;
/// passes its input through twice).
fn helper_nodes(kind: Kind, m: u32) -> Vec<Node> {
    let mut nodes = Vec::new();
    // mix(x, y[2]) -> (r, q[2])
    let mut b = NB::new("mix");
    b.n.inline = Some(true);
    let x = b.input("x", &[], m, m, false)[0];
    let y = b.input("y", &[2], m, m, false);
    let t1 = b.op(m, Op::Xor(x, y[0]));
    let t2 = match kind {
        Kind::V | Kind::VPack => b.op(m, Op::Add(t1, y[1])),
        Kind::H => b.op(m, Op::Rotl(t1, 1 % m)),
        _ => b.op(m, Op::Or(t1, y[1])),
    };
    let t3 = b.op(m, Op::Not(y[1]));
    let t4 = b.named("int", m, Op::And(x, y[0]));
    b.output("r", &[], m, vec![t2]);
    b.output("q", &[2], m, vec![t3, t4]);
    nodes.push(b.n);
    // wrap(u) -> v[3] = (r ^ q0, q1, u)
    let mut b = NB::new("wrap");
    b.n.inline = Some(false);
    let u = b.input("u", &[], m, m, false)[0];
    let c = b.op(m, Op::Const(if kind == Kind::B { 1 } else { 5 & mask(m) }));
    let r = b.call(&nodes, 0, vec![u, u, c]);
    let t = b.named("mix", m, Op::Xor(r[0], r[1]));
    b.output("v", &[3], m, vec![t, r[2], u]);
    nodes.push(b.n);
    // abs(a) -> b[2] = (a, a)
    let mut b = NB::new("abs");
    let a = b.input("a", &[], m, m, false)[0];
    b.output("b", &[2], m, vec![a, a]);
    nodes.push(b.n);
    nodes
}

fn program(name: &str, kind: Kind, m: u32, seed: u64) -> Program {
    let mut rng = Rng(seed);
    let slicing = match kind {
        Kind::B => Slicing::B,
        Kind::V | Kind::VPack => Slicing::V,
        Kind::H | Kind::HLogic => Slicing::H,
    };
    let mut nodes = helper_nodes(kind, m);
    let mut b = NB::new(name);
    let mut pool: Vec<VarId> = Vec::new();
    // Inputs: a scalar, a keyword-named one, a 2-D array and a const parameter.
    if kind == Kind::B {
        pool.extend(b.input("a", &[], 1, 1, false));
        pool.extend(b.input("int", &[4], 1, 4, false));
        pool.extend(b.input("k", &[2, 4], 1, 4, false));
        pool.extend(b.input("c", &[4], 1, 4, true));
    } else {
        pool.extend(b.input("a", &[], m, m, false));
        pool.extend(b.input("int", &[], m, m, false));
        pool.extend(b.input("k", &[2, 2], m, m, false));
        pool.extend(b.input("c", &[], m, m, true));
    }
    let half = if kind == Kind::VPack {
        b.input("ha", &[2], m / 2, m / 2, false)
    } else {
        vec![]
    };
    let echo = pool[0];
    let mut results = Vec::new();
    // Operands: half the time an input (random data), else an earlier non-constant result.
    let ninputs = pool.len();
    for k in op_kinds(kind, m, &mut rng) {
        let pick = |rng: &mut Rng| {
            if rng.next().is_multiple_of(2) || pool.len() == ninputs {
                pool[(rng.next() % ninputs as u64) as usize]
            } else {
                pool[ninputs + (rng.next() % (pool.len() - ninputs) as u64) as usize]
            }
        };
        let a = pick(&mut rng);
        let c = pick(&mut rng);
        let r = b.op(m, inst(&k, a, c));
        if !matches!(k, K::Const(_)) {
            pool.push(r);
        }
        results.push(r);
    }
    let mut halves = Vec::new();
    if kind == Kind::VPack {
        let h = m / 2;
        let s = b.op(h, Op::Add(half[0], half[1]));
        let p1 = b.op(m, Op::Pack(half[0], half[1]));
        let p2 = b.op(m, Op::Pack(s, half[0]));
        let x = b.op(m, Op::Xor(p1, pool[1]));
        halves.push(s);
        results.extend([p1, p2, x]);
    }
    // Calls to the helpers (with their results fed into more ops).
    let pick = |rng: &mut Rng, pool: &Vec<VarId>| pool[(rng.next() % pool.len() as u64) as usize];
    let args = vec![
        pick(&mut rng, &pool),
        pick(&mut rng, &pool),
        pick(&mut rng, &pool),
    ];
    let r1 = b.call(&nodes, 0, args);
    let args = vec![pick(&mut rng, &pool)];
    let r2 = b.call(&nodes, 1, args);
    let r3 = b.call(&nodes, 2, vec![r2[0]]);
    results.extend(r1.iter().chain(&r2).chain(&r3).copied());
    let fin = b.named("nk_final", m, Op::Xor(r1[0], r3[1]));
    results.push(fin);
    b.output("out", &[results.len()], m, results);
    b.output("double", &[], m, vec![fin]);
    b.output("echo", &[], m, vec![echo]);
    if !halves.is_empty() {
        b.output("half", &[halves.len()], m / 2, halves);
    }
    nodes.push(b.n);
    let prog = Program {
        slicing,
        nodes,
        interleave: 1,
    };
    ir::verify(&prog).unwrap_or_else(|e| panic!("{}: {}", name, e));
    prog
}

// ------------------------------------------------------------------ register layouts (target.rs)

fn nwords(arch: Arch) -> usize {
    (arch.reg_bits() as usize / 64).max(1)
}

/// Register bit holding bit j (MSB-first) of instance `inst`'s m-bit word.
fn bit_pos(arch: Arch, slicing: Slicing, m: u32, inst: usize, j: u32) -> usize {
    match slicing {
        Slicing::B => inst,
        Slicing::V if arch == Arch::Std => (m - 1 - j) as usize,
        Slicing::V => inst * m as usize + (m - 1 - j) as usize,
        Slicing::H => {
            let l = arch.hslice_lane_bits() as usize;
            let s = l / m as usize;
            let (lane, i) = (inst / s, inst % s);
            lane * l + j as usize * s + i
        }
    }
}

fn encode(arch: Arch, slicing: Slicing, m: u32, vals: &[u64]) -> Vec<u64> {
    let mut w = vec![0u64; nwords(arch)];
    if arch == Arch::Std && slicing == Slicing::V {
        w[0] = vals[0];
        return w;
    }
    for (inst, v) in vals.iter().enumerate() {
        for j in 0..m {
            if (v >> (m - 1 - j)) & 1 == 1 {
                let p = bit_pos(arch, slicing, m, inst, j);
                w[p / 64] |= 1 << (p % 64);
            }
        }
    }
    w
}

fn decode(arch: Arch, slicing: Slicing, m: u32, w: &[u64], n: usize) -> Vec<u64> {
    if arch == Arch::Std && slicing == Slicing::V {
        return vec![w[0]]; // the whole word: bits above m must be zero
    }
    (0..n)
        .map(|inst| {
            (0..m).fold(0u64, |acc, j| {
                let p = bit_pos(arch, slicing, m, inst, j);
                (acc << 1) | ((w[p / 64] >> (p % 64)) & 1)
            })
        })
        .collect()
}

// ------------------------------------------------------------------ C drivers

fn cfg(arch: Arch, header: &str) -> CodegenConfig {
    CodegenConfig {
        arch,
        header_name: header.to_string(),
        banner: "nakiri test\ninput: (built by tests/codegen.rs)".into(),
        spill: nakiri::codegen::SPILL_DEFAULT,
        mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
        loop_regs: None,
        opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
        uarch: nakiri::target::Uarch::host(),
        state_loads: None,
        loop_align: None,
    }
}

/// [`cfg`] under the measured rules of one processor family (`--uarch`), whatever the host.
fn cfg_uarch(arch: Arch, header: &str, uarch: nakiri::target::Uarch) -> CodegenConfig {
    CodegenConfig {
        uarch,
        ..cfg(arch, header)
    }
}

fn drv_attr(arch: Arch) -> &'static str {
    match arch {
        Arch::Sse => "__attribute__((target(\"sse4.2\")))",
        Arch::Avx2 => "__attribute__((target(\"avx2\")))",
        Arch::Avx512 => "__attribute__((target(\"avx512f,avx512bw,avx512vl\")))",
        _ => "",
    }
}

fn driver_prelude(arch: Arch) -> String {
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <inttypes.h>\n#include <stdint.h>\n",
    );
    s.push_str(&format!("#define DRV_T {}\n", drv_attr(arch)));
    s.push_str(
        "static void rd(uint64_t *w, int n) { for (int i = 0; i < n; i++) if (scanf(\"%\" SCNx64, &w[i]) != 1) { fprintf(stderr, \"short input\\n\"); exit(1); } }\n\
         static void pr(const uint64_t *w, int n) { for (int i = 0; i < n; i++) printf(\"%\" PRIx64 \" \", w[i]); printf(\"\\n\"); }\n\
         /* a register is read / printed as n little-endian 64-bit words (memory order) */\n\
         static void ldm(void *dst, int n) { uint64_t w[8]; rd(w, n); memcpy(dst, w, 8 * n); }\n\
         static void stm(const void *src, int n) { uint64_t w[8]; memcpy(w, src, 8 * n); pr(w, n); }\n\
         static uint64_t ld64(void) { uint64_t w; rd(&w, 1); return w; }\n\
         static void st64(uint64_t v) { pr(&v, 1); }\n",
    );
    s
}

fn dims(d: &[usize]) -> String {
    d.iter().map(|x| format!("[{}]", x)).collect()
}

/// The driver function of one case: reads `ncalls` sets of input registers, calls the raw
/// entry, prints the output registers.
fn driver_case(arch: Arch, idx: usize, prog: &Program, ncalls: usize) -> String {
    let std = arch == Arch::Std;
    let nw = nwords(arch);
    let e = prog.entry();
    let f = format!("{}__", e.name);
    let t = format!("{}DATATYPE", f);
    let mut s = format!("DRV_T static void run_case{}(void)\n{{\n", idx);
    let mut args = Vec::new();
    for (i, p) in e.inputs.iter().enumerate() {
        s.push_str(&format!("    {} in{}{};\n", t, i, dims(&p.c_dims)));
        args.push(format!("in{}", i));
    }
    for (i, p) in e.outputs.iter().enumerate() {
        s.push_str(&format!("    {} out{}{};\n", t, i, dims(&p.c_dims)));
        args.push(if p.c_dims.is_empty() {
            format!("&out{}", i)
        } else {
            format!("out{}", i)
        });
    }
    s.push_str(&format!(
        "    for (int call = 0; call < {}; call++) {{\n",
        ncalls
    ));
    // std registers are integers of DATATYPE's width; SIMD ones are copied as raw memory.
    let (ld, st) = if std {
        (format!("({})ld64()", t), "st64(%)".to_string())
    } else {
        (String::new(), format!("stm(&%, {})", nw))
    };
    let load = |lv: String| {
        if std {
            format!("{} = {};", lv, ld)
        } else {
            format!("ldm(&{}, {});", lv, nw)
        }
    };
    for (i, p) in e.inputs.iter().enumerate() {
        if p.c_dims.is_empty() {
            s.push_str(&format!("        {}\n", load(format!("in{}", i))));
        } else {
            s.push_str(&format!(
                "        for (int i = 0; i < {}; i++) {}\n",
                p.atoms.len(),
                load(format!("(({} *)in{})[i]", t, i))
            ));
        }
    }
    s.push_str(&format!("        {}({});\n", f, args.join(", ")));
    for (i, p) in e.outputs.iter().enumerate() {
        if p.c_dims.is_empty() {
            s.push_str(&format!(
                "        {};\n",
                st.replace('%', &format!("out{}", i))
            ));
        } else {
            s.push_str(&format!(
                "        for (int i = 0; i < {}; i++) {};\n",
                p.atoms.len(),
                st.replace('%', &format!("(({} *)out{})[i]", t, i))
            ));
        }
    }
    s.push_str("    }\n}\n");
    s
}

struct Case {
    name: String,
    prog: Program,
    word: u32,
    out: COutput,
    ncalls: usize,
}

fn entry_word(prog: &Program) -> u32 {
    let e = prog.entry();
    e.inputs
        .iter()
        .flat_map(|p| p.atoms.iter().map(|a| e.bits(*a)))
        .max()
        .unwrap()
}

/// Compiles all cases of one target into one program, runs it, compares with the interpreter.
fn run_cases(arch: Arch, cases: &[Case]) {
    let mut rng = Rng(0x5eed ^ arch.reg_bits() as u64);
    let mut files: Vec<(String, String)> = Vec::new();
    let mut driver = driver_prelude(arch);
    let mut stdin = String::new();
    // per case: per call: per instance input atom values
    let mut all_inputs: Vec<Vec<Vec<Vec<u64>>>> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        files.push((format!("case{}.c", i), c.out.c.clone()));
        files.push((format!("case{}.h", i), c.out.h.clone()));
        driver.push_str(&format!("#include \"case{}.h\"\n", i));
    }
    for (i, c) in cases.iter().enumerate() {
        driver.push_str(&driver_case(arch, i, &c.prog, c.ncalls));
        let e = c.prog.entry();
        let n = instances_per_call(arch, c.prog.slicing, c.word);
        let std_v = arch == Arch::Std && c.prog.slicing == Slicing::V;
        let dt_bits = match entry_word(&c.prog) {
            0..=8 => 8,
            9..=16 => 16,
            17..=32 => 32,
            _ => 64,
        };
        let mut calls = Vec::new();
        for _ in 0..c.ncalls {
            let mut atoms_vals: Vec<Vec<u64>> = Vec::new();
            for p in &e.inputs {
                for &a in &p.atoms {
                    let m = e.bits(a);
                    let vals: Vec<u64> = if p.is_const {
                        let v = rng.bits(m);
                        vec![v; n]
                    } else if std_v {
                        // garbage above the word size must be ignored
                        vec![rng.bits(dt_bits)]
                    } else {
                        (0..n).map(|_| rng.bits(m)).collect()
                    };
                    for w in encode(arch, c.prog.slicing, m, &vals) {
                        stdin.push_str(&format!("{:x} ", w));
                    }
                    stdin.push('\n');
                    atoms_vals.push(vals);
                }
            }
            calls.push(atoms_vals);
        }
        all_inputs.push(calls);
    }
    driver.push_str("int main(void)\n{\n");
    for i in 0..cases.len() {
        driver.push_str(&format!("    run_case{}();\n", i));
    }
    driver.push_str("    return 0;\n}\n");
    files.push(("driver.c".into(), driver));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let out = if arch == Arch::Neon && !arch.runs_here() {
        qemu_build_and_run("codegen-neon", &refs, &stdin)
    } else {
        build_and_run(&format!("codegen-{}", arch), &refs, &[], &stdin)
    };
    let mut tok = out
        .split_whitespace()
        .map(|t| u64::from_str_radix(t, 16).expect("hex output"));
    let nw = nwords(arch);
    let mut failures = Vec::new();
    for (ci, c) in cases.iter().enumerate() {
        let e = c.prog.entry();
        let n = instances_per_call(arch, c.prog.slicing, c.word);
        let entry_id = NodeId(c.prog.nodes.len() as u32 - 1);
        let outs = e.flat_outputs();
        let mut case_failures = 0usize;
        for call in &all_inputs[ci] {
            let mut got: Vec<Vec<u64>> = Vec::new();
            for &o in &outs {
                let w: Vec<u64> = (0..nw)
                    .map(|_| tok.next().expect("missing output"))
                    .collect();
                got.push(decode(arch, c.prog.slicing, e.bits(o), &w, n));
            }
            for inst in 0..n {
                let ins: Vec<u64> = call.iter().map(|v| v[inst.min(v.len() - 1)]).collect();
                let exp = run_node(&c.prog, entry_id, &ins);
                for (k, &o) in outs.iter().enumerate() {
                    if got[k][inst] != exp[k] {
                        case_failures += 1;
                    }
                    if got[k][inst] != exp[k] && case_failures <= 4 {
                        let def = e.body.iter().find(|i| i.defs().contains(&o));
                        failures.push(format!(
                            "{} [{}]: output atom #{} `{}` ({} bits), instance {}: expected {:#x}, got {:#x}; defined by {:?}",
                            c.name,
                            arch,
                            k,
                            e.var(o).name,
                            e.bits(o),
                            inst,
                            exp[k],
                            got[k][inst],
                            def
                        ));
                    }
                }
            }
        }
        if case_failures > 4 {
            failures.push(format!(
                "{} [{}]: ... {} mismatching (atom, instance) pairs in all",
                c.name, arch, case_failures
            ));
        }
    }
    assert!(tok.next().is_none(), "extra output from the C program");
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

fn cases_for(arch: Arch) -> Vec<(String, Program)> {
    let mut v = Vec::new();
    let mut add = |kind: Kind, m: u32| {
        let name = format!("{:?}{}", kind, m).to_lowercase();
        v.push((
            name.clone(),
            program(&name, kind, m, 1000 + m as u64 * 7 + kind as u64),
        ));
    };
    add(Kind::B, 1);
    for m in [1, 8, 16, 32, 64] {
        add(Kind::V, m);
    }
    if arch == Arch::Std {
        for m in [3, 12, 48] {
            add(Kind::V, m);
        }
        for m in [8, 16, 12, 64] {
            add(Kind::VPack, m);
        }
        for m in [1, 2, 4, 8, 16, 32, 64] {
            add(Kind::H, m);
        }
    } else {
        for m in [1, 2, 4, 8, 16, 32, 64] {
            add(Kind::H, m);
        }
        add(Kind::HLogic, 32);
    }
    v
}

const AARCH64_CC: &str = "aarch64-linux-gnu-gcc";
const QEMU_AARCH64: &str = "qemu-aarch64";

fn tool_works(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Like `common::build_and_run`, for aarch64: cross-compiles statically and runs under qemu.
fn qemu_build_and_run(tag: &str, files: &[(&str, &str)], stdin: &str) -> String {
    use std::io::Write;
    let dir = scratch_dir(tag);
    let mut cfiles = Vec::new();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
        if name.ends_with(".c") {
            cfiles.push(dir.join(name));
        }
    }
    let exe = dir.join("prog");
    let out = Command::new(AARCH64_CC)
        .args([
            "-O1",
            "-static",
            "-std=gnu11",
            "-Wall",
            "-Wno-unused-function",
            "-Wno-unused-variable",
        ])
        .args(&cfiles)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("running the cross compiler");
    if !out.status.success() {
        panic!(
            "C compilation failed in {}:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut child = Command::new(QEMU_AARCH64)
        .arg(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        panic!(
            "program in {} failed ({}):\n{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    common::remove_scratch(&dir);
    String::from_utf8(out.stdout).unwrap()
}

fn check_arch(arch: Arch) {
    if !arch.runs_here() {
        if arch == Arch::Neon && tool_works(AARCH64_CC) && tool_works(QEMU_AARCH64) {
            println!(
                "neon: running under {} (cross-compiled with {})",
                QEMU_AARCH64, AARCH64_CC
            );
        } else {
            println!("skipped: {} (CPU lacks it)", arch);
            return;
        }
    }
    let cases: Vec<Case> = cases_for(arch)
        .into_iter()
        .enumerate()
        .map(|(i, (name, prog))| {
            let out = generate(&prog, &cfg(arch, &format!("case{}.h", i)))
                .unwrap_or_else(|e| panic!("{} on {}: {}", name, arch, e));
            let word = if prog.slicing == Slicing::B {
                1
            } else {
                entry_word(&prog)
            };
            let ncalls = if arch == Arch::Std && prog.slicing == Slicing::V {
                24
            } else {
                3
            };
            Case {
                name,
                prog,
                word,
                out,
                ncalls,
            }
        })
        .collect();
    run_cases(arch, &cases);
}

#[test]
fn runs_std() {
    check_arch(Arch::Std);
}

#[test]
fn runs_sse() {
    check_arch(Arch::Sse);
}

#[test]
fn runs_avx2() {
    check_arch(Arch::Avx2);
}

#[test]
fn runs_avx512() {
    check_arch(Arch::Avx512);
}

#[test]
fn runs_neon() {
    check_arch(Arch::Neon);
}

// ------------------------------------------------------------------ errors

fn expect_err(prog: &Program, arch: Arch, needles: &[&str]) {
    match generate(prog, &cfg(arch, "out.h")) {
        Ok(_) => panic!("expected an error on {} for {}", arch, prog.entry().name),
        Err(e) => {
            let msg = e.to_string();
            for n in needles {
                assert!(msg.contains(n), "error `{}` should mention `{}`", msg, n);
            }
        }
    }
}

fn single_op(slicing: Slicing, m: u32, mk: impl Fn(VarId, VarId) -> Op, out_bits: u32) -> Program {
    let mut b = NB::new("f");
    let x = b.input("x", &[], m, m, false)[0];
    let y = b.input("y", &[], m, m, false)[0];
    let r = b.op(out_bits, mk(x, y));
    b.output("r", &[], out_bits, vec![r]);
    Program {
        slicing,
        nodes: vec![b.n],
        interleave: 1,
    }
}

#[test]
fn errors_are_reported() {
    // hslice arithmetic
    for op in [Op::Add as fn(VarId, VarId) -> Op, Op::Sub, Op::Mul] {
        let p = single_op(Slicing::H, 16, op, 16);
        for arch in [Arch::Std, Arch::Sse, Arch::Avx512] {
            expect_err(&p, arch, &["hslice", "16-bit"]);
        }
    }
    // Pack on SIMD vslice (mixed sizes)
    let p = single_op(Slicing::V, 16, Op::Pack, 32);
    for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512, Arch::Neon] {
        expect_err(&p, arch, &["same size", arch.name()]);
    }
    assert!(generate(&p, &cfg(Arch::Std, "out.h")).is_ok());
    // word sizes without lanes
    let p = single_op(Slicing::V, 12, Op::Add, 12);
    for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512, Arch::Neon] {
        expect_err(&p, arch, &["12 bits", arch.name()]);
    }
    // hslice arithmetic on words with slots smaller than a byte; their permutations are fine
    for m in [32, 64] {
        let p = single_op(Slicing::H, m, Op::Add, m);
        for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512, Arch::Neon] {
            expect_err(&p, arch, &[&format!("{}-bit", m), arch.name(), "Add"]);
        }
        let p = single_op(Slicing::H, m, |x, _| Op::Rotl(x, 1), m);
        for arch in Arch::ALL {
            assert!(generate(&p, &cfg(arch, "out.h")).is_ok());
        }
    }
    // hslice word size not dividing the lane: up to 16 bits the slots are whole bytes and the
    // top of the lane is unused (compat.md C8); above, slots would not be bytes
    let p = single_op(Slicing::H, 12, Op::Xor, 12);
    assert!(generate(&p, &cfg(Arch::Avx2, "out.h")).is_ok());
    let p = single_op(Slicing::H, 24, Op::Xor, 24);
    expect_err(&p, Arch::Avx2, &["24-bit"]);
}

// ------------------------------------------------------------------ determinism and plain compilation

#[test]
fn output_is_deterministic() {
    for arch in Arch::ALL {
        for (name, prog) in cases_for(arch) {
            let a = generate(&prog, &cfg(arch, "out.h"));
            let b = generate(&prog.clone(), &cfg(arch, "out.h"));
            match (a, b) {
                (Ok(a), Ok(b)) => assert!(
                    a == b,
                    "{} on {}: output differs between two runs",
                    name,
                    arch
                ),
                (Err(a), Err(b)) => assert_eq!(a, b),
                _ => panic!("{} on {}: one run failed", name, arch),
            }
        }
    }
}

fn compiles(dir: &std::path::Path, compiler: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(compiler)
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `cc -O3 -c out.c` with no flags for each target × slicing; plus the header and the C file
/// in one translation unit under `-Wall -Werror` (prototype and typedef agree).
#[test]
fn compiles_without_flags() {
    let x86 = cfg!(target_arch = "x86_64");
    std::thread::scope(|sc| {
        for arch in Arch::ALL {
            let compiler = match arch {
                Arch::Neon if x86 => {
                    if !tool_works(AARCH64_CC) {
                        println!("skipped: neon compilation (no {})", AARCH64_CC);
                        continue;
                    }
                    AARCH64_CC.to_string()
                }
                Arch::Sse | Arch::Avx2 | Arch::Avx512 if !x86 => continue,
                _ => cc(),
            };
            sc.spawn(move || compile_arch(arch, &compiler));
        }
    });
}

fn compile_arch(arch: Arch, compiler: &str) {
    let dir = scratch_dir(&format!("cc-{}", arch));
    let mut done = std::collections::BTreeSet::new();
    for (name, prog) in cases_for(arch) {
        // one representative per slicing (plus the mixed-size std vslice one)
        let key = format!("{}{}", prog.slicing, name.starts_with("vpack"));
        if !done.insert(key) {
            continue;
        }
        let out = generate(&prog, &cfg(arch, &format!("{}.h", name))).unwrap();
        std::fs::write(dir.join(format!("{}.c", name)), &out.c).unwrap();
        std::fs::write(dir.join(format!("{}.h", name)), &out.h).unwrap();
        compiles(&dir, compiler, &["-O3", "-c", &format!("{}.c", name)]).unwrap_or_else(|e| {
            panic!(
                "cc -O3 -c {}.c ({}) failed in {}:\n{}",
                name,
                arch,
                dir.display(),
                e
            )
        });
        // Warning-free check of this generator's part (the packed API is tested in tests/packed.rs).
        std::fs::write(dir.join(format!("mine_{}.c", name)), strip_packed(&out.c)).unwrap();
        std::fs::write(dir.join(format!("mine_{}.h", name)), strip_packed(&out.h)).unwrap();
        let both = format!(
            "#include \"mine_{n}.h\"\n#include \"mine_{n}.c\"\n",
            n = name
        );
        std::fs::write(dir.join(format!("both_{}.c", name)), both).unwrap();
        let args = [
            "-fsyntax-only",
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unused-parameter",
            &format!("both_{}.c", name),
        ];
        compiles(&dir, compiler, &args).unwrap_or_else(|e| {
            panic!(
                "header + C of {} ({}) do not agree in {}:\n{}",
                name,
                arch,
                dir.display(),
                e
            )
        });
    }
}

// ------------------------------------------------------------------ golden files

fn golden_programs() -> Vec<(&'static str, Program, Arch)> {
    // v16_avx2: a few vslice ops on u16.
    let mut b = NB::new("tiny_v");
    let x = b.input("x", &[], 16, 16, false)[0];
    let k = b.input("key", &[2], 16, 16, true);
    let t1 = b.op(16, Op::Xor(x, k[0]));
    let t2 = b.op(16, Op::Add(t1, k[1]));
    let t3 = b.op(16, Op::Rotl(t2, 7));
    let t4 = b.op(16, Op::Shuffle(t3, (0..16).map(|j| (j * 5) % 16).collect()));
    let t5 = b.op(16, Op::Const(0x1234));
    let t6 = b.op(16, Op::Andn(t5, t4));
    b.output("y", &[], 16, vec![t6]);
    let v = Program {
        slicing: Slicing::V,
        nodes: vec![b.n],
        interleave: 1,
    };

    // b_std: bitslice with a helper node.
    let mut s = NB::new("maj");
    s.n.inline = Some(true);
    let a = s.input("a", &[3], 1, 3, false);
    let ab = s.op(1, Op::And(a[0], a[1]));
    let ac = s.op(1, Op::And(a[0], a[2]));
    let bc = s.op(1, Op::And(a[1], a[2]));
    let o1 = s.op(1, Op::Or(ab, ac));
    let o2 = s.op(1, Op::Or(o1, bc));
    s.output("m", &[], 1, vec![o2]);
    let maj = s.n;
    let mut b = NB::new("tiny_b");
    let x = b.input("x", &[3], 1, 3, false);
    let r = b.call(std::slice::from_ref(&maj), 0, x.clone());
    let one = b.op(1, Op::Const(1));
    let n = b.op(1, Op::Xor(r[0], one));
    b.output("y", &[2], 1, vec![r[0], n]);
    let bp = Program {
        slicing: Slicing::B,
        nodes: vec![maj, b.n],
        interleave: 1,
    };

    // h8_sse: hslice u8 with a rotation, a shuffle and a constant.
    let mut b = NB::new("tiny_h");
    let x = b.input("x", &[], 8, 8, false)[0];
    let t1 = b.op(8, Op::Rotr(x, 3));
    let t2 = b.op(8, Op::Shuffle(t1, vec![7, 6, 5, 4, 0, 1, 2, 3]));
    let t3 = b.op(8, Op::Const(0xA5));
    let t4 = b.op(8, Op::Xor(t2, t3));
    let t5 = b.op(8, Op::Shl(t4, 2));
    b.output("y", &[], 8, vec![t5]);
    let h = Program {
        slicing: Slicing::H,
        nodes: vec![b.n],
        interleave: 1,
    };
    // loops_v_std: kept loops (a chain, a map, an invariant argument) from tests/in/loops.ua.
    let l = common::lower_file("tests/in/loops.ua", Slicing::V);
    vec![
        ("v16_avx2", v, Arch::Avx2),
        ("b_std", bp, Arch::Std),
        ("h8_sse", h, Arch::Sse),
        ("loops_v_std", l, Arch::Std),
    ]
}

/// The differing middle of two texts (common leading and trailing lines skipped).
fn line_diff(expected: &str, got: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    let pre = e.iter().zip(&g).take_while(|(a, b)| a == b).count();
    let suf = e[pre..]
        .iter()
        .rev()
        .zip(g[pre..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut s = format!("from line {}:\n", pre + 1);
    for (sign, lines) in [("-", &e[pre..e.len() - suf]), ("+", &g[pre..g.len() - suf])] {
        for l in lines.iter().take(20) {
            s.push_str(&format!("  {} {}\n", sign, l));
        }
        if lines.len() > 20 {
            s.push_str(&format!(
                "  {} ... ({} more lines)\n",
                sign,
                lines.len() - 20
            ));
        }
    }
    s
}

/// The golden files cover this generator's output only: the packed API section (written by
/// `codegen::packed`, tested in tests/packed.rs) is cut out.
fn strip_packed(text: &str) -> String {
    use nakiri::codegen::{PACKED_BEGIN, PACKED_END};
    match (text.find(PACKED_BEGIN), text.find(PACKED_END)) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &text[..a], &text[b + PACKED_END.len()..]),
        _ => text.to_string(),
    }
}

#[test]
fn golden_c() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/codegen");
    let bless = std::env::var_os("BLESS").is_some();
    let mut bad = Vec::new();
    for (name, prog, arch) in golden_programs() {
        ir::verify(&prog).unwrap();
        let out = generate(
            &prog,
            &CodegenConfig {
                arch,
                header_name: format!("{}.h", name),
                banner: format!("golden test {}", name),
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
        for (ext, text) in [("c", &out.c), ("h", &out.h)] {
            let text = &strip_packed(text);
            let path = dir.join(format!("{}.{}", name, ext));
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, text).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(exp) if exp == *text => {}
                Ok(exp) => bad.push(format!(
                    "{} differs (run with BLESS=1 to accept):\n{}",
                    path.display(),
                    line_diff(&exp, text)
                )),
                Err(_) => bad.push(format!(
                    "{} missing (run with BLESS=1 to create)",
                    path.display()
                )),
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Compiles with `cc args` in `dir` and returns `objdump -d obj`.
fn object_asm(dir: &std::path::Path, args: &[&str], obj: &str) -> Result<String, String> {
    compiles(dir, &cc(), args)?;
    let dis = Command::new("objdump")
        .current_dir(dir)
        .args(["-d", obj])
        .output()
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&dis.stdout).into_owned())
}

/// Compiles with `cc args` in `dir` and asserts that `objdump -d obj` shows `want` and not
/// `not` (`what` names the case in the messages).
fn assert_object_asm(
    dir: &std::path::Path,
    args: &[&str],
    obj: &str,
    want: &str,
    not: &str,
    what: &str,
) {
    let asm = object_asm(dir, args, obj).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        asm.contains(want) && !asm.contains(not),
        "{what}: want {want} and no {not}:\n{asm}"
    );
}

/// AVX-512 16-bit rotates are one `vpshldw`/`vpshrdw` where the C compiler targets VBMI2, and
/// shifts + or elsewhere (compiled only: whether it runs depends on the CPU; the shift form is
/// what `runs_avx512` executes where AVX-512 exists).
#[test]
fn avx512_rotate16_uses_vbmi2_when_targeted() {
    if !cfg!(target_arch = "x86_64") || !tool_works("objdump") {
        println!("skipped: needs x86-64 and objdump");
        return;
    }
    let dir = scratch_dir("rot16");
    let p = single_op(Slicing::V, 16, |x, _| Op::Rotl(x, 3), 16);
    let mut q = single_op(Slicing::V, 16, |x, _| Op::Rotr(x, 5), 16);
    q.nodes[0].name = "g".into();
    for (name, prog) in [("rl", &p), ("rr", &q)] {
        let out = generate(prog, &cfg(Arch::Avx512, &format!("{}.h", name))).unwrap();
        std::fs::write(dir.join(format!("{}.c", name)), strip_packed(&out.c)).unwrap();
        std::fs::write(dir.join(format!("{}.h", name)), strip_packed(&out.h)).unwrap();
        for (flags, want, not) in [
            (
                vec!["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512vbmi2"],
                if name == "rl" { "vpshldw" } else { "vpshrdw" },
                "vpsllw",
            ),
            (
                vec!["-mavx512f", "-mavx512bw", "-mavx512vl"],
                "vpsllw",
                "vpshldw",
            ),
        ] {
            let obj = format!("{}.o", name);
            let mut args = vec!["-O2", "-c", "-o", &obj];
            args.extend(flags.iter().copied());
            let c = format!("{}.c", name);
            args.push(&c);
            assert_object_asm(
                &dir,
                &args,
                &obj,
                want,
                not,
                &format!("{} with {:?}", name, flags),
            );
        }
    }
}

/// SSE/AVX2 rotations of 32- and 64-bit words are one `vprold`/`vprolq` (`vprord`/`vprorq`)
/// where the C compiler targets AVX-512VL (`-march=native` on a CPU with it), of 16-bit words
/// one `vpshldw`/`vpshrdw` where it also targets VBMI2, and two shifts and an OR elsewhere;
/// and both forms compute the same: ChaCha20, Ascon and RECTANGLE `-V` on sse and avx2, built
/// with those flags, against the interpreter where the CPU has them (the other KATs run the
/// shift form).
#[test]
fn simd_rotates_use_avx512vl_when_targeted() {
    if !cfg!(target_arch = "x86_64") || !tool_works("objdump") {
        println!("skipped: needs x86-64 and objdump");
        return;
    }
    let dir = scratch_dir("rot_vl");
    for arch in [Arch::Sse, Arch::Avx2] {
        let base = if arch == Arch::Sse {
            "-msse4.2"
        } else {
            "-mavx2"
        };
        for (m, k) in [(16u32, 5u32), (32, 7), (64, 19)] {
            for (dirn, op) in [("l", Op::Rotl as fn(VarId, u32) -> Op), ("r", Op::Rotr)] {
                let p = single_op(Slicing::V, m, |x, _| op(x, k), m);
                let name = format!("r{dirn}{m}_{}", arch.name());
                let out = generate(&p, &cfg(arch, &format!("{name}.h"))).unwrap();
                std::fs::write(dir.join(format!("{name}.c")), strip_packed(&out.c)).unwrap();
                std::fs::write(dir.join(format!("{name}.h")), strip_packed(&out.h)).unwrap();
                // 16-bit: `vpshldw`/`vpshrdw` (VBMI2 with VL)
                let (one, vl_flags): (String, &[&str]) = match m {
                    16 => (
                        format!("vpsh{dirn}dw"),
                        &["-mavx512f", "-mavx512vl", "-mavx512vbmi2"],
                    ),
                    32 => (format!("vpro{dirn}d"), &["-mavx512f", "-mavx512vl"]),
                    _ => (format!("vpro{dirn}q"), &["-mavx512f", "-mavx512vl"]),
                };
                let not_one = if m == 16 { "vpsh" } else { "vpro" };
                for (vl, want, not) in [
                    (true, one.clone(), "psll".to_string()),
                    (false, "psll".to_string(), not_one.to_string()),
                ] {
                    let obj = format!("{name}.o");
                    let c = format!("{name}.c");
                    let mut args = vec!["-O2", "-c", "-o", &obj, base];
                    if vl {
                        args.extend(vl_flags);
                    }
                    args.push(&c);
                    assert_object_asm(&dir, &args, &obj, &want, &not, &format!("{name} vl={vl}"));
                }
            }
        }
    }
    if !Arch::Avx512.runs_here() {
        println!("skipped: the AVX-512VL rotations natively (this CPU lacks AVX-512)");
        return;
    }
    let vbmi2 = std::is_x86_feature_detected!("avx512vbmi2");
    let mut rng = common::Rng(0x00b5_71e5);
    for file in [
        "ciphers/chacha20/chacha20.ua",
        "ciphers/ascon/ascon.ua",
        "ciphers/rectangle/rectangle.ua",
    ] {
        // RECTANGLE's 16-bit rotations need VBMI2 too
        let flags: &[&str] = if file.contains("rectangle") {
            if !vbmi2 {
                println!("skipped: {file} with VBMI2 rotations (this CPU lacks VBMI2)");
                continue;
            }
            &["-mavx512f", "-mavx512vl", "-mavx512vbmi2"]
        } else {
            &["-mavx512f", "-mavx512vl"]
        };
        let prog = common::lower_file(file, Slicing::V);
        let insts = common::random_instances(&prog, 37, &mut rng);
        let want = common::run_interp(&prog, &insts);
        for arch in [Arch::Sse, Arch::Avx2] {
            let out = generate(&prog, &cfg(arch, "out.h")).unwrap();
            assert!(
                out.c.contains("_rol_epi") || out.c.contains("_shldi_epi16"),
                "{file} {arch}"
            );
            let got = common::run_native_out_flags(&prog, &out, arch, &insts, flags);
            assert_eq!(got, want, "{file} -V {arch} with AVX-512VL rotations");
        }
    }
}

/// AVX-512 under the Intel rules: one 64-bit rotation in `ROT64_P5_EVERY` (3) of a program
/// without interleaving is
/// `NK_ROTR64_P5`/`NK_ROTL64_P5`, a `vpmultishiftqb` where the C compiler targets VBMI and a
/// `vprorq` elsewhere; interleaved programs (the packed entry's kernel) keep `vprorq`. Both
/// forms compute the same: Ascon `-V` avx512 built with `-mavx512vbmi` (and every rotation
/// direction and amount of a single-op program) against the interpreter, where the CPU has it.
#[test]
fn avx512_rotate64_on_port5_when_vbmi() {
    if !cfg!(target_arch = "x86_64") || !tool_works("objdump") {
        println!("skipped: needs x86-64 and objdump");
        return;
    }
    let base = ["-mavx512f", "-mavx512bw", "-mavx512vl"];
    let vbmi = ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512vbmi"];
    let prog = common::lower_file("ciphers/ascon/ascon.ua", Slicing::V);
    // An Intel rule: on AMD (Zen 4: `vpmultishiftqb` has latency 3 and shares the rotations'
    // pipes) every rotation is `vprorq`.
    let amd = generate(
        &prog,
        &cfg_uarch(Arch::Avx512, "ascon.h", nakiri::target::Uarch::Amd),
    )
    .unwrap();
    assert!(
        !amd.c.contains("NK_ROTR64_P5(v") && amd.c.contains("NK_ROTR64(v"),
        "no port-5 rotation under the AMD rules"
    );
    let out = generate(
        &prog,
        &cfg_uarch(Arch::Avx512, "ascon.h", nakiri::target::Uarch::Intel),
    )
    .unwrap();
    let (p5, plain) = (
        out.c.matches("NK_ROTR64_P5(v").count(),
        out.c.matches("NK_ROTR64(v").count(),
    );
    assert!(
        p5 > 0 && (p5 + plain) / p5 == 3,
        "one rotation in 3: {p5} of {}",
        p5 + plain
    );
    let dir = scratch_dir("rot64_p5");
    std::fs::write(dir.join("a.c"), strip_packed(&out.c)).unwrap();
    std::fs::write(dir.join("ascon.h"), strip_packed(&out.h)).unwrap();
    for (flags, want, not) in [
        (&vbmi[..], "vpmultishiftqb", "vpsllq"),
        (&base[..], "vprorq", "vpmultishiftqb"),
    ] {
        let mut args = vec!["-O2", "-c", "-o", "a.o"];
        args.extend(flags.iter().copied());
        args.push("a.c");
        assert_object_asm(
            &dir,
            &args,
            "a.o",
            want,
            not,
            &format!("Ascon with {flags:?}"),
        );
    }
    // the packed entry's 2-way kernel: no port-5 rotation
    let mut lcfg = nakiri::driver::Config {
        slicing: Slicing::V,
        arch: Arch::Avx512,
        ..nakiri::driver::Config::default()
    };
    lcfg.opt.uarch = nakiri::target::Uarch::Intel;
    let src = std::fs::read_to_string(common::root().join("ciphers/ascon/ascon.ua")).unwrap();
    let (_, full) = nakiri::driver::compile("ascon.ua", &src, &lcfg, &common::Fs, "ascon.h");
    let full = full.expect("Ascon -V avx512 compiles");
    let k = full.c.find("void ascon_p12__x2(").expect("a 2-way kernel");
    let kernel = &full.c[k..k + full.c[k..].find("\n}\n").unwrap()];
    assert!(
        kernel.contains("NK_ROTR64(") && !kernel.contains("_P5("),
        "kernel rotations"
    );
    if !Arch::Avx512.runs_here() || !std::is_x86_feature_detected!("avx512vbmi") {
        println!("skipped: the port-5 rotations natively (this CPU lacks AVX-512 VBMI)");
        return;
    }
    let mut rng = common::Rng(0x0005_0c64);
    let insts = common::random_instances(&prog, 29, &mut rng);
    let want = common::run_interp(&prog, &insts);
    let got = common::run_native_out_flags(&prog, &out, Arch::Avx512, &insts, &vbmi);
    assert_eq!(got, want, "Ascon -V avx512 with vpmultishiftqb rotations");
    for k in [0u32, 1, 7, 8, 19, 63] {
        for rotl in [false, true] {
            // three rotations in a row: the third is the port-5 one
            let rot = |v: VarId| if rotl { Op::Rotl(v, k) } else { Op::Rotr(v, k) };
            let mut b = NB::new("f");
            let x = b.input("x", &[], 64, 64, false)[0];
            let r1 = b.op(64, rot(x));
            let r2 = b.op(64, rot(r1));
            let r3 = b.op(64, rot(r2));
            b.output("r", &[], 64, vec![r3]);
            let p = Program {
                slicing: Slicing::V,
                nodes: vec![b.n],
                interleave: 1,
            };
            let o = generate(
                &p,
                &cfg_uarch(Arch::Avx512, "r.h", nakiri::target::Uarch::Intel),
            )
            .unwrap();
            assert!(o.c.contains("_P5("), "rot {k}: a port-5 rotation");
            let insts = common::random_instances(&p, 9, &mut rng);
            let want = common::run_interp(&p, &insts);
            let got = common::run_native_out_flags(&p, &o, Arch::Avx512, &insts, &vbmi);
            assert_eq!(got, want, "rot{} {k}", if rotl { "l" } else { "r" });
        }
    }
}

/// SSE/AVX2 vslice: an all-ones word constant is `NK_ONES_OPAQUE` (`codegen::ops::OPAQUE_ONES`),
/// AVX-512 and other constants keep `NK_SET1_w`; ACE `-V` (whose 64-bit constants have all-ones
/// high words) computes the same as the interpreter through it on every SSE/AVX2 target the CPU
/// has.
#[test]
fn all_ones_constants_are_opaque_on_sse_avx2() {
    let prog = common::lower_file("ciphers/ace/ace.ua", Slicing::V);
    let mut rng = common::Rng(0x0a11_0e5c);
    let insts = common::random_instances(&prog, 21, &mut rng);
    let want = common::run_interp(&prog, &insts);
    for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512] {
        let out = generate(&prog, &cfg(arch, "ace.h")).unwrap();
        let opaque = out.c.matches("= NK_ONES_OPAQUE;").count();
        assert_eq!(
            opaque > 0,
            arch != Arch::Avx512,
            "{arch}: {opaque} opaque all-ones constants"
        );
        assert!(
            !out.c.contains("NK_SET1_32(0xFFFFFFFFu)") || arch == Arch::Avx512,
            "{arch}"
        );
        if !arch.runs_here() {
            println!("skipped: ACE -V {arch} natively (this CPU lacks it)");
            continue;
        }
        let got = common::run_native_out(&prog, &out, arch, &insts);
        assert_eq!(got, want, "ACE -V {arch}");
    }
}

/// `--opaque-not` (the tuner's `opaque-not` knob): on SSE/AVX2 the generated C redefines
/// `NK_NOT` to XOR with the opaque all-ones register; on `std` and AVX-512 the C is unchanged.
/// The programs still compute what the interpreter does (GIFT fixsliced `-V`, DES `-B`).
#[test]
fn opaque_not_on_sse_avx2() {
    let redefined = "#define NK_NOT(a) NK_XOR((a), NK_ONES_OPAQUE)";
    for (file, slicing, n) in [
        ("ciphers/gift/gift_v.ua", Slicing::V, 9),
        ("ciphers/des/des.ua", Slicing::B, 70),
    ] {
        let prog = common::lower_file(file, slicing);
        let mut rng = common::Rng(0x0a9a_0e7e);
        let insts = common::random_instances(&prog, n, &mut rng);
        let want = common::run_interp(&prog, &insts);
        for arch in [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512] {
            let plain = generate(&prog, &cfg(arch, "o.h")).unwrap();
            let out = generate(
                &prog,
                &CodegenConfig {
                    opaque_not: true,
                    uarch: nakiri::target::Uarch::host(),
                    state_loads: None,
                    loop_align: None,
                    ..cfg(arch, "o.h")
                },
            )
            .unwrap();
            let applies = matches!(arch, Arch::Sse | Arch::Avx2);
            assert_eq!(out.c.contains(redefined), applies, "{file} {arch}");
            assert!(
                !plain.c.contains(redefined),
                "{file} {arch}: off by default"
            );
            assert_eq!(out.c == plain.c, !applies, "{file} {arch}");
            if applies {
                assert!(
                    out.c.contains("NK_NOT("),
                    "{file} {arch}: no negation to make opaque"
                );
            }
            if !arch.runs_here() {
                println!("skipped: {file} {arch} natively (this CPU lacks it)");
                continue;
            }
            let got = common::run_native_out(&prog, &out, arch, &insts);
            assert_eq!(got, want, "{file} {slicing:?} {arch} --opaque-not");
        }
    }
}

/// Small node functions the optimiser leaves to the C compiler are declared `inline`, so that
/// gcc inlines them at -O2 too (a common default) instead of passing their argument arrays
/// through memory: Serpent -V (8 S-boxes and the linear layer as functions) compiled with
/// `cc -O2` has no call left in its entry. Before the hint, the entry made 63 calls at -O2 on
/// avx2 and was 2.4x slower than at -O3.
#[test]
fn small_nodes_are_inlined_at_o2() {
    if !cfg!(target_arch = "x86_64") || !tool_works("objdump") {
        println!("skipped: needs x86-64 and objdump");
        return;
    }
    for arch in [Arch::Std, Arch::Avx2] {
        let lcfg = nakiri::driver::Config {
            slicing: Slicing::V,
            arch,
            ..nakiri::driver::Config::default()
        };
        let prog = common::lower_file_cfg("ciphers/serpent/serpent.ua", &lcfg);
        let out = generate(&prog, &cfg(arch, "serpent.h")).unwrap();
        // On std the S-boxes stay functions, hinted inline; on avx2 the optimiser inlines
        // every node of a vsliced program that keeps no loop (`InlinePolicy::resolve`).
        assert!(
            out.c.contains("static inline NK_TARGET void Sbox__0__m32(")
                || (arch != Arch::Std && !out.c.contains("Sbox__0__m32(")),
            "{arch}: S-box neither inlined nor hinted inline"
        );
        let dir = scratch_dir(&format!("o2-inline-{}", arch));
        std::fs::write(dir.join("serpent.c"), &out.c).unwrap();
        std::fs::write(dir.join("serpent.h"), &out.h).unwrap();
        compiles(&dir, &cc(), &["-O2", "-march=x86-64-v3", "-c", "serpent.c"])
            .unwrap_or_else(|e| panic!("{arch}: cc -O2 failed: {e}"));
        let dump = Command::new("objdump")
            .current_dir(&dir)
            .args(["-d", "--no-show-raw-insn", "serpent.o"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&dump.stdout);
        let body: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.ends_with("<Serpent__>:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .collect();
        assert!(
            body.len() > 100,
            "{arch}: Serpent__ not found or too short in the object:\n{}",
            text
        );
        let calls = body.iter().filter(|l| l.contains("call")).count();
        assert_eq!(
            calls, 0,
            "{arch}: Serpent__ still calls node functions at -O2"
        );
    }
}

/// Explicit spilling (`target/spill.rs`): ChaCha20's double-round loop body (kept with
/// `--loops chains`: the default unrolls it on SSE/AVX2 too) keeps 16 rows
/// live; on avx2 and sse (16 registers, and rotates by 12 and 7 need a temporary) the plan
/// spills a few of them, on avx512 (32 registers) none. With the body in lockstep order
/// (`sched-pairs`, default), a row the plan stores before its first use stays in memory across
/// iterations (`nk_home`); without that pass, none does. Hslice bodies are left alone
/// (measured slower), and `--no-spill` switches it off. The results of the spilling code are
/// checked below, natively, against the code without spills and without homes (and by the
/// KATs wherever a kept vsliced loop spills by default).
#[test]
fn explicit_spills_in_vsliced_loop_bodies() {
    let gen_out = |arch: Arch, slicing: Slicing, file: &str, spill: bool, pairs: bool| -> COutput {
        let mut lcfg = nakiri::driver::Config {
            slicing,
            arch,
            ..nakiri::driver::Config::default()
        };
        lcfg.opt.loops = nakiri::opt::LoopPolicy::Chains;
        if !pairs {
            lcfg.opt.disable(nakiri::opt::PassId::SchedPairs);
        }
        let prog = common::lower_file_cfg(file, &lcfg);
        generate(
            &prog,
            &CodegenConfig {
                spill,
                ..cfg(arch, "ch.h")
            },
        )
        .unwrap()
    };
    let gen = |arch: Arch, slicing: Slicing, file: &str, spill: bool| -> String {
        gen_out(arch, slicing, file, spill, true).c
    };
    const CH: &str = "ciphers/chacha20/chacha20.ua";
    for arch in [Arch::Sse, Arch::Avx2] {
        let on = gen(arch, Slicing::V, CH, true);
        let spills: usize = on
            .split("/* explicit spills: ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(
            (1..=8).contains(&spills),
            "{arch}: {spills} explicit spills in:\n{on}"
        );
        // Every spill is a store followed by the empty asm that keeps it in memory, and every
        // slot read back was written first.
        let stores = on.matches("__asm__ volatile(\"\" : \"+m\"(nk_sp[").count();
        assert!(
            stores >= spills,
            "{arch}: {stores} spill stores for {spills} spills"
        );
        for (k, line) in on.lines().enumerate() {
            if let Some(r) = line.split("= nk_sp[").nth(1) {
                let slot = format!("nk_sp[{}] = ", r.split(']').next().unwrap());
                assert!(
                    on.lines().take(k).any(|l| l.contains(&slot)),
                    "{arch}: slot read before written: {line}"
                );
            }
        }
        // Homes: the body reads each one and writes it once (kept in memory by the empty asm);
        // the loop around stores every home before its `for` and reads it after.
        let homes: usize = on
            .split("values, ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!((1..=4).contains(&homes), "{arch}: {homes} homes in:\n{on}");
        let body = on
            .split("void double_round(")
            .nth(1)
            .unwrap()
            .split("\n}\n")
            .next()
            .unwrap();
        assert!(
            body.contains(&format!("DATATYPE nk_home[{homes}])")),
            "{arch}: the body takes the homes"
        );
        let caller = on
            .split("/* kept loop: 10 calls of double_round */")
            .nth(1)
            .unwrap();
        let (pre, post) = caller.split_once("for (int nk_i = 0;").unwrap();
        for h in 0..homes {
            assert_eq!(
                body.matches(&format!("nk_home[{h}] = ")).count(),
                1,
                "{arch}: home {h} written once per iteration"
            );
            assert!(
                body.contains(&format!("__asm__ volatile(\"\" : \"+m\"(nk_home[{h}]))")),
                "{arch}: home {h} kept in memory"
            );
            assert!(
                body.contains(&format!("= nk_home[{h}];")),
                "{arch}: home {h} read"
            );
            assert!(
                pre.contains(&format!("nk_l0_home[{h}] = ")),
                "{arch}: home {h} set before the loop"
            );
            assert!(
                post.split_once("\n    }\n")
                    .unwrap()
                    .1
                    .contains(&format!("= nk_l0_home[{h}];")),
                "{arch}: home {h} read after the loop"
            );
        }
        let unpaired = gen_out(arch, Slicing::V, CH, true, false).c;
        assert!(
            unpaired.contains("nk_sp[") && !unpaired.contains("nk_home"),
            "{arch}: homes without the lockstep order"
        );
        assert!(
            !gen(arch, Slicing::V, CH, false).contains("nk_sp["),
            "{arch}: --no-spill still spills"
        );
        assert!(
            !gen(arch, Slicing::H, "ciphers/aes/aes.ua", true).contains("nk_sp["),
            "{arch}: hslice got explicit spills"
        );
    }
    assert!(
        !gen(Arch::Avx512, Slicing::V, CH, true).contains("nk_sp["),
        "avx512 has 32 registers: no spill needed"
    );
    assert!(
        !gen(Arch::Std, Slicing::V, CH, true).contains("nk_sp["),
        "GP registers are left to the C compiler"
    );
    // Natively: the code with spills and homes, with spills only, and without either agree on
    // random states.
    if !Arch::Avx2.runs_here() {
        println!("skipped: the native comparison needs avx2");
        return;
    }
    let mut rng = Rng(7);
    let mut input = String::new();
    for _ in 0..16 * 8 {
        input.push_str(&format!("{} ", rng.next() as u32));
    }
    let mut outs = Vec::new();
    for (spill, pairs) in [(true, true), (true, false), (false, true)] {
        let out = gen_out(Arch::Avx2, Slicing::V, CH, spill, pairs);
        let driver = "#include <stdio.h>\n#include \"ch.h\"\nint main(void) {\n  static uint32_t s[16][8] __attribute__((aligned(64))), o[16][8] __attribute__((aligned(64)));\n  for (int i = 0; i < 16; i++) for (int j = 0; j < 8; j++) if (scanf(\"%u\", &s[i][j]) != 1) return 2;\n  chacha20__((chacha20__DATATYPE *)s, (chacha20__DATATYPE *)o);\n  for (int i = 0; i < 16; i++) for (int j = 0; j < 8; j++) printf(\"%08x \", o[i][j]);\n  return 0;\n}\n";
        outs.push(build_and_run(
            &format!("spill-{spill}-{pairs}"),
            &[("ch.c", &out.c), ("ch.h", &out.h), ("main.c", driver)],
            &["-O2", "-mavx2"],
            &input,
        ));
    }
    assert_eq!(outs[0], outs[1], "homes changed ChaCha20's result");
    assert_eq!(
        outs[0], outs[2],
        "explicit spills changed ChaCha20's result"
    );
    assert_eq!(outs[0].split_whitespace().count(), 128);
}

/// `ternlog-order` does what it is for: with the dying operand first, the C compiler copies
/// fewer registers before `vpternlogq` (RECTANGLE `-B` avx512: 1618 register-to-register
/// `vmovdqa` against 2243 without the pass with gcc 12). Compiled only (no AVX-512 needed),
/// with the Intel rules on any host.
#[test]
fn ternlog_order_saves_register_copies() {
    if !cfg!(target_arch = "x86_64") || !tool_works("objdump") {
        println!("skipped: needs x86-64 and objdump");
        return;
    }
    let dir = scratch_dir("tl_order");
    let file = "ciphers/rectangle/rectangle.ua";
    let src = std::fs::read_to_string(common::root().join(file)).unwrap();
    let mut copies = Vec::new();
    for (name, on) in [("on", true), ("off", false)] {
        let mut cfg = nakiri::driver::Config {
            slicing: Slicing::B,
            arch: Arch::Avx512,
            ..Default::default()
        };
        // The Intel rules, whatever the host: they unroll RECTANGLE's rounds (the AMD ones
        // keep its loop, whose 356 ternlogs are too few to compare copies on).
        cfg.opt.uarch = nakiri::target::Uarch::Intel;
        if !on {
            cfg.opt.disable(nakiri::opt::PassId::TernlogOrder);
        }
        let (front, out) =
            nakiri::driver::compile(file, &src, &cfg, &common::Fs, &format!("{name}.h"));
        let out = out.unwrap_or_else(|| panic!("{}", front.render_diags()));
        std::fs::write(dir.join(format!("{name}.c")), &out.c).unwrap();
        std::fs::write(dir.join(format!("{name}.h")), &out.h).unwrap();
        let obj = format!("{name}.o");
        let c = format!("{name}.c");
        let asm = object_asm(
            &dir,
            &[
                "-O3",
                "-mavx512f",
                "-mavx512bw",
                "-mavx512vl",
                "-c",
                &c,
                "-o",
                &obj,
            ],
            &obj,
        )
        .unwrap();
        let n = asm
            .lines()
            .filter(|l| {
                let Some(ins) = l.split('\t').nth(2) else {
                    return false;
                };
                let mut w = ins.split_whitespace();
                matches!(w.next(), Some("vmovdqa64" | "vmovdqa32"))
                    && w.next().is_some_and(|ops| {
                        let (a, b) = ops.split_once(',').unwrap_or(("", ""));
                        a.starts_with("%zmm") && b.starts_with("%zmm")
                    })
            })
            .count();
        let ternlogs = asm.matches("vpternlog").count();
        assert!(
            ternlogs > 1000,
            "{name}: the kernel is fused ({ternlogs} vpternlog)"
        );
        copies.push(n);
    }
    println!(
        "register copies with / without ternlog-order: {} / {}",
        copies[0], copies[1]
    );
    assert!(
        (copies[0] as f64) < 0.85 * copies[1] as f64,
        "ternlog-order: {} register copies against {} without",
        copies[0],
        copies[1]
    );
}

/// Local arrays of registers are declared cache-line aligned on AVX2 and AVX-512 (`NK_ALIGN64`):
/// gcc aligns an AVX2 frame to 32 bytes only, and where it landed mod 64 changed a kernel's
/// speed by 1.1x from process to process (README, "Frames aligned to a cache line"). Every local
/// array of `DATATYPE` in a function body (kept loops' state, per-round inputs and outputs,
/// call arguments and results, spill slots and homes) carries the attribute, on programs that
/// have such arrays; the generated files still build and run (the KAT, packed and corpus tests
/// run them).
#[test]
fn register_arrays_are_cache_line_aligned() {
    use nakiri::opt::LoopPolicy;
    let is_local_array = |line: &str| {
        let t = line.trim_start();
        if t.len() == line.len() {
            return false; // a prototype or a file-level line, not a local
        }
        let t = t.strip_prefix("const ").unwrap_or(t);
        let Some(rest) = t.strip_prefix("DATATYPE ") else {
            return false;
        };
        let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'));
        name_end.is_some_and(|e| e > 0 && rest[e..].starts_with('['))
    };
    for (file, slicing, loops) in [
        ("ciphers/des/des.ua", Slicing::B, LoopPolicy::Auto),
        ("ciphers/aes/aes_planes.ua", Slicing::B, LoopPolicy::Chains),
        ("ciphers/ascon/ascon.ua", Slicing::V, LoopPolicy::All),
        (
            "ciphers/rectangle/rectangle.ua",
            Slicing::B,
            LoopPolicy::Chains,
        ),
    ] {
        let src = std::fs::read_to_string(common::root().join(file)).unwrap();
        for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512] {
            let mut cfg = nakiri::driver::Config {
                slicing,
                arch,
                ..Default::default()
            };
            cfg.opt.loops = loops;
            let (front, out) = nakiri::driver::compile(file, &src, &cfg, &common::Fs, "a.h");
            let out = out.unwrap_or_else(|| panic!("{}", front.render_diags()));
            // a cache line on AVX2 and AVX-512; empty on SSE, where it measured slower
            let wide = arch != Arch::Sse;
            assert_eq!(
                out.c
                    .contains("#define NK_ALIGN64 __attribute__((aligned(64)))"),
                wide,
                "{file} {arch}"
            );
            assert!(out.c.contains("#define NK_ALIGN64\n"), "{file} {arch}");
            let arrays: Vec<&str> = out.c.lines().filter(|l| is_local_array(l)).collect();
            assert!(
                !arrays.is_empty(),
                "{file} {slicing:?} {arch}: no local register array to check"
            );
            for l in arrays {
                assert!(
                    l.contains(" NK_ALIGN64"),
                    "{file} {slicing:?} {arch}: not cache-line aligned: {}",
                    &l[..l.len().min(120)]
                );
            }
        }
    }
}

/// State loads by default (`codegen::state_loads_rule`): on AVX2 a memory-form loop body takes
/// opaque state loads when they would be at least `STATE_LOADS_MIN_PER_MILLE` per mille of its
/// instructions (Ascon's round loop: 9%, GIFT's: 20%), not when sparser (AES's: 3%), never on
/// AVX-512, and `--state-loads` / `--no-state-loads` override the rule either way.
#[test]
fn state_loads_rule_by_default() {
    use nakiri::codegen::{state_loads_rule, STATE_LOADS_MIN_PER_MILLE};
    let per_mille = STATE_LOADS_MIN_PER_MILLE;
    assert!(state_loads_rule(Arch::Avx2, per_mille, 1000));
    assert!(!state_loads_rule(Arch::Avx2, per_mille - 1, 1000));
    for arch in [Arch::Std, Arch::Sse, Arch::Avx512] {
        assert!(!state_loads_rule(arch, 1000, 1000), "{arch}");
    }
    for (file, arch, flag, want) in [
        ("ciphers/ascon/ascon.ua", Arch::Avx2, None, true),
        ("ciphers/gift/gift.ua", Arch::Avx2, None, true),
        ("ciphers/aes/aes.ua", Arch::Avx2, None, false),
        ("ciphers/ascon/ascon.ua", Arch::Avx512, None, false),
        ("ciphers/ascon/ascon.ua", Arch::Sse, None, false),
        ("ciphers/ascon/ascon.ua", Arch::Avx2, Some(false), false),
        ("ciphers/aes/aes.ua", Arch::Avx2, Some(true), true),
    ] {
        let src = std::fs::read_to_string(common::root().join(file)).unwrap();
        let mut cfg = nakiri::driver::Config {
            slicing: Slicing::B,
            arch,
            state_loads: flag,
            ..Default::default()
        };
        cfg.opt.uarch = nakiri::target::Uarch::Amd;
        let (front, out) = nakiri::driver::compile(file, &src, &cfg, &common::Fs, "out.h");
        let out = out.unwrap_or_else(|| panic!("{}", front.render_diags()));
        assert!(
            out.c.contains("its state in memory (codegen/memloop.rs)"),
            "{file} -B {arch}: a memory-form loop"
        );
        assert_eq!(
            out.c.contains("DATATYPE nk_ld"),
            want,
            "{file} -B {arch} state_loads {flag:?}"
        );
    }
}

/// The C of a hslice cipher on every SIMD target (its packed API's bit-reversing byte
/// shuffles take `_mm*_set_epi8` bytes over 127) draws no warning from gcc or clang without
/// flags: clang warns by default on a `char` argument of 204, which the generator wrote until
/// stop 50 (now -52).
#[test]
fn simd_c_draws_no_default_warning_from_gcc_or_clang() {
    if !cfg!(target_arch = "x86_64") {
        println!("skipped: x86 SIMD C on another host");
        return;
    }
    let dir = scratch_dir("default-warnings");
    let file = "ciphers/gimli/gimli.ua";
    let src = std::fs::read_to_string(common::root().join(file)).unwrap();
    let mut checked = 0;
    for arch in [Arch::Sse, Arch::Avx2, Arch::Avx512] {
        let cfg = nakiri::driver::Config {
            slicing: Slicing::H,
            arch,
            ..Default::default()
        };
        let (_, out) = nakiri::driver::compile(file, &src, &cfg, &common::Fs, "g.h");
        let out = out.expect("Gimli -H compiles");
        assert!(
            out.c.contains("_set_epi8("),
            "{arch}: the case this test is for"
        );
        std::fs::write(dir.join("g.c"), &out.c).unwrap();
        std::fs::write(dir.join("g.h"), &out.h).unwrap();
        for compiler in ["gcc", "clang"] {
            if !tool_works(compiler) {
                println!("skipped: {compiler} (not installed)");
                continue;
            }
            let o = Command::new(compiler)
                .args(["-std=gnu11", "-fsyntax-only", "g.c"])
                .current_dir(&dir)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() && !err.contains("warning"),
                "{compiler} on Gimli -H {arch}:\n{err}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 3);
    common::remove_scratch(&dir);
}

/// A key schedule and rounds, both kept loops whose state (64 bits: 64 registers in bitslice)
/// lives in memory on `std`: the rounds read their round keys in place in the key schedule's
/// output buffer (`codegen::y_rows`), the construct that left every round-key bit's local
/// unread (AES `-B`: 1152 `-Wunused-variable` warnings per file).
const WARN_TOY_UA: &str = "
node ks (k:u16x4) returns (n:u16x4)
let
    n[0] = k[1] ^ (k[3] <<< 3);
    n[1] = k[2] ^ (k[0] & k[3]);
    n[2] = k[3] ^ (k[1] <<< 7);
    n[3] = k[0] ^ (k[2] | k[1])
tel

node rnd (x:u16x4, k:u16x4) returns (y:u16x4)
let
    y[0] = (x[1] ^ k[0]) <<< 1;
    y[1] = x[2] ^ (x[0] & k[1]);
    y[2] = (x[3] ^ k[2]) <<< 5;
    y[3] = x[0] ^ (x[1] | k[3])
tel

node toy (plain:u16x4, key:u16x4) returns (cipher:u16x4)
vars rk:u16x4[10], s:u16x4[9]
let
    rk[0] = key;
    forall r in [1, 9] {
        rk[r] = ks(rk[r-1])
    }
    s[0] = plain ^ rk[0];
    forall r in [1, 8] {
        s[r] = rnd(s[r-1], rk[r])
    }
    cipher = s[8] ^ rk[9]
tel
";

/// The generated C (raw entry, packed API, `E__prepare_consts` / `E__with_consts`, the
/// per-parameter and XOR helpers) and the mode helpers over its header compile with no
/// warning under `gcc` and `clang -std=gnu11 -Wall -Wextra -Werror` (syntax only; AVX-512 with
/// `-march=icelake-server`), for every slicing on every x86 target, on small programs that have
/// each construct that once drew a warning: round-key bits read in place in a kept loop's
/// buffer (the toy `-B` std), the SIMD bitslice outbound's partial store loop (`int` against
/// `size_t`: RECTANGLE `-B`, const round keys), vslice and hslice files with no bitslice group
/// loads (`nkp_ldgrp_*` were emitted unused) and 64-bit words with no multiply (`nk_mul64`:
/// Ascon `-V`), hslice 64-bit words on std (`nkp_sk_dswap`: Ascon `-H`), hslice const inputs
/// (RECTANGLE, AES const rk), and `chacha20_stream.c` / `aes_ctr.c` over their generated
/// headers. `scripts/c-warnings.py` checks every shipped cipher the same way.
#[test]
fn generated_c_draws_no_wall_wextra_warning_from_gcc_or_clang() {
    if !cfg!(target_arch = "x86_64") {
        println!("skipped: x86 SIMD C on another host");
        return;
    }
    let compilers: Vec<&str> = ["gcc", "clang"]
        .into_iter()
        .filter(|c| {
            let ok = tool_works(c);
            if !ok {
                println!("skipped: {c} (not installed)");
            }
            ok
        })
        .collect();
    if compilers.is_empty() {
        return;
    }
    let dir = scratch_dir("wall-wextra");
    // (source file, or None for the toy; slicing; target; mode helper compiled over the header)
    let cases: &[(Option<&str>, Slicing, Arch, Option<&str>)] = &[
        (None, Slicing::B, Arch::Std, None),
        (
            Some("ciphers/rectangle/rectangle.ua"),
            Slicing::B,
            Arch::Sse,
            None,
        ),
        (
            Some("ciphers/rectangle/rectangle.ua"),
            Slicing::B,
            Arch::Avx2,
            None,
        ),
        (
            Some("ciphers/rectangle/rectangle.ua"),
            Slicing::B,
            Arch::Avx512,
            None,
        ),
        (Some("ciphers/ascon/ascon.ua"), Slicing::V, Arch::Std, None),
        (Some("ciphers/ascon/ascon.ua"), Slicing::V, Arch::Sse, None),
        (
            Some("ciphers/chacha20/chacha20.ua"),
            Slicing::V,
            Arch::Avx2,
            Some("ciphers/chacha20/chacha20_stream.c"),
        ),
        (
            Some("ciphers/ascon/ascon.ua"),
            Slicing::V,
            Arch::Avx512,
            None,
        ),
        (Some("ciphers/ascon/ascon.ua"), Slicing::H, Arch::Std, None),
        (
            Some("ciphers/rectangle/rectangle.ua"),
            Slicing::H,
            Arch::Sse,
            None,
        ),
        (
            Some("ciphers/aes/aes_rk.ua"),
            Slicing::H,
            Arch::Avx2,
            Some("ciphers/aes/aes_ctr.c"),
        ),
        (
            Some("ciphers/gimli/gimli.ua"),
            Slicing::H,
            Arch::Avx512,
            None,
        ),
    ];
    // One case (compile to C, then the C compilers on it) at a time on each of two threads.
    let check = |i: usize, failures: &std::sync::Mutex<Vec<String>>| {
        let (file, slicing, arch, helper) = cases[i];
        let (name, src) = match file {
            Some(f) => (f, std::fs::read_to_string(common::root().join(f)).unwrap()),
            None => ("toy.ua", WARN_TOY_UA.to_string()),
        };
        let stem = std::path::Path::new(name)
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap();
        let sub = dir.join(format!("{i}"));
        std::fs::create_dir_all(&sub).unwrap();
        let cfg = nakiri::driver::Config {
            slicing,
            arch,
            ..Default::default()
        };
        let header = format!("{stem}.h");
        let (_, out) = nakiri::driver::compile(name, &src, &cfg, &common::Fs, &header);
        let out = out.unwrap_or_else(|| panic!("{name} -{slicing} {arch} compiles"));
        if file.is_none() {
            assert!(
                out.c.contains("_y[nk_i + 0]"),
                "the toy's rounds read their keys in the key schedule's buffer"
            );
        }
        std::fs::write(sub.join(format!("{stem}.c")), &out.c).unwrap();
        std::fs::write(sub.join(&header), &out.h).unwrap();
        let mut units = vec![sub.join(format!("{stem}.c"))];
        if let Some(h) = helper {
            units.push(common::root().join(h));
        }
        for unit in &units {
            for &compiler in &compilers {
                let mut cmd = Command::new(compiler);
                cmd.args(["-std=gnu11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"]);
                if arch == Arch::Avx512 {
                    cmd.arg("-march=icelake-server");
                }
                cmd.arg("-I").arg(&sub);
                cmd.arg("-I").arg(unit.parent().unwrap()).arg(unit);
                let o = cmd.output().unwrap();
                let err = String::from_utf8_lossy(&o.stderr);
                if !o.status.success() || err.contains("warning") {
                    let n = err.matches("warning:").count() + err.matches("error:").count();
                    let head: String = err.chars().take(2000).collect();
                    failures.lock().unwrap().push(format!(
                        "{compiler} on {} of {name} -{slicing} {arch} ({n} diagnostics):\n{head}",
                        unit.file_name().unwrap().to_string_lossy()
                    ));
                }
            }
        }
    };
    let failures = std::sync::Mutex::new(Vec::new());
    let indices: Vec<usize> = (0..cases.len()).collect();
    common::on_two_threads(&indices, |&i| check(i, &failures));
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} compiles warned or failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    common::remove_scratch(&dir);
}

/// `common::build_and_run` fails a test on a warning in a generated file (nakiri's banner) and
/// lets one in the test's own driver pass.
#[test]
fn test_builds_fail_on_warnings_in_generated_c_only() {
    let generated = "/* Generated by nakiri. Do not edit. */\nint nk_g(int x) {\n    int unused_local;\n    return x + 1;\n}\n";
    let clean =
        "/* Generated by nakiri. Do not edit. */\nint nk_g(int x) {\n    return x + 1;\n}\n";
    let driver = "#include <stdio.h>\n#include \"g.c.inc\"\nint main(void) {\n    int driver_unused;\n    printf(\"%d\\n\", nk_g(41));\n    return 0;\n}\n";
    // the driver's own warning does not count
    let out = common::build_and_run(
        "warn-driver",
        &[("g.c.inc", clean), ("driver.c", driver)],
        &[],
        "",
    );
    assert_eq!(out.trim(), "42");
    // a warning in the generated file does
    let r = std::panic::catch_unwind(|| {
        common::build_and_run(
            "warn-gen",
            &[("g.c.inc", generated), ("driver.c", driver)],
            &[],
            "",
        )
    });
    let msg = r.expect_err("a warning in generated C fails the build");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("the generated C draws a warning") && msg.contains("g.c.inc"),
        "{msg}"
    );
    // the parser of the compiler's output, on gcc's and clang's forms
    let files = [("out.c.inc", generated), ("driver.c", driver)];
    assert!(common::generated_c_warning(
        "/tmp/x/driver.c:4:9: warning: unused variable 'driver_unused' [-Wunused-variable]",
        &files
    )
    .is_none());
    assert!(common::generated_c_warning(
        "/tmp/x/out.c.inc:3:9: warning: unused variable ‘unused_local’ [-Wunused-variable]",
        &files
    )
    .is_some());
}
