//! Cost model shared by the passes (inlining, scheduling, the ternlog cover) and the
//! autotuner's pruning: op costs come from [`crate::target::Target`]; here are the
//! program-level measures built on them.

use crate::ir::{Instr, Node, Op, Program, Slicing};
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
    let slicing: Slicing = prog.slicing;
    node_work_by(
        prog,
        idx,
        &|op, bits| t.cost(op, bits, slicing).insns as u64,
        memo,
    )
}

/// [`node_work`] with the instructions of one operation (on atoms of `bits` bits) given by
/// `cost`.
pub fn node_work_by(
    prog: &Program,
    idx: usize,
    cost: &dyn Fn(&Op, u32) -> u64,
    memo: &mut Vec<Option<u64>>,
) -> u64 {
    if let Some(w) = memo.get(idx).copied().flatten() {
        return w;
    }
    let node = &prog.nodes[idx];
    let mut w = 0u64;
    for ins in &node.body {
        w += match ins {
            Instr::Assign { dst, op } => cost(op, node.bits(*dst)),
            Instr::Call { callee, .. } => node_work_by(prog, callee.0 as usize, cost, memo),
            Instr::Loop { callee, count, .. } => {
                *count as u64 * node_work_by(prog, callee.0 as usize, cost, memo)
            }
        };
    }
    if memo.len() <= idx {
        memo.resize(idx + 1, None);
    }
    memo[idx] = Some(w);
    w
}

/// Loads and stores a register allocator needs to run `node`'s body in order with `n_regs`
/// registers, by Belady's rule (evict the value whose next use is furthest; a value is stored
/// once, when first evicted while still needed; inputs live in memory and cost a load when
/// read from outside a register). An estimate of the C compiler's spill code, used to choose
/// between schedules.
pub fn spill_estimate(node: &Node, n_regs: usize) -> usize {
    belady(node, n_regs, false)
}

/// [`spill_estimate`] for a body whose outputs are stored as soon as they are computed (the
/// memory form of a kept loop, `codegen::memloop`): an output holds a register only until its
/// last use inside the body (its store is the same in every order, so not counted).
pub fn spill_estimate_stored(node: &Node, n_regs: usize) -> usize {
    belady(node, n_regs, true)
}

fn belady(node: &Node, n_regs: usize, outputs_stored: bool) -> usize {
    use std::collections::BinaryHeap;
    let nv = node.vars.len();
    let end = node.body.len();
    // Each instruction's operands and results, read once into flat lists (this runs for every
    // candidate order `sched_bits` weighs), and each atom's use positions (outputs: a use at
    // the end) in one list too: atom v's are `pos[at[v]..at[v + 1]]`.
    let mut ops: Vec<u32> = Vec::new();
    let mut ops_at: Vec<u32> = Vec::with_capacity(end + 1);
    let mut defs: Vec<u32> = Vec::new();
    let mut defs_at: Vec<u32> = Vec::with_capacity(end + 1);
    let mut count = vec![0u32; nv + 1];
    let mut last = vec![u32::MAX; nv];
    for (i, ins) in node.body.iter().enumerate() {
        ops_at.push(ops.len() as u32);
        defs_at.push(defs.len() as u32);
        ins.for_each_use(|u| {
            ops.push(u.0);
            if last[u.0 as usize] != i as u32 {
                last[u.0 as usize] = i as u32;
                count[u.0 as usize] += 1;
            }
        });
        ins.for_each_def(|d| defs.push(d.0));
    }
    ops_at.push(ops.len() as u32);
    defs_at.push(defs.len() as u32);
    let outs = node.flat_outputs();
    if !outputs_stored {
        for o in &outs {
            count[o.0 as usize] += 1;
        }
    }
    let mut at = vec![0u32; nv + 1];
    for v in 0..nv {
        at[v + 1] = at[v] + count[v];
    }
    let mut pos = vec![0u32; at[nv] as usize];
    let mut fill: Vec<u32> = at[..nv].to_vec();
    last.iter_mut().for_each(|l| *l = u32::MAX);
    for i in 0..end {
        for &u in &ops[ops_at[i] as usize..ops_at[i + 1] as usize] {
            let v = u as usize;
            if last[v] != i as u32 {
                last[v] = i as u32;
                pos[fill[v] as usize] = i as u32;
                fill[v] += 1;
            }
        }
    }
    if !outputs_stored {
        for o in &outs {
            let v = o.0 as usize;
            pos[fill[v] as usize] = end as u32;
            fill[v] += 1;
        }
    }
    let mut next: Vec<usize> = at[..nv].iter().map(|&a| a as usize).collect(); // v's next use: pos[next[v]]
    let mut in_reg = vec![false; nv];
    let mut stored = vec![false; nv];
    for a in node.flat_inputs() {
        stored[a.0 as usize] = true; // already in memory
    }
    if outputs_stored {
        for o in &outs {
            stored[o.0 as usize] = true; // stored when computed
        }
    }
    // The ordered set of (next use, atom) pairs Belady's rule evicts from, the furthest
    // first, as a lazy heap: `member[v]` says whether the set holds v's pair, whose next use is
    // `key[v]` (always v's current next use: at most one pair per atom, the IR being in SSA
    // form), `resident` counts the pairs, and a heap entry that is no longer v's pair is stale
    // and skipped when it surfaces. `in_reg` is kept apart from membership as the set form had
    // it: an operand evicted while its instruction's other operands load is out of registers
    // but its pair comes back when its next use moves on.
    let mut member = vec![false; nv];
    let mut key = vec![u32::MAX; nv];
    let mut heap: BinaryHeap<(u32, u32)> = BinaryHeap::new();
    let mut resident = 0usize;
    let mut cost = 0usize;
    let next_use = |v: usize, next: &[usize]| -> u32 {
        if next[v] < at[v + 1] as usize {
            pos[next[v]]
        } else {
            u32::MAX
        }
    };
    struct Set<'a> {
        member: &'a mut [bool],
        key: &'a mut [u32],
        heap: &'a mut BinaryHeap<(u32, u32)>,
        resident: &'a mut usize,
    }
    impl Set<'_> {
        fn insert(&mut self, nu: u32, v: u32) {
            let i = v as usize;
            if self.member[i] && self.key[i] == nu {
                return;
            }
            if !self.member[i] {
                self.member[i] = true;
                *self.resident += 1;
            }
            self.key[i] = nu;
            self.heap.push((nu, v));
        }
        fn remove(&mut self, nu: u32, v: u32) {
            let i = v as usize;
            if self.member[i] && self.key[i] == nu {
                self.member[i] = false;
                *self.resident -= 1;
            }
        }
        /// Removes and returns the pair with the furthest next use.
        fn pop_last(&mut self) -> Option<(u32, u32)> {
            while let Some((nu, v)) = self.heap.pop() {
                let i = v as usize;
                if self.member[i] && self.key[i] == nu {
                    self.member[i] = false;
                    *self.resident -= 1;
                    return Some((nu, v));
                }
            }
            None
        }
    }
    let mut set = Set {
        member: &mut member,
        key: &mut key,
        heap: &mut heap,
        resident: &mut resident,
    };
    let make_room =
        |set: &mut Set, in_reg: &mut [bool], stored: &mut [bool], cost: &mut usize, keep: usize| {
            while *set.resident + keep > n_regs {
                let Some((nu, v)) = set.pop_last() else {
                    break;
                };
                in_reg[v as usize] = false;
                if nu != u32::MAX && !stored[v as usize] {
                    stored[v as usize] = true;
                    *cost += 1;
                }
            }
        };
    for i in 0..end {
        let ops = &ops[ops_at[i] as usize..ops_at[i + 1] as usize];
        // Operands: reload those not in registers.
        for &u in ops {
            let v = u as usize;
            if !in_reg[v] {
                cost += 1;
                make_room(&mut set, &mut in_reg, &mut stored, &mut cost, 1);
                in_reg[v] = true;
                set.insert(next_use(v, &next), u);
            }
        }
        // Advance the operands' next use past this instruction.
        for &u in ops {
            let v = u as usize;
            if next_use(v, &next) == i as u32 {
                set.remove(i as u32, u);
                next[v] += 1;
                let nu = next_use(v, &next);
                if nu == u32::MAX {
                    in_reg[v] = false; // dead
                } else {
                    set.insert(nu, u);
                }
            }
        }
        let defs = &defs[defs_at[i] as usize..defs_at[i + 1] as usize];
        make_room(
            &mut set,
            &mut in_reg,
            &mut stored,
            &mut cost,
            defs.len().min(n_regs),
        );
        for &d in defs {
            let v = d as usize;
            let nu = next_use(v, &next);
            if nu != u32::MAX {
                in_reg[v] = true;
                set.insert(nu, d);
            }
        }
        make_room(&mut set, &mut in_reg, &mut stored, &mut cost, 0);
    }
    cost
}

/// The ordered-set form [`belady`] replaced (stop 50), kept to check it gives the same counts.
#[cfg(test)]
fn belady_btree(node: &Node, n_regs: usize, outputs_stored: bool) -> usize {
    use std::collections::BTreeSet;
    let nv = node.vars.len();
    let end = node.body.len();
    // Use positions per atom (outputs: a use at the end).
    let mut uses: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for (i, ins) in node.body.iter().enumerate() {
        for u in ins.uses() {
            let l = &mut uses[u.0 as usize];
            if l.last() != Some(&(i as u32)) {
                l.push(i as u32);
            }
        }
    }
    if !outputs_stored {
        for o in node.flat_outputs() {
            uses[o.0 as usize].push(end as u32);
        }
    }
    let mut next = vec![0usize; nv]; // index into uses[v] of the next use
    let mut in_reg = vec![false; nv];
    let mut stored = vec![false; nv];
    for a in node.flat_inputs() {
        stored[a.0 as usize] = true; // already in memory
    }
    if outputs_stored {
        for o in node.flat_outputs() {
            stored[o.0 as usize] = true; // stored when computed
        }
    }
    let mut resident: BTreeSet<(u32, u32)> = BTreeSet::new(); // (next use, atom)
    let mut cost = 0usize;
    let next_use =
        |v: usize, next: &[usize]| -> u32 { uses[v].get(next[v]).copied().unwrap_or(u32::MAX) };
    let make_room = |resident: &mut BTreeSet<(u32, u32)>,
                     in_reg: &mut [bool],
                     stored: &mut [bool],
                     cost: &mut usize,
                     keep: usize| {
        while resident.len() + keep > n_regs {
            let Some(&(nu, v)) = resident.iter().next_back() else {
                break;
            };
            resident.remove(&(nu, v));
            in_reg[v as usize] = false;
            if nu != u32::MAX && !stored[v as usize] {
                stored[v as usize] = true;
                *cost += 1;
            }
        }
    };
    for (i, ins) in node.body.iter().enumerate() {
        let ops = ins.uses();
        // Operands: reload those not in registers.
        for u in &ops {
            let v = u.0 as usize;
            if !in_reg[v] {
                cost += 1;
                make_room(&mut resident, &mut in_reg, &mut stored, &mut cost, 1);
                in_reg[v] = true;
                resident.insert((next_use(v, &next), v as u32));
            }
        }
        // Advance the operands' next use past this instruction.
        for u in &ops {
            let v = u.0 as usize;
            if next_use(v, &next) == i as u32 {
                resident.remove(&(i as u32, v as u32));
                next[v] += 1;
                let nu = next_use(v, &next);
                if nu == u32::MAX {
                    in_reg[v] = false; // dead
                } else {
                    resident.insert((nu, v as u32));
                }
            }
        }
        let defs = ins.defs();
        make_room(
            &mut resident,
            &mut in_reg,
            &mut stored,
            &mut cost,
            defs.len().min(n_regs),
        );
        for d in defs {
            let v = d.0 as usize;
            let nu = next_use(v, &next);
            if nu != u32::MAX {
                in_reg[v] = true;
                resident.insert((nu, v as u32));
            }
        }
        make_room(&mut resident, &mut in_reg, &mut stored, &mut cost, 0);
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lazy-heap [`belady`] counts what the ordered-set form counted, on every node of every
    /// shipped cipher before the avx512 pipeline and of three bitsliced ones after it (bitsliced bodies with calls of
    /// hundreds of arguments among them), with few and many registers, outputs stored or not.
    #[test]
    fn belady_heap_counts_as_the_ordered_set() {
        let mut nodes = 0;
        // Optimised for three bitsliced ciphers only: the pipeline is most of this test's time.
        crate::opt::for_each_shipped_node(&["des", "aes", "rectangle"], |file, s, n| {
            for regs in [2, 16, 32] {
                for stored in [false, true] {
                    assert_eq!(
                        belady(n, regs, stored),
                        belady_btree(n, regs, stored),
                        "{file} -{s} node {} with {regs} registers",
                        n.name
                    );
                }
            }
            nodes += 1;
        });
        assert!(nodes > 100, "{nodes} nodes");
    }
}
