//! Arithmetic with real carries where the slicing has no adder: bitsliced words get
//! ripple-carry adders (subtraction adds the complement plus one) and shift-and-add
//! multipliers; hsliced words get the same with slot shifts.
//!
//! Before (-B, 2-bit words, bit 0 = MSB): `s = a + b`. After: `s__b1 = xor a__b1 b__b1;
//! c = and a__b1 b__b1; s__b0 = xor (xor a__b0 b__b0) c`.

use super::*;

impl<'a> Ctx<'a> {
    /// Ripple-carry adder over bits (MSB first), with an optional carry-in of one.
    pub(super) fn b_add(
        &mut self,
        inst: &mut Inst,
        a: &[VarId],
        b: &[VarId],
        carry_one: bool,
        span: Span,
    ) -> R<Vec<VarId>> {
        let m = a.len();
        let mut out = vec![VarId(0); m];
        let mut carry: Option<VarId> = if carry_one {
            Some(self.emit(inst, Op::Const(1), 1, span)?)
        } else {
            None
        };
        for i in (0..m).rev() {
            let x = self.emit(inst, Op::Xor(a[i], b[i]), 1, span)?;
            match carry {
                None => {
                    out[i] = x;
                    if i > 0 {
                        carry = Some(self.emit(inst, Op::And(a[i], b[i]), 1, span)?);
                    }
                }
                Some(c) => {
                    out[i] = self.emit(inst, Op::Xor(x, c), 1, span)?;
                    if i > 0 {
                        let g = self.emit(inst, Op::And(a[i], b[i]), 1, span)?;
                        let p = self.emit(inst, Op::And(x, c), 1, span)?;
                        carry = Some(self.emit(inst, Op::Or(g, p), 1, span)?);
                    }
                }
            }
        }
        Ok(out)
    }

    pub(super) fn b_mul(
        &mut self,
        inst: &mut Inst,
        a: &[VarId],
        b: &[VarId],
        span: Span,
    ) -> R<Vec<VarId>> {
        let m = a.len();
        let zero = self.emit(inst, Op::Const(0), 1, span)?;
        let mut acc: Option<Vec<VarId>> = None;
        for j in 0..m {
            // partial product (a << j) & b_j, where b_j is bit j from the LSB
            let bj = b[m - 1 - j];
            let mut pp = vec![zero; m];
            for i in 0..m {
                if i + j < m {
                    pp[i] = self.emit(inst, Op::And(a[i + j], bj), 1, span)?;
                }
            }
            acc = Some(match acc {
                None => pp,
                Some(s) => {
                    // Only the top m-j bits change; the low j bits of pp are zero.
                    let top = self.b_add(inst, &s[..m - j], &pp[..m - j], false, span)?;
                    let mut r = top;
                    r.extend_from_slice(&s[m - j..]);
                    r
                }
            });
        }
        Ok(acc.unwrap_or_default())
    }

    /// Hslice addition with slot shifts: repeat (a, b) := (a ^ b, (a & b) << 1).
    pub(super) fn h_add(
        &mut self,
        inst: &mut Inst,
        a: VarId,
        b: VarId,
        m: u32,
        span: Span,
    ) -> R<VarId> {
        let (mut x, mut y) = (a, b);
        for _ in 0..m - 1 {
            let s = self.emit(inst, Op::Xor(x, y), m, span)?;
            let c = self.emit(inst, Op::And(x, y), m, span)?;
            y = self.emit(inst, Op::Shl(c, 1), m, span)?;
            x = s;
        }
        self.emit(inst, Op::Xor(x, y), m, span)
    }
}
