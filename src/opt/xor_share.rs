//! XOR sharing across XOR trees, Paar's greedy heuristic (`--disable xor-share`).
//!
//! Requires: verified IR. Guarantees: verified IR computing the same outputs, with at most as
//! many XOR operations as before (plus `copy`/`const` instructions for trees that collapse,
//! which `copy-prop` removes). A *tree* is a maximal group of `xor`s of one width in which
//! every value but the root is used once, by another `xor` of the tree, and is no output; its
//! *leaves* are the values it XORs, a leaf that occurs an even number of times cancelling.
//! Within each group of trees of one width that share leaves, the pair of signals (leaves or
//! earlier shared XORs) found together in the most trees becomes one new `xor`, used by all of
//! them, until no pair is in two trees (Paar, 1997). Each tree then XORs what is left of it as
//! a balanced tree, ending in its root's variable, at the root's position. CSE only merges
//! XORs that are written alike; a linear layer whose outputs share sums of inputs in other
//! groupings (PHOTON's MixColumnSerial, 32 outputs of 12–23 terms: 475 XORs per column
//! written out, 227 shared) gets the sharing here. Work is bounded: a group of more than
//! [`MAX_GROUP_ROWS`] trees, or pair counting beyond [`PAIR_BUDGET`] per node, is left as
//! written.
//!
//! Stats: `shared` (new shared XORs), `xors` (XORs removed, net).
//!
//! Bitslice only (measured there). Before (`x` = a ^ b ^ c and `y` = a ^ b ^ d, written in
//! different groupings, so CSE finds nothing to merge):
//! ```text
//! t:1 = xor a b
//! x:1 = xor t c
//! u:1 = xor d a
//! y:1 = xor u b
//! ```
//! After (`tests/opt/xor-share/doc_example.ir`):
//! ```text
//! nk_xs8:1 = xor a b
//! x:1 = xor c nk_xs8
//! y:1 = xor d nk_xs8
//! ```

use super::Stats;
use crate::fxhash::FxHashMap as HashMap;
use crate::ir::{Instr, Node, Op, Program, Var, VarId};
use std::collections::BTreeSet;

/// Groups of more trees than this are left as written (pair counting is quadratic in a tree's
/// size and runs once per new shared XOR).
pub const MAX_GROUP_ROWS: usize = 1024;

/// Pair-counting steps allowed per node before the pass stops sharing in it.
pub const PAIR_BUDGET: u64 = 200_000_000;

pub fn run(prog: &mut Program) -> Stats {
    let mut st = Stats::default();
    // Measured in bitslice only (docs/history.md, "Stop 30"); vsliced and hsliced XOR trees are left
    // as written.
    if prog.slicing != crate::ir::Slicing::B {
        return st;
    }
    for node in &mut prog.nodes {
        run_node(node, &mut st);
    }
    st
}

/// A signal of a tree: an IR value (leaf) or the k-th shared XOR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Sig {
    Leaf(VarId),
    New(usize),
}

/// The XOR trees of a node (the module doc's definition; also used by `rot_sum`).
pub(super) struct Trees {
    /// Per value: how often it is read (an output counts twice).
    pub uses: Vec<usize>,
    /// Per value: an `xor` inside a tree (used once, by an `xor` of its width; no output).
    pub internal: Vec<bool>,
    /// Per value: the tree whose root or internal `xor` it is (`usize::MAX`: none).
    pub tree_of: Vec<usize>,
    /// Per tree: its root's body position, the root, and its leaves (odd multiplicity,
    /// sorted).
    pub rows: Vec<(usize, VarId, Vec<VarId>)>,
}

fn xor_of(ins: &Instr) -> Option<(VarId, VarId, VarId)> {
    match ins {
        Instr::Assign {
            dst,
            op: Op::Xor(a, b),
        } => Some((*dst, *a, *b)),
        _ => None,
    }
}

pub(super) fn trees(node: &Node) -> Trees {
    let n = node.vars.len();
    // Uses of every value: count and the (single) user's index.
    let mut uses = vec![0usize; n];
    let mut user = vec![usize::MAX; n];
    for (i, ins) in node.body.iter().enumerate() {
        for v in ins.uses() {
            uses[v.0 as usize] += 1;
            user[v.0 as usize] = i;
        }
    }
    for o in node.flat_outputs() {
        uses[o.0 as usize] += 2;
    }
    let mut def: Vec<Option<(VarId, VarId)>> = vec![None; n];
    for ins in &node.body {
        if let Some((d, a, b)) = xor_of(ins) {
            def[d.0 as usize] = Some((a, b));
        }
    }
    let bits = |v: VarId| node.vars[v.0 as usize].bits;
    // Internal: an xor used once, by an xor of its width.
    let internal: Vec<bool> = (0..n)
        .map(|v| {
            def[v].is_some()
                && uses[v] == 1
                && xor_of(&node.body[user[v]])
                    .is_some_and(|(d, _, _)| bits(d) == bits(VarId(v as u32)))
        })
        .collect();
    // Trees: root position, root, leaves (odd multiplicity).
    let mut rows: Vec<(usize, VarId, Vec<VarId>)> = Vec::new();
    let mut tree_of = vec![usize::MAX; n];
    for (i, ins) in node.body.iter().enumerate() {
        let Some((root, _, _)) = xor_of(ins) else {
            continue;
        };
        if internal[root.0 as usize] {
            continue;
        }
        let mut odd: BTreeSet<VarId> = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            if v == root || internal[v.0 as usize] {
                tree_of[v.0 as usize] = rows.len();
                let (a, b) = def[v.0 as usize].expect("an xor");
                stack.push(a);
                stack.push(b);
            } else if !odd.remove(&v) {
                odd.insert(v);
            }
        }
        rows.push((i, root, odd.into_iter().collect()));
    }
    Trees {
        uses,
        internal,
        tree_of,
        rows,
    }
}

fn run_node(node: &mut Node, st: &mut Stats) {
    let Trees {
        internal,
        tree_of,
        rows,
        ..
    } = trees(node);
    let mut rows: Vec<(usize, VarId, Vec<Sig>)> = rows
        .into_iter()
        .map(|(i, root, leaves)| (i, root, leaves.into_iter().map(Sig::Leaf).collect()))
        .collect();
    let widths: Vec<u32> = node.vars.iter().map(|v| v.bits).collect();
    let bits = |v: VarId| widths[v.0 as usize];
    if rows.len() < 2 {
        return;
    }
    // Groups: trees of one width connected by shared leaves (union-find over rows).
    let mut parent: Vec<usize> = (0..rows.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut first_row: HashMap<(u32, Sig), usize> = HashMap::default();
    for (r, (_, root, leaves)) in rows.iter().enumerate() {
        for &l in leaves {
            match first_row.get(&(bits(*root), l)) {
                Some(&q) => {
                    let (a, b) = (find(&mut parent, q), find(&mut parent, r));
                    if a != b {
                        parent[a.max(b)] = a.min(b);
                    }
                }
                None => {
                    first_row.insert((bits(*root), l), r);
                }
            }
        }
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::default();
    for r in 0..rows.len() {
        let g = find(&mut parent, r);
        groups.entry(g).or_default().push(r);
    }
    let mut order: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() >= 2).collect();
    order.sort();
    // Paar's greedy heuristic per group.
    let mut news: Vec<(Sig, Sig, u32)> = Vec::new(); // shared XORs: operands, width
    let mut budget = PAIR_BUDGET;
    'groups: for g in order {
        if g.len() > MAX_GROUP_ROWS {
            continue;
        }
        let w = bits(rows[g[0]].1);
        // Pair counts kept up to date as pairs are replaced (recounting every round cost
        // 1.6 s on PHOTON's 96 column groups).
        let mut count: HashMap<(Sig, Sig), u32> = HashMap::default();
        for &r in &g {
            let s = &rows[r].2;
            let k = s.len() as u64;
            if k * k / 2 > budget {
                break 'groups;
            }
            budget -= k * k / 2;
            for i in 0..s.len() {
                for j in i + 1..s.len() {
                    *count.entry((s[i], s[j])).or_insert(0) += 1;
                }
            }
        }
        // The most frequent pair, ties to the smallest (deterministic).
        while let Some((&(a, b), &c)) = count
            .iter()
            .max_by(|x, y| x.1.cmp(y.1).then_with(|| y.0.cmp(x.0)))
        {
            if c < 2 {
                break;
            }
            let k = count.len() as u64;
            if k > budget {
                break 'groups;
            }
            budget -= k;
            let t = Sig::New(news.len());
            news.push((a, b, w));
            let key = |x: Sig, y: Sig| if x < y { (x, y) } else { (y, x) };
            for &r in &g {
                let s = &mut rows[r].2;
                if s.binary_search(&a).is_err() || s.binary_search(&b).is_err() {
                    continue;
                }
                let len = s.len() as u64;
                budget = budget.saturating_sub(2 * len);
                // The row's pairs with a or b go (the pair (a, b) itself once).
                for &x in s.iter() {
                    if x == a || x == b {
                        continue;
                    }
                    for y in [a, b] {
                        *count.get_mut(&key(x, y)).expect("counted") -= 1;
                    }
                }
                *count.get_mut(&key(a, b)).expect("counted") -= 1;
                s.retain(|x| *x != a && *x != b);
                for &x in s.iter() {
                    *count.entry(key(x, t)).or_insert(0) += 1;
                }
                let at = s.binary_search(&t).unwrap_err();
                s.insert(at, t);
            }
            count.retain(|_, v| *v > 0);
        }
    }
    // Emission: a tree that shares nothing keeps its instructions; the others are rebuilt at
    // their root's position.
    let changed: Vec<bool> = rows
        .iter()
        .map(|r| r.2.iter().any(|s| matches!(s, Sig::New(_))))
        .collect();
    if !changed.iter().any(|&c| c) {
        return;
    }
    let mut fresh = Fresh::new(node, "nk_xs");
    let mut new_var: Vec<Option<VarId>> = vec![None; news.len()];
    let mut row_at: HashMap<usize, usize> = HashMap::default();
    for (r, (i, _, _)) in rows.iter().enumerate() {
        row_at.insert(*i, r);
    }
    let mut body = Vec::with_capacity(node.body.len());
    let (mut removed, mut added) = (0usize, 0usize);
    for (i, ins) in std::mem::take(&mut node.body).into_iter().enumerate() {
        if let Some((d, _, _)) = xor_of(&ins) {
            let t = tree_of[d.0 as usize];
            if internal[d.0 as usize] && t != usize::MAX && changed[t] {
                removed += 1;
                continue;
            }
        }
        let Some(&r) = row_at.get(&i).filter(|&&r| changed[r]) else {
            body.push(ins);
            continue;
        };
        removed += 1;
        let (_, root, ref sigs) = rows[r];
        let w = bits(root);
        // The shared XORs this tree needs, operands first.
        let mut vals: Vec<VarId> = Vec::with_capacity(sigs.len());
        for &s in sigs {
            vals.push(materialise(
                s,
                &news,
                &mut new_var,
                &mut body,
                &mut fresh,
                &mut added,
            ));
        }
        added += emit_sum(vals, root, w, &mut body, &mut fresh);
    }
    node.body = body;
    node.vars.extend(fresh.added);
    st.add("shared", new_var.iter().filter(|v| v.is_some()).count());
    st.add("xors", removed.saturating_sub(added));
}

/// Emits `root = ` the XOR of `vals` (of width `w`) into `body`: a balanced tree (pairs, then
/// pairs of pairs; the last XOR writes the root), a copy for one value, zero for none.
/// Returns the XORs emitted (also used by `rot_sum`).
pub(super) fn emit_sum(
    mut vals: Vec<VarId>,
    root: VarId,
    w: u32,
    body: &mut Vec<Instr>,
    fresh: &mut Fresh,
) -> usize {
    let mut added = 0;
    match vals.len() {
        0 => body.push(Instr::Assign {
            dst: root,
            op: Op::Const(0),
        }),
        1 => body.push(Instr::Assign {
            dst: root,
            op: Op::Copy(vals[0]),
        }),
        _ => {
            while vals.len() > 2 {
                let mut next = Vec::with_capacity(vals.len() / 2 + 1);
                for p in vals.chunks(2) {
                    if p.len() == 2 {
                        let t = fresh.var(w);
                        body.push(Instr::Assign {
                            dst: t,
                            op: Op::Xor(p[0], p[1]),
                        });
                        added += 1;
                        next.push(t);
                    } else {
                        next.push(p[0]);
                    }
                }
                vals = next;
            }
            body.push(Instr::Assign {
                dst: root,
                op: Op::Xor(vals[0], vals[1]),
            });
            added += 1;
        }
    }
    added
}

/// New variables of a node: unique names `PREFIXk`, numbered after the node's own (also
/// used by `rot_sum`). The caller appends `added` to the node's variables when done.
pub(super) struct Fresh {
    names: BTreeSet<String>,
    pub(super) added: Vec<Var>,
    base: usize,
    prefix: &'static str,
}

impl Fresh {
    pub(super) fn new(node: &Node, prefix: &'static str) -> Fresh {
        Fresh {
            names: node.vars.iter().map(|v| v.name.to_string()).collect(),
            added: Vec::new(),
            base: node.vars.len(),
            prefix,
        }
    }

    pub(super) fn var(&mut self, bits: u32) -> VarId {
        let id = self.base + self.added.len();
        let mut k = id;
        let name = loop {
            let s = format!("{}{}", self.prefix, k);
            if !self.names.contains(&s) {
                break s;
            }
            k += 1;
        };
        self.names.insert(name.clone());
        self.added.push(Var {
            name: name.into(),
            bits,
        });
        VarId(id as u32)
    }
}

/// The variable of signal `s`, emitting the shared XOR (and those it reads) the first time.
fn materialise(
    s: Sig,
    news: &[(Sig, Sig, u32)],
    new_var: &mut [Option<VarId>],
    body: &mut Vec<Instr>,
    fresh: &mut Fresh,
    xors: &mut usize,
) -> VarId {
    match s {
        Sig::Leaf(v) => v,
        Sig::New(k) => {
            if let Some(v) = new_var[k] {
                return v;
            }
            // Operands first (an explicit stack: chains of shared XORs may be long).
            let mut stack = vec![k];
            while let Some(&top) = stack.last() {
                let (a, b, w) = news[top];
                let pending: Vec<usize> = [a, b]
                    .iter()
                    .filter_map(|x| match *x {
                        Sig::New(j) if new_var[j].is_none() => Some(j),
                        _ => None,
                    })
                    .collect();
                if pending.is_empty() {
                    stack.pop();
                    if new_var[top].is_some() {
                        continue;
                    }
                    let var = |x: Sig| match x {
                        Sig::Leaf(v) => v,
                        Sig::New(j) => new_var[j].expect("operands first"),
                    };
                    let t = fresh.var(w);
                    body.push(Instr::Assign {
                        dst: t,
                        op: Op::Xor(var(a), var(b)),
                    });
                    *xors += 1;
                    new_var[top] = Some(t);
                } else {
                    stack.extend(pending);
                }
            }
            new_var[k].expect("emitted")
        }
    }
}
