//! The lockstep scheduler: in the body of a kept vsliced loop on SSE/AVX2/AVX-512, runs long
//! independent dependency chains two at a time, one instruction of each in turn — the order
//! hand-written ChaCha20 uses (two quarter rounds in lockstep) — and marks the body
//! `lockstep`, which lets the explicit spill plan (`target/spill.rs`) keep the state values
//! that wait for the other pair in memory across iterations (`--disable sched-pairs`).
//!
//! Requires: verified IR. Guarantees: verified IR with the same instructions (a permutation
//! of each loop body keeping definitions before uses), hence the same outputs.
//! Runs only where explicit spilling does (vslice, a kept-loop body of assignments, a SIMD
//! target) and only where the spill plan has work (AVX-512's 32 registers hold ChaCha20's
//! state: nothing to gain there, and nothing measured).
//!
//! Method: the body, in its current order, is cut into *chains*: an instruction starts a new
//! chain unless it reads a value the current chain defined. Consecutive chains are paired,
//! first with second, third with fourth, ..., when both have at least [`MIN_CHAIN`]
//! instructions and the second reads nothing the first defines; each pair is merged by taking
//! one instruction of each in turn (the rest of the longer one follows). The order stays a
//! topological one: each chain keeps its own order, and a chain reads only values defined
//! before it or inside it. The new order is kept if its spill plan, with the loop-carried
//! values it may keep in memory, has no more stores and loads than the old order's.
//!
//! Measured (`bench compare`, raw entry, Zen 3): ChaCha20 `-V` 0.91x the time on avx2 and
//! 0.92x on sse; the order alone measured no faster, and the homes alone (in the source
//! order) 4-9% slower: the gain is the two together. ChaCha20's raw kernel goes from 1.11x
//! OpenSSL's AVX2 time to 1.05-1.12x. Xoodoo's short chains were 1.035x slower when
//! paired, hence [`MIN_CHAIN`]; no other shipped cipher has long chains in a kept loop body.
//! Four chains at a time instead of two (ChaCha20's whole column round in lockstep) needed
//! more spills (10 plan memory operations instead of 6; the keep rule rejects it) and, forced,
//! was 1.24x slower.
//!
//! Stats: `pairs` (chains merged), `moved`, `spill-ops-before`/`spill-ops-after` (the spill
//! plan's stores and loads per run of the body).
//!
//! Before (two quarter-round-like chains, one after the other; `tests/opt/sched-pairs/` has
//! them in a kept loop body with 16 values live):
//! ```text
//! a1:32 = add x0 x1
//! a2:32 = xor x2 a1
//! a3:32 = rotl a2 16
//! ...
//! b1:32 = add x4 x5
//! b2:32 = xor x6 b1
//! b3:32 = rotl b2 8
//! ...
//! ```
//! After (in lockstep):
//! ```text
//! a1:32 = add x0 x1
//! b1:32 = add x4 x5
//! a2:32 = xor x2 a1
//! b2:32 = xor x6 b1
//! a3:32 = rotl a2 16
//! b3:32 = rotl b2 8
//! ...
//! ```

use super::{OptConfig, Stats};
use crate::ir::{Instr, Node, Program};
use crate::target::spill;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    if !spill::applies(prog.slicing, cfg.arch) {
        return st;
    }
    let body_of_loop = prog.loop_bodies();
    let carried = spill::carried(prog);
    let mem = |node: &Node, homes: &[spill::Home]| {
        spill::plan_for(node, cfg.arch, prog.slicing, true, homes).map_or(0, |p| p.memory_ops())
    };
    let mut reorder = Vec::new();
    for (i, node) in prog.nodes.iter().enumerate() {
        if !body_of_loop[i]
            || node
                .body
                .iter()
                .any(|ins| !matches!(ins, Instr::Assign { .. }))
        {
            continue;
        }
        let (order, pairs) = schedule(node);
        if pairs == 0 {
            continue;
        }
        let mut trial = node.clone();
        super::apply_order(&mut trial, &order);
        let (before, after) = (mem(node, &[]), mem(&trial, &carried[i]));
        st.add("spill-ops-before", before);
        if before > 0 && after <= before {
            st.add("pairs", pairs);
            st.add(
                "moved",
                order.iter().enumerate().filter(|(i, o)| i != *o).count(),
            );
            st.add("spill-ops-after", after);
            reorder.push((i, order));
        } else {
            st.add("spill-ops-after", before);
        }
    }
    for (i, order) in reorder {
        super::apply_order(&mut prog.nodes[i], &order);
        prog.nodes[i].lockstep = true;
    }
    st
}

/// Chains shorter than this are left alone: the out-of-order core overlaps them anyway, and
/// merging Xoodoo's short theta/chi chains (2-5 instructions) raised its spills and cost it
/// 3.5% (`-V` avx2 and sse); ChaCha20's quarter rounds are chains of 12.
pub const MIN_CHAIN: usize = 6;

/// The new order of `node.body` and the number of pairs merged.
pub fn schedule(node: &Node) -> (Vec<usize>, usize) {
    // Chains: maximal runs of the body where each instruction reads the run's values.
    let mut chain_of = vec![usize::MAX; node.vars.len()];
    let mut chains: Vec<Vec<usize>> = Vec::new();
    for (k, ins) in node.body.iter().enumerate() {
        let cur = chains.len().wrapping_sub(1);
        let continues =
            !chains.is_empty() && ins.uses().iter().any(|u| chain_of[u.0 as usize] == cur);
        if !continues {
            chains.push(Vec::new());
        }
        let c = chains.len() - 1;
        chains[c].push(k);
        for d in ins.defs() {
            chain_of[d.0 as usize] = c;
        }
    }
    let reads_from = |later: usize, earlier: usize| {
        chains[later].iter().any(|&k| {
            node.body[k]
                .uses()
                .iter()
                .any(|u| chain_of[u.0 as usize] == earlier)
        })
    };
    let mut order = Vec::with_capacity(node.body.len());
    let mut pairs = 0;
    let mut c = 0;
    while c < chains.len() {
        if c + 1 < chains.len()
            && chains[c].len().min(chains[c + 1].len()) >= MIN_CHAIN
            && !reads_from(c + 1, c)
        {
            let (a, b) = (&chains[c], &chains[c + 1]);
            for j in 0..a.len().max(b.len()) {
                order.extend(a.get(j));
                order.extend(b.get(j));
            }
            pairs += 1;
            c += 2;
        } else {
            order.extend(&chains[c]);
            c += 1;
        }
    }
    (order, pairs)
}
