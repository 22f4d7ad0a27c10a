//! Heuristic circuit search for small tables (up to 6 inputs), in the style of
//! Kwan's bitslice-DES gate minimisation: each output bit is built with
//! don't-care masks, reusing any earlier wire or a single new gate over two
//! earlier wires when possible, else split on an input variable with one of
//! several two-gate decompositions (XOR, OR, AND forms, both polarities) or a
//! plain multiplexer. Alternatives are compared by trial (bounded lookahead),
//! and several output orders are tried. Everything is deterministic.

use super::builder::Builder;
use super::{Circuit, Wire};

/// A search wire: `>= 0` is an index into `tts`; the two constants are negative.
type W = i32;
const ZERO: W = -1;
const ONE: W = -2;

#[derive(Clone, Copy, Debug)]
enum Op {
    And,
    Or,
    Xor,
    Andn,
    Not,
}

struct Search {
    n: usize,
    full: u64,
    /// Truth table of every wire (inputs first, then gates).
    tts: Vec<u64>,
    gates: Vec<(Op, W, W)>,
    /// Work counter (one unit per wire pair examined); the search degrades to
    /// greedy choices once it exceeds `budget`.
    work: u64,
    budget: u64,
}

fn var_tt(n: usize, i: usize) -> u64 {
    // Input i has weight 2^(n-1-i) in the index.
    let p = n - 1 - i;
    let mut t = 0u64;
    for x in 0..(1u64 << n) {
        if (x >> p) & 1 == 1 {
            t |= 1 << x;
        }
    }
    t
}

impl Search {
    fn new(n: usize, budget: u64) -> Search {
        let full = if n == 6 {
            u64::MAX
        } else {
            (1u64 << (1 << n)) - 1
        };
        Search {
            n,
            full,
            tts: (0..n).map(|i| var_tt(n, i)).collect(),
            gates: Vec::new(),
            work: 0,
            budget,
        }
    }

    fn tt(&self, w: W) -> u64 {
        match w {
            ZERO => 0,
            ONE => self.full,
            _ => self.tts[w as usize],
        }
    }

    fn len(&self) -> usize {
        self.gates.len()
    }

    fn truncate(&mut self, n_gates: usize) {
        self.gates.truncate(n_gates);
        self.tts.truncate(self.n + n_gates);
    }

    fn push(&mut self, op: Op, a: W, b: W) -> W {
        let (ta, tb) = (self.tt(a), self.tt(b));
        let t = match op {
            Op::And => ta & tb,
            Op::Or => ta | tb,
            Op::Xor => ta ^ tb,
            Op::Andn => !ta & tb & self.full,
            Op::Not => !ta & self.full,
        };
        // Reuse an identical wire.
        if let Some(i) = self.tts.iter().position(|&x| x == t) {
            return i as W;
        }
        if t == 0 {
            return ZERO;
        }
        if t == self.full {
            return ONE;
        }
        self.gates.push((op, a, b));
        self.tts.push(t);
        (self.tts.len() - 1) as W
    }

    fn not(&mut self, a: W) -> W {
        match a {
            ZERO => ONE,
            ONE => ZERO,
            _ => self.push(Op::Not, a, a),
        }
    }
    fn and(&mut self, a: W, b: W) -> W {
        match (a, b) {
            (ZERO, _) | (_, ZERO) => ZERO,
            (ONE, x) | (x, ONE) => x,
            _ => self.push(Op::And, a, b),
        }
    }
    fn or(&mut self, a: W, b: W) -> W {
        match (a, b) {
            (ONE, _) | (_, ONE) => ONE,
            (ZERO, x) | (x, ZERO) => x,
            _ => self.push(Op::Or, a, b),
        }
    }
    fn xor(&mut self, a: W, b: W) -> W {
        match (a, b) {
            (ZERO, x) | (x, ZERO) => x,
            (ONE, x) | (x, ONE) => self.not(x),
            _ => self.push(Op::Xor, a, b),
        }
    }
    /// `!a & b`
    fn andn(&mut self, a: W, b: W) -> W {
        match (a, b) {
            (ONE, _) | (_, ZERO) => ZERO,
            (ZERO, x) => x,
            (x, ONE) => self.not(x),
            _ => self.push(Op::Andn, a, b),
        }
    }

    /// A wire already equal to `target` on `mask`, or one new gate giving it.
    fn cheap(&mut self, target: u64, mask: u64) -> Option<W> {
        let t = target & mask;
        if t == 0 {
            return Some(ZERO);
        }
        if t == mask {
            return Some(ONE);
        }
        let nw = self.tts.len();
        for i in 0..nw {
            if (self.tts[i] ^ target) & mask == 0 {
                return Some(i as W);
            }
        }
        for i in 0..nw {
            if (!self.tts[i] ^ target) & mask == 0 {
                return Some(self.not(i as W));
            }
        }
        self.work += (nw * nw / 2) as u64;
        for i in 0..nw {
            let a = self.tts[i];
            for j in i + 1..nw {
                let b = self.tts[j];
                let (i, j) = (i as W, j as W);
                if ((a & b) ^ target) & mask == 0 {
                    return Some(self.and(i, j));
                }
                if ((a | b) ^ target) & mask == 0 {
                    return Some(self.or(i, j));
                }
                if ((a ^ b) ^ target) & mask == 0 {
                    return Some(self.xor(i, j));
                }
                if ((!a & b) ^ target) & mask == 0 {
                    return Some(self.andn(i, j));
                }
                if ((a & !b) ^ target) & mask == 0 {
                    return Some(self.andn(j, i));
                }
            }
        }
        None
    }

    /// Builds a wire equal to `target` on `mask`; `free` = bit set of inputs
    /// still usable as selectors; `look` = levels of exhaustive comparison.
    fn solve(&mut self, target: u64, mask: u64, free: u32, look: u32) -> Option<W> {
        if let Some(w) = self.cheap(target, mask) {
            return Some(w);
        }
        let start = self.len();
        let mut best: Option<(usize, usize, u32)> = None; // (gates, selector, variant)
        let exhaustive = look > 0 && self.work < self.budget;
        for s in 0..self.n {
            if free & (1 << s) == 0 {
                continue;
            }
            let st = self.tts[s];
            if mask & st == 0 || mask & !st == 0 {
                continue;
            }
            for v in 0..7 {
                let r = self.variant(target, mask, free & !(1 << s), s, v, look.saturating_sub(1));
                if r.is_some() {
                    let cost = self.len() - start;
                    if !exhaustive {
                        return r;
                    }
                    if best.is_none_or(|(c, _, _)| cost < c) {
                        best = Some((cost, s, v));
                    }
                }
                self.truncate(start);
            }
        }
        let (_, s, v) = best?;
        self.variant(target, mask, free & !(1 << s), s, v, look.saturating_sub(1))
    }

    fn variant(
        &mut self,
        target: u64,
        mask: u64,
        free: u32,
        s: usize,
        v: u32,
        look: u32,
    ) -> Option<W> {
        let sw = s as W;
        let st = self.tts[s];
        // Variants 0..2 select on s, 3..5 on !s; 6 is a plain multiplexer.
        let (r1, pol) = if v < 3 || v == 6 {
            (st, true)
        } else {
            (!st & self.full, false)
        };
        let r0 = !r1 & self.full;
        match v % 3 {
            _ if v == 6 => {
                let g = self.solve(target, mask & r0, free, look)?;
                let h = self.solve(target, mask & r1, free, look)?;
                let a = self.andn(sw, g);
                let b = self.and(sw, h);
                Some(self.or(a, b))
            }
            0 => {
                // f = g ^ (p & h)
                let g = self.solve(target, mask & r0, free, look)?;
                let h = self.solve(target ^ self.tt(g), mask & r1, free, look)?;
                let t = if pol {
                    self.and(sw, h)
                } else {
                    self.andn(sw, h)
                };
                Some(self.xor(g, t))
            }
            1 => {
                // f = g | (p & h), g = 0 where p and target = 0
                let g = self.solve(target, (mask & r0) | (mask & r1 & !target), free, look)?;
                let h = self.solve(target, mask & r1 & !self.tt(g), free, look)?;
                let t = if pol {
                    self.and(sw, h)
                } else {
                    self.andn(sw, h)
                };
                Some(self.or(g, t))
            }
            _ => {
                // f = g & (!p | h), g = 1 where p and target = 1
                let g = self.solve(target, (mask & r0) | (mask & r1 & target), free, look)?;
                let h = self.solve(target, mask & r1 & self.tt(g), free, look)?;
                if pol {
                    let t = self.andn(h, sw);
                    Some(self.andn(t, g))
                } else {
                    let t = self.or(sw, h);
                    Some(self.and(g, t))
                }
            }
        }
    }
}

/// Truth table (bit x = value at index x) of output bit j.
fn column(n_in: usize, n_out: usize, table: &[u64], j: usize) -> u64 {
    let mut t = 0;
    for (x, &entry) in table.iter().enumerate().take(1usize << n_in) {
        if (entry >> (n_out - 1 - j)) & 1 == 1 {
            t |= 1 << x;
        }
    }
    t
}

/// Output orders tried: all permutations for up to 4 outputs, else rotations.
fn orders(n_out: usize) -> Vec<Vec<usize>> {
    if n_out <= 4 {
        let mut all = Vec::new();
        fn perms(rest: &mut Vec<usize>, cur: &mut Vec<usize>, all: &mut Vec<Vec<usize>>) {
            if rest.is_empty() {
                all.push(cur.clone());
                return;
            }
            for k in 0..rest.len() {
                let x = rest.remove(k);
                cur.push(x);
                perms(rest, cur, all);
                cur.pop();
                rest.insert(k, x);
            }
        }
        perms(&mut (0..n_out).collect(), &mut Vec::new(), &mut all);
        all
    } else {
        (0..n_out)
            .map(|r| (0..n_out).map(|k| (k + r) % n_out).collect())
            .collect()
    }
}

/// Searches a circuit for a table with at most 6 inputs. `look` is the
/// number of levels of exhaustive alternative comparison, `budget` bounds
/// the work per output order. Returns `None` for more than 6 inputs.
pub fn search_circuit(
    n_in: usize,
    n_out: usize,
    table: &[u64],
    look: u32,
    budget: u64,
) -> Option<Circuit> {
    if n_in == 0 || n_in > 6 || table.len() != 1 << n_in {
        return None;
    }
    let cols: Vec<u64> = (0..n_out).map(|j| column(n_in, n_out, table, j)).collect();
    let mut best: Option<Circuit> = None;
    for order in orders(n_out) {
        let mut s = Search::new(n_in, budget);
        let mut outs = vec![ZERO; n_out];
        let full = s.full;
        for &j in &order {
            outs[j] = s.solve(cols[j], full, (1 << n_in) - 1, look)?;
        }
        let c = to_circuit(&s, &outs);
        if best.as_ref().is_none_or(|b| c.gates.len() < b.gates.len()) {
            best = Some(c);
        }
    }
    best
}

fn to_circuit(s: &Search, outs: &[W]) -> Circuit {
    let mut b = Builder::new(s.n);
    let mut map: Vec<Wire> = (0..s.n).map(Wire::Input).collect();
    let wire = |w: W, map: &Vec<Wire>| match w {
        ZERO => Wire::Const(false),
        ONE => Wire::Const(true),
        _ => map[w as usize],
    };
    for &(op, x, y) in &s.gates {
        let (a, c) = (wire(x, &map), wire(y, &map));
        let r = match op {
            Op::And => b.and(a, c),
            Op::Or => b.or(a, c),
            Op::Xor => b.xor(a, c),
            Op::Andn => b.andn(a, c),
            Op::Not => b.not(a),
        };
        map.push(r);
    }
    let outputs = outs.iter().map(|&w| wire(w, &map)).collect();
    b.finish(outputs)
}
