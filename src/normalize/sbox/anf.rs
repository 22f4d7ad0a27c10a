//! Generic syntheses: algebraic normal form with shared monomials and shared
//! XOR sums, and Shannon (multiplexer) / Davio decompositions with shared
//! sub-functions.

use super::builder::Builder;
use super::{Circuit, Wire};
use crate::fxhash::FxHashMap as HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Bit `j` (counted from the MSB of an `n_out`-bit entry) of every entry.
pub fn output_column(n_out: usize, table: &[u64], j: usize) -> Vec<bool> {
    table
        .iter()
        .map(|&e| (e >> (n_out - 1 - j)) & 1 == 1)
        .collect()
}

/// The input wire for index bit position `p` (LSB = 0).
fn var(n_in: usize, p: usize) -> Wire {
    Wire::Input(n_in - 1 - p)
}

/// ANF coefficients by the binary Möbius transform.
pub fn anf_coeffs(col: &[bool]) -> Vec<bool> {
    let mut a = col.to_vec();
    let n = a.len();
    let mut step = 1;
    while step < n {
        for x in 0..n {
            if x & step != 0 {
                a[x] ^= a[x ^ step];
            }
        }
        step <<= 1;
    }
    a
}

/// Bound on the work of sharing XOR sums, in pair-counting steps. Each step is charged
/// `len * len / 2` per sum (what recounting every pair takes, as the implementation did
/// before its counts were incremental), whatever the incremental count actually spends:
/// the step at which a large table stops sharing, hence its circuit, is fixed by that
/// arithmetic.
pub(super) const XOR_SHARE_BUDGET: u64 = 30_000_000;

/// Shares common XOR pairs among several sums (greedy, most frequent pair
/// first, ties broken by smallest pair) and returns one wire per sum.
///
/// Terms are numbered in order of first appearance and each sum is a sorted set of
/// term numbers (duplicates cancel). A step takes the pair `(x, y)`, `x < y`, held by
/// the most sums (at least two; ties: the smallest key `(x << 32) | y`), builds
/// `w = x ^ y` and rewrites every sum holding both: `x` and `y` leave it and `w`'s
/// number is toggled (the builder hash-conses, so `w` may be a term already, even one
/// of that sum, which then loses it). Sharing stops when no pair is held twice or when
/// the next step would exceed [`XOR_SHARE_BUDGET`] (charged as a full recount, see
/// there).
///
/// The counts are incremental ([`PairIndex`]): each term has a bit set of the sums
/// holding it, so a pair's count is the population count of the intersection, and the
/// sums a step rewrites are the bits of `x`'s set and `y`'s. Pairs are counted once, at
/// the first step; after that a step recounts only the pairs of one of `x`, `y`, `w` with
/// another term of a rewritten sum (the only counts it can change), and the best pair
/// comes from per-count min-heaps of keys with stale entries dropped when met.
pub fn shared_xor_sums(b: &mut Builder, sums: Vec<Vec<Wire>>) -> Vec<Wire> {
    shared_xor_sums_within(b, sums, XOR_SHARE_BUDGET)
}

/// The terms of `sums` numbered in order of first appearance, the numbering, each sum
/// as a sorted set of term numbers (duplicates cancel: x ^ x = 0), and each sum's
/// constant.
type NumberedSums = (Vec<Wire>, HashMap<Wire, u32>, Vec<Vec<u32>>, Vec<bool>);

/// Term `w`'s number, numbering it next when it is new (and saying so).
fn term_number(terms: &mut Vec<Wire>, index: &mut HashMap<Wire, u32>, w: Wire) -> (u32, bool) {
    if let Some(&id) = index.get(&w) {
        return (id, false);
    }
    terms.push(w);
    index.insert(w, (terms.len() - 1) as u32);
    ((terms.len() - 1) as u32, true)
}

fn number_terms(sums: Vec<Vec<Wire>>) -> NumberedSums {
    let mut terms: Vec<Wire> = Vec::new();
    let mut index: HashMap<Wire, u32> = HashMap::default();
    let mut sets: Vec<Vec<u32>> = Vec::new();
    let mut constant = Vec::new();
    for s in sums {
        let mut set = Vec::new();
        let mut c = false;
        for w in s {
            match w {
                Wire::Const(v) => c ^= v,
                _ => set.push(term_number(&mut terms, &mut index, w).0),
            }
        }
        set.sort_unstable();
        let mut dedup: Vec<u32> = Vec::new();
        for id in set {
            if dedup.last() == Some(&id) {
                dedup.pop();
            } else {
                dedup.push(id);
            }
        }
        sets.push(dedup);
        constant.push(c);
    }
    (terms, index, sets, constant)
}

/// One wire per sum: its terms XORed in increasing number, then its constant.
fn xor_sets(b: &mut Builder, terms: &[Wire], sets: &[Vec<u32>], constant: Vec<bool>) -> Vec<Wire> {
    sets.iter()
        .zip(constant)
        .map(|(s, c)| {
            let mut acc = Wire::Const(false);
            for &t in s {
                acc = b.xor(acc, terms[t as usize]);
            }
            b.xor(acc, Wire::Const(c))
        })
        .collect()
}

/// The pair key of terms `a != b`: `(min << 32) | max`.
fn pair_key(a: u32, b: u32) -> u64 {
    let (x, y) = if a < b { (a, b) } else { (b, a) };
    ((x as u64) << 32) | y as u64
}

/// What a full recount charges for one sum.
fn half_square(len: usize) -> u64 {
    (len as u64) * (len as u64) / 2
}

/// Which sums hold which terms, and the pairs of terms by the number of sums holding
/// both, for [`shared_xor_sums`].
struct PairIndex {
    /// 64-bit words per term in `member`.
    words: usize,
    /// Term `t`'s bit set of sums: `member[t * words..(t + 1) * words]`, bit `s` set
    /// when sum `s` holds `t`.
    member: Vec<u64>,
    /// `by_count[c]` (`c >= 2`): a min-heap of the keys of pairs that were held by `c`
    /// sums when pushed. Every pair held by `c >= 2` sums now has an entry there; an
    /// entry whose pair's count has changed since is stale and dropped when it comes
    /// to the top.
    by_count: Vec<BinaryHeap<Reverse<u64>>>,
}

impl PairIndex {
    /// No terms yet; `n_sets` sums.
    fn new(n_sets: usize) -> PairIndex {
        PairIndex {
            words: n_sets.div_ceil(64),
            member: Vec::new(),
            by_count: (0..=n_sets).map(|_| BinaryHeap::new()).collect(),
        }
    }

    /// Adds a term held by no sum (the next number).
    fn add_term(&mut self) {
        self.member.resize(self.member.len() + self.words, 0);
    }

    fn row(&self, t: u32) -> &[u64] {
        let start = t as usize * self.words;
        &self.member[start..start + self.words]
    }

    /// Sum `s` gains term `t` if it lacked it, else loses it.
    fn toggle(&mut self, t: u32, s: usize) {
        self.member[t as usize * self.words + s / 64] ^= 1 << (s % 64);
    }

    /// The number of sums holding both `x` and `y`.
    fn count(&self, x: u32, y: u32) -> usize {
        self.row(x)
            .iter()
            .zip(self.row(y))
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }

    /// The sums holding both `x` and `y`, in increasing order, into `out`.
    fn sums_with_both(&self, x: u32, y: u32, out: &mut Vec<usize>) {
        out.clear();
        for (i, (a, b)) in self.row(x).iter().zip(self.row(y)).enumerate() {
            let mut bits = a & b;
            while bits != 0 {
                out.push(i * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// Fills the heaps with every pair held by two sums or more (the heaps must be
    /// empty; `sets` must agree with `member`). A row at a time: the pairs `(x, y > x)`
    /// are counted in a dense array indexed by `y`, `O(sum of len * len / 2)` in all.
    fn count_all(&mut self, sets: &[Vec<u32>]) {
        let n = self.member.len() / self.words.max(1);
        let mut firsts: Vec<Vec<Reverse<u64>>> = vec![Vec::new(); self.by_count.len()];
        let mut cnt = vec![0u32; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut holding: Vec<usize> = Vec::new();
        for x in 0..n as u32 {
            // The sums holding x (x with itself).
            self.sums_with_both(x, x, &mut holding);
            if holding.len() < 2 {
                continue;
            }
            for &s in &holding {
                let set = &sets[s];
                let pos = set.partition_point(|&t| t <= x);
                for &y in &set[pos..] {
                    if cnt[y as usize] == 0 {
                        touched.push(y);
                    }
                    cnt[y as usize] += 1;
                }
            }
            // Ascending `y`: scan the row where it is dense, else sort what was touched.
            if touched.len() * 16 < n - x as usize {
                touched.sort_unstable();
            } else {
                touched.clear();
                touched.extend((x + 1..n as u32).filter(|&y| cnt[y as usize] != 0));
            }
            for &y in &touched {
                let c = std::mem::take(&mut cnt[y as usize]) as usize;
                if c >= 2 {
                    firsts[c].push(Reverse(((x as u64) << 32) | y as u64));
                }
            }
            touched.clear();
        }
        for (heap, keys) in self.by_count.iter_mut().zip(firsts) {
            // Keys are pushed in increasing order: already a min-heap.
            *heap = BinaryHeap::from(keys);
        }
    }

    /// Records pair `key`'s current count (after a change).
    fn push(&mut self, key: u64) {
        let c = self.count((key >> 32) as u32, key as u32);
        if c >= 2 {
            self.by_count[c].push(Reverse(key));
        }
    }

    /// The key of the pair held by the most sums (at least two), ties broken by the
    /// smallest key.
    fn best(&mut self) -> Option<u64> {
        for c in (2..self.by_count.len()).rev() {
            while let Some(&Reverse(key)) = self.by_count[c].peek() {
                if self.count((key >> 32) as u32, key as u32) == c {
                    return Some(key);
                }
                self.by_count[c].pop();
            }
        }
        None
    }
}

/// [`shared_xor_sums`] with the work bound `budget`.
pub(super) fn shared_xor_sums_within(
    b: &mut Builder,
    sums: Vec<Vec<Wire>>,
    budget: u64,
) -> Vec<Wire> {
    let (mut terms, mut index, mut sets, constant) = number_terms(sums);
    let mut pairs = PairIndex::new(sets.len());
    for _ in 0..terms.len() {
        pairs.add_term();
    }
    for (s, set) in sets.iter().enumerate() {
        for &t in set {
            pairs.toggle(t, s);
        }
    }
    // What a full recount of the current sums would charge, kept up to date.
    let mut cost: u64 = sets.iter().map(|s| half_square(s.len())).sum();
    let mut work: u64 = 0;
    let mut counted = false;
    let mut rewritten: Vec<usize> = Vec::new();
    let mut changed: Vec<u64> = Vec::new();
    loop {
        if work + cost > budget {
            break;
        }
        work += cost;
        if !counted {
            pairs.count_all(&sets);
            counted = true;
        }
        let Some(pair) = pairs.best() else { break };
        let (x, y) = ((pair >> 32) as u32, pair as u32);
        let w = b.xor(terms[x as usize], terms[y as usize]);
        let (id, new) = term_number(&mut terms, &mut index, w);
        if new {
            pairs.add_term();
        }
        pairs.sums_with_both(x, y, &mut rewritten);
        changed.clear();
        for &s in &rewritten {
            let set = &mut sets[s];
            cost -= half_square(set.len());
            // Only the counts of x, y and id with another term of the sum can change; the
            // rewritten sum holds no term that the sum did not hold before, except id.
            for &z in set.iter() {
                for t in [x, y, id] {
                    if z != t {
                        changed.push(pair_key(t, z));
                    }
                }
            }
            set.retain(|&t| t != x && t != y);
            pairs.toggle(x, s);
            pairs.toggle(y, s);
            match set.binary_search(&id) {
                Ok(pos) => {
                    set.remove(pos);
                }
                Err(pos) => set.insert(pos, id),
            }
            pairs.toggle(id, s);
            cost += half_square(set.len());
        }
        changed.sort_unstable();
        changed.dedup();
        for &key in &changed {
            pairs.push(key);
        }
    }
    xor_sets(b, &terms, &sets, constant)
}

/// ANF synthesis: monomials are built incrementally (each from an already
/// built sub-monomial and one variable) and shared across output bits; the
/// XOR sums share common pairs.
pub fn anf_circuit(n_in: usize, n_out: usize, table: &[u64]) -> Circuit {
    let (mut b, sums) = anf_sums(n_in, n_out, table);
    let outs = shared_xor_sums(&mut b, sums);
    b.finish(outs)
}

/// The monomials of [`anf_circuit`], built, and the sum of monomials of each output bit.
pub(super) fn anf_sums(n_in: usize, n_out: usize, table: &[u64]) -> (Builder, Vec<Vec<Wire>>) {
    let mut b = Builder::new(n_in);
    let coeffs: Vec<Vec<bool>> = (0..n_out)
        .map(|j| anf_coeffs(&output_column(n_out, table, j)))
        .collect();
    // All monomials used, by increasing degree then value.
    let size = 1usize << n_in;
    let mut used: Vec<usize> = (0..size).filter(|&m| coeffs.iter().any(|c| c[m])).collect();
    used.sort_by_key(|&m| (m.count_ones(), m));
    let mut mono: HashMap<usize, Wire> = HashMap::default();
    mono.insert(0, Wire::Const(true));
    for p in 0..n_in {
        mono.insert(1 << p, var(n_in, p));
    }
    fn build(m: usize, n_in: usize, b: &mut Builder, mono: &mut HashMap<usize, Wire>) -> Wire {
        if let Some(&w) = mono.get(&m) {
            return w;
        }
        // Prefer a split whose larger part already exists.
        let mut choice = None;
        for p in 0..n_in {
            if m & (1 << p) != 0 && mono.contains_key(&(m & !(1 << p))) {
                choice = Some(p);
                break;
            }
        }
        let p = choice.unwrap_or(m.trailing_zeros() as usize);
        let rest = build(m & !(1 << p), n_in, b, mono);
        let w = b.and(rest, var(n_in, p));
        mono.insert(m, w);
        w
    }
    for &m in &used {
        build(m, n_in, &mut b, &mut mono);
    }
    let sums: Vec<Vec<Wire>> = coeffs
        .iter()
        .map(|c| used.iter().filter(|&&m| c[m]).map(|m| mono[m]).collect())
        .collect();
    (b, sums)
}

/// How a node of the decision diagram is decomposed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Decomp {
    /// `f = x ? f1 : f0`
    Shannon,
    /// `f = f0 ^ (x & (f0 ^ f1))`, with `f0 ^ f1` a shared sub-function.
    Davio,
}

/// Decision-diagram synthesis: the variables are split in `order` (a
/// permutation of the inputs); sub-functions are shared by truth table.
pub fn dd_circuit(
    n_in: usize,
    n_out: usize,
    table: &[u64],
    order: &[usize],
    how: Decomp,
) -> Circuit {
    let mut b = Builder::new(n_in);
    // Re-index the table so that the variable split at level l is index bit
    // n_in-1-l (the highest first).
    let size = 1usize << n_in;
    let mut cols: Vec<Vec<bool>> = vec![vec![false; size]; n_out];
    for (x, &entry) in table.iter().enumerate().take(size) {
        // y: bit (n_in-1-l) of y = input order[l] of x.
        let mut y = 0;
        for (l, &inp) in order.iter().enumerate() {
            let bit = (x >> (n_in - 1 - inp)) & 1;
            y |= bit << (n_in - 1 - l);
        }
        for (j, col) in cols.iter_mut().enumerate() {
            col[y] = (entry >> (n_out - 1 - j)) & 1 == 1;
        }
    }
    let mut memo: HashMap<Vec<bool>, Wire> = HashMap::default();
    fn go(
        tt: &[bool],
        level: usize,
        order: &[usize],
        how: Decomp,
        b: &mut Builder,
        memo: &mut HashMap<Vec<bool>, Wire>,
    ) -> Wire {
        if tt.iter().all(|&v| !v) {
            return Wire::Const(false);
        }
        if tt.iter().all(|&v| v) {
            return Wire::Const(true);
        }
        if let Some(&w) = memo.get(tt) {
            return w;
        }
        let neg: Vec<bool> = tt.iter().map(|&v| !v).collect();
        if let Some(&w) = memo.get(&neg) {
            let r = b.not(w);
            memo.insert(tt.to_vec(), r);
            return r;
        }
        let half = tt.len() / 2;
        let x = Wire::Input(order[level]);
        let (lo, hi) = tt.split_at(half);
        let r = if lo == hi {
            go(lo, level + 1, order, how, b, memo)
        } else {
            let f0 = go(lo, level + 1, order, how, b, memo);
            match how {
                Decomp::Shannon => {
                    let f1 = go(hi, level + 1, order, how, b, memo);
                    b.mux(x, f0, f1)
                }
                Decomp::Davio => {
                    let d: Vec<bool> = lo.iter().zip(hi).map(|(p, q)| p ^ q).collect();
                    let g = go(&d, level + 1, order, how, b, memo);
                    let t = b.and(x, g);
                    b.xor(f0, t)
                }
            }
        };
        memo.insert(tt.to_vec(), r);
        r
    }
    let outs: Vec<Wire> = cols
        .iter()
        .map(|c| go(c, 0, order, how, &mut b, &mut memo))
        .collect();
    b.finish(outs)
}

/// The first implementation of [`shared_xor_sums_within`], which recounted every pair at
/// every step: the tests check that both build the same circuits.
#[cfg(test)]
pub(super) fn shared_xor_sums_reference(
    b: &mut Builder,
    sums: Vec<Vec<Wire>>,
    budget: u64,
) -> Vec<Wire> {
    // The numbering and the final XORs are the current code's; only the counting differs.
    let (mut terms, mut index, mut sets, constant) = number_terms(sums);
    let mut work: u64 = 0;
    // Pair counts keyed (x << 32) | y, x < y; the table is reused from one step to the next.
    let mut counts: HashMap<u64, u32> = HashMap::default();
    loop {
        let cost: u64 = sets
            .iter()
            .map(|s| (s.len() as u64) * (s.len() as u64) / 2)
            .sum();
        if work + cost > budget {
            break;
        }
        work += cost;
        counts.clear();
        for s in &sets {
            for i in 0..s.len() {
                for k in i + 1..s.len() {
                    *counts
                        .entry(((s[i] as u64) << 32) | s[k] as u64)
                        .or_insert(0) += 1;
                }
            }
        }
        let mut best: Option<(u64, u32)> = None;
        for (&p, &c) in &counts {
            if c < 2 {
                continue;
            }
            best = match best {
                None => Some((p, c)),
                Some((bp, bc)) => {
                    if c > bc || (c == bc && p < bp) {
                        Some((p, c))
                    } else {
                        Some((bp, bc))
                    }
                }
            };
        }
        let Some((pair, _)) = best else { break };
        let (x, y) = ((pair >> 32) as u32, pair as u32);
        let w = b.xor(terms[x as usize], terms[y as usize]);
        let (id, _) = term_number(&mut terms, &mut index, w);
        for s in sets.iter_mut() {
            if s.binary_search(&x).is_ok() && s.binary_search(&y).is_ok() {
                s.retain(|&t| t != x && t != y);
                match s.binary_search(&id) {
                    Ok(pos) => {
                        s.remove(pos);
                    }
                    Err(pos) => s.insert(pos, id),
                }
            }
        }
    }
    xor_sets(b, &terms, &sets, constant)
}
