//! Copy propagation and dead-code elimination (`--disable copy-prop`, usubac `-no-copy-prop`).
//!
//! Requires verified IR. Guarantees: no `Copy` remains except those defining an output atom
//! (or copying an input straight to an output); every remaining instruction contributes to
//! an output; identical constants are shared; outputs stay distinct atoms.
//!
//! Before: `t1 = xor a b; x = copy t1; dead = and a b; y = copy x` (y output) → after:
//! `t1 = xor a b; y = copy t1` (an output keeps its own atom; `tests/opt/copy-prop/doc_example.ir`).

use super::Stats;
use crate::fxhash::FxHashMap as HashMap;
use crate::ir::{Instr, Node, Op, Program, VarId};

/// Stats: `copies` propagated, `constants` shared, `dead` instructions removed.
pub fn run(prog: &mut Program) -> Stats {
    let mut st = Stats::default();
    for node in &mut prog.nodes {
        run_node(node, &mut st);
    }
    st
}

fn run_node(node: &mut Node, st: &mut Stats) {
    let n = node.vars.len();
    let outputs: Vec<VarId> = node.flat_outputs();
    let mut is_output = vec![false; n];
    for o in &outputs {
        is_output[o.0 as usize] = true;
    }
    // 1. Replace uses of copies by their sources; share constants.
    let mut repl: Vec<VarId> = (0..n as u32).map(VarId).collect();
    let mut consts: HashMap<(u32, u64), VarId> = HashMap::default();
    let mut body = Vec::with_capacity(node.body.len());
    for mut ins in std::mem::take(&mut node.body) {
        match &mut ins {
            Instr::Assign { dst, op } => {
                op.map_operands(|v| repl[v.0 as usize]);
                let d = *dst;
                if !is_output[d.0 as usize] {
                    match op {
                        Op::Copy(src) => {
                            repl[d.0 as usize] = *src;
                            st.add("copies", 1);
                            continue;
                        }
                        Op::Const(c) => {
                            let key = (node.vars[d.0 as usize].bits, *c);
                            if let Some(&v) = consts.get(&key) {
                                repl[d.0 as usize] = v;
                                st.add("constants", 1);
                                continue;
                            }
                            consts.insert(key, d);
                        }
                        _ => {}
                    }
                }
            }
            Instr::Call { .. } | Instr::Loop { .. } => ins.map_uses(|a| repl[a.0 as usize]),
        }
        body.push(ins);
    }
    // 2. Dead code: keep what outputs need.
    let mut live = is_output.clone();
    let mut keep = vec![false; body.len()];
    for (i, ins) in body.iter().enumerate().rev() {
        if ins.defs().iter().any(|d| live[d.0 as usize]) {
            keep[i] = true;
            for u in ins.uses() {
                live[u.0 as usize] = true;
            }
        }
    }
    st.add("dead", keep.iter().filter(|k| !**k).count());
    node.body = body
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(i, _)| i)
        .collect();
}
