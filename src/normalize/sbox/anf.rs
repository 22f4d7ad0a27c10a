//! Generic syntheses: algebraic normal form with shared monomials and shared
//! XOR sums, and Shannon (multiplexer) / Davio decompositions with shared
//! sub-functions.

use super::builder::Builder;
use super::{Circuit, Wire};
use crate::fxhash::FxHashMap as HashMap;

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

/// Maximum number of pair-counting steps spent sharing XOR sums.
const XOR_SHARE_BUDGET: u64 = 30_000_000;

/// Shares common XOR pairs among several sums (greedy, most frequent pair
/// first, ties broken by smallest pair) and returns one wire per sum.
pub fn shared_xor_sums(b: &mut Builder, sums: Vec<Vec<Wire>>) -> Vec<Wire> {
    // Terms are numbered in order of first appearance.
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
                _ => {
                    let id = *index.entry(w).or_insert_with(|| {
                        terms.push(w);
                        (terms.len() - 1) as u32
                    });
                    set.push(id);
                }
            }
        }
        // Cancel duplicates (x ^ x = 0).
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
    let mut work: u64 = 0;
    // Pair counts keyed (x << 32) | y, x < y; the table is reused from one step to the next.
    let mut counts: HashMap<u64, u32> = HashMap::default();
    loop {
        let cost: u64 = sets
            .iter()
            .map(|s| (s.len() as u64) * (s.len() as u64) / 2)
            .sum();
        if work + cost > XOR_SHARE_BUDGET {
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
        let id = match index.get(&w) {
            Some(&id) => id,
            None => {
                terms.push(w);
                index.insert(w, (terms.len() - 1) as u32);
                (terms.len() - 1) as u32
            }
        };
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

/// ANF synthesis: monomials are built incrementally (each from an already
/// built sub-monomial and one variable) and shared across output bits; the
/// XOR sums share common pairs.
pub fn anf_circuit(n_in: usize, n_out: usize, table: &[u64]) -> Circuit {
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
    let outs = shared_xor_sums(&mut b, sums);
    b.finish(outs)
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
