//! Reference interpreter for Usuba0 IR: runs one instance of a node on concrete values.
//!
//! This defines the meaning every compiled form is checked against (see the semantics in
//! `ir/mod.rs`): each atom holds an unsigned integer of its `bits`, bit 0 is the MSB.
//!
//! Two levels:
//! - [`run_node`]: flat atoms in, flat atoms out (`u64` per atom, masked to its width);
//! - [`run_entry`]: per source parameter, a list of *source words* (`word_bits` each), the
//!   layout the packed C API uses. In bitslice the bits of each word are split over atoms MSB-first.

use crate::ir::{mask, Instr, LoopArg, LoopResult, Node, NodeId, Op, Param, Program, Slicing};

/// Runs node `id` on its flattened input atoms; returns its flattened output atoms.
pub fn run_node(prog: &Program, id: NodeId, inputs: &[u64]) -> Vec<u64> {
    let node = prog.node(id);
    let mut val = vec![0u64; node.vars.len()];
    let flat_in = node.flat_inputs();
    assert_eq!(
        flat_in.len(),
        inputs.len(),
        "run_node: wrong number of inputs for `{}`",
        node.name
    );
    for (a, v) in flat_in.iter().zip(inputs) {
        val[a.0 as usize] = v & mask(node.bits(*a));
    }
    for ins in &node.body {
        match ins {
            Instr::Assign { dst, op } => {
                let m = node.bits(*dst);
                val[dst.0 as usize] = eval_op(node, op, &val, m) & mask(m);
            }
            Instr::Call { dsts, callee, args } => {
                let a: Vec<u64> = args.iter().map(|x| val[x.0 as usize]).collect();
                let r = run_node(prog, *callee, &a);
                for (d, v) in dsts.iter().zip(r) {
                    val[d.0 as usize] = v;
                }
            }
            Instr::Loop {
                callee,
                count,
                state,
                args,
                results,
            } => {
                let mut cur: Vec<u64> = state.iter().map(|s| val[s.0 .0 as usize]).collect();
                for i in 0..*count as usize {
                    let a: Vec<u64> = args
                        .iter()
                        .map(|x| match x {
                            LoopArg::State(j) => cur[*j as usize],
                            LoopArg::Same(v) => val[v.0 as usize],
                            LoopArg::Each(vs) => val[vs[i].0 as usize],
                        })
                        .collect();
                    let r = run_node(prog, *callee, &a);
                    for (res, v) in results.iter().zip(r) {
                        match res {
                            LoopResult::State { state: j, each } => {
                                cur[*j as usize] = v;
                                if i + 1 < *count as usize && !each.is_empty() {
                                    val[each[i].0 as usize] = v;
                                }
                            }
                            LoopResult::Each(vs) => val[vs[i].0 as usize] = v,
                        }
                    }
                }
                for (s, v) in state.iter().zip(cur) {
                    val[s.1 .0 as usize] = v;
                }
            }
        }
    }
    node.flat_outputs()
        .iter()
        .map(|a| val[a.0 as usize])
        .collect()
}

fn eval_op(node: &Node, op: &Op, val: &[u64], m: u32) -> u64 {
    eval_op_with(op, m, &|v| val[v.0 as usize], &|v| node.bits(v))
}

/// The value (not yet masked to `m` bits) of `op` computed into an atom of `m` bits, with
/// operand values from `get` and operand widths from `bits_of` (used by `opt::fold` too).
pub fn eval_op_with(
    op: &Op,
    m: u32,
    get: &dyn Fn(crate::ir::VarId) -> u64,
    bits_of: &dyn Fn(crate::ir::VarId) -> u32,
) -> u64 {
    let g = |v: &crate::ir::VarId| get(*v);
    let mk = mask(m);
    match op {
        Op::Const(c) => *c,
        Op::Copy(a) => g(a),
        Op::Not(a) => !g(a),
        Op::And(a, b) => g(a) & g(b),
        Op::Or(a, b) => g(a) | g(b),
        Op::Xor(a, b) => g(a) ^ g(b),
        Op::Andn(a, b) => !g(a) & g(b),
        Op::Ternlog(a, b, c, imm) => crate::ir::ternlog(*imm, g(a), g(b), g(c)),
        Op::Add(a, b) => g(a).wrapping_add(g(b)),
        Op::Sub(a, b) => g(a).wrapping_sub(g(b)),
        Op::Mul(a, b) => g(a).wrapping_mul(g(b)),
        Op::Shl(a, k) => g(a) << k,
        Op::Shr(a, k) => g(a) >> k,
        Op::Sar(a, k) => {
            let x = g(a);
            let sign = (x >> (m - 1)) & 1;
            let shifted = x >> k;
            if sign == 1 {
                shifted | (mk & !(mk >> k))
            } else {
                shifted
            }
        }
        Op::Rotl(a, k) => {
            let x = g(a);
            if *k == 0 {
                x
            } else {
                (x << k) | (x >> (m - k))
            }
        }
        Op::Rotr(a, k) => {
            let x = g(a);
            if *k == 0 {
                x
            } else {
                (x >> k) | (x << (m - k))
            }
        }
        Op::Shuffle(a, p) => {
            let x = g(a);
            let mut r = 0u64;
            for (j, &src) in p.iter().enumerate() {
                let bit = (x >> (m - 1 - src)) & 1;
                r |= bit << (m - 1 - j as u32);
            }
            r
        }
        Op::Bitmask(a, k) => {
            if (g(a) >> (m - 1 - k)) & 1 == 1 {
                mk
            } else {
                0
            }
        }
        Op::Pack(a, b) => {
            let h = bits_of(*b);
            (g(a) << h) | g(b)
        }
    }
}

/// Number of source words of a parameter.
pub fn param_words(slicing: Slicing, p: &Param) -> usize {
    if slicing == Slicing::B && p.word_bits > 1 {
        p.atoms.len() / p.word_bits as usize
    } else {
        p.atoms.len()
    }
}

/// Splits source words into the parameter's atoms.
pub fn words_to_atoms(slicing: Slicing, p: &Param, words: &[u64]) -> Vec<u64> {
    if slicing == Slicing::B && p.word_bits > 1 {
        let m = p.word_bits;
        words
            .iter()
            .flat_map(|w| (0..m).map(move |b| (w >> (m - 1 - b)) & 1))
            .collect()
    } else {
        words.to_vec()
    }
}

/// Joins a parameter's atoms into source words.
pub fn atoms_to_words(slicing: Slicing, p: &Param, atoms: &[u64]) -> Vec<u64> {
    if slicing == Slicing::B && p.word_bits > 1 {
        atoms
            .chunks(p.word_bits as usize)
            .map(|c| c.iter().fold(0u64, |acc, b| (acc << 1) | (b & 1)))
            .collect()
    } else {
        atoms.to_vec()
    }
}

/// Runs the entry node on one instance given per-parameter source words; returns per-output-
/// parameter source words.
pub fn run_entry(prog: &Program, inputs: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let entry = prog.entry();
    assert_eq!(
        inputs.len(),
        entry.inputs.len(),
        "run_entry: wrong number of parameters"
    );
    let mut flat = Vec::new();
    for (p, words) in entry.inputs.iter().zip(inputs) {
        assert_eq!(
            words.len(),
            param_words(prog.slicing, p),
            "run_entry: wrong size for `{}`",
            p.name
        );
        flat.extend(words_to_atoms(prog.slicing, p, words));
    }
    let out = run_node(prog, NodeId(prog.nodes.len() as u32 - 1), &flat);
    let mut res = Vec::new();
    let mut pos = 0;
    for p in &entry.outputs {
        let n = p.atoms.len();
        res.push(atoms_to_words(prog.slicing, p, &out[pos..pos + n]));
        pos += n;
    }
    res
}
