//! A hash-consing circuit builder with constant folding, and circuit clean-up.

use super::{Circuit, Gate, Wire};
use crate::fxhash::FxHashMap as HashMap;

/// Builds a circuit gate by gate; structurally equal gates are shared and
/// constants are folded, so no gate ever reads a constant.
pub struct Builder {
    pub n_inputs: usize,
    pub gates: Vec<Gate>,
    memo: HashMap<Gate, Wire>,
}

fn ord(a: Wire, b: Wire) -> (Wire, Wire) {
    fn key(w: Wire) -> (u8, usize) {
        match w {
            Wire::Const(c) => (0, c as usize),
            Wire::Input(i) => (1, i),
            Wire::Gate(i) => (2, i),
        }
    }
    if key(a) <= key(b) {
        (a, b)
    } else {
        (b, a)
    }
}

impl Builder {
    pub fn new(n_inputs: usize) -> Builder {
        Builder {
            n_inputs,
            gates: Vec::new(),
            memo: HashMap::default(),
        }
    }

    fn push(&mut self, g: Gate) -> Wire {
        if let Some(&w) = self.memo.get(&g) {
            return w;
        }
        let w = Wire::Gate(self.gates.len());
        self.gates.push(g);
        self.memo.insert(g, w);
        w
    }

    /// If `w` is `Not(x)`, returns `x`.
    fn negated(&self, w: Wire) -> Option<Wire> {
        match w {
            Wire::Gate(i) => match self.gates[i] {
                Gate::Not(x) => Some(x),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn not(&mut self, a: Wire) -> Wire {
        match a {
            Wire::Const(c) => Wire::Const(!c),
            _ => match self.negated(a) {
                Some(x) => x,
                None => self.push(Gate::Not(a)),
            },
        }
    }

    pub fn xor(&mut self, a: Wire, b: Wire) -> Wire {
        match (a, b) {
            (Wire::Const(false), x) | (x, Wire::Const(false)) => x,
            (Wire::Const(true), x) | (x, Wire::Const(true)) => self.not(x),
            _ if a == b => Wire::Const(false),
            _ => {
                if self.negated(a) == Some(b) || self.negated(b) == Some(a) {
                    return Wire::Const(true);
                }
                let (a, b) = ord(a, b);
                self.push(Gate::Xor(a, b))
            }
        }
    }

    pub fn and(&mut self, a: Wire, b: Wire) -> Wire {
        match (a, b) {
            (Wire::Const(false), _) | (_, Wire::Const(false)) => Wire::Const(false),
            (Wire::Const(true), x) | (x, Wire::Const(true)) => x,
            _ if a == b => a,
            _ => {
                if self.negated(a) == Some(b) || self.negated(b) == Some(a) {
                    return Wire::Const(false);
                }
                if let Some(x) = self.negated(a) {
                    return self.push(Gate::Andn(x, b));
                }
                if let Some(x) = self.negated(b) {
                    return self.push(Gate::Andn(x, a));
                }
                let (a, b) = ord(a, b);
                self.push(Gate::And(a, b))
            }
        }
    }

    pub fn or(&mut self, a: Wire, b: Wire) -> Wire {
        match (a, b) {
            (Wire::Const(true), _) | (_, Wire::Const(true)) => Wire::Const(true),
            (Wire::Const(false), x) | (x, Wire::Const(false)) => x,
            _ if a == b => a,
            _ => {
                if self.negated(a) == Some(b) || self.negated(b) == Some(a) {
                    return Wire::Const(true);
                }
                let (a, b) = ord(a, b);
                self.push(Gate::Or(a, b))
            }
        }
    }

    /// `!a & b`
    pub fn andn(&mut self, a: Wire, b: Wire) -> Wire {
        match (a, b) {
            (Wire::Const(true), _) | (_, Wire::Const(false)) => Wire::Const(false),
            (Wire::Const(false), x) => x,
            (x, Wire::Const(true)) => self.not(x),
            _ if a == b => Wire::Const(false),
            _ => {
                if let Some(x) = self.negated(a) {
                    return self.and(x, b);
                }
                if self.negated(b) == Some(a) {
                    return b;
                }
                self.push(Gate::Andn(a, b))
            }
        }
    }

    /// `s ? f1 : f0`
    pub fn mux(&mut self, s: Wire, f0: Wire, f1: Wire) -> Wire {
        if f0 == f1 {
            return f0;
        }
        match (f0, f1) {
            (Wire::Const(false), _) => self.and(s, f1),
            (_, Wire::Const(false)) => self.andn(s, f0),
            (Wire::Const(true), _) => {
                // !s | f1 = !(s & !f1)
                let t = self.andn(f1, s);
                self.not(t)
            }
            (_, Wire::Const(true)) => self.or(s, f0),
            _ => {
                if self.negated(f0) == Some(f1) || self.negated(f1) == Some(f0) {
                    return self.xor(s, f0);
                }
                let d = self.xor(f0, f1);
                let t = self.and(s, d);
                self.xor(f0, t)
            }
        }
    }

    pub fn finish(self, outputs: Vec<Wire>) -> Circuit {
        cleanup(Circuit {
            n_inputs: self.n_inputs,
            gates: self.gates,
            outputs,
        })
    }
}

/// Removes gates no output depends on and renumbers the rest (order kept).
pub fn cleanup(c: Circuit) -> Circuit {
    let n = c.gates.len();
    let mut live = vec![false; n];
    let mark = |w: &Wire, live: &mut Vec<bool>| {
        if let Wire::Gate(i) = *w {
            live[i] = true;
        }
    };
    for w in &c.outputs {
        mark(w, &mut live);
    }
    for i in (0..n).rev() {
        if live[i] {
            match c.gates[i] {
                Gate::And(a, b) | Gate::Or(a, b) | Gate::Xor(a, b) | Gate::Andn(a, b) => {
                    mark(&a, &mut live);
                    mark(&b, &mut live);
                }
                Gate::Not(a) => mark(&a, &mut live),
            }
        }
    }
    let mut new_index = vec![usize::MAX; n];
    let mut gates = Vec::new();
    let remap = |w: Wire, new_index: &Vec<usize>| match w {
        Wire::Gate(i) => Wire::Gate(new_index[i]),
        x => x,
    };
    for i in 0..n {
        if live[i] {
            new_index[i] = gates.len();
            let g = match c.gates[i] {
                Gate::And(a, b) => Gate::And(remap(a, &new_index), remap(b, &new_index)),
                Gate::Or(a, b) => Gate::Or(remap(a, &new_index), remap(b, &new_index)),
                Gate::Xor(a, b) => Gate::Xor(remap(a, &new_index), remap(b, &new_index)),
                Gate::Andn(a, b) => Gate::Andn(remap(a, &new_index), remap(b, &new_index)),
                Gate::Not(a) => Gate::Not(remap(a, &new_index)),
            };
            gates.push(g);
        }
    }
    let outputs = c.outputs.iter().map(|&w| remap(w, &new_index)).collect();
    Circuit {
        n_inputs: c.n_inputs,
        gates,
        outputs,
    }
}
