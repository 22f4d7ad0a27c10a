//! The bitslice scheduler: reorders each node's body to keep few values live at once, so the
//! C compiler (which allocates registers in our order: gcc does no pre-allocation scheduling
//! on x86) spills less (`--disable sched-bits`, usubac `-no-pre-sched`).
//!
//! Requires: verified IR. Guarantees: verified IR with the same instructions (a permutation
//! of each body that keeps every definition before its uses), hence the same outputs.
//! Runs on bitsliced programs only (by default; a vslice body's pressure is the m-slice
//! scheduler's business).
//!
//! Method: greedy list scheduling for register pressure, with two rankings of the ready
//! instructions (those whose operands are computed): `Pressure` picks the one that frees the
//! most values (operands it is the last reader of) minus the values it creates; `Frees`
//! prefers any instruction that frees a value. Ties go to the instruction made ready most
//! recently (depth first: finish what was just started, e.g. the S-box whose inputs were just
//! computed), then to source order. On SIMD targets a third order finishes one output at a
//! time, the output with the smallest unscheduled cone first ([`schedule_cones`]: PHOTON's
//! linear layer column by column, each column's S-boxes just before it). Both rankings also
//! run bottom-up ([`schedule_up`]: from the last instruction towards the first, so that each
//! value is computed just before its first reader). Each gives an order; the one with the
//! fewest estimated spills (`cost::spill_estimate`, Belady's rule with the target's register
//! count) is kept, a bottom-up one only when its estimate is below [`UP_MAX_PER_MILLE`] of the
//! best top-down one's (`--sched-bits-up` / `--no-sched-bits-up`: only bottom-up or only
//! top-down orders). Near-linear: a priority set keyed by score, updated when a value's last
//! reader becomes known.
//!
//! Stats: `moved` (instructions whose position changed), `spills-before`/`spills-after`
//! (estimated loads and stores, summed over nodes: `cost::spill_estimate`).
//!
//! Before (`t1` and `t2` both live while the first chain is finished):
//! ```text
//! t1:1 = xor a b
//! t2:1 = xor a c
//! u1:1 = not t1
//! u2:1 = not t2
//! y:1 = and u1 u2
//! ```
//! After (one chain at a time):
//! ```text
//! t1:1 = xor a b
//! u1:1 = not t1
//! t2:1 = xor a c
//! u2:1 = not t2
//! y:1 = and u1 u2
//! ```

use super::{cost, OptConfig, Stats};
use crate::ir::{Node, Program};
use std::cmp::Reverse;
use std::collections::BTreeSet;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    let n_regs = cfg.target().n_regs as usize;
    let (mut before, mut after) = (0, 0);
    let mem = memory_form_bodies(prog, n_regs, cfg.mem_loops);
    for (c, node) in prog.nodes.iter_mut().enumerate() {
        let b = cost::spill_estimate(node, n_regs);
        // Candidates: each heuristic's order; keep the one with the fewest estimated spills.
        // (Not the source order: the estimate flatters it — gcc spilled 25% more on DES's
        // source order than on a scheduled one the estimate ranked worse. Between two
        // schedules it picked the faster one on every cipher measured.)
        // (A memory-form body also tries the register-resident model's orders. A third
        // candidate on SIMD targets: output cones, cheapest first; see `schedule_cones`. Not
        // on GP registers, where the estimate misjudged it: Xoodoo `-B` std 1.13x slower,
        // Gimli 1.02x, though DES, PHOTON and ACE gained 1.04-1.09x.)
        let models: &[bool] = if mem[c] { &[true, false] } else { &[false] };
        let body: &crate::ir::Node = node;
        let mut best: Option<(usize, Vec<usize>)> = None;
        // Top-down orders, then bottom-up ones ([`schedule_up`]): `cfg.sched_bits_up` says
        // which are candidates (`None`: both, a bottom-up order kept only when its estimate
        // beats the best top-down one's by the margin of [`UP_MAX_PER_MILLE`]).
        let up_only = cfg.sched_bits_up == Some(true);
        let with_up = cfg.sched_bits_up != Some(false);
        let cones = if cfg.arch == crate::target::Arch::Std || up_only {
            None
        } else {
            schedule_cones(body)
        };
        let down = [Heuristic::Pressure, Heuristic::Frees]
            .into_iter()
            .filter(|_| !up_only)
            .flat_map(|h| models.iter().map(move |&m| schedule(body, h, m)))
            .chain(cones)
            .map(|o| (false, o));
        let up = [Heuristic::Pressure, Heuristic::Frees]
            .into_iter()
            .filter(|_| with_up)
            .flat_map(|h| models.iter().map(move |&m| schedule_up(body, h, m)))
            .map(|o| (true, o));
        let mut best_down: Option<usize> = None;
        for (is_up, order) in down.chain(up) {
            let mut trial = body.clone();
            super::apply_order(&mut trial, &order);
            let e = if mem[c] {
                cost::spill_estimate_stored(&trial, n_regs)
            } else {
                cost::spill_estimate(&trial, n_regs)
            };
            if !is_up {
                best_down = Some(best_down.map_or(e, |b| b.min(e)));
            } else if let (None, Some(bd)) = (cfg.sched_bits_up, best_down) {
                if e * 1000 >= bd * UP_MAX_PER_MILLE {
                    continue;
                }
            }
            if best.as_ref().is_none_or(|(be, _)| e < *be) {
                best = Some((e, order));
            }
        }
        let a = match best {
            Some((e, order)) => {
                st.add(
                    "moved",
                    order.iter().enumerate().filter(|(i, o)| i != *o).count(),
                );
                super::apply_order(node, &order);
                e
            }
            None => b,
        };
        before += b;
        after += a;
    }
    st.add("spills-before", before);
    st.add("spills-after", after);
    st
}

/// Per node, whether it is the body of a kept loop that `codegen::memloop` will put in the
/// memory form (the only caller is one kept loop whose state outnumbers the registers): its
/// inputs are then read from memory where used and its outputs stored as soon as computed.
/// Scheduled as if they sat in registers, such a body did all of RECTANGLE's 64 round-key
/// XORs first and spilled their results (68 stack references per round, `-B` avx512).
pub fn memory_form_bodies(prog: &Program, n_regs: usize, mem_loops: bool) -> Vec<bool> {
    prog.sole_big_state_loop_sites(n_regs)
        .iter()
        .map(|s| mem_loops && s.is_some())
        .collect()
}

/// How ready instructions are ranked (each gives one candidate order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heuristic {
    /// Most values freed minus values created, then most recently ready.
    Pressure,
    /// Instructions that free a value first, then most recently ready (depth first).
    Frees,
}

/// By default a bottom-up order ([`schedule_up`]) replaces the top-down ones only when its
/// estimated spills are below this many thousandths of theirs. Belady's estimate misjudges
/// small differences between the two directions (README "Stop 48: the bottom-up schedule"):
/// measured on Zen 4 (time old / new), PHOTON `-B` std 1.33, Gimli std 1.11 and avx512 1.08, Clyde
/// avx512 1.04 (estimates 0.71-0.905 of the top-down ones) gain; ACE std and avx2 0.92,
/// avx512 0.97, Serpent std 0.94, PRESENT std 0.96 (estimates 0.917-0.999) lose.
pub const UP_MAX_PER_MILLE: usize = 910;

/// Most work (outputs squared times instructions) for which [`schedule_cones`] runs.
pub const CONES_MAX_WORK: u64 = 400_000_000;

/// An order that finishes one output at a time: repeatedly the output whose cone (the
/// instructions it depends on not yet scheduled) is smallest, its cone in depth-first
/// post-order. A linear layer that mixes a few S-box outputs per output column (PHOTON's
/// MixColumnSerial) is then computed column by column, each column's S-boxes just before it,
/// where the ready-list heuristics start every S-box first. `None` when the body is too big
/// ([`CONES_MAX_WORK`]: the bound of the first, quadratic version, kept so that the same
/// bodies get this candidate).
pub fn schedule_cones(node: &Node) -> Option<Vec<usize>> {
    let (n, deps, mut roots) = cone_start(node)?;
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    // Root k's cone as bit k of `member[i * words..]` for each instruction i in it (operands
    // come before their readers in the body, so one backward sweep propagates the bits), and
    // the cone's unscheduled size, kept exact as instructions are scheduled: only the roots
    // whose cones hold a scheduled instruction shrink. (The first version recounted every
    // root's cone at every step, bounded by the best so far: the same choices, quadratic.)
    let words = roots.len().div_ceil(64).max(1);
    let mut member = vec![0u64; n * words];
    let mut root_k = vec![usize::MAX; n];
    for (k, &r) in roots.iter().enumerate() {
        root_k[r] = k;
        member[r * words + k / 64] |= 1 << (k % 64);
    }
    for i in (0..n).rev() {
        for &d in &deps[i] {
            debug_assert!(d < i, "operands are defined before they are read");
            for w in 0..words {
                member[d * words + w] |= member[i * words + w];
            }
        }
    }
    // `f` of each root whose cone holds instruction i.
    let roots_of = |i: usize, f: &mut dyn FnMut(usize)| {
        for w in 0..words {
            let mut m = member[i * words + w];
            while m != 0 {
                f(w * 64 + m.trailing_zeros() as usize);
                m &= m - 1;
            }
        }
    };
    let mut size = vec![0usize; roots.len()];
    for i in 0..n {
        roots_of(i, &mut |k| size[k] += 1);
    }
    while !roots.is_empty() {
        // the root with the smallest unscheduled cone (the first such in `roots`)
        let mut best = (usize::MAX, 0);
        for (ri, &r) in roots.iter().enumerate() {
            if size[root_k[r]] < best.0 {
                best = (size[root_k[r]], ri);
            }
        }
        let r = roots.swap_remove(best.1);
        // its cone, post-order (operands first, in order)
        place_cone(r, &deps, &mut done, &mut order, |i| {
            roots_of(i, &mut |k| size[k] -= 1)
        });
        roots.retain(|&x| !done[x]);
    }
    // what no output needs, in source order (its operands come before it there)
    order.extend((0..n).filter(|&i| !done[i]));
    Some(order)
}

/// What both forms of [`schedule_cones`] start from: the body's length, each instruction's
/// producers, and the instructions that define an output, in body order; `None` past
/// [`CONES_MAX_WORK`].
fn cone_start(node: &Node) -> Option<(usize, Vec<Vec<usize>>, Vec<usize>)> {
    let n = node.body.len();
    let outs = node.flat_outputs();
    let no = outs.len() as u64;
    if n < 2 || no * no * n as u64 > CONES_MAX_WORK {
        return None;
    }
    let deps = super::sched_ilp::producers(node);
    let out_set: crate::fxhash::FxHashSet<_> = outs.iter().copied().collect();
    let roots: Vec<usize> = (0..n)
        .filter(|&i| node.body[i].defs().iter().any(|d| out_set.contains(d)))
        .collect();
    Some((n, deps, roots))
}

/// Appends root `r`'s unplaced cone to `order` in post-order (operands first, in operand
/// order), marking each instruction done and passing it to `placed`.
fn place_cone(
    r: usize,
    deps: &[Vec<usize>],
    done: &mut [bool],
    order: &mut Vec<usize>,
    mut placed: impl FnMut(usize),
) {
    let mut st: Vec<(usize, usize)> = vec![(r, 0)];
    while let Some(&mut (i, ref mut k)) = st.last_mut() {
        if done[i] {
            st.pop();
            continue;
        }
        if *k < deps[i].len() {
            let d = deps[i][*k];
            *k += 1;
            if !done[d] {
                st.push((d, 0));
            }
        } else {
            done[i] = true;
            order.push(i);
            placed(i);
            st.pop();
        }
    }
}

/// [`schedule_cones`] as first written (every root's cone recounted at every step), kept to
/// check that the incremental counts choose the same order.
#[cfg(test)]
pub(crate) fn schedule_cones_recount(node: &Node) -> Option<Vec<usize>> {
    let (n, deps, mut roots) = cone_start(node)?;
    let mut done = vec![false; n];
    let mut seen = vec![0u32; n];
    let mut epoch = 0u32;
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = Vec::new();
    while !roots.is_empty() {
        // the root with the smallest unscheduled cone
        let mut best = (usize::MAX, 0);
        for (ri, &r) in roots.iter().enumerate() {
            epoch += 1;
            let mut size = 0;
            stack.clear();
            stack.push(r);
            seen[r] = epoch;
            while let Some(i) = stack.pop() {
                size += 1;
                if size >= best.0 {
                    break;
                }
                for &d in &deps[i] {
                    if !done[d] && seen[d] != epoch {
                        seen[d] = epoch;
                        stack.push(d);
                    }
                }
            }
            if size < best.0 {
                best = (size, ri);
            }
        }
        let r = roots.swap_remove(best.1);
        place_cone(r, &deps, &mut done, &mut order, |_| {});
        roots.retain(|&x| !done[x]);
    }
    // what no output needs, in source order (its operands come before it there)
    order.extend((0..n).filter(|&i| !done[i]));
    Some(order)
}

/// The defining instruction of each atom (`None`: an input), the distinct operands of each
/// instruction, and the instructions reading each atom (each once).
type Dependences = (Vec<Option<usize>>, Vec<Vec<u32>>, Vec<Vec<u32>>);

fn dependences(node: &Node) -> Dependences {
    let nv = node.vars.len();
    let mut def: Vec<Option<usize>> = vec![None; nv];
    for (i, ins) in node.body.iter().enumerate() {
        for d in ins.defs() {
            def[d.0 as usize] = Some(i);
        }
    }
    let mut operands: Vec<Vec<u32>> = Vec::with_capacity(node.body.len());
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for (i, ins) in node.body.iter().enumerate() {
        let mut ops: Vec<u32> = ins.uses().iter().map(|v| v.0).collect();
        ops.sort_unstable();
        ops.dedup();
        for &v in &ops {
            users[v as usize].push(i as u32);
        }
        operands.push(ops);
    }
    (def, operands, users)
}

/// A bottom-up order: the same greedy list scheduling run from the end of the body towards its
/// start, so that a value is computed just before its first reader. An instruction is ready
/// once every reader of what it defines is placed (below it); placing it ends its results'
/// live ranges (upwards) and starts its operands'. `Pressure` picks the instruction that ends
/// the most live ranges minus the ranges it starts, `Frees` any that ends one; ties go to the
/// most recently ready, then to the latest in source order. A chain that runs ahead of its
/// readers in the top-down orders (AES-128's key expansion: every round key computed before
/// round 3, 1 250 values live) is then interleaved with them (round key r just before round r).
pub fn schedule_up(node: &Node, h: Heuristic, mem: bool) -> Vec<usize> {
    let n = node.body.len();
    let nv = node.vars.len();
    let (def, operands, users) = dependences(node);
    // live (seen from below): an output is live from the end (unless stored as computed);
    // an input never occupies a register between uses in the memory form
    let mut live = vec![false; nv];
    if !mem {
        for o in node.flat_outputs() {
            live[o.0 as usize] = true;
        }
    }
    let mut never = vec![false; nv];
    if mem {
        for a in node.flat_inputs() {
            never[a.0 as usize] = true;
        }
    }
    // instructions still to place below i that read one of i's results
    let mut waiting: Vec<u32> = node
        .body
        .iter()
        .map(|ins| {
            ins.defs()
                .iter()
                .map(|d| users[d.0 as usize].len() as u32)
                .sum()
        })
        .collect();
    let score = |i: usize, live: &[bool]| -> i64 {
        let ends = node.body[i]
            .defs()
            .iter()
            .filter(|d| live[d.0 as usize])
            .count() as i64;
        let starts = operands[i]
            .iter()
            .filter(|&&v| !live[v as usize] && !never[v as usize])
            .count() as i64;
        let s = ends - starts;
        match h {
            Heuristic::Pressure => s,
            Heuristic::Frees => s.clamp(0, 1),
        }
    };
    // (best score first, most recently ready first, latest in source order)
    type Key = (Reverse<i64>, Reverse<usize>, Reverse<usize>);
    let mut ready: BTreeSet<Key> = BTreeSet::new();
    let mut key_of: Vec<Option<Key>> = vec![None; n];
    for i in 0..n {
        if waiting[i] == 0 {
            let k = (Reverse(score(i, &live)), Reverse(0), Reverse(i));
            ready.insert(k);
            key_of[i] = Some(k);
        }
    }
    let mut order = Vec::with_capacity(n);
    while let Some(k) = ready.pop_first() {
        let i = (k.2).0;
        key_of[i] = None;
        let now = order.len() + 1;
        order.push(i);
        for d in node.body[i].defs() {
            live[d.0 as usize] = false;
        }
        for &v in &operands[i] {
            if live[v as usize] || never[v as usize] {
                continue;
            }
            live[v as usize] = true;
            // v's other ready readers no longer start it: rescore them
            for &u in &users[v as usize] {
                let u = u as usize;
                if let Some(old) = key_of[u] {
                    ready.remove(&old);
                    let k = (Reverse(score(u, &live)), old.1, old.2);
                    ready.insert(k);
                    key_of[u] = Some(k);
                }
            }
            // its producer now ends a live range when placed
            if let Some(j) = def[v as usize] {
                if let Some(old) = key_of[j] {
                    ready.remove(&old);
                    let k = (Reverse(score(j, &live)), old.1, old.2);
                    ready.insert(k);
                    key_of[j] = Some(k);
                }
            }
        }
        for &v in &operands[i] {
            if let Some(j) = def[v as usize] {
                waiting[j] -= 1;
                if waiting[j] == 0 {
                    let k = (Reverse(score(j, &live)), Reverse(now), Reverse(j));
                    ready.insert(k);
                    key_of[j] = Some(k);
                }
            }
        }
    }
    debug_assert_eq!(
        order.len(),
        n,
        "every instruction placed (the body is acyclic)"
    );
    order.reverse();
    order
}

/// The new order of `node.body` (a permutation of its positions).
///
/// `mem`: the body's inputs are in memory (reading one frees no register: it is loaded where
/// used) and its outputs are stored as computed (one that nothing else in the body reads
/// occupies no register), as in the memory form of a kept loop.
pub fn schedule(node: &Node, h: Heuristic, mem: bool) -> Vec<usize> {
    let n = node.body.len();
    let (def, operands, users) = dependences(node);
    let mut remaining: Vec<u32> = users.iter().map(|u| u.len() as u32).collect();
    if mem {
        // Inputs never occupy a register between uses (each use reads memory).
        for a in node.flat_inputs() {
            remaining[a.0 as usize] += 1 << 20;
        }
    } else {
        // Outputs never die.
        for o in node.flat_outputs() {
            remaining[o.0 as usize] += 1 << 20;
        }
    }
    let mut waiting: Vec<u32> = operands
        .iter()
        .map(|ops| ops.iter().filter(|&&v| def[v as usize].is_some()).count() as u32)
        .collect();
    let creates: Vec<i64> = node
        .body
        .iter()
        .map(|ins| {
            ins.defs()
                .iter()
                .filter(|d| remaining[d.0 as usize] > 0)
                .count() as i64
        })
        .collect();
    let score = |i: usize, remaining: &[u32]| -> i64 {
        let s = operands[i]
            .iter()
            .filter(|&&v| remaining[v as usize] == 1)
            .count() as i64
            - creates[i];
        match h {
            Heuristic::Pressure => s,
            Heuristic::Frees => s.clamp(0, 1),
        }
    };
    // (best score first, most recently ready first, source order)
    type Key = (Reverse<i64>, Reverse<usize>, usize);
    let mut ready: BTreeSet<Key> = BTreeSet::new();
    let mut key_of: Vec<Option<Key>> = vec![None; n];
    for i in 0..n {
        if waiting[i] == 0 {
            let k = (Reverse(score(i, &remaining)), Reverse(0), i);
            ready.insert(k);
            key_of[i] = Some(k);
        }
    }
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while let Some(k) = ready.pop_first() {
        let i = k.2;
        key_of[i] = None;
        done[i] = true;
        let now = order.len() + 1;
        order.push(i);
        for &v in &operands[i] {
            remaining[v as usize] -= 1;
            if remaining[v as usize] == 1 {
                // Its last reader now frees it: rescore that reader if it is ready.
                if let Some(&u) = users[v as usize].iter().find(|&&u| !done[u as usize]) {
                    let u = u as usize;
                    if let Some(old) = key_of[u] {
                        ready.remove(&old);
                        let k = (Reverse(score(u, &remaining)), old.1, u);
                        ready.insert(k);
                        key_of[u] = Some(k);
                    }
                }
            }
        }
        for d in node.body[i].defs() {
            for &u in &users[d.0 as usize] {
                let u = u as usize;
                waiting[u] -= 1;
                if waiting[u] == 0 {
                    let k = (Reverse(score(u, &remaining)), Reverse(now), u);
                    ready.insert(k);
                    key_of[u] = Some(k);
                } else if mem {
                    // Finish what was started: the ready producers of u's other operands
                    // count as just made ready (a memory-form body's S-box column whose
                    // first input was just computed gets its other inputs next, instead of
                    // every round-key XOR in source order first).
                    for &w in &operands[u] {
                        if let Some(j) = def[w as usize] {
                            if let Some(old) = key_of[j] {
                                if old.1 != Reverse(now) {
                                    ready.remove(&old);
                                    let k = (old.0, Reverse(now), j);
                                    ready.insert(k);
                                    key_of[j] = Some(k);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    debug_assert_eq!(
        order.len(),
        n,
        "every instruction scheduled (the body is acyclic)"
    );
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The incremental cone sizes choose the order the recounting form chose, on every node of
    /// every shipped cipher as checked (before the pipeline) and of four bitsliced ones after
    /// the avx512 pipeline (big flat bodies, memory-form rounds).
    #[test]
    fn cones_choose_as_the_recount() {
        let mut compared = 0;
        crate::opt::for_each_shipped_node(&["des", "aes", "photon256", "gimli"], |file, s, n| {
            let got = schedule_cones(n);
            assert_eq!(
                got,
                schedule_cones_recount(n),
                "{file} -{s} node {}",
                n.name
            );
            compared += got.is_some() as usize;
        });
        assert!(compared > 100, "{compared} nodes");
    }
}
