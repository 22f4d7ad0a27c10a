//! Common-subexpression elimination, commutativity-aware (`--disable cse`, usubac `-no-CSE`).
//!
//! Requires: verified IR. Guarantees: verified IR computing the same outputs, in which no two
//! assignments compute the same op of the same operands at the same width, and no two calls
//! call the same node with the same arguments (nodes are pure): the later one becomes a
//! `copy` of the earlier (`copy-prop` removes it). Commutative operands (`and or xor add mul`)
//! are keyed sorted, and a ternlog's operands sorted with its immediate permuted to match.
//! Operands are keyed by value: a `copy` of the same width and a duplicate found earlier stand
//! for their source, so a second copy of a whole circuit merges in one run (its first level
//! becomes copies, and the ops reading those copies are then duplicates too). Keyed by name,
//! as before stop 47, AES planes' bitsliced key schedule kept 1 400 duplicate operations that
//! only gcc merged, and not once the operands were opaque (`--state-loads`);
//! `tests/opt/cse/chains.ir`.
//!
//! Stats: `ops`, `calls` (duplicates removed).
//!
//! Before:
//! ```text
//! x:8 = and a b
//! y:8 = and b a
//! z:8 = xor x y
//! ```
//! After:
//! ```text
//! x:8 = and a b
//! y:8 = copy x
//! z:8 = xor x y
//! ```

use super::{OptConfig, Stats};
use crate::fxhash::FxHashMap as HashMap;
use crate::ir::{Instr, Node, NodeId, Op, Program, VarId};

pub fn run(prog: &mut Program, _cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    for node in &mut prog.nodes {
        run_node(node, &mut st);
    }
    st
}

/// The op in canonical form: commutative operands sorted.
pub fn canonical(op: &Op) -> Op {
    use Op::*;
    let sort2 = |a: VarId, b: VarId| if a <= b { (a, b) } else { (b, a) };
    match *op {
        And(a, b) => {
            let (x, y) = sort2(a, b);
            And(x, y)
        }
        Or(a, b) => {
            let (x, y) = sort2(a, b);
            Or(x, y)
        }
        Xor(a, b) => {
            let (x, y) = sort2(a, b);
            Xor(x, y)
        }
        Add(a, b) => {
            let (x, y) = sort2(a, b);
            Add(x, y)
        }
        Mul(a, b) => {
            let (x, y) = sort2(a, b);
            Mul(x, y)
        }
        Ternlog(a, b, c, imm) => {
            let mut order = [0usize, 1, 2];
            let old = [a, b, c];
            order.sort_by_key(|&k| old[k]);
            let [x, y, z] = order.map(|k| old[k]);
            Ternlog(x, y, z, crate::ir::truth::permute(imm, order))
        }
        _ => op.clone(),
    }
}

fn run_node(node: &mut Node, st: &mut Stats) {
    let mut ops: HashMap<(Op, u32), VarId> = HashMap::default();
    let mut calls: HashMap<(NodeId, Vec<VarId>), Vec<VarId>> = HashMap::default();
    // The value each variable holds, as the first variable found to hold it: a copy (of the same
    // width) and a duplicate stand for their source, so duplicates of duplicates are found in
    // the same pass (two copies of an S-box circuit merge whole, not one level per run).
    let mut rep: Vec<VarId> = (0..node.vars.len() as u32).map(VarId).collect();
    let mut body = Vec::with_capacity(node.body.len());
    for ins in std::mem::take(&mut node.body) {
        match ins {
            Instr::Assign {
                dst,
                op: Op::Copy(s),
            } => {
                if node.vars[dst.0 as usize].bits == node.vars[s.0 as usize].bits {
                    rep[dst.0 as usize] = rep[s.0 as usize];
                }
                body.push(Instr::Assign {
                    dst,
                    op: Op::Copy(s),
                });
            }
            Instr::Assign { dst, op } if !matches!(op, Op::Const(_)) => {
                let mut keyed = op.clone();
                keyed.map_operands(|v| rep[v.0 as usize]);
                let key = (canonical(&keyed), node.vars[dst.0 as usize].bits);
                match ops.get(&key) {
                    Some(&prev) => {
                        st.add("ops", 1);
                        rep[dst.0 as usize] = prev;
                        body.push(Instr::Assign {
                            dst,
                            op: Op::Copy(prev),
                        });
                    }
                    None => {
                        ops.insert(key, dst);
                        body.push(Instr::Assign { dst, op });
                    }
                }
            }
            Instr::Call { dsts, callee, args } => {
                let key = (callee, args.iter().map(|a| rep[a.0 as usize]).collect());
                match calls.get(&key) {
                    Some(prev) => {
                        st.add("calls", 1);
                        for (d, p) in dsts.iter().zip(prev) {
                            rep[d.0 as usize] = *p;
                            body.push(Instr::Assign {
                                dst: *d,
                                op: Op::Copy(*p),
                            });
                        }
                    }
                    None => {
                        calls.insert(key, dsts.clone());
                        body.push(Instr::Call { dsts, callee, args });
                    }
                }
            }
            other => body.push(other),
        }
    }
    node.body = body;
}
