//! Constant folding and algebraic identities, per word size (`--disable fold`, usubac
//! `-no-fold-const`).
//!
//! Requires: verified IR. Guarantees: verified IR computing the same outputs; no operation
//! whose operands are all constants (it becomes `const`); the identities below folded, with
//! "all ones" meaning `mask(bits)` of the atom's word size (1 in bitslice). Every rewrite is an
//! op of the same atom (`const`, `copy`, `not`), never more work; `copy-prop` removes the
//! copies afterwards. Operands are read through earlier copies (`x ^ copy(x)` is `x ^ x`).
//!
//! Stats: `folded` (all operands constant), `identities`.
//!
//! Before:
//! ```text
//! z:8 = xor a a
//! y:8 = or a z
//! ```
//! After:
//! ```text
//! z:8 = const 0x0
//! y:8 = copy a
//! ```

use super::{OptConfig, Stats};
use crate::ir::{mask, Instr, Node, Op, Program, VarId};

pub fn run(prog: &mut Program, _cfg: &OptConfig) -> Stats {
    let mut st = Stats::default();
    for node in &mut prog.nodes {
        run_node(node, &mut st);
    }
    st
}

/// What is known of each atom: its constant value, and the op that defines it.
struct Known {
    value: Vec<Option<u64>>,
    def: Vec<Option<Op>>,
}

impl Known {
    fn k(&self, v: VarId) -> Option<u64> {
        self.value[v.0 as usize]
    }
    fn is(&self, v: VarId, c: u64) -> bool {
        self.k(v) == Some(c)
    }
}

fn run_node(node: &mut Node, st: &mut Stats) {
    let n = node.vars.len();
    let mut known = Known {
        value: vec![None; n],
        def: vec![None; n],
    };
    let bits: Vec<u32> = node.vars.iter().map(|v| v.bits).collect();
    // Copies seen so far: an operand is read through them, so `x ^ copy(x)` is seen as `x ^ x`.
    let mut source: Vec<VarId> = (0..n as u32).map(VarId).collect();
    for ins in &mut node.body {
        let Instr::Assign { dst, op } = ins else {
            ins.map_uses(|v| source[v.0 as usize]);
            continue;
        };
        if !matches!(op, Op::Copy(_)) {
            op.map_operands(|v| source[v.0 as usize]);
        }
        let m = bits[dst.0 as usize];
        let operands = op.operands();
        if !matches!(op, Op::Const(_) | Op::Copy(_))
            && !operands.is_empty()
            && operands.iter().all(|a| known.k(*a).is_some())
        {
            let v = crate::interp::eval_op_with(op, m, &|a| known.k(a).unwrap_or(0), &|a| {
                bits[a.0 as usize]
            }) & mask(m);
            *op = Op::Const(v);
            st.add("folded", 1);
        } else if let Some(new) = simplify(op, m, &known) {
            *op = new;
            st.add("identities", 1);
        }
        known.value[dst.0 as usize] = match op {
            Op::Const(c) => Some(*c),
            Op::Copy(a) => known.k(*a),
            _ => None,
        };
        known.def[dst.0 as usize] = Some(op.clone());
        if let Op::Copy(a) = op {
            source[dst.0 as usize] = source[a.0 as usize];
        }
    }
}

/// One identity per arm, its algebra as the comment; the right side is never more work.
fn simplify(op: &Op, bits: u32, k: &Known) -> Option<Op> {
    let ones = mask(bits);
    use Op::*;
    Some(match *op {
        Xor(a, b) if a == b => Const(0),                   // x ^ x == 0
        Xor(a, b) if k.is(a, 0) => Copy(b),                // 0 ^ x == x
        Xor(a, b) if k.is(b, 0) => Copy(a),                // x ^ 0 == x
        Xor(a, b) if k.is(a, ones) => Not(b),              // ~0 ^ x == ~x
        Xor(a, b) if k.is(b, ones) => Not(a),              // x ^ ~0 == ~x
        And(a, b) if a == b => Copy(a),                    // x & x == x
        And(a, b) if k.is(a, 0) || k.is(b, 0) => Const(0), // x & 0 == 0
        And(a, b) if k.is(a, ones) => Copy(b),             // ~0 & x == x
        And(a, b) if k.is(b, ones) => Copy(a),             // x & ~0 == x
        Or(a, b) if a == b => Copy(a),                     // x | x == x
        Or(a, b) if k.is(a, ones) || k.is(b, ones) => Const(ones), // x | ~0 == ~0
        Or(a, b) if k.is(a, 0) => Copy(b),                 // 0 | x == x
        Or(a, b) if k.is(b, 0) => Copy(a),                 // x | 0 == x
        Andn(a, b) if a == b => Const(0),                  // ~x & x == 0
        Andn(a, b) if k.is(a, 0) => Copy(b),               // ~0 & x == x
        Andn(a, _) if k.is(a, ones) => Const(0),           // ~~0 & x == 0
        Andn(_, b) if k.is(b, 0) => Const(0),              // ~x & 0 == 0
        Andn(a, b) if k.is(b, ones) => Not(a),             // ~x & ~0 == ~x
        Not(a) => match &k.def[a.0 as usize] {
            Some(Not(x)) => Copy(*x), // ~~x == x
            _ => return None,
        },
        Add(a, b) if k.is(a, 0) => Copy(b), // 0 + x == x
        Add(a, b) if k.is(b, 0) => Copy(a), // x + 0 == x
        Sub(a, b) if a == b => Const(0),    // x - x == 0
        Sub(a, b) if k.is(b, 0) => Copy(a), // x - 0 == x
        Mul(a, b) if k.is(a, 0) || k.is(b, 0) => Const(0), // x * 0 == 0
        Mul(a, b) if k.is(a, 1) => Copy(b), // 1 * x == x
        Mul(a, b) if k.is(b, 1) => Copy(a), // x * 1 == x
        Shl(a, 0) | Shr(a, 0) | Sar(a, 0) | Rotl(a, 0) | Rotr(a, 0) => Copy(a), // x << 0 == x
        Shl(a, _) | Shr(a, _) | Rotl(a, _) | Rotr(a, _) if k.is(a, 0) => Const(0), // 0 << k == 0
        Rotl(a, _) | Rotr(a, _) | Sar(a, _) if k.is(a, ones) => Const(ones), // ~0 <<< k == ~0
        Shuffle(a, ref p) if p.iter().enumerate().all(|(j, &s)| s == j as u32) => Copy(a), // identity permutation
        Ternlog(a, b, c, imm) => return ternlog(a, b, c, imm, bits, k),
        _ => return None,
    })
}

/// A ternlog with a constant (all zeros or all ones) or repeated operand, or whose function
/// ignores an operand, as the plain op it then is (when it is one).
fn ternlog(a: VarId, b: VarId, c: VarId, imm: u8, bits: u32, k: &Known) -> Option<Op> {
    let ones = mask(bits);
    let fixed = |x: VarId| match k.k(x) {
        Some(0) => Some(false),
        Some(v) if v == ones => Some(true),
        _ => None,
    };
    // The distinct operands that are not constants.
    let mut vars: Vec<VarId> = Vec::new();
    for x in [a, b, c] {
        if fixed(x).is_none() && !vars.contains(&x) {
            vars.push(x);
        }
    }
    if vars.len() == 3 {
        return None; // nothing known: only a function ignoring an operand could shrink it, rare
    }
    // The function of `vars` (bit j of `m` = value of vars[j]).
    let value = |m: usize| -> bool {
        let bit = |x: VarId| {
            fixed(x).unwrap_or_else(|| m >> vars.iter().position(|y| *y == x).unwrap_or(0) & 1 == 1)
                as u8
        };
        imm >> (bit(a) << 2 | bit(b) << 1 | bit(c)) & 1 == 1
    };
    crate::ir::truth::plain_op(&vars, value, ones)
}
