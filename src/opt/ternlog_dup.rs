//! Shared boolean operations recomputed inside each of their readers, on targets with
//! `vpternlog` (`--disable ternlog-dup`).
//!
//! `ternlog` fusion absorbs an operation only into its sole reader, so that shared work is
//! never computed twice. That leaves one instruction per shared operation. When *every*
//! reader of a shared value `t` is a boolean operation that still has at most three distinct
//! operands once `t` is replaced by `t`'s own operands, each reader can compute `t` inside its
//! own `ternlog` at no cost, and `t` disappears: one instruction less, no reader more
//! expensive. It was written for AES's S-box (Boyar and Peralta's top linear layer makes XORs
//! of two inputs that two or three later XORs read: 9% fewer operations per S-box), but the
//! bitsliced adders of ChaCha20 gain most (a sum bit and a carry read the same `a ^ b`).
//! [`not_absorb`](super::not_absorb) is the special case of a negation (and also sees through
//! bit permutations); this pass handles every boolean operation, with boolean readers only.
//!
//! It runs after the schedulers, on the final order, so that it can keep register pressure
//! from growing: `t` is dissolved only when at most one of its operands must then live longer
//! than before (that operand takes `t`'s place from its old last reader to `t`'s last
//! reader; the others already live that long). Values are visited in body order, each with
//! its current operation (an earlier rewrite may have changed it). A node keeps the rewritten
//! body only when the estimated spills fall by at least 10% (or there are none): fewer
//! operations alone did not make faster code (see [`gain`]).
//!
//! Requires: verified IR in its final order; the target has `Feature::Ternlog` (otherwise the
//! pass does nothing: without `vpternlog` a reader with three operands costs two
//! instructions). Guarantees: verified IR computing the same outputs, in the same order, with
//! fewer operations or the same: the dissolved operations are removed and every reader
//! stays one operation, the cheapest form of its new function (`and`/`or`/`xor`/`andn`/
//! `not`/`copy` where one fits, `ternlog` otherwise). Values that are node outputs or inputs,
//! or are read by calls, loops or non-boolean operations, are never dissolved.
//!
//! Stats: `dissolved` (operations removed), `readers` (operations rewritten), `rejected`
//! (operations that would have been removed in nodes the spill estimate turned down).
//!
//! Before (`t` has two readers, so `ternlog` fusion kept it):
//! ```text
//! t:1 = xor a b
//! y:1 = and t c
//! z:1 = xor t d
//! ```
//! After (`t` is gone; a reader's own operands come first: `c & (a ^ b)` is immediate 0x60,
//! `d ^ a ^ b` is 0x96):
//! ```text
//! y:1 = ternlog c a b 0x60
//! z:1 = ternlog d a b 0x96
//! ```

use super::{OptConfig, Stats};
use crate::ir::{truth, Instr, Node, Op, Program, VarId};
use crate::target::Feature;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    if !cfg.target().has(Feature::Ternlog) {
        return st;
    }
    let (mut dissolved, mut readers) = (0, 0);
    let n_regs = cfg.target().n_regs as usize;
    for node in &mut prog.nodes {
        let mut trial = node.clone();
        let (d, r) = run_node(&mut trial);
        if d == 0 {
            continue;
        }
        // The estimate counts the first load of every input read: not a spill.
        let inputs: crate::fxhash::FxHashSet<VarId> = node.flat_inputs().into_iter().collect();
        let read: crate::fxhash::FxHashSet<VarId> = node
            .body
            .iter()
            .flat_map(|i| i.uses())
            .filter(|u| inputs.contains(u))
            .collect();
        let loads = read.len();
        let before = super::cost::spill_estimate(node, n_regs).saturating_sub(loads);
        let after = super::cost::spill_estimate(&trial, n_regs).saturating_sub(loads);
        if !gain(before, after) {
            st.add("rejected", d);
            continue;
        }
        *node = trial;
        dissolved += d;
        readers += r;
    }
    st.add("dissolved", dissolved);
    st.add("readers", readers);
    st
}

/// Whether a node keeps its rewritten body, from the estimated spills (`cost::spill_estimate`,
/// less the first load of each input read) before and after: at least 10% fewer, or none
/// either way. Fewer operations alone did not
/// make faster code: where the estimate stayed level or fell a little, gcc's allocation came
/// out worse (AES planes `-B` avx512 0.95x the speed with 5.5% fewer estimated spills,
/// Xoodoo 0.96x, PHOTON 0.96x, RECTANGLE `-B` 0.84x); where it fell by 12% and 30%, PRESENT and
/// ChaCha20 `-B` ran 1.12x and 1.24x faster (README "Shared operations recomputed in ternlogs").
fn gain(before: usize, after: usize) -> bool {
    (before == 0 && after == 0) || (after < before && (before - after) * 10 >= before)
}

/// The truth tables of the three ternlog positions (bit `4a + 2b + c`).
const POS: [u8; 3] = [0xF0, 0xCC, 0xAA];

/// The distinct operands of a boolean operation, in order; `None` for other operations.
fn bool_leaves(op: &Op) -> Option<Vec<VarId>> {
    let (ops, _) = truth::as_ternlog(op)?;
    let mut out: Vec<VarId> = Vec::new();
    for x in ops {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    Some(out)
}

/// The truth table (over the three positions) of the boolean operation `op`, where each
/// operand's table is given by `val`.
fn table(op: &Op, val: &dyn Fn(VarId) -> u8) -> u8 {
    let ([a, b, c], imm) = truth::as_ternlog(op).expect("only boolean operations have tables");
    crate::ir::ternlog(imm, val(a) as u64, val(b) as u64, val(c) as u64) as u8
}

/// The cheapest operation computing the table `imm` over `leaves` (at most three, distinct;
/// padding positions repeat the first leaf, which `imm` does not depend on).
fn simplest(leaves: &[VarId], imm: u8) -> Op {
    let mut ops = [leaves[0]; 3];
    ops[..leaves.len()].copy_from_slice(leaves);
    truth::simplest(ops, imm, false)
}

fn run_node(node: &mut Node) -> (usize, usize) {
    let n = node.body.len();
    // Values that never die in the body: outputs and inputs (read from memory where used),
    // and anything calls or loops read; only boolean assignments are rewritten.
    const NEVER: usize = usize::MAX;
    let mut last: Vec<usize> = vec![0; node.vars.len()];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); node.vars.len()];
    for (i, ins) in node.body.iter().enumerate() {
        let mut u = ins.uses();
        u.sort_unstable();
        u.dedup();
        for x in u {
            let x = x.0 as usize;
            last[x] = i;
            readers[x].push(i);
        }
    }
    let mut pinned = vec![false; node.vars.len()];
    for v in node.flat_outputs().into_iter().chain(node.flat_inputs()) {
        pinned[v.0 as usize] = true;
    }
    for ins in &node.body {
        if !matches!(ins, Instr::Assign { .. }) {
            for u in ins.uses() {
                pinned[u.0 as usize] = true;
            }
        }
    }
    for (x, p) in pinned.iter().enumerate() {
        if *p {
            last[x] = NEVER;
        }
    }
    // A value some rewritten reader counts on to die there (its register is overwritten by
    // the reader's `vpternlog`): its life must not be extended past that reader.
    let mut relied = vec![false; node.vars.len()];
    let mut dead = vec![false; n];
    let (mut dissolved, mut rewritten) = (0, 0);
    for i in 0..n {
        let Instr::Assign { dst: t, op } = &node.body[i] else {
            continue;
        };
        let t = *t;
        let Some(lt) = bool_leaves(op) else { continue };
        if pinned[t.0 as usize] {
            continue;
        }
        let top = op.clone();
        let rs: Vec<usize> = readers[t.0 as usize]
            .iter()
            .copied()
            .filter(|&r| !dead[r])
            .collect();
        let Some(&end) = rs.last() else { continue };
        // Register pressure never grows: at most one of `t`'s operands lives longer (it takes
        // `t`'s place between its old last reader and `t`'s), and not one a rewritten reader
        // counts on dying.
        let extended: Vec<VarId> = lt
            .iter()
            .copied()
            .filter(|x| last[x.0 as usize] < end)
            .collect();
        if extended.len() > 1 || extended.iter().any(|x| relied[x.0 as usize]) {
            continue;
        }
        let new_last = |x: VarId| {
            if lt.contains(&x) {
                last[x.0 as usize].max(end)
            } else {
                last[x.0 as usize]
            }
        };
        // Every reader boolean and within three operands with `t` replaced by its operands.
        // (Requiring an operand that dies at each rewritten ternlog, so that gcc need not copy
        // one before the destructive `vpternlog`, removed nearly all the gains: PRESENT's and
        // ChaCha20's readers have none.)
        let mut plans: Vec<(usize, Vec<VarId>, Op, Option<VarId>)> = Vec::new();
        for &r in &rs {
            let Instr::Assign { op: rop, .. } = &node.body[r] else {
                break;
            };
            let Some(lr) = bool_leaves(rop) else { break };
            let mut nl: Vec<VarId> = lr.into_iter().filter(|x| *x != t).collect();
            for x in &lt {
                if !nl.contains(x) {
                    nl.push(*x);
                }
            }
            if nl.len() > 3 {
                break;
            }
            let pos = |x: VarId| nl.iter().position(|y| *y == x).map_or(POS[0], |p| POS[p]);
            let tv = table(&top, &pos);
            let imm = table(rop, &|x| if x == t { tv } else { pos(x) });
            let new = simplest(&nl, imm);
            let dying = nl.iter().copied().find(|&x| new_last(x) == r);
            plans.push((r, nl, new, dying));
        }
        if plans.len() != rs.len() {
            continue;
        }
        for (r, _, new, dying) in plans {
            if let Instr::Assign { op: rop, .. } = &mut node.body[r] {
                if matches!(new, Op::Ternlog(..)) {
                    if let Some(d) = dying {
                        relied[d.0 as usize] = true;
                    }
                }
                *rop = new;
            }
            for x in &lt {
                let e = &mut readers[x.0 as usize];
                if !e.contains(&r) {
                    e.push(r);
                    e.sort_unstable();
                }
            }
            rewritten += 1;
        }
        for x in &lt {
            let x = x.0 as usize;
            if last[x] != NEVER {
                last[x] = last[x].max(end);
            }
        }
        dead[i] = true;
        dissolved += 1;
    }
    if dissolved > 0 {
        let mut k = 0;
        node.body.retain(|_| {
            k += 1;
            !dead[k - 1]
        });
    }
    (dissolved, rewritten)
}
