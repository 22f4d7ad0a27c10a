//! Ternary-logic fusion for targets with `vpternlog` (AVX-512): a connected subgraph of
//! boolean operations with at most three distinct inputs becomes one `ternlog` whose
//! immediate is the subgraph's truth table (`--disable ternlog`).
//!
//! Requires: verified IR; the target has `Feature::Ternlog` (otherwise the pass does nothing).
//! Guarantees: verified IR computing the same outputs, with no more operations than before:
//! an operation is absorbed into a ternlog only when the ternlog is its only reader, so
//! shared values are never computed twice (the cost model "does not duplicate shared
//! nodes"); a ternlog replaces at least two operations. Works on any word size (the
//! operations are bitwise), so in bitslice, vslice and hslice.
//!
//! Method: a cover search over the dataflow graph, from the last instruction up. For each
//! boolean operation not yet absorbed, every *cone* is enumerated: the operation, and
//! recursively operands that are boolean operations read only by the cone, until at most
//! three distinct leaves remain. The cone absorbing the most operations wins (ties: fewer
//! leaves); its root becomes `ternlog l0 l1 l2 imm`, with `imm` bit `4a+2b+c` = the cone's value
//! when the leaves are `a`, `b`, `c`. The absorbed operations become dead and `copy-prop`
//! removes them.
//!
//! Stats: `ternlogs` (made), `absorbed` (operations folded into them).
//!
//! Before:
//! ```text
//! t:1 = and a b
//! y:1 = xor t c
//! ```
//! After (`(a & b) ^ c`: truth table 0x6a; `t` is dead):
//! ```text
//! t:1 = and a b
//! y:1 = ternlog a b c 0x6a
//! ```

use super::{OptConfig, Stats};
use crate::ir::{Instr, Node, Op, Program, VarId};
use crate::target::Feature;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    if !cfg.target().has(Feature::Ternlog) {
        return st;
    }
    for node in &mut prog.nodes {
        run_node(node, &mut st);
    }
    st
}

fn is_boolean(op: &Op) -> bool {
    matches!(
        op,
        Op::Not(_) | Op::And(..) | Op::Or(..) | Op::Xor(..) | Op::Andn(..) | Op::Ternlog(..)
    )
}

/// A cone: its leaves (≤ 3, distinct) and the operations it absorbs besides its root.
#[derive(Clone, Debug)]
struct Cone {
    leaves: Vec<VarId>,
    absorbed: Vec<VarId>,
}

/// Most cones enumerated per root (the search is small anyway: leaves ≤ 3).
const MAX_CONES: usize = 64;

struct Graph<'a> {
    /// Defining op of each atom, if a boolean op of this body.
    def: Vec<Option<&'a Op>>,
    /// Readers of each atom (an output counts as one more reader).
    readers: Vec<u32>,
    absorbed: Vec<bool>,
}

impl Graph<'_> {
    /// The cones rooted at the operation `op`.
    fn cones(&self, op: &Op, depth: u32) -> Vec<Cone> {
        let mut acc: Vec<Cone> = vec![Cone {
            leaves: vec![],
            absorbed: vec![],
        }];
        for x in op.operands() {
            let mut options = vec![Cone {
                leaves: vec![x],
                absorbed: vec![],
            }];
            let xi = x.0 as usize;
            if depth < 6 && self.readers[xi] == 1 && !self.absorbed[xi] {
                if let Some(xop) = self.def[xi] {
                    for mut c in self.cones(xop, depth + 1) {
                        c.absorbed.push(x);
                        options.push(c);
                    }
                }
            }
            let mut next = Vec::new();
            for a in &acc {
                for o in &options {
                    let mut leaves = a.leaves.clone();
                    for l in &o.leaves {
                        if !leaves.contains(l) {
                            leaves.push(*l);
                        }
                    }
                    if leaves.len() <= 3 && next.len() < MAX_CONES {
                        let mut absorbed = a.absorbed.clone();
                        absorbed.extend(&o.absorbed);
                        next.push(Cone { leaves, absorbed });
                    }
                }
            }
            acc = next;
        }
        acc
    }

    /// The value of the atom `v` (a leaf, or an absorbed operation) for leaf values `vals`.
    fn eval(&self, v: VarId, leaves: &[VarId], vals: &[u64]) -> u64 {
        if let Some(i) = leaves.iter().position(|l| *l == v) {
            return vals[i];
        }
        let op = self.def[v.0 as usize].expect("absorbed atoms are boolean ops");
        self.eval_op(op, leaves, vals)
    }

    fn eval_op(&self, op: &Op, leaves: &[VarId], vals: &[u64]) -> u64 {
        let g = |x: &VarId| self.eval(*x, leaves, vals);
        match op {
            Op::Not(a) => !g(a) & 1,
            Op::And(a, b) => g(a) & g(b),
            Op::Or(a, b) => g(a) | g(b),
            Op::Xor(a, b) => g(a) ^ g(b),
            Op::Andn(a, b) => !g(a) & g(b) & 1,
            Op::Ternlog(a, b, c, imm) => crate::ir::ternlog(*imm, g(a), g(b), g(c)) & 1,
            _ => unreachable!("only boolean ops are in cones"),
        }
    }
}

fn run_node(node: &mut Node, st: &mut Stats) {
    let nv = node.vars.len();
    let mut readers = vec![0u32; nv];
    for ins in &node.body {
        let mut u = ins.uses();
        u.sort_unstable();
        u.dedup();
        for x in u {
            readers[x.0 as usize] += 1;
        }
    }
    for o in node.flat_outputs() {
        readers[o.0 as usize] += 1;
    }
    let mut rewrites: Vec<(usize, Op)> = Vec::new();
    {
        let mut def: Vec<Option<&Op>> = vec![None; nv];
        for ins in &node.body {
            if let Instr::Assign { dst, op } = ins {
                if is_boolean(op) {
                    def[dst.0 as usize] = Some(op);
                }
            }
        }
        let mut g = Graph {
            def,
            readers,
            absorbed: vec![false; nv],
        };
        for (pos, ins) in node.body.iter().enumerate().rev() {
            let Instr::Assign { dst, op } = ins else {
                continue;
            };
            if !is_boolean(op) || g.absorbed[dst.0 as usize] {
                continue;
            }
            let best = g
                .cones(op, 0)
                .into_iter()
                .filter(|c| !c.absorbed.is_empty())
                .max_by_key(|c| (c.absorbed.len(), std::cmp::Reverse(c.leaves.len())));
            let Some(cone) = best else { continue };
            let mut leaves = cone.leaves.clone();
            while leaves.len() < 3 {
                leaves.push(leaves[0]);
            }
            let mut imm = 0u8;
            for idx in 0..8u32 {
                let vals = [(idx >> 2) as u64 & 1, (idx >> 1) as u64 & 1, idx as u64 & 1];
                // A repeated (padding) leaf takes the first position's value: the immediate
                // is then correct on the inputs that can occur.
                let lv: Vec<u64> = (0..3)
                    .map(|k| {
                        if k >= cone.leaves.len() {
                            vals[0]
                        } else {
                            vals[k]
                        }
                    })
                    .collect();
                if k_consistent(&leaves, &cone.leaves, &vals)
                    && g.eval_op(op, &cone.leaves, &lv) & 1 == 1
                {
                    imm |= 1 << idx;
                }
            }
            for a in &cone.absorbed {
                g.absorbed[a.0 as usize] = true;
            }
            st.add("ternlogs", 1);
            st.add("absorbed", cone.absorbed.len());
            rewrites.push((pos, Op::Ternlog(leaves[0], leaves[1], leaves[2], imm)));
        }
    }
    for (pos, new) in rewrites {
        if let Instr::Assign { op, .. } = &mut node.body[pos] {
            *op = new;
        }
    }
}

/// With fewer than three distinct leaves, the padded positions repeat the first leaf: only
/// the rows of the truth table where they agree with it can occur (the others are set to 0,
/// any value would do).
fn k_consistent(padded: &[VarId], distinct: &[VarId], vals: &[u64; 3]) -> bool {
    (distinct.len()..3).all(|k| padded[k] == padded[0] && vals[k] == vals[0])
}
