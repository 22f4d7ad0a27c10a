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

    pub(super) fn equation(
        &mut self,
        inst: &mut Inst,
        eq: &ast::Equation,
        decl_idx: usize,
    ) -> R<()> {
        match eq {
            ast::Equation::Forall {
                attrs,
                var,
                from,
                to,
                body,
                span,
            } => {
                check_attrs(self, attrs, &["unroll", "no_unroll", "pipelined"]);
                let a = self.eval_nat(inst, from)?;
                let b = self.eval_nat(inst, to)?;
                let count = (a - b).unsigned_abs() + 1;
                if count > 1 << 22 {
                    self.err(
                        inst,
                        Diagnostic::error(
                            *span,
                            format!("loop runs {} times (at most {} allowed)", count, 1 << 22),
                        )
                        .label("loop"),
                    );
                    return Err(());
                }
                if inst.vars.contains_key(&var.name)
                    || inst.nats.contains_key(&var.name)
                    || inst.loops.iter().any(|(n, _)| n == &var.name)
                {
                    self.err(
                        inst,
                        Diagnostic::error(
                            var.span,
                            format!("loop index `{}` shadows another name", var.name),
                        )
                        .label("already declared"),
                    );
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
            ast::Equation::Assign {
                lhs,
                kind,
                rhs,
                span,
            } => {
                let r = self.assign(inst, lhs, *kind, rhs, *span, decl_idx);
                if r.is_err() {
                    // Poison the left-hand side so later uses don't cascade into more errors.
                    for l in lhs {
                        if let Ok((name, words)) = self.place(inst, l, true) {
                            let Some(v) = inst.vars.get(&name) else {
                                continue;
                            };
                            if v.role == Role::Input {
                                continue;
                            }
                            let apw = v.atoms_per_word;
                            let ids: Vec<VarId> = words
                                .iter()
                                .flat_map(|w| (0..apw).map(move |b| w * apw + b))
                                .map(|k| inst.vars[&name].slots[k])
                                .collect();
                            for id in ids {
                                if inst.def_span_of(id).is_none() {
                                    inst.set_def_span(id, *span);
                                    inst.instrs.push((
                                        Instr::Assign {
                                            dst: id,
                                            op: Op::Const(0),
                                        },
                                        *span,
                                    ));
                                }
                            }
                        }
                    }
                }
                r
            }
        }
    }

    pub(super) fn assign(
        &mut self,
        inst: &mut Inst,
        lhs: &[Expr],
        kind: AssignKind,
        rhs: &Expr,
        span: Span,
        decl_idx: usize,
    ) -> R<()> {
        // R8: `k = <compile-time expression>` gives a `nat` local its value.
        if let [Expr {
            kind: ExprKind::Var(id),
            ..
        }] = lhs
        {
            if inst.nat_locals.contains_key(&id.name) {
                if inst.nats.contains_key(&id.name) && kind == AssignKind::Def {
                    self.err(
                        inst,
                        Diagnostic::error(
                            span,
                            format!("`nat` local `{}` is given a value twice", id.name),
                        )
                        .label("second value")
                        .help("use `:=` for a new value"),
                    );
                    return Err(());
                }
                let v = self.eval_nat(inst, rhs)?;
                inst.nats.insert(id.name.clone(), v);
                return Ok(());
            }
        }
        let mut places = Vec::new();
        let mut expect = Vec::new();
        for l in lhs {
            if let Some(n) = Self::root_var(l).filter(|n| inst.nat_locals.contains_key(*n)) {
                self.err(
                    inst,
                    Diagnostic::error(
                        l.span,
                        format!("`nat` local `{}` can only be given a value as a whole", n),
                    )
                    .label("nat")
                    .help(format!(
                        "write `{} = <compile-time expression>;` as its own equation",
                        n
                    )),
                );
                return Err(());
            }
            // Inputs may be redefined (R1): `:=` gives a new version; the caller's value is
            // never modified.
            let (name, words) = self.place(inst, l, false)?;
            let v = &inst.vars[&name];
            let bits = match v.ty {
                Ty::Words { bits, .. } => bits,
                Ty::Nat => 1,
            };
            expect.extend(std::iter::repeat_n(bits, words.len()));
            places.push((name, words, l.span));
        }
        let val = self.eval(inst, rhs, Some(&expect), decl_idx)?;
        // C4: an entry output receiving a node's result with fewer dimensions is reshaped.
        if let (true, [l], ExprKind::Call(f, _, _)) = (inst.is_entry, lhs, &rhs.kind) {
            if let Some(&c) = self.decl_index.get(f.name.as_str()) {
                let outs = &self.ast.decls[c].outputs;
                if outs.len() == 1 {
                    self.note_reshape(inst, l, &outs[0].ty, val.words.len());
                }
            }
        }
        let rhs_atoms = val.atoms();
        // (index in `places`, atom index in the variable) of each atom written.
        let mut lhs_slots: Vec<(usize, usize)> = Vec::new();
        for (pi, (name, words, _)) in places.iter().enumerate() {
            let apw = inst.vars[name].atoms_per_word;
            for w in words {
                for b in 0..apw {
                    lhs_slots.push((pi, w * apw + b));
                }
            }
        }
        if lhs_slots.len() != rhs_atoms.len() {
            let unit = if self.opts.slicing == Slicing::B {
                "bits"
            } else {
                "words"
            };
            self.err(
                inst,
                Diagnostic::error(
                    rhs.span,
                    format!(
                        "the right side has {} {} but the left side expects {}",
                        rhs_atoms.len(),
                        unit,
                        lhs_slots.len()
                    ),
                )
                .label("size mismatch")
                .with_secondary(
                    lhs[0].span.to(lhs[lhs.len() - 1].span),
                    format!("{} {}", lhs_slots.len(), unit),
                ),
            );
            return Err(());
        }
        // One variable lookup per place, not per atom.
        let mut ai = 0;
        for (name, words, _) in &places {
            let v = &inst.vars[name];
            let apw = v.atoms_per_word;
            let a = &rhs_atoms[ai..ai + words.len() * apw];
            ai += a.len();
            let ks = words
                .iter()
                .flat_map(|w| (0..apw).map(move |b| w * apw + b));
            let Some((k, a)) = ks
                .zip(a)
                .find(|&(k, a)| inst.node.bits(v.slots[k]) != inst.node.bits(*a))
            else {
                continue;
            };
            let target_bits = inst.node.bits(v.slots[k]);
            self.err(
                inst,
                Diagnostic::error(
                    rhs.span,
                    format!(
                        "word size mismatch: {}-bit value assigned to {}-bit `{}`",
                        inst.node.bits(*a),
                        target_bits,
                        name
                    ),
                )
                .label("wrong word size"),
            );
            return Err(());
        }
        let mut warned = false;
        for ((pi, k), a) in lhs_slots.into_iter().zip(rhs_atoms) {
            let name = &places[pi].0;
            let v = &inst.vars[name];
            let (first, slot) = (v.first[k], v.slots[k]);
            // Whether atom `k` already holds a value: an input, or an atom an earlier equation
            // defined (in elaboration order).
            let defined =
                v.role == Role::Input || slot != first || inst.def_span_of(first).is_some();
            let dst = match kind {
                AssignKind::Def if !defined => first,
                AssignKind::Def | AssignKind::Redef => {
                    if kind == AssignKind::Def && !warned {
                        // R4 / R1.2 (quirk): a repeated `=` (or `=` on an input) is a new version.
                        warned = true;
                        let v = &inst.vars[name];
                        let what = inst.describe(v.first[k]);
                        let prev = inst
                            .def_span_of(v.slots[k])
                            .or(inst.def_span_of(v.first[k]));
                        let is_input = v.role == Role::Input;
                        self.repeated_def_warning(inst, span, &what, prev, is_input);
                    }
                    let bits = inst.node.bits(inst.vars[name].slots[k]);
                    let base = inst.node.var(inst.vars[name].first[k]).name.clone();
                    let id = inst.fresh(&format!("{}_v", base), bits);
                    let f = inst.vars[name].first[k];
                    inst.first_of.insert(id, f);
                    inst.mark_source(id);
                    inst.vars.get_mut(name).unwrap().slots[k] = id;
                    id
                }
            };
            inst.set_def_span(dst, span);
            self.count_op(span)?;
            inst.instrs.push((
                Instr::Assign {
                    dst,
                    op: Op::Copy(a),
                },
                span,
            ));
        }
        Ok(())
    }

    /// The one-line warning of R4/R1.2: under `--compat usubac` it names the quirk; under
    /// nakiri's own spelling it says the program relies on usubac's reading.
    fn repeated_def_warning(
        &mut self,
        inst: &Inst,
        span: Span,
        what: &str,
        prev: Option<Span>,
        is_input: bool,
    ) {
        let target = if is_input {
            format!("input `{}`", what)
        } else {
            format!("`{}`", what)
        };
        let mut d = if self.opts.compat_usubac {
            Diagnostic::warning(span, format!("usubac quirk (repeated `=`): {} already has a value; this `=` gives it a new version, as `:=` does", target))
        } else {
            Diagnostic::warning(span, format!("{} already has a value: `language.md` allows one `=` per variable; nakiri reads this `=` as `:=` (a new version), as usubac does", target))
        };
        d = d
            .label("new version")
            .help("write `:=` to give a variable a new version");
        if let Some(p) = prev {
            d = d.with_secondary(p, "earlier definition");
        }
        self.err(inst, d);
    }

    /// The variable at the root of an l-value (`x` in `x[1][2]`).
    pub(super) fn root_var(e: &Expr) -> Option<&str> {
        let mut cur = e;
        while let ExprKind::Index(b, _) = &cur.kind {
            cur = b;
        }
        match &cur.kind {
            ExprKind::Var(id) => Some(&id.name),
            _ => None,
        }
    }

    /// Resolves an l-value (or an indexed variable) to (variable, word indices, shape).
    /// Cost is proportional to the selection, not to the variable. `quiet`: no diagnostics.
    pub(super) fn place(
        &mut self,
        inst: &mut Inst,
        e: &Expr,
        quiet: bool,
    ) -> R<(String, Vec<usize>)> {
        self.place_shaped(inst, e, quiet).map(|(n, w, _)| (n, w))
    }

    pub(super) fn place_shaped(
        &mut self,
        inst: &mut Inst,
        e: &Expr,
        quiet: bool,
    ) -> R<(String, Vec<usize>, Vec<usize>)> {
        let mut chain = Vec::new();
        let mut cur = e;
        while let ExprKind::Index(b, idx) = &cur.kind {
            chain.push((idx, cur.span));
            cur = b;
        }
        chain.reverse();
        let ExprKind::Var(id) = &cur.kind else {
            if !quiet {
                self.err(
                    inst,
                    Diagnostic::error(e.span, "cannot assign to this expression")
                        .label("not a variable")
                        .help(
                            "the left side is a variable, an indexed variable, or a tuple of them",
                        ),
                );
            }
            return Err(());
        };
        let Some(v) = inst.vars.get(&id.name) else {
            if !quiet {
                let d = Diagnostic::error(id.span, format!("unknown variable `{}`", id.name))
                    .label("not declared")
                    .help("declare it in the node's `vars`");
                self.err(inst, d);
            }
            return Err(());
        };
        let n_words = v.ty.n_words();
        let shape = match &v.ty {
            Ty::Words { shape, .. } => shape.clone(),
            Ty::Nat => vec![],
        };
        if chain.is_empty() {
            return Ok((id.name.clone(), (0..n_words).collect(), shape));
        }
        // R2: selector j always addresses dimension j of the variable; a range or list does not
        // make a new outer dimension for the next selector. The path denotes every
        // `v[i1]..[ik]` (lexicographic, s1 outermost), each with its remaining contents.
        let mut sel: Vec<usize> = vec![0]; // flat index over the dimensions selected so far
        let mut out_shape = Vec::new();
        let k = chain.len();
        for (j, (idx, span)) in chain.into_iter().enumerate() {
            let (picked, _) =
                self.pick_rows(inst, &shape[j.min(shape.len())..], idx, span, quiet)?;
            if !matches!(idx, ast::Index::One(_)) {
                out_shape.push(picked.len());
            }
            let d = shape[j];
            let mut next = Vec::with_capacity(sel.len() * picked.len());
            for s in &sel {
                for p in &picked {
                    next.push(s * d + p);
                }
            }
            sel = next;
        }
        let rs: usize = shape[k..].iter().product();
        let mut words = Vec::with_capacity(sel.len() * rs);
        for s in sel {
            words.extend(s * rs..(s + 1) * rs);
        }
        out_shape.extend_from_slice(&shape[k..]);
        Ok((id.name.clone(), words, out_shape))
    }

    pub(super) fn index_rows<T: Clone>(
        &mut self,
        inst: &mut Inst,
        items: Vec<T>,
        shape: &[usize],
        idx: &ast::Index,
        span: Span,
        quiet: bool,
    ) -> R<(Vec<T>, Vec<usize>)> {
        let (picks, new_shape) = self.pick_rows(inst, shape, idx, span, quiet)?;
        let rs: usize = shape[1..].iter().product();
        let mut out = Vec::with_capacity(picks.len() * rs);
        for p in picks {
            out.extend_from_slice(&items[p * rs..(p + 1) * rs]);
        }
        Ok((out, new_shape))
    }

    /// The rows (outermost indices) an index selects, and the resulting shape.
    pub(super) fn pick_rows(
        &mut self,
        inst: &mut Inst,
        shape: &[usize],
        idx: &ast::Index,
        span: Span,
        quiet: bool,
    ) -> R<(Vec<usize>, Vec<usize>)> {
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
            let k = if quiet {
                cx.eval_nat_quiet(inst, e).ok_or(())?
            } else {
                cx.eval_nat(inst, e)?
            };
            if k < 0 || k as usize >= rows {
                if !quiet {
                    cx.err(
                        inst,
                        Diagnostic::error(
                            e.span,
                            format!("index {} is out of bounds (size {})", k, rows),
                        )
                        .label("out of bounds"),
                    );
                }
                return Err(());
            }
            Ok(k as usize)
        };
        let new_shape = match idx {
            ast::Index::One(e) => {
                picks.push(check(self, inst, e)?);
                shape[1..].to_vec()
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
                s
            }
            ast::Index::List(l) => {
                for e in l {
                    picks.push(check(self, inst, e)?);
                }
                let mut s = vec![picks.len()];
                s.extend_from_slice(&shape[1..]);
                s
            }
        };
        Ok((picks, new_shape))
    }
}
