//! Operand order of `ternlog`s, for the register allocator (`--disable ternlog-order`).
//!
//! `vpternlog` is destructive: its result overwrites its first operand's register. When that
//! operand is still read later, the C compiler first copies it to a new register (a
//! `vmovdqa64 %zmmX,%zmmY` before the `vpternlogq`). Where the first operand lives on but
//! the second or third is read for the last time, this pass moves the dying one first and
//! permutes the immediate to match, so the compiler can overwrite it instead. Bitsliced AES
//! on AVX-512 had 7088 register copies per call, 3457 of them right before a `vpternlogq`;
//! reordering 1637 ternlogs removed 2066 copies and made the call 1.045x faster (README "The
//! operand order of ternlogs").
//!
//! Requires: verified IR, in its final order (it runs after the schedulers: what dies where
//! depends on the order). Guarantees: the same instructions in the same order, each ternlog
//! computing the same value (`ternlog a b c imm` = `ternlog b a c imm'` with `imm'` the truth
//! table over the permuted operands). A value "dies" at its last reader in the body, if it is
//! not an output of the node and not an input (a node's inputs are read from memory in the
//! C: first or not, they cost one load).
//!
//! Stats: `reordered` (ternlogs whose operands were permuted).
//!
//! Before (`x` is read again later, `y` is not):
//! ```text
//! t:1 = ternlog x y z 0xe8
//! u:1 = xor t x
//! ```
//! After (0xe8, the majority function, is symmetric: the same immediate):
//! ```text
//! t:1 = ternlog y x z 0xe8
//! u:1 = xor t x
//! ```

use super::Stats;
use crate::ir::{truth, Instr, Node, Op, Program, VarId};
use std::collections::{HashMap, HashSet};

pub fn run(prog: &mut Program) -> Stats {
    let mut st = Stats::default();
    let mut n = 0;
    for node in &mut prog.nodes {
        n += run_node(node);
    }
    st.add("reordered", n);
    st
}

fn run_node(node: &mut Node) -> usize {
    let outputs: HashSet<VarId> = node.flat_outputs().into_iter().collect();
    let inputs: HashSet<VarId> = node.flat_inputs().into_iter().collect();
    let mut last: HashMap<VarId, usize> = HashMap::new();
    for (i, ins) in node.body.iter().enumerate() {
        for u in ins.uses() {
            last.insert(u, i);
        }
    }
    let dies = |v: VarId, i: usize| {
        !outputs.contains(&v) && !inputs.contains(&v) && last.get(&v) == Some(&i)
    };
    let mut n = 0;
    for i in 0..node.body.len() {
        let Instr::Assign {
            op: Op::Ternlog(a, b, c, imm),
            ..
        } = &node.body[i]
        else {
            continue;
        };
        let ops = [*a, *b, *c];
        if dies(ops[0], i) || ops[0] == ops[1] || ops[0] == ops[2] {
            continue;
        }
        let Some(k) = (1..3).find(|&k| dies(ops[k], i)) else {
            continue;
        };
        // The dying operand first, the other two in their order (a node input, read from
        // memory, never dies, so it is never the one moved).
        let order = if k == 1 { [1, 0, 2] } else { [2, 0, 1] };
        let new_imm = truth::permute(*imm, order);
        if let Instr::Assign { op, .. } = &mut node.body[i] {
            *op = Op::Ternlog(ops[order[0]], ops[order[1]], ops[order[2]], new_imm);
        }
        n += 1;
    }
    n
}
