//! Truth tables of three-input boolean operations: the immediates of [`Op::Ternlog`].
//!
//! Bit `4a + 2b + c` of an immediate is the value of the operation on operand values `a`, `b`,
//! `c` (operand 0 is the most significant index bit, as `vpternlog` reads it; evaluated on
//! whole words by [`super::ternlog`]). The passes that rewrite ternlogs share these:
//! - [`permute`]: the immediate for the same function over reordered operands (`cse` sorts
//!   operands, `ternlog-order` moves a dying operand first);
//! - [`flip`]: the immediate with one operand complemented (`not-absorb`);
//! - [`plain_op`]: the plain operation (`and`, `or`, `xor`, `andn`, `not`, `copy`, a constant)
//!   a function of at most two distinct operands is (`fold`, `not-absorb`);
//! - [`as_ternlog`] and [`simplest`]: a boolean operation as operands and immediate, and back
//!   to its cheapest form (`not-absorb`, `ternlog-dup`).

use super::{Op, VarId};

/// The immediate of `ternlog` over the operands in `order` (`order[k]` = the old position of
/// the new k-th operand) that computes what `imm` computes over the old order.
pub fn permute(imm: u8, order: [usize; 3]) -> u8 {
    let mut out = 0u8;
    for idx in 0..8usize {
        // values of the new operands at this truth-table row
        let new = [(idx >> 2) & 1, (idx >> 1) & 1, idx & 1];
        let mut old = [0usize; 3];
        for k in 0..3 {
            old[order[k]] = new[k];
        }
        let oi = (old[0] << 2) | (old[1] << 1) | old[2];
        if imm >> oi & 1 == 1 {
            out |= 1 << idx;
        }
    }
    out
}

/// The immediate of `imm` with its operand `k` (0 = first) complemented.
pub fn flip(imm: u8, k: usize) -> u8 {
    let bit = 4 >> k;
    let mut out = 0u8;
    for idx in 0..8usize {
        if imm >> (idx ^ bit) & 1 == 1 {
            out |= 1 << idx;
        }
    }
    out
}

/// The plain operation computing `value` over the distinct atoms `vars` (at most three;
/// `value(m)` is the function's value when bit j of `m` is the value of `vars[j]`), if the
/// function depends on at most two of them and is one of `const` (all zeros, or `ones`),
/// `copy`, `not`, `and`, `or`, `xor`, `andn` of them; `None` otherwise.
pub fn plain_op(vars: &[VarId], value: impl Fn(usize) -> bool, ones: u64) -> Option<Op> {
    let n = vars.len();
    debug_assert!(n <= 3);
    let used: Vec<usize> = (0..n)
        .filter(|&j| (0..1usize << n).any(|m| value(m) != value(m ^ 1 << j)))
        .collect();
    let at =
        |assign: &[(usize, bool)]| value(assign.iter().fold(0, |m, &(j, v)| m | (v as usize) << j));
    use Op::*;
    match used.as_slice() {
        [] => Some(Const(if at(&[]) { ones } else { 0 })),
        [i] => Some(if at(&[(*i, true)]) {
            Copy(vars[*i])
        } else {
            Not(vars[*i])
        }),
        [i, j] => {
            let (x, y) = (vars[*i], vars[*j]);
            let t = |p: bool, q: bool| at(&[(*i, p), (*j, q)]);
            match (
                t(false, false),
                t(false, true),
                t(true, false),
                t(true, true),
            ) {
                (false, false, false, true) => Some(And(x, y)),
                (false, true, true, true) => Some(Or(x, y)),
                (false, true, true, false) => Some(Xor(x, y)),
                (false, true, false, false) => Some(Andn(x, y)),
                (false, false, true, false) => Some(Andn(y, x)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// [`plain_op`] of `ternlog a b c imm` with every operand a variable (repeated operands
/// counted once).
pub fn ternlog_plain_op(ops: [VarId; 3], imm: u8, ones: u64) -> Option<Op> {
    let mut vars: Vec<VarId> = Vec::new();
    for x in ops {
        if !vars.contains(&x) {
            vars.push(x);
        }
    }
    let value = |m: usize| {
        let bit = |x: VarId| (m >> vars.iter().position(|y| *y == x).unwrap_or(0) & 1) as u8;
        imm >> (bit(ops[0]) << 2 | bit(ops[1]) << 1 | bit(ops[2])) & 1 == 1
    };
    plain_op(&vars, value, ones)
}

/// A boolean operation as (three operands, immediate); `None` for other operations.
pub fn as_ternlog(op: &Op) -> Option<([VarId; 3], u8)> {
    Some(match *op {
        Op::Not(a) => ([a, a, a], 0x0F),
        Op::And(a, b) => ([a, b, b], 0xC0),
        Op::Or(a, b) => ([a, b, b], 0xFC),
        Op::Xor(a, b) => ([a, b, b], 0x3C),
        Op::Andn(a, b) => ([a, b, b], 0x0C),
        Op::Ternlog(a, b, c, imm) => ([a, b, c], imm),
        _ => return None,
    })
}

/// The cheapest operation computing `imm` over `ops` (a reader that was a `ternlog` stays one;
/// a function that came out constant too).
pub fn simplest(ops: [VarId; 3], imm: u8, was_ternlog: bool) -> Op {
    let [a, b, c] = ops;
    if !was_ternlog {
        if let Some(op) = ternlog_plain_op(ops, imm, u64::MAX) {
            if !matches!(op, Op::Const(_)) {
                return op;
            }
        }
    }
    Op::Ternlog(a, b, c, imm)
}

#[cfg(test)]
mod tests {
    use super::super::ternlog;
    use super::*;

    const A: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const B: u64 = 0xCCCC_CCCC_CCCC_CCCC;
    const C: u64 = 0xAAAA_AAAA_AAAA_AAAA;

    #[test]
    fn permuted_immediates_compute_the_same_function() {
        for imm in 0..=255u8 {
            let want = ternlog(imm, A, B, C);
            assert_eq!(
                ternlog(permute(imm, [1, 0, 2]), B, A, C),
                want,
                "{imm:#x} bac"
            );
            assert_eq!(
                ternlog(permute(imm, [2, 0, 1]), C, A, B),
                want,
                "{imm:#x} cab"
            );
            assert_eq!(
                ternlog(permute(imm, [1, 2, 0]), B, C, A),
                want,
                "{imm:#x} bca"
            );
            assert_eq!(permute(imm, [0, 1, 2]), imm);
        }
        assert_eq!(permute(0xe8, [1, 0, 2]), 0xe8, "majority is symmetric");
    }

    #[test]
    fn flipped_immediates_complement_one_operand() {
        for imm in 0..=255u8 {
            let want = ternlog(imm, A, B, C);
            assert_eq!(ternlog(flip(imm, 0), !A, B, C), want, "{imm:#x} a");
            assert_eq!(ternlog(flip(imm, 1), A, !B, C), want, "{imm:#x} b");
            assert_eq!(ternlog(flip(imm, 2), A, B, !C), want, "{imm:#x} c");
        }
        assert_eq!(flip(flip(flip(0x96, 0), 1), 2), 0x69);
    }

    /// Every immediate over every pattern of repeated operands: the plain op, when there is
    /// one, computes the same word; and the two-operand functions that have one get it.
    #[test]
    fn plain_ops_compute_the_ternlog() {
        let (x, y, z) = (VarId(0), VarId(1), VarId(2));
        let val = |v: VarId| [A, B, C][v.0 as usize];
        let eval = |op: &Op| match *op {
            Op::Const(k) => k,
            Op::Copy(a) => val(a),
            Op::Not(a) => !val(a),
            Op::And(a, b) => val(a) & val(b),
            Op::Or(a, b) => val(a) | val(b),
            Op::Xor(a, b) => val(a) ^ val(b),
            Op::Andn(a, b) => !val(a) & val(b),
            _ => unreachable!("{op:?}"),
        };
        let mut found = 0;
        for ops in [[x, y, z], [x, y, y], [x, x, y], [y, x, y], [x, x, x]] {
            for imm in 0..=255u8 {
                let want = ternlog(imm, val(ops[0]), val(ops[1]), val(ops[2]));
                if let Some(op) = ternlog_plain_op(ops, imm, u64::MAX) {
                    assert_eq!(eval(&op), want, "{ops:?} {imm:#x} -> {op:?}");
                    found += 1;
                }
            }
        }
        // [x, y, z]: 2 constants, 3 x 2 copies/nots, 3 pairs x 5 two-operand ops; with two
        // distinct operands the 256 immediates are 16 x each of the 16 functions of two
        // operands, 11 of them plain (2 constants, 4 copies/nots, 5 two-operand ops); with
        // one, 64 x each of its 4 functions, all plain.
        assert_eq!(found, (2 + 6 + 15) + 3 * 256 / 16 * 11 + 256 / 4 * 4);
    }
}
