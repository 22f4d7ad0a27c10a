//! Negations absorbed by their readers, on targets with `vpternlog` (`--disable not-absorb`).
//!
//! `ternlog` fusion folds a `not` into its reader only when that reader is its sole one: a
//! negation read by several operations stays a separate instruction (`vpternlogd` with
//! immediate 0x55, or an XOR with all ones). This pass removes such a `not y = not x` when
//! every reader of `y` can take `x` instead at no cost: a boolean operation (its truth table
//! is rewritten with that operand complemented), or a bit permutation (`rotl`, `rotr`,
//! `shuffle`, `copy`: they commute with negation) whose own readers all qualify in turn.
//! Ascon's linear layer is the case it was written for: `x4 = ~t` is rotated twice and the
//! three XORed, 12 negations in `-V` (one per round); removing them made the kernel 1.035x
//! faster on AVX-512 (README "Negations absorbed by their readers").
//!
//! Requires: verified IR; the target has `Feature::Ternlog` (otherwise the pass does
//! nothing: without `vpternlog`, an XOR reading a negation would cost one more operation).
//! Guarantees: verified IR computing the same outputs, with the same number of operations
//! or fewer: the `not` becomes a `copy` (removed by the `copy-prop` that follows), every
//! permutation in between reads the un-negated value, and each boolean reader computes the
//! same function of its new operands. A reader stays the cheapest form of its function:
//! `and`/`andn`/`or`/`xor`/`not`/`copy` where one fits, `ternlog` otherwise (an `xor`
//! reading a negation becomes an XNOR, one `ternlog`). Values that are node outputs or are
//! read by calls or loops are never changed.
//!
//! Stats: `absorbed` (negations removed), `readers` (operations rewritten).
//!
//! Before (`n` has three readers, so `ternlog` fusion kept it):
//! ```text
//! n:64 = not x
//! r1:64 = rotr n 1
//! r2:64 = rotr n 6
//! y:64 = ternlog n r1 r2 0x96
//! ```
//! After (`~a ^ ~b ^ ~c = ~(a ^ b ^ c)`, immediate 0x69; `n` is a copy of `x`):
//! ```text
//! n:64 = copy x
//! r1:64 = rotr n 1
//! r2:64 = rotr n 6
//! y:64 = ternlog n r1 r2 0x69
//! ```

use super::{OptConfig, Stats};
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::ir::{truth, Instr, Node, Op, Program, VarId};
use crate::target::Feature;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    if !cfg.target().has(Feature::Ternlog) {
        return st;
    }
    let (mut absorbed, mut readers) = (0, 0);
    for node in &mut prog.nodes {
        let (a, r) = run_node(node);
        absorbed += a;
        readers += r;
    }
    st.add("absorbed", absorbed);
    st.add("readers", readers);
    st
}

fn run_node(node: &mut Node) -> (usize, usize) {
    // Values that must keep their meaning: outputs, and anything calls or loops read.
    let mut pinned: HashSet<VarId> = node.flat_outputs().into_iter().collect();
    // Live instructions: `ternlog` fusion leaves the operations it absorbed dead (the
    // `copy-prop` after this pass removes them); they neither count as readers nor as work.
    let mut live_vars: HashSet<VarId> = pinned.clone();
    let mut live = vec![false; node.body.len()];
    for (i, ins) in node.body.iter().enumerate().rev() {
        if !matches!(ins, Instr::Assign { .. }) || ins.defs().iter().any(|d| live_vars.contains(d))
        {
            live[i] = true;
            live_vars.extend(ins.uses());
        }
    }
    let mut readers: HashMap<VarId, Vec<usize>> = HashMap::default();
    for (i, ins) in node.body.iter().enumerate() {
        if !live[i] {
            continue;
        }
        match ins {
            Instr::Assign { op, .. } => {
                let mut seen = HashSet::default();
                for u in op.operands() {
                    if seen.insert(u) {
                        readers.entry(u).or_default().push(i);
                    }
                }
            }
            _ => pinned.extend(ins.uses()),
        }
    }
    let (mut absorbed, mut rewritten) = (0, 0);
    // By index: the loop rewrites other instructions of the body as it goes.
    #[allow(clippy::needless_range_loop)]
    for i in 0..node.body.len() {
        let Instr::Assign {
            dst: y,
            op: Op::Not(x),
        } = node.body[i]
        else {
            continue;
        };
        if !live[i] {
            continue;
        }
        // The negated values: `y` and every permutation of them; the boolean readers.
        let mut negated: Vec<VarId> = vec![y];
        let mut bool_readers: Vec<usize> = Vec::new();
        let mut ok = true;
        let mut k = 0;
        while ok && k < negated.len() {
            let v = negated[k];
            k += 1;
            if pinned.contains(&v) {
                ok = false;
                break;
            }
            for &r in readers.get(&v).map(|r| r.as_slice()).unwrap_or(&[]) {
                let Instr::Assign { dst, op } = &node.body[r] else {
                    ok = false;
                    break;
                };
                if !op.operands().contains(&v) {
                    continue; // an earlier rewrite simplified the read away
                }
                match op {
                    Op::Rotl(..) | Op::Rotr(..) | Op::Shuffle(..) | Op::Copy(_) => {
                        negated.push(*dst)
                    }
                    _ if truth::as_ternlog(op).is_some() => bool_readers.push(r),
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
        }
        if !ok {
            continue;
        }
        let set: HashSet<VarId> = negated.iter().copied().collect();
        bool_readers.sort_unstable();
        bool_readers.dedup();
        for &r in &bool_readers {
            let Instr::Assign { op, .. } = &mut node.body[r] else {
                unreachable!("boolean readers are assignments")
            };
            let was_ternlog = matches!(op, Op::Ternlog(..));
            let (ops, mut imm) = truth::as_ternlog(op).expect("boolean reader");
            // A binary op is (a, b, b) and `not` is (a, a, a): complementing an operand
            // flips every position it holds.
            for (p, v) in ops.iter().enumerate() {
                if set.contains(v) {
                    imm = truth::flip(imm, p);
                }
            }
            *op = truth::simplest(ops, imm, was_ternlog);
            rewritten += 1;
        }
        node.body[i] = Instr::Assign {
            dst: y,
            op: Op::Copy(x),
        };
        absorbed += 1;
    }
    (absorbed, rewritten)
}
