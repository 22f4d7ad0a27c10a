//! Equations: `=`, `:=` (a new SSA version of what it writes), compound assignments, and
//! `forall` loops, unrolled here with each iteration's instructions recorded for
//! `opt::outline` (unless `_unroll`); left-hand sides resolve to atoms through indices,
//! ranges and slices.
//!
//! Before: `forall i in [0,1] { x[i+1] = x[i] ^ k }`. After: `x__1 = xor x__0 k;
//! x__2 = xor x__1 k`.

use super::*;

impl<'a> Ctx<'a> {
    // --------------------------------------------------------------------------------------
    // Equations

    pub(super) fn equation(&mut self, inst: &mut Inst, eq: &ast::Equation, decl_idx: usize) -> R<()> {
        match eq {
            ast::Equation::Forall { attrs, var, from, to, body, span } => {
                check_attrs(self, attrs, &["unroll", "no_unroll", "pipelined"]);
                let a = self.eval_nat(inst, from)?;
                let b = self.eval_nat(inst, to)?;
                let count = (a - b).unsigned_abs() + 1;
                if count > 1 << 22 {
                    self.err(inst, Diagnostic::error(*span, format!("loop runs {} times (at most {} allowed)", count, 1 << 22)).label("loop"));
                    return Err(());
                }
                if inst.vars.contains_key(&var.name) || inst.nats.contains_key(&var.name) || inst.loops.iter().any(|(n, _)| n == &var.name) {
                    self.err(inst, Diagnostic::error(var.span, format!("loop index `{}` shadows another name", var.name)).label("already declared"));
                    return Err(());
                }
                let step: i64 = if a <= b { 1 } else { -1 };
                let mut i = a;
                let keep = !attrs.iter().any(|x| x.name == "unroll");
                let mut ranges = Vec::new();
                loop {
                    self.count_iteration(*span)?;
                    let start = inst.instrs.len();
                    inst.loops.push((var.name.clone(), i));
                    for e in body {
                        if self.aborted {
                            inst.loops.pop();
                            return Err(());
                        }
                        let _ = self.equation(inst, e, decl_idx);
                    }
                    inst.loops.pop();
                    ranges.push((start, inst.instrs.len()));
                    if i == b {
                        break;
                    }
                    i += step;
                }
                if keep && ranges.len() > 1 {
                    inst.loop_ranges.push(ranges);
                }
                Ok(())
            }
            ast::Equation::Assign { lhs, kind, rhs, span } => {
                let r = self.assign(inst, lhs, *kind, rhs, *span, decl_idx);
                if r.is_err() {
                    // Poison the left-hand side so later uses don't cascade into more errors.
                    for l in lhs {
                        if let Ok((name, words)) = self.place(inst, l, true) {
                            let Some(v) = inst.vars.get(&name) else { continue };
                            if v.role == Role::Input {
                                continue;
                            }
                            let apw = v.atoms_per_word;
                            let ids: Vec<VarId> = words.iter().flat_map(|w| (0..apw).map(move |b| w * apw + b)).map(|k| inst.vars[&name].slots[k]).collect();
                            for id in ids {
                                if inst.def_span_of(id).is_none() {
                                    inst.set_def_span(id, *span);
                                    inst.instrs.push((Instr::Assign { dst: id, op: Op::Const(0) }, *span));
                                }
                            }
                        }
                    }
                }
                r
            }
        }
    }

    pub(super) fn assign(&mut self, inst: &mut Inst, lhs: &[Expr], kind: AssignKind, rhs: &Expr, span: Span, decl_idx: usize) -> R<()> {
        let mut places = Vec::new();
        let mut expect = Vec::new();
        for l in lhs {
            let (name, words) = self.place(inst, l, false)?;
            let v = &inst.vars[&name];
            if v.role == Role::Input {
                self.err(inst, Diagnostic::error(l.span, format!("cannot assign to input `{}`", name)).label("input parameter").help("declare a local variable in `vars` and assign that"));
                return Err(());
            }
            let bits = match v.ty {
                Ty::Words { bits, .. } => bits,
                Ty::Nat => 1,
            };
            expect.extend(std::iter::repeat(bits).take(words.len()));
            places.push((name, words, l.span));
        }
        let val = self.eval(inst, rhs, Some(&expect), decl_idx)?;
        let rhs_atoms = val.atoms();
        let mut lhs_slots = Vec::new();
        for (name, words, _) in &places {
            let apw = inst.vars[name].atoms_per_word;
            for w in words {
                for b in 0..apw {
                    lhs_slots.push((name.clone(), w * apw + b));
                }
            }
        }
        if lhs_slots.len() != rhs_atoms.len() {
            let unit = if self.opts.slicing == Slicing::B { "bits" } else { "words" };
            self.err(
                inst,
                Diagnostic::error(rhs.span, format!("the right side has {} {} but the left side expects {}", rhs_atoms.len(), unit, lhs_slots.len()))
                    .label("size mismatch")
                    .with_secondary(lhs[0].span.to(lhs[lhs.len() - 1].span), format!("{} {}", lhs_slots.len(), unit)),
            );
            return Err(());
        }
        for ((name, k), a) in lhs_slots.iter().zip(&rhs_atoms) {
            let target_bits = inst.node.bits(inst.vars[name].slots[*k]);
            if target_bits != inst.node.bits(*a) {
                self.err(
                    inst,
                    Diagnostic::error(rhs.span, format!("word size mismatch: {}-bit value assigned to {}-bit `{}`", inst.node.bits(*a), target_bits, name)).label("wrong word size"),
                );
                return Err(());
            }
        }
        for ((name, k), a) in lhs_slots.into_iter().zip(rhs_atoms) {
            let dst = match kind {
                AssignKind::Def => {
                    let v = &inst.vars[&name];
                    let first = v.first[k];
                    if let Some(prev) = inst.def_span_of(first) {
                        let what = inst.describe(first);
                        let d = Diagnostic::error(span, format!("`{}` is defined twice", what)).label("second definition").with_secondary(prev, "first definition").help("use `:=` to give a variable a new version");
                        self.err(inst, d);
                        return Err(());
                    }
                    first
                }
                AssignKind::Redef => {
                    let bits = inst.node.bits(inst.vars[&name].slots[k]);
                    let base = inst.node.var(inst.vars[&name].first[k]).name.clone();
                    let id = inst.fresh(&format!("{}_v", base), bits);
                    let f = inst.vars[&name].first[k];
                    inst.first_of.insert(id, f);
                    inst.mark_source(id);
                    inst.vars.get_mut(&name).unwrap().slots[k] = id;
                    id
                }
            };
            inst.set_def_span(dst, span);
            self.count_op(span)?;
            inst.instrs.push((Instr::Assign { dst, op: Op::Copy(a) }, span));
        }
        Ok(())
    }

    /// Resolves an l-value (or an indexed variable) to (variable, word indices, shape).
    /// Cost is proportional to the selection, not to the variable. `quiet`: no diagnostics.
    pub(super) fn place(&mut self, inst: &mut Inst, e: &Expr, quiet: bool) -> R<(String, Vec<usize>)> {
        self.place_shaped(inst, e, quiet).map(|(n, w, _)| (n, w))
    }

    pub(super) fn place_shaped(&mut self, inst: &mut Inst, e: &Expr, quiet: bool) -> R<(String, Vec<usize>, Vec<usize>)> {
        let mut chain = Vec::new();
        let mut cur = e;
        while let ExprKind::Index(b, idx) = &cur.kind {
            chain.push((idx, cur.span));
            cur = b;
        }
        chain.reverse();
        let ExprKind::Var(id) = &cur.kind else {
            if !quiet {
                self.err(inst, Diagnostic::error(e.span, "cannot assign to this expression").label("not a variable").help("the left side is a variable, an indexed variable, or a tuple of them"));
            }
            return Err(());
        };
        let Some(v) = inst.vars.get(&id.name) else {
            if !quiet {
                let d = Diagnostic::error(id.span, format!("unknown variable `{}`", id.name)).label("not declared").help("declare it in the node's `vars`");
                self.err(inst, d);
            }
            return Err(());
        };
        let n_words = v.ty.n_words();
        let mut shape = match &v.ty {
            Ty::Words { shape, .. } => shape.clone(),
            Ty::Nat => vec![],
        };
        let mut sel: Option<Vec<usize>> = None; // None = every word, in order
        for (idx, span) in chain {
            let (picked, new_shape) = self.pick_rows(inst, &shape[..shape.len().min(1)], idx, span, quiet)?;
            let rs: usize = shape[1..].iter().product();
            let mut next = Vec::with_capacity(picked.len() * rs);
            for p in &picked {
                for j in 0..rs {
                    let k = p * rs + j;
                    next.push(match &sel {
                        Some(s) => s[k],
                        None => k,
                    });
                }
            }
            let mut s2 = new_shape;
            s2.extend_from_slice(&shape[1..]);
            shape = s2;
            sel = Some(next);
        }
        Ok((id.name.clone(), sel.unwrap_or_else(|| (0..n_words).collect()), shape))
    }

    pub(super) fn index_rows<T: Clone>(&mut self, inst: &mut Inst, items: Vec<T>, shape: &[usize], idx: &ast::Index, span: Span, quiet: bool) -> R<(Vec<T>, Vec<usize>)> {
        let (picks, new_shape) = self.pick_rows(inst, shape, idx, span, quiet)?;
        let rs: usize = shape[1..].iter().product();
        let mut out = Vec::with_capacity(picks.len() * rs);
        for p in picks {
            out.extend_from_slice(&items[p * rs..(p + 1) * rs]);
        }
        Ok((out, new_shape))
    }

    /// The rows (outermost indices) an index selects, and the resulting shape.
    pub(super) fn pick_rows(&mut self, inst: &mut Inst, shape: &[usize], idx: &ast::Index, span: Span, quiet: bool) -> R<(Vec<usize>, Vec<usize>)> {

        if shape.is_empty() {
            if !quiet {
                let _ = idx;
                let m = "cannot index a single word";
                let d = Diagnostic::error(span, m).label("not an array or vector").help("to address the bits of a word, declare it as a vector of bits, e.g. `b32` instead of `u32`");
                self.err(inst, d);
            }
            return Err(());
        }
        let rows = shape[0];
        let mut picks = Vec::new();
        let check = |cx: &mut Ctx, inst: &mut Inst, e: &Expr| -> R<usize> {
            let k = if quiet { cx.eval_nat_quiet(inst, e).ok_or(())? } else { cx.eval_nat(inst, e)? };
            if k < 0 || k as usize >= rows {
                if !quiet {
                    cx.err(inst, Diagnostic::error(e.span, format!("index {} is out of bounds (size {})", k, rows)).label("out of bounds"));
                }
                return Err(());
            }
            Ok(k as usize)
        };
        let new_shape;
        match idx {
            ast::Index::One(e) => {
                picks.push(check(self, inst, e)?);
                new_shape = shape[1..].to_vec();
            }
            ast::Index::Range(a, b) => {
                let a = check(self, inst, a)?;
                let b = check(self, inst, b)?;
                if a <= b {
                    picks.extend(a..=b);
                } else {
                    picks.extend((b..=a).rev());
                }
                let mut s = vec![picks.len()];
                s.extend_from_slice(&shape[1..]);
                new_shape = s;
            }
            ast::Index::List(l) => {
                for e in l {
                    picks.push(check(self, inst, e)?);
                }
                let mut s = vec![picks.len()];
                s.extend_from_slice(&shape[1..]);
                new_shape = s;
            }
        }
        Ok((picks, new_shape))
    }
}
