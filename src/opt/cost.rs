//! Cost model shared by the passes (inlining, scheduling, the ternlog cover) and the
//! autotuner's pruning: op costs come from [`crate::target::Target`]; here are the
//! program-level measures built on them.

use crate::ir::{Instr, Node, Program, Slicing};
use crate::target::Target;

/// The most atoms live at once in `node`'s body order (inputs live from the start until their
/// last use, outputs until the end).
pub fn max_live(node: &Node) -> usize {
    let n = node.vars.len();
    let end = node.body.len();
    let mut last_use = vec![usize::MAX; n];
    for (i, ins) in node.body.iter().enumerate() {
        for u in ins.uses() {
            last_use[u.0 as usize] = i;
        }
    }
    for o in node.flat_outputs() {
        last_use[o.0 as usize] = end;
    }
    // +1 at definition, -1 after the last use.
    let mut delta = vec![0i64; end + 2];
    let mut live0 = 0i64;
    for a in node.flat_inputs() {
        if last_use[a.0 as usize] != usize::MAX {
            live0 += 1;
            delta[last_use[a.0 as usize] + 1] -= 1;
        }
    }
    for (i, ins) in node.body.iter().enumerate() {
        for d in ins.defs() {
            let lu = last_use[d.0 as usize];
            if lu != usize::MAX {
                delta[i] += 1;
                delta[lu.max(i) + 1] -= 1;
            }
        }
    }
    let mut cur = live0;
    let mut best = live0;
    for d in delta.iter().take(end + 1) {
        cur += d;
        best = best.max(cur);
    }
    best.max(0) as usize
}

/// Instructions the generated code executes for one call of node `idx`, calls and loops
/// included (callees counted through their own work).
pub fn node_work(prog: &Program, idx: usize, t: &Target, memo: &mut Vec<Option<u64>>) -> u64 {
    if let Some(w) = memo.get(idx).copied().flatten() {
        return w;
    }
    let slicing: Slicing = prog.slicing;
    let node = &prog.nodes[idx];
    let mut w = 0u64;
    for ins in &node.body {
        w += match ins {
            Instr::Assign { dst, op } => t.cost(op, node.bits(*dst), slicing).insns as u64,
            Instr::Call { callee, .. } => node_work(prog, callee.0 as usize, t, memo),
            Instr::Loop { callee, count, .. } => *count as u64 * node_work(prog, callee.0 as usize, t, memo),
        };
    }
    if memo.len() <= idx {
        memo.resize(idx + 1, None);
    }
    memo[idx] = Some(w);
    w
}
