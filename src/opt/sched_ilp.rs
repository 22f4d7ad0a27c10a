//! The m-slice scheduler: reorders each node's body of a vsliced or hsliced program to raise
//! instruction-level parallelism, interleaving independent work (the S-box of one part with
//! the linear layer of another, the independent chains of a round) so that consecutive
//! instructions rarely wait for each other (`--disable sched-ilp`, usubac `-no-sched`;
//! window `--sched-window N`, usubac `-sched-n N`, default 10).
//!
//! Requires: verified IR. Guarantees: verified IR with the same instructions (a permutation
//! of each body keeping definitions before uses), hence the same outputs.
//!
//! Method: cycle-driven list scheduling with the target's costs as latencies (a call or loop
//! counts its callee's work) and an issue width of 3. The candidates are the unscheduled
//! instructions among the next `window` ones in the current order (the window bounds how far
//! work moves, hence register pressure); among the candidates whose operands are ready, the
//! one on the longest path to the end of the body goes first; if none is ready, the one ready
//! soonest.
//!
//! Stats: `moved`, `cycles-before`/`cycles-after` (estimated, summed over nodes).
//!
//! Before (two dependent chains, one after the other):
//! ```text
//! a1:32 = add x y
//! a2:32 = rotl a1 7
//! b1:32 = add z w
//! b2:32 = rotl b1 9
//! ```
//! After (the chains interleaved):
//! ```text
//! a1:32 = add x y
//! b1:32 = add z w
//! a2:32 = rotl a1 7
//! b2:32 = rotl b1 9
//! ```

use super::{cost, OptConfig, Stats};
use crate::ir::{Instr, Node, Program, Slicing};
use crate::target::Target;

/// Instructions issued per cycle in the model.
const ISSUE_WIDTH: u64 = 3;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    let t = cfg.target();
    let mut memo = Vec::new();
    let lat: Vec<Vec<u64>> = (0..prog.nodes.len())
        .map(|i| latencies(prog, i, &t, &mut memo))
        .collect();
    let (mut before, mut after) = (0, 0);
    for (i, node) in prog.nodes.iter_mut().enumerate() {
        let identity: Vec<usize> = (0..node.body.len()).collect();
        before += simulate(node, &lat[i], &identity);
        let order = schedule(node, &lat[i], cfg.sched_window.max(1));
        let c = simulate(node, &lat[i], &order);
        if c < simulate(node, &lat[i], &identity) {
            st.add(
                "moved",
                order.iter().enumerate().filter(|(i, o)| i != *o).count(),
            );
            super::apply_order(node, &order);
            after += c;
        } else {
            after += simulate(node, &lat[i], &identity);
        }
    }
    st.add("cycles-before", before as usize);
    st.add("cycles-after", after as usize);
    st
}

/// Latency of each instruction of node `idx`.
fn latencies(prog: &Program, idx: usize, t: &Target, memo: &mut Vec<Option<u64>>) -> Vec<u64> {
    let node = &prog.nodes[idx];
    node.body
        .iter()
        .map(|ins| match ins {
            Instr::Assign { dst, op } => {
                (t.cost(op, node.bits(*dst), prog.slicing).insns as u64).max(1)
            }
            Instr::Call { callee, .. } => cost::node_work(prog, callee.0 as usize, t, memo).max(1),
            Instr::Loop { callee, count, .. } => {
                (*count as u64 * cost::node_work(prog, callee.0 as usize, t, memo)).max(1)
            }
        })
        .collect()
}

/// Producers of each instruction's operands (positions in the body, sorted, distinct; also
/// `sched_bits::schedule_cones`' dependences).
pub(crate) fn producers(node: &Node) -> Vec<Vec<usize>> {
    let mut def = vec![usize::MAX; node.vars.len()];
    for (i, ins) in node.body.iter().enumerate() {
        for d in ins.defs() {
            def[d.0 as usize] = i;
        }
    }
    node.body
        .iter()
        .map(|ins| {
            let mut p: Vec<usize> = ins
                .uses()
                .iter()
                .map(|u| def[u.0 as usize])
                .filter(|&d| d != usize::MAX)
                .collect();
            p.sort_unstable();
            p.dedup();
            p
        })
        .collect()
}

/// Estimated cycles to run the body in `order` (in-order issue, `ISSUE_WIDTH` a cycle).
fn simulate(node: &Node, lat: &[u64], order: &[usize]) -> u64 {
    let prod = producers(node);
    let mut done_at = vec![0u64; node.body.len()];
    let (mut cycle, mut slot, mut end) = (0u64, 0u64, 0u64);
    for &i in order {
        let ready = prod[i].iter().map(|&p| done_at[p]).max().unwrap_or(0);
        if ready > cycle {
            cycle = ready;
            slot = 0;
        }
        done_at[i] = cycle + lat[i];
        end = end.max(done_at[i]);
        slot += 1;
        if slot == ISSUE_WIDTH {
            cycle += 1;
            slot = 0;
        }
    }
    end
}

/// The new order of `node.body`.
pub fn schedule(node: &Node, lat: &[u64], window: usize) -> Vec<usize> {
    let n = node.body.len();
    let prod = producers(node);
    // Longest latency path from each instruction to the end.
    let mut height = vec![0u64; n];
    for i in (0..n).rev() {
        height[i] += lat[i];
        for &p in &prod[i] {
            height[p] = height[p].max(height[i]);
        }
    }
    let mut done_at: Vec<Option<u64>> = vec![None; n];
    let mut order = Vec::with_capacity(n);
    let mut first = 0usize; // first unscheduled position
    let (mut cycle, mut slot) = (0u64, 0u64);
    while order.len() < n {
        while first < n && done_at[first].is_some() {
            first += 1;
        }
        let mut best: Option<(u64, std::cmp::Reverse<u64>, usize)> = None; // (ready, -height, pos)
        let mut seen = 0;
        let mut j = first;
        while j < n && seen < window {
            if done_at[j].is_none() {
                seen += 1;
                if prod[j].iter().all(|&p| done_at[p].is_some()) {
                    let ready = prod[j]
                        .iter()
                        .map(|&p| done_at[p].unwrap_or(0))
                        .max()
                        .unwrap_or(0)
                        .max(cycle);
                    let key = (ready, std::cmp::Reverse(height[j]), j);
                    if best.is_none_or(|b| key < b) {
                        best = Some(key);
                    }
                }
            }
            j += 1;
        }
        // The first unscheduled instruction always has its producers scheduled (they come
        // before it), so there is always a candidate.
        let (ready, _, i) = best.expect("a candidate in the window");
        if ready > cycle {
            cycle = ready;
            slot = 0;
        }
        done_at[i] = Some(cycle + lat[i]);
        order.push(i);
        slot += 1;
        if slot == ISSUE_WIDTH {
            cycle += 1;
            slot = 0;
        }
    }
    order
}

/// Whether the pass applies to this slicing (bitslice has its own scheduler).
pub fn applies(slicing: Slicing) -> bool {
    slicing != Slicing::B
}
