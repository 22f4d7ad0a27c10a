//! Shifts and rotations: on one word they move bits (in bitslice, wiring and zero constants);
//! on vectors, arrays and tuples they move whole elements; `Shuffle` is a bit permutation
//! inside each word.
//!
//! Before: `(a, b, c) <<< 1`. After: `(b, c, a)`.

use super::*;

impl<'a> Ctx<'a> {
    pub(super) fn shuffle_word(
        &mut self,
        inst: &mut Inst,
        w: &Word,
        perm: &[u32],
        span: Span,
    ) -> R<Word> {
        if self.opts.slicing == Slicing::B {
            Ok(Word {
                bits: w.bits,
                atoms: perm.iter().map(|&i| w.atoms[i as usize]).collect(),
            })
        } else {
            Ok(Word {
                bits: w.bits,
                atoms: vec![self.emit(
                    inst,
                    Op::Shuffle(w.atoms[0], perm.to_vec()),
                    w.bits,
                    span,
                )?],
            })
        }
    }

    pub(super) fn shift(
        &mut self,
        inst: &mut Inst,
        op: ShiftOp,
        v: Val,
        k: u64,
        span: Span,
    ) -> R<Val> {
        // Outermost dimension with more than one element.
        let dim = v.shape.iter().position(|&d| d > 1);
        if let Some(d) = dim {
            if op == ShiftOp::Sar {
                self.err(
                    inst,
                    Diagnostic::error(
                        span,
                        "`>>!` (arithmetic shift) applies to single words, not tuples or arrays",
                    )
                    .label("on a tuple"),
                );
                return Err(());
            }
            let n = v.shape[d];
            let rs: usize = v.shape[d + 1..].iter().product();
            let rows: Vec<Vec<Word>> = v.words.chunks(rs).map(|c| c.to_vec()).collect();
            let mut zero_row = Vec::new();
            for w in &rows[0] {
                zero_row.push(self.const_word(inst, 0, w.bits, span)?);
            }
            let k = k as usize;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let r = match op {
                    ShiftOp::Shl => {
                        if i + k < n {
                            rows[i + k].clone()
                        } else {
                            zero_row.clone()
                        }
                    }
                    ShiftOp::Shr => {
                        if i >= k {
                            rows[i - k].clone()
                        } else {
                            zero_row.clone()
                        }
                    }
                    ShiftOp::Rotl => rows[(i + k % n) % n].clone(),
                    ShiftOp::Rotr => rows[(i + n - k % n) % n].clone(),
                    ShiftOp::Sar => unreachable!(),
                };
                out.extend(r);
            }
            return Ok(Val {
                words: out,
                shape: v.shape,
            });
        }
        // A single word: move its bits.
        let Some(w) = v.words.first().cloned() else {
            return Ok(v);
        };
        let m = w.bits;
        self.r7_check(inst, m, span, "a shift or rotation")?;
        let nw = if self.opts.slicing == Slicing::B {
            let zero = self.emit(inst, Op::Const(0), 1, span)?;
            let mm = m as usize;
            let k = k as usize;
            let atoms: Vec<VarId> = (0..mm)
                .map(|i| match op {
                    ShiftOp::Shl => {
                        if i + k < mm {
                            w.atoms[i + k]
                        } else {
                            zero
                        }
                    }
                    ShiftOp::Shr => {
                        if i >= k {
                            w.atoms[i - k]
                        } else {
                            zero
                        }
                    }
                    ShiftOp::Sar => {
                        if i >= k {
                            w.atoms[i - k]
                        } else {
                            w.atoms[0]
                        }
                    }
                    ShiftOp::Rotl => w.atoms[(i + k % mm) % mm],
                    ShiftOp::Rotr => w.atoms[(i + mm - k % mm) % mm],
                })
                .collect();
            Word { bits: m, atoms }
        } else {
            let a = w.atoms[0];
            let km = (k % m as u64) as u32;
            let r = match op {
                ShiftOp::Shl | ShiftOp::Shr if k >= m as u64 => {
                    self.emit(inst, Op::Const(0), m, span)?
                }
                ShiftOp::Sar if self.opts.slicing == Slicing::H => {
                    let kk = k.min(m as u64) as u32;
                    let perm: Vec<u32> = (0..m).map(|j| j.saturating_sub(kk)).collect();
                    self.emit(inst, Op::Shuffle(a, perm), m, span)?
                }
                ShiftOp::Sar => {
                    let kk = k.min(m as u64 - 1) as u32;
                    if kk == 0 {
                        a
                    } else {
                        self.emit(inst, Op::Sar(a, kk), m, span)?
                    }
                }
                _ if k == 0 || ((op == ShiftOp::Rotl || op == ShiftOp::Rotr) && km == 0) => a,
                ShiftOp::Shl => self.emit(inst, Op::Shl(a, k as u32), m, span)?,
                ShiftOp::Shr => self.emit(inst, Op::Shr(a, k as u32), m, span)?,
                ShiftOp::Rotl => self.emit(inst, Op::Rotl(a, km), m, span)?,
                ShiftOp::Rotr => self.emit(inst, Op::Rotr(a, km), m, span)?,
            };
            Word {
                bits: m,
                atoms: vec![r],
            }
        };
        Ok(Val {
            words: vec![nw],
            shape: v.shape,
        })
    }
}
