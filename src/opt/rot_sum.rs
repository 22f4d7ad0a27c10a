//! Sums of rotations of one word, factored (`--disable rot-sum`).
//!
//! Requires: verified IR. Guarantees: verified IR computing the same outputs; every XOR tree
//! it rewrites costs fewer instructions on the target by the estimate below. A *tree* is as in
//! `xor_share` (a maximal group of `xor`s of one width in which every value but the root is
//! used once, by another `xor` of the tree, and is no output). Its leaves that are rotations of
//! one word `x` (a `rotl`/`rotr` of `x` read only by the tree, or `x` itself, the rotation by 0)
//! make a set S of amounts: the tree XORs `x <<< k` for every k in S. Rotations distribute over
//! XOR and add their amounts, so for any step d two terms `x <<< k` and `x <<< (k + d)` are one
//! term `y <<< k` of `y = x ^ (x <<< d)`. Pairing the terms of S along steps of d leaves the
//! pair starts Q (terms of `y`) and the unpaired rest R (terms of `x`); each is factored again,
//! up to [`DEPTH`] levels (a third level found nothing more on Pyjamask). The pass tries every d and keeps the form of least estimated cost:
//! a rotation as the code generator emits it (`Target::cost`; one byte shuffle for a
//! whole-byte amount on SSE/AVX2), one instruction per XOR. The tree is rebuilt at its root's
//! position as a balanced XOR of its terms; the old rotations become dead (`copy-prop`
//! removes them). Pyjamask's MixRows XORs 11 to 13 rotations of each row, 3 instructions
//! each on SSE/AVX2: 167 estimated instructions per round become 111.
//!
//! The search is bounded: [`BUDGET`] pairings per program, after which trees stay as written.
//! Vslice and hslice only: in bitslice rotations are wiring, and `xor-share` shares the XORs.
//! Stats: `trees` (rewritten), `ops` (instructions saved, estimated).
//!
//! Before (vslice, 32-bit words, GP registers: 3 rotations and 3 XORs):
//! ```text
//! a:32 = rotl x 1
//! b:32 = rotl x 5
//! c:32 = rotl x 6
//! t:32 = xor x a
//! u:32 = xor t b
//! y:32 = xor u c
//! ```
//! After (`tests/opt/rot-sum/doc_example.ir`; y = (x ^ x <<< 1) ^ (x ^ x <<< 1) <<< 5, two
//! rotations and two XORs; `a`, `b` and `c` are dead):
//! ```text
//! a:32 = rotl x 1
//! b:32 = rotl x 5
//! c:32 = rotl x 6
//! nk_rs7:32 = rotl x 1
//! nk_rs8:32 = xor x nk_rs7
//! nk_rs9:32 = rotl nk_rs8 5
//! y:32 = xor nk_rs8 nk_rs9
//! ```

use super::xor_share::{emit_sum, trees, Fresh, Trees};
use super::{OptConfig, Stats};
use crate::fxhash::FxHashMap as HashMap;
use crate::ir::{Instr, Node, Op, Program, Slicing, VarId};
use crate::target::Target;
use std::collections::BTreeMap;

/// Levels of factoring tried (a factor of a factor of a factor).
pub const DEPTH: u32 = 2;

/// Pairings (one step d on one set) the search may do in one program.
pub const BUDGET: u64 = 4_000_000;

pub fn run(prog: &mut Program, cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    if prog.slicing == Slicing::B {
        return st;
    }
    let mut search = Search::new(cfg.target(), prog.slicing);
    for node in &mut prog.nodes {
        run_node(node, &mut search, &mut st);
    }
    st
}

/// How a set of rotation amounts (bit k of the mask: `x <<< k`) of one word is computed.
#[derive(Clone, Debug)]
enum Plan {
    /// Each amount rotated separately (0: the word itself).
    Terms(u64),
    /// `y = x ^ (x <<< d)`; the terms of `on_y` on `y`, those of `rest` on `x`.
    Factor {
        d: u32,
        on_y: Box<Plan>,
        rest: Box<Plan>,
    },
}

/// A plan's estimated instructions, not counting the XORs joining its terms, and its terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cost {
    ops: u32,
    terms: u32,
}

impl Cost {
    /// Instructions in all: the terms are joined by `terms - 1` XORs.
    fn total(self) -> u32 {
        self.ops + self.terms.saturating_sub(1)
    }
}

struct Search {
    target: Target,
    slicing: Slicing,
    /// (word size, amounts, depth) -> the best plan found.
    memo: HashMap<(u32, u64, u32), (Cost, Plan)>,
    /// Per word size (the index): the cost of each rotation amount; empty until asked.
    rot_costs: Vec<Vec<u32>>,
    budget: u64,
}

impl Search {
    fn new(target: Target, slicing: Slicing) -> Search {
        Search {
            target,
            slicing,
            memo: HashMap::default(),
            rot_costs: vec![Vec::new(); 65],
            budget: BUDGET,
        }
    }

    /// Instructions of `x <<< k` on a word of `w` bits (`w` <= 64).
    fn rot_cost(&mut self, w: u32, k: u32) -> u32 {
        if self.rot_costs[w as usize].is_empty() {
            self.rot_costs[w as usize] = (0..w).map(|k| self.rot_cost_of(w, k)).collect();
        }
        self.rot_costs[w as usize][k as usize]
    }

    fn rot_cost_of(&self, w: u32, k: u32) -> u32 {
        if k == 0 {
            return 0;
        }
        self.target
            .emitted_cost(&Op::Rotl(VarId(0), k), w, self.slicing)
            .insns
    }

    fn terms_cost(&mut self, w: u32, s: u64) -> Cost {
        Cost {
            ops: amounts(s).map(|k| self.rot_cost(w, k)).sum(),
            terms: s.count_ones(),
        }
    }

    /// The cheapest plan for the amounts `s` on words of `w` bits.
    fn best(&mut self, w: u32, s: u64, depth: u32) -> (Cost, Plan) {
        let plain = (self.terms_cost(w, s), Plan::Terms(s));
        if depth == 0 || s.count_ones() < 2 {
            return plain;
        }
        if let Some(r) = self.memo.get(&(w, s, depth)) {
            return r.clone();
        }
        let mut best = plain;
        for d in 1..w {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            let (q, r) = pair(w, s, d);
            if q == 0 {
                continue;
            }
            let (cq, pq) = self.best(w, q, depth - 1);
            let (cr, pr) = self.best(w, r, depth - 1);
            let c = Cost {
                ops: self.rot_cost(w, d) + 1 + cq.ops + cr.ops,
                terms: cq.terms + cr.terms,
            };
            if c.total() < best.0.total() {
                best = (
                    c,
                    Plan::Factor {
                        d,
                        on_y: Box::new(pq),
                        rest: Box::new(pr),
                    },
                );
            }
        }
        self.memo.insert((w, s, depth), best.clone());
        best
    }
}

/// The amounts in the mask `s`, smallest first.
fn amounts(mut s: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (s != 0).then(|| {
            let k = s.trailing_zeros();
            s &= s - 1;
            k
        })
    })
}

/// Pairs the amounts of `s` along steps of `d` (modulo `w`): each maximal run k, k+d, k+2d, ...
/// of amounts in `s` pairs its first and second, its third and fourth, and so on. Returns the
/// pair starts and the unpaired amounts.
fn pair(w: u32, s: u64, d: u32) -> (u64, u64) {
    let bit = |k: u32| 1u64 << k;
    let (mut q, mut r, mut done) = (0u64, 0u64, 0u64);
    for k in amounts(s) {
        if done & bit(k) != 0 {
            continue;
        }
        // Back to the run's first amount (a full cycle starts anywhere).
        let mut start = k;
        loop {
            let p = (start + w - d) % w;
            if s & bit(p) == 0 || p == k {
                break;
            }
            start = p;
        }
        // Along the run: every other amount starts a pair; a last one alone is left over.
        let mut cur = start;
        let mut open: Option<u32> = None;
        while s & bit(cur) != 0 && done & bit(cur) == 0 {
            done |= bit(cur);
            open = match open {
                None => Some(cur),
                Some(first) => {
                    q |= bit(first);
                    None
                }
            };
            cur = (cur + d) % w;
        }
        if let Some(k) = open {
            r |= bit(k);
        }
    }
    (q, r)
}

/// Emits the instructions of `plan` on the word `x` of `w` bits; returns its terms.
fn emit(
    plan: &Plan,
    x: VarId,
    w: u32,
    body: &mut Vec<Instr>,
    fresh: &mut Fresh,
    terms: &mut Vec<VarId>,
) {
    match plan {
        Plan::Terms(s) => {
            for k in amounts(*s) {
                if k == 0 {
                    terms.push(x);
                } else {
                    let t = fresh.var(w);
                    body.push(Instr::Assign {
                        dst: t,
                        op: Op::Rotl(x, k),
                    });
                    terms.push(t);
                }
            }
        }
        Plan::Factor { d, on_y, rest } => {
            let rd = fresh.var(w);
            body.push(Instr::Assign {
                dst: rd,
                op: Op::Rotl(x, *d),
            });
            let y = fresh.var(w);
            body.push(Instr::Assign {
                dst: y,
                op: Op::Xor(x, rd),
            });
            emit(on_y, y, w, body, fresh, terms);
            emit(rest, x, w, body, fresh, terms);
        }
    }
}

fn run_node(node: &mut Node, search: &mut Search, st: &mut Stats) {
    let Trees {
        uses,
        internal,
        tree_of,
        rows,
    } = trees(node);
    if rows.is_empty() {
        return;
    }
    let bits = |v: VarId| node.vars[v.0 as usize].bits;
    // A leaf read only by its tree and defined by a rotation: (word, amount).
    let mut rot_of: Vec<Option<(VarId, u32)>> = vec![None; node.vars.len()];
    for ins in &node.body {
        if let Instr::Assign { dst, op } = ins {
            let w = bits(*dst);
            let r = match *op {
                Op::Rotl(x, k) => Some((x, k % w)),
                Op::Rotr(x, k) => Some((x, (w - k % w) % w)),
                _ => None,
            };
            if uses[dst.0 as usize] == 1 {
                rot_of[dst.0 as usize] = r;
            }
        }
    }
    // Per tree: the new plan of each word worth factoring, and the leaves kept as they are.
    struct Rewrite {
        plans: Vec<(VarId, Plan)>,
        kept: Vec<VarId>,
    }
    let mut rewrites: Vec<Option<Rewrite>> = Vec::with_capacity(rows.len());
    let mut saved = 0usize;
    for (_, root, leaves) in &rows {
        let w = bits(*root);
        if w > 64 {
            rewrites.push(None);
            continue;
        }
        // Amounts per word (a repeated amount cancels); leaves of each word.
        let mut by_word: BTreeMap<VarId, (u64, Vec<VarId>)> = BTreeMap::new();
        for &l in leaves {
            let (x, k) = rot_of[l.0 as usize].unwrap_or((l, 0));
            let e = by_word.entry(x).or_default();
            e.0 ^= 1 << k;
            e.1.push(l);
        }
        let mut plans = Vec::new();
        let mut kept = Vec::new();
        for (x, (s, ls)) in by_word {
            let before = ls.iter().map(|&l| {
                let k = rot_of[l.0 as usize].map_or(0, |r| r.1);
                search.rot_cost(w, k) + 1
            });
            let before: u32 = before.sum();
            let (c, plan) = search.best(w, s, DEPTH);
            // Each word's terms cost one joining XOR apiece, as its leaves did.
            let after = c.ops + c.terms;
            if after < before {
                saved += (before - after) as usize;
                plans.push((x, plan));
            } else {
                kept.extend(ls);
            }
        }
        rewrites.push((!plans.is_empty()).then_some(Rewrite { plans, kept }));
    }
    if rewrites.iter().all(Option::is_none) {
        return;
    }
    let mut fresh = Fresh::new(node, "nk_rs");
    let mut row_at: HashMap<usize, usize> = HashMap::default();
    for (r, (i, _, _)) in rows.iter().enumerate() {
        row_at.insert(*i, r);
    }
    let mut body = Vec::with_capacity(node.body.len());
    for (i, ins) in std::mem::take(&mut node.body).into_iter().enumerate() {
        if let Instr::Assign {
            dst,
            op: Op::Xor(..),
        } = ins
        {
            let t = tree_of[dst.0 as usize];
            if internal[dst.0 as usize] && t != usize::MAX && rewrites[t].is_some() {
                continue;
            }
        }
        let Some(rw) = row_at.get(&i).and_then(|&r| rewrites[r].as_ref()) else {
            body.push(ins);
            continue;
        };
        let root = rows[row_at[&i]].1;
        let w = bits(root);
        let mut terms = rw.kept.clone();
        for (x, plan) in &rw.plans {
            emit(plan, *x, w, &mut body, &mut fresh, &mut terms);
        }
        emit_sum(terms, root, w, &mut body, &mut fresh);
        st.add("trees", 1);
    }
    node.body = body;
    node.vars.extend(fresh.added);
    st.add("ops", saved);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Arch;

    #[test]
    fn pairing_follows_runs_and_cycles() {
        // 0, 5, 10 in a run of step 5: (0, 5) paired, 10 left; 3 alone.
        let s = 1 | 1 << 5 | 1 << 10 | 1 << 3;
        assert_eq!(pair(32, s, 5), (1, 1 << 10 | 1 << 3));
        // The run wraps: 30 -> 3 (mod 32, step 5); 30 starts it.
        assert_eq!(pair(32, 1 << 30 | 1 << 3, 5), (1 << 30, 0));
        // A full cycle of step 16 on 32 bits: one pair.
        assert_eq!(pair(32, 1 << 7 | 1 << 23, 16).0.count_ones(), 1);
    }

    #[test]
    fn the_budget_bounds_the_search() {
        let mut s = Search::new(Target::new(Arch::Avx2), Slicing::V);
        s.budget = 100;
        let m = (0..64).step_by(3).fold(0u64, |m, k| m | 1 << k);
        let (c, _) = s.best(64, m, DEPTH);
        assert_eq!(s.budget, 0);
        assert!(c.total() <= s.terms_cost(64, m).total());
        // Spent: the next set gets its plain form.
        let (c, plan) = s.best(64, m ^ 2, DEPTH);
        assert!(matches!(plan, Plan::Terms(_)));
        assert_eq!(c, s.terms_cost(64, m ^ 2));
    }

    #[test]
    fn pyjamask_rows_get_cheaper_on_avx2() {
        let mut s = Search::new(Target::new(Arch::Avx2), Slicing::V);
        let row0 = [0, 1, 3, 8, 13, 18, 19, 24, 25, 26, 30];
        let m = row0.iter().fold(0u64, |m, k| m | 1 << k);
        // 8 rotations of 3 instructions, 2 byte shuffles, 10 XORs.
        assert_eq!(s.terms_cost(32, m).total(), 36);
        let (c, _) = s.best(32, m, DEPTH);
        assert!(c.total() <= 28, "{c:?}");
    }
}
