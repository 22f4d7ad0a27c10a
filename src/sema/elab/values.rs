//! Expressions to values: constants spread over tuples, tuples flattened, logic element-wise,
//! operands checked against each other; arithmetic and shifts are delegated to `arith.rs` and
//! `shifts.rs`.
//!
//! Before: `(a, b) ^ (c, d)`. After: `t0 = xor a c; t1 = xor b d`.

use super::*;

impl<'a> Ctx<'a> {
    // --------------------------------------------------------------------------------------
    // Values

    pub(super) fn const_val(
        &mut self,
        inst: &mut Inst,
        value: u64,
        widths: &[u32],
        span: Span,
    ) -> R<Val> {
        let total: u64 = widths.iter().map(|&w| w as u64).sum();
        if total < 64 && value >> total != 0 {
            self.err(
                inst,
                Diagnostic::error(
                    span,
                    format!("constant {:#x} does not fit in {} bits", value, total),
                )
                .label("too large"),
            );
            return Err(());
        }
        let mut words = vec![];
        let mut shift: u64 = 0;
        for &w in widths.iter().rev() {
            let v = if shift >= 64 {
                0
            } else {
                (value >> shift) & mask(w)
            };
            shift += w as u64;
            words.push(self.const_word(inst, v, w, span)?);
        }
        words.reverse();
        Ok(Val::tuple(words))
    }

    pub(super) fn const_word(&mut self, inst: &mut Inst, v: u64, bits: u32, span: Span) -> R<Word> {
        if self.opts.slicing == Slicing::B {
            let mut atoms = Vec::with_capacity(bits as usize);
            for b in 0..bits {
                let bit = (v >> (bits - 1 - b)) & 1;
                atoms.push(self.emit(inst, Op::Const(bit), 1, span)?);
            }
            Ok(Word { bits, atoms })
        } else {
            Ok(Word {
                bits,
                atoms: vec![self.emit(inst, Op::Const(v & mask(bits)), bits, span)?],
            })
        }
    }

    pub(super) fn widths(v: &Val) -> Vec<u32> {
        v.words.iter().map(|w| w.bits).collect()
    }

    pub(super) fn eval(
        &mut self,
        inst: &mut Inst,
        e: &Expr,
        expect: Option<&[u32]>,
        decl_idx: usize,
    ) -> R<Val> {
        match &e.kind {
            ExprKind::Int(n, None) => match expect {
                Some(w) if !w.is_empty() => {
                    if w.contains(&1) {
                        self.r7_check(inst, 1, e.span, "an untyped constant")?;
                    }
                    self.const_val(inst, *n, w, e.span)
                }
                _ => {
                    self.err(
                        inst,
                        Diagnostic::error(e.span, "cannot infer the type of this constant")
                            .label("untyped constant")
                            .help(format!("annotate it, e.g. `{}:u32`", n)),
                    );
                    Err(())
                }
            },
            ExprKind::Int(n, Some(t)) => {
                let ty = self.resolve_type(inst, t, &BTreeMap::new())?;
                match ty {
                    Ty::Words { bits, shape, .. } => {
                        let count: usize = shape.iter().product();
                        let mut v = self.const_val(inst, *n, &vec![bits; count], e.span)?;
                        v.shape = shape;
                        Ok(v)
                    }
                    Ty::Nat => match expect {
                        Some(w) if !w.is_empty() => self.const_val(inst, *n, w, e.span),
                        _ => {
                            self.err(
                                inst,
                                Diagnostic::error(
                                    e.span,
                                    "a `nat` constant cannot be used as data here",
                                )
                                .label("nat"),
                            );
                            Err(())
                        }
                    },
                }
            }
            ExprKind::Var(id) => match self.lookup_name(inst, &id.name) {
                Some(Name::Nat(v)) => match expect {
                    Some(w) if !w.is_empty() => self.const_val(inst, v as u64, w, e.span),
                    _ => {
                        self.err(
                            inst,
                            Diagnostic::error(
                                e.span,
                                format!(
                                    "cannot infer the word type of compile-time value `{}`",
                                    id.name
                                ),
                            )
                            .label("compile-time value"),
                        );
                        Err(())
                    }
                },
                Some(Name::Var) => {
                    let v = &inst.vars[&id.name];
                    let (bits, shape) = match &v.ty {
                        Ty::Words { bits, shape, .. } => (*bits, shape.clone()),
                        Ty::Nat => (1, vec![]),
                    };
                    let apw = v.atoms_per_word;
                    let words = v
                        .slots
                        .chunks(apw)
                        .map(|c| Word {
                            bits,
                            atoms: c.to_vec(),
                        })
                        .collect();
                    Ok(Val { words, shape })
                }
                None => {
                    let d = if self.decl_index.contains_key(id.name.as_str()) {
                        Diagnostic::error(
                            id.span,
                            format!("`{}` is a node, table or perm, not a variable", id.name),
                        )
                        .label("call it with arguments")
                    } else {
                        Diagnostic::error(id.span, format!("unknown variable `{}`", id.name))
                            .label("not declared")
                    };
                    self.err(inst, d);
                    Err(())
                }
            },
            ExprKind::Index(base, idx) => {
                let mut root = &**base;
                while let ExprKind::Index(b, _) = &root.kind {
                    root = b;
                }
                if let ExprKind::Var(id) = &root.kind {
                    if matches!(self.lookup_name(inst, &id.name), Some(Name::Var)) {
                        let (name, sel, shape) = self.place_shaped(inst, e, false)?;
                        let v = &inst.vars[&name];
                        let bits = match &v.ty {
                            Ty::Words { bits, .. } => *bits,
                            Ty::Nat => 1,
                        };
                        let apw = v.atoms_per_word;
                        let words = sel
                            .iter()
                            .map(|w| Word {
                                bits,
                                atoms: v.slots[w * apw..(w + 1) * apw].to_vec(),
                            })
                            .collect();
                        return Ok(Val { words, shape });
                    }
                }
                let v = self.eval(inst, base, None, decl_idx)?;
                let (words, shape) =
                    self.index_rows(inst, v.words, &v.shape, idx, e.span, false)?;
                Ok(Val { words, shape })
            }
            ExprKind::Tuple(items) => self.eval_tuple(inst, items, expect, decl_idx),
            ExprKind::Not(a) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                self.map_atoms(inst, &v, e.span, Op::Not)
            }
            ExprKind::Bin(op, a, b) => {
                if self.is_static(inst, e) {
                    let n = self.eval_nat(inst, e)?;
                    if n < 0 {
                        self.err(
                            inst,
                            Diagnostic::error(e.span, format!("negative constant {}", n))
                                .label("negative"),
                        );
                        return Err(());
                    }
                    return self.eval(
                        inst,
                        &Expr {
                            kind: ExprKind::Int(n as u64, None),
                            span: e.span,
                        },
                        expect,
                        decl_idx,
                    );
                }
                let (va, vb) = if self.is_static(inst, a) {
                    let vb = self.eval(inst, b, expect, decl_idx)?;
                    let w = Self::widths(&vb);
                    (self.eval(inst, a, Some(&w), decl_idx)?, vb)
                } else {
                    let va = self.eval(inst, a, expect, decl_idx)?;
                    let w = Self::widths(&va);
                    let vb = self.eval(inst, b, Some(&w), decl_idx)?;
                    (va, vb)
                };
                self.binop(inst, *op, va, vb, e.span, a.span, b.span)
            }
            ExprKind::Shift(op, a, k) => {
                let amount = self.eval_nat(inst, k)?;
                if amount < 0 {
                    self.err(
                        inst,
                        Diagnostic::error(k.span, "negative shift amount").label("negative"),
                    );
                    return Err(());
                }
                let v = self.eval(inst, a, expect, decl_idx)?;
                self.shift(inst, *op, v, amount as u64, e.span)
            }
            ExprKind::Call(f, idx, args) => {
                self.call(inst, f, idx.as_deref(), args, e.span, decl_idx)
            }
            ExprKind::Shuffle(a, pat) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                let mut p = Vec::new();
                for x in pat {
                    p.push(self.eval_nat(inst, x)?);
                }
                let mut words = Vec::new();
                for w in &v.words {
                    self.r7_check(inst, w.bits, e.span, "a `Shuffle`")?;
                    // R6: in hslice, a 4-entry pattern permutes the four quarters of the word.
                    let p: Vec<i64> = if self.opts.slicing == Slicing::H
                        && p.len() == 4
                        && w.bits % 4 == 0
                        && w.bits > 4
                        && p.iter().all(|&i| (0..4).contains(&i))
                    {
                        let q = (w.bits / 4) as i64;
                        (0..w.bits as i64)
                            .map(|j| q * p[(j / q) as usize] + j % q)
                            .collect()
                    } else {
                        p.clone()
                    };
                    if p.len() != w.bits as usize || p.iter().any(|&i| i < 0 || i as u32 >= w.bits)
                    {
                        self.err(
                            inst,
                            Diagnostic::error(
                                e.span,
                                format!(
                                    "Shuffle pattern must list {} bit positions in 0..{}",
                                    w.bits, w.bits
                                ),
                            )
                            .label("bad pattern"),
                        );
                        return Err(());
                    }
                    let perm: Vec<u32> = p.iter().map(|&i| i as u32).collect();
                    words.push(self.shuffle_word(inst, w, &perm, e.span)?);
                }
                Ok(Val {
                    words,
                    shape: v.shape,
                })
            }
            ExprKind::Bitmask(a, k) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                let k = self.eval_nat(inst, k)?;
                let mut words = Vec::new();
                for w in &v.words {
                    if k < 0 || k as u32 >= w.bits {
                        self.err(
                            inst,
                            Diagnostic::error(
                                e.span,
                                format!("Bitmask index {} is outside 0..{}", k, w.bits),
                            )
                            .label("bad bit index"),
                        );
                        return Err(());
                    }
                    let k = k as u32;
                    let nw = match self.opts.slicing {
                        Slicing::B => Word {
                            bits: w.bits,
                            atoms: vec![w.atoms[k as usize]; w.bits as usize],
                        },
                        Slicing::V => Word {
                            bits: w.bits,
                            atoms: vec![self.emit(
                                inst,
                                Op::Bitmask(w.atoms[0], k),
                                w.bits,
                                e.span,
                            )?],
                        },
                        Slicing::H => {
                            self.shuffle_word(inst, w, &vec![k; w.bits as usize], e.span)?
                        }
                    };
                    words.push(nw);
                }
                Ok(Val {
                    words,
                    shape: v.shape,
                })
            }
            ExprKind::Pack(a, b, t) => {
                let va = self.eval(inst, a, None, decl_idx)?;
                let vb = self.eval(inst, b, Some(&Self::widths(&va)), decl_idx)?;
                if va.words.len() != 1
                    || vb.words.len() != 1
                    || va.words[0].bits != vb.words[0].bits
                    || va.words[0].bits > 32
                {
                    self.err(
                        inst,
                        Diagnostic::error(
                            e.span,
                            "Pack takes two words of the same size (at most 32 bits)",
                        )
                        .label("bad operands"),
                    );
                    return Err(());
                }
                let m = va.words[0].bits;
                if let Some(t) = t {
                    if let Ok(Ty::Words { bits, shape, .. }) =
                        self.resolve_type(inst, t, &BTreeMap::new())
                    {
                        if bits != 2 * m || shape.iter().product::<usize>() != 1 {
                            self.err(
                                inst,
                                Diagnostic::error(
                                    t.span,
                                    format!("Pack of two {}-bit words gives a u{}", m, 2 * m),
                                )
                                .label("wrong result type"),
                            );
                            return Err(());
                        }
                    }
                }
                match self.opts.slicing {
                    Slicing::B => {
                        let mut atoms = va.words[0].atoms.clone();
                        atoms.extend_from_slice(&vb.words[0].atoms);
                        Ok(Val::tuple(vec![Word { bits: 2 * m, atoms }]))
                    }
                    Slicing::V => {
                        let r = self.emit(
                            inst,
                            Op::Pack(va.words[0].atoms[0], vb.words[0].atoms[0]),
                            2 * m,
                            e.span,
                        )?;
                        Ok(Val::tuple(vec![Word {
                            bits: 2 * m,
                            atoms: vec![r],
                        }]))
                    }
                    Slicing::H => {
                        self.err(
                            inst,
                            Diagnostic::error(e.span, "Pack cannot be expressed in hslice")
                                .label("hslice")
                                .help("compile with -V or -B"),
                        );
                        Err(())
                    }
                }
            }
            ExprKind::Refresh(a) => {
                let v = self.eval(inst, a, expect, decl_idx)?;
                self.map_atoms(inst, &v, e.span, Op::Copy)
            }
        }
    }

    /// Whether `e` is an untyped constant or a tuple whose tree of nested tuples holds one.
    pub(super) fn has_untyped(&self, inst: &Inst, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Tuple(items) => items.iter().any(|i| self.has_untyped(inst, i)),
            _ => self.is_static(inst, e),
        }
    }

    pub(super) fn eval_tuple(
        &mut self,
        inst: &mut Inst,
        items: &[Expr],
        expect: Option<&[u32]>,
        decl_idx: usize,
    ) -> R<Val> {
        // Nested tuples are spliced into their parent before constants are typed (R3): the
        // constants of the whole tree share the expected words.
        fn splice<'e>(items: &'e [Expr], out: &mut Vec<&'e Expr>) {
            for it in items {
                match &it.kind {
                    ExprKind::Tuple(inner) => splice(inner, out),
                    _ => out.push(it),
                }
            }
        }
        let mut flat: Vec<&Expr> = Vec::with_capacity(items.len());
        splice(items, &mut flat);
        let items = flat;
        // Evaluate typed items first; untyped constants share the remaining expected words.
        let mut vals: Vec<Option<Val>> = vec![None; items.len()];
        let mut n_static = 0;
        let mut known = 0usize;
        for (i, it) in items.iter().enumerate() {
            if self.is_static(inst, it) {
                n_static += 1;
            } else {
                let v = self.eval(inst, it, None, decl_idx)?;
                known += v.words.len();
                vals[i] = Some(v);
            }
        }
        if n_static > 0 {
            let Some(exp) = expect else {
                let sp = items
                    .iter()
                    .find(|i| self.is_static(inst, i))
                    .map(|i| i.span)
                    .unwrap_or_default();
                self.err(
                    inst,
                    Diagnostic::error(sp, "cannot infer the type of this constant")
                        .label("untyped constant")
                        .help("annotate it, e.g. `0:u32`"),
                );
                return Err(());
            };
            // Work in words when the known items align with the expected words, else in bits.
            let mut exp: Vec<u32> = exp.to_vec();
            let aligned = {
                let mut pos = 0;
                let mut ok = true;
                for v in vals.iter().flatten() {
                    for w in &v.words {
                        if pos >= exp.len() {
                            ok = false;
                            break;
                        }
                        pos += 1;
                        let _ = w;
                    }
                }
                ok && exp.len() >= known
            };
            if !aligned && self.opts.slicing == Slicing::B {
                let total: u32 = exp.iter().sum();
                exp = vec![1; total as usize];
            }
            let remaining = exp.len().saturating_sub(if aligned {
                known
            } else {
                vals.iter()
                    .flatten()
                    .map(|v| v.words.iter().map(|w| w.bits as usize).sum::<usize>())
                    .sum()
            });
            if remaining == 0 || remaining % n_static != 0 {
                let sp = items
                    .iter()
                    .find(|i| self.is_static(inst, i))
                    .map(|i| i.span)
                    .unwrap_or_default();
                self.err(inst, Diagnostic::error(sp, "cannot spread the constants of this tuple evenly over the remaining elements").label("untyped constant").help("annotate the constant with its type"));
                return Err(());
            }
            let per = remaining / n_static;
            // Widths for each constant, in order of position.
            let mut pos = 0usize;
            for (i, it) in items.iter().enumerate() {
                match &vals[i] {
                    Some(v) => {
                        pos += if aligned {
                            v.words.len()
                        } else {
                            v.words.iter().map(|w| w.bits as usize).sum()
                        };
                    }
                    None => {
                        let ws = exp.get(pos..pos + per).map(|s| s.to_vec());
                        let Some(ws) = ws else {
                            self.err(
                                inst,
                                Diagnostic::error(
                                    it.span,
                                    "tuple does not match the expected shape",
                                )
                                .label("here"),
                            );
                            return Err(());
                        };
                        let n = self.eval_nat(inst, it)?;
                        vals[i] = Some(self.const_val(inst, n as u64, &ws, it.span)?);
                        pos += per;
                    }
                }
            }
        }
        let words: Vec<Word> = vals.into_iter().flat_map(|v| v.unwrap().words).collect();
        let n = words.len();
        Ok(Val {
            words,
            shape: vec![n],
        })
    }

    pub(super) fn map_atoms(
        &mut self,
        inst: &mut Inst,
        v: &Val,
        span: Span,
        f: impl Fn(VarId) -> Op,
    ) -> R<Val> {
        let mut words = Vec::with_capacity(v.words.len());
        for w in &v.words {
            let mut atoms = Vec::with_capacity(w.atoms.len());
            for a in &w.atoms {
                let bits = inst.node.bits(*a);
                atoms.push(self.emit(inst, f(*a), bits, span)?);
            }
            words.push(Word {
                bits: w.bits,
                atoms,
            });
        }
        Ok(Val {
            words,
            shape: v.shape.clone(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn binop(
        &mut self,
        inst: &mut Inst,
        op: BinOp,
        a: Val,
        b: Val,
        span: Span,
        sa: Span,
        sb: Span,
    ) -> R<Val> {
        let logic = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor);
        if matches!(op, BinOp::Div | BinOp::Mod) {
            self.err(
                inst,
                Diagnostic::error(span, "`/` and `%` only apply to compile-time naturals")
                    .label("data operands")
                    .help(
                        "division of data is not constant time; only index expressions may divide",
                    ),
            );
            return Err(());
        }
        if logic {
            let aa = a.atoms();
            let bb = b.atoms();
            let same_words = Self::widths(&a) == Self::widths(&b);
            if aa.len() != bb.len() || (!same_words && self.opts.slicing != Slicing::B) {
                self.err(
                    inst,
                    Diagnostic::error(span, "operands of a logic operator have different shapes")
                        .label("mismatch")
                        .with_secondary(sa, describe_val(&a))
                        .with_secondary(sb, describe_val(&b)),
                );
                return Err(());
            }
            for (x, y) in aa.iter().zip(&bb) {
                if inst.node.bits(*x) != inst.node.bits(*y) {
                    self.err(
                        inst,
                        Diagnostic::error(span, "operands have different word sizes")
                            .label("mismatch")
                            .with_secondary(sa, describe_val(&a))
                            .with_secondary(sb, describe_val(&b)),
                    );
                    return Err(());
                }
            }
            let mut out = Vec::with_capacity(aa.len());
            for (x, y) in aa.iter().zip(&bb) {
                let o = match op {
                    BinOp::And => Op::And(*x, *y),
                    BinOp::Or => Op::Or(*x, *y),
                    _ => Op::Xor(*x, *y),
                };
                let bits = inst.node.bits(*x);
                out.push(self.emit(inst, o, bits, span)?);
            }
            // Rebuild with the left operand's word structure.
            let mut words = Vec::new();
            let mut pos = 0;
            for w in &a.words {
                let n = w.atoms.len();
                words.push(Word {
                    bits: w.bits,
                    atoms: out[pos..pos + n].to_vec(),
                });
                pos += n;
            }
            return Ok(Val {
                words,
                shape: a.shape,
            });
        }
        // Arithmetic.
        if Self::widths(&a).contains(&1) {
            self.r7_check(inst, 1, span, "arithmetic")?;
        }
        if Self::widths(&a) != Self::widths(&b) {
            self.err(
                inst,
                Diagnostic::error(span, "operands of arithmetic have different shapes")
                    .label("mismatch")
                    .with_secondary(sa, describe_val(&a))
                    .with_secondary(sb, describe_val(&b)),
            );
            return Err(());
        }
        let mut words = Vec::new();
        for (x, y) in a.words.iter().zip(&b.words) {
            let m = x.bits;
            if ![8, 16, 32, 64].contains(&m) {
                self.err(
                    inst,
                    Diagnostic::error(
                        span,
                        format!(
                            "arithmetic needs 8-, 16-, 32- or 64-bit words, not {}-bit",
                            m
                        ),
                    )
                    .label("word size")
                    .with_secondary(sa, describe_val(&a)),
                );
                return Err(());
            }
            let w = match (self.opts.slicing, op) {
                (Slicing::V, _) => {
                    let o = match op {
                        BinOp::Add => Op::Add(x.atoms[0], y.atoms[0]),
                        BinOp::Sub => Op::Sub(x.atoms[0], y.atoms[0]),
                        _ => Op::Mul(x.atoms[0], y.atoms[0]),
                    };
                    Word {
                        bits: m,
                        atoms: vec![self.emit(inst, o, m, span)?],
                    }
                }
                (Slicing::B, BinOp::Add) => Word {
                    bits: m,
                    atoms: self.b_add(inst, &x.atoms, &y.atoms, false, span)?,
                },
                (Slicing::B, BinOp::Sub) => {
                    let mut nb = Vec::new();
                    for v in &y.atoms {
                        nb.push(self.emit(inst, Op::Not(*v), 1, span)?);
                    }
                    Word {
                        bits: m,
                        atoms: self.b_add(inst, &x.atoms, &nb, true, span)?,
                    }
                }
                (Slicing::B, _) => Word {
                    bits: m,
                    atoms: self.b_mul(inst, &x.atoms, &y.atoms, span)?,
                },
                (Slicing::H, BinOp::Add) => Word {
                    bits: m,
                    atoms: vec![self.h_add(inst, x.atoms[0], y.atoms[0], m, span)?],
                },
                (Slicing::H, BinOp::Sub) => {
                    let nb = self.emit(inst, Op::Not(y.atoms[0]), m, span)?;
                    let one = self.emit(inst, Op::Const(1), m, span)?;
                    let t = self.h_add(inst, x.atoms[0], nb, m, span)?;
                    Word {
                        bits: m,
                        atoms: vec![self.h_add(inst, t, one, m, span)?],
                    }
                }
                (Slicing::H, _) => {
                    // Shift-and-add: sum over j of (a << j) & broadcast(bit j from the LSB of b).
                    let mut acc = self.emit(inst, Op::Const(0), m, span)?;
                    for j in 0..m {
                        let sh = if j == 0 {
                            x.atoms[0]
                        } else {
                            self.emit(inst, Op::Shl(x.atoms[0], j), m, span)?
                        };
                        let bm = self.emit(
                            inst,
                            Op::Shuffle(y.atoms[0], vec![m - 1 - j; m as usize]),
                            m,
                            span,
                        )?;
                        let pp = self.emit(inst, Op::And(sh, bm), m, span)?;
                        acc = self.h_add(inst, acc, pp, m, span)?;
                    }
                    Word {
                        bits: m,
                        atoms: vec![acc],
                    }
                }
            };
            words.push(w);
        }
        Ok(Val {
            words,
            shape: a.shape,
        })
    }
}
