//! Calls: node, table and perm calls (and `f<i>` node arrays), arguments flattened and matched
//! to the flattened parameters; each call site instantiates its callee for the argument types
//! (monomorphisation of direction and word size).
//!
//! Before: `y = f(x)` with `f (a:v4)` and `x:u16x4` in -V. After: a call of `f__m16`.

use super::*;

impl<'a> Ctx<'a> {
    // --------------------------------------------------------------------------------------
    // Calls

    pub(super) fn call(
        &mut self,
        inst: &mut Inst,
        f: &ast::Ident,
        idx: Option<&Expr>,
        args: &[Expr],
        span: Span,
        decl_idx: usize,
    ) -> R<Val> {
        let Some(&callee) = self.decl_index.get(f.name.as_str()) else {
            let d = if inst.vars.contains_key(&f.name) {
                Diagnostic::error(f.span, format!("`{}` is a variable, not a node", f.name))
                    .label("not callable")
            } else {
                Diagnostic::error(f.span, format!("unknown node `{}`", f.name))
                    .label("not declared")
                    .help("nodes, tables and perms must be declared before their use")
            };
            self.err(inst, d);
            return Err(());
        };
        if callee >= decl_idx {
            self.err(
                inst,
                Diagnostic::error(
                    f.span,
                    format!("`{}` is used before its declaration", f.name),
                )
                .label("declared later")
                .with_secondary(self.ast.decls[callee].name.span, "declared here")
                .help("declarations must come before their use (recursion is not allowed)"),
            );
            return Err(());
        }
        let d: &'a ast::Decl = &self.ast.decls[callee];
        let n_defs = match &d.kind {
            DeclKind::Node(b) => b.len(),
            DeclKind::Table(l) | DeclKind::Perm(l) => l.len(),
        };
        let arr = match (d.is_array, idx) {
            (true, Some(i)) => {
                let k = self.eval_nat(inst, i)?;
                if k < 0 || k as usize >= n_defs {
                    self.err(
                        inst,
                        Diagnostic::error(
                            i.span,
                            format!(
                                "index {} is out of bounds: `{}` has {} definitions",
                                k, f.name, n_defs
                            ),
                        )
                        .label("out of bounds"),
                    );
                    return Err(());
                }
                k as usize
            }
            (true, None) => {
                self.err(
                    inst,
                    Diagnostic::error(
                        f.span,
                        format!(
                            "`{}` is an array of definitions; call it as `{}<i>(...)`",
                            f.name, f.name
                        ),
                    )
                    .label("index missing"),
                );
                return Err(());
            }
            (false, Some(i)) => {
                self.err(
                    inst,
                    Diagnostic::error(
                        i.span,
                        format!("`{}` is not an array; remove `<...>`", f.name),
                    )
                    .label("unexpected index"),
                );
                return Err(());
            }
            (false, None) => 0,
        };
        // Split nat and word parameters; arguments flatten.
        let nat_params: Vec<usize> = d
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ty.base == BaseType::Nat)
            .map(|(i, _)| i)
            .collect();
        let mut nats = Vec::new();
        let mut word_args: Vec<&Expr> = Vec::new();
        if !nat_params.is_empty() {
            if args.len() != d.inputs.len() {
                self.err(
                    inst,
                    Diagnostic::error(
                        span,
                        format!(
                            "`{}` takes {} arguments, {} given",
                            f.name,
                            d.inputs.len(),
                            args.len()
                        ),
                    )
                    .label("wrong number of arguments"),
                );
                return Err(());
            }
            for (i, a) in args.iter().enumerate() {
                if nat_params.contains(&i) {
                    nats.push(self.eval_nat(inst, a)?);
                } else {
                    word_args.push(a);
                }
            }
        } else {
            word_args = args.iter().collect();
        }
        // Evaluate arguments (constants take the parameter types when those are known).
        let mut arg_words: Vec<Word> = Vec::new();
        let word_params: Vec<&ast::Param> = d
            .inputs
            .iter()
            .filter(|p| p.ty.base != BaseType::Nat)
            .collect();
        for (ai, a) in word_args.iter().enumerate() {
            let before = arg_words.len();
            let has_static = self.has_untyped(inst, a);
            if has_static {
                // Typed by the callee's remaining parameters, if concrete.
                let mut widths = Vec::new();
                let consumed: usize = arg_words.len();
                let mut seen = 0usize;
                for p in d.inputs.iter().filter(|p| p.ty.base != BaseType::Nat) {
                    if let BaseType::Word {
                        size: SizeSpec::Known(m),
                        count,
                        ..
                    } = &p.ty.base
                    {
                        let mut n = count.unwrap_or(1) as usize;
                        for dim in &p.ty.dims {
                            n *= self.eval_nat_quiet(inst, dim).unwrap_or(1).max(1) as usize;
                        }
                        for _ in 0..n {
                            if seen >= consumed {
                                widths.push(*m);
                            }
                            seen += 1;
                        }
                    }
                    if !widths.is_empty() {
                        break;
                    }
                }
                let v = self.eval(
                    inst,
                    a,
                    if widths.is_empty() {
                        None
                    } else {
                        Some(&widths)
                    },
                    decl_idx,
                )?;
                arg_words.extend(v.words);
            } else {
                let v = self.eval(inst, a, None, decl_idx)?;
                arg_words.extend(v.words);
            }
            if word_args.len() == word_params.len() {
                let n = arg_words.len() - before;
                self.note_reshape(inst, a, &word_params[ai].ty, n);
            }
        }
        let sizes = self.unify(inst, d, &nats, &arg_words, span)?;
        let id = self.instantiate(callee, arr, sizes, nats, span, false)?;
        let cnode = &self.nodes[id.0 as usize];
        let c_in: Vec<u32> = cnode.flat_inputs().iter().map(|a| cnode.bits(*a)).collect();
        let outs: Vec<(u32, usize, Vec<usize>)> = cnode
            .outputs
            .iter()
            .map(|p| {
                let shape: Vec<usize> = if self.opts.slicing == Slicing::B && p.word_bits > 1 {
                    p.c_dims[..p.c_dims.len() - 1].to_vec()
                } else {
                    p.c_dims.clone()
                };
                (p.word_bits, p.atoms.len(), shape)
            })
            .collect();
        let args_atoms: Vec<VarId> = arg_words
            .iter()
            .flat_map(|w| w.atoms.iter().copied())
            .collect();
        if args_atoms.len() != c_in.len()
            || args_atoms
                .iter()
                .zip(&c_in)
                .any(|(a, b)| inst.node.bits(*a) != *b)
        {
            self.err(
                inst,
                Diagnostic::error(
                    span,
                    format!("arguments do not match the parameters of `{}`", f.name),
                )
                .label("argument mismatch"),
            );
            return Err(());
        }
        self.count_op(span)?;
        let mut dsts = Vec::new();
        let mut words = Vec::new();
        let mut shape_single = None;
        for (bits, n_atoms, shape) in &outs {
            let apw = if self.opts.slicing == Slicing::B {
                *bits as usize
            } else {
                1
            };
            let ab = inst.atom_bits(*bits);
            let mut atoms = Vec::new();
            for _ in 0..*n_atoms {
                let t = inst.temp(ab);
                atoms.push(t);
                dsts.push(t);
            }
            for c in atoms.chunks(apw) {
                words.push(Word {
                    bits: *bits,
                    atoms: c.to_vec(),
                });
            }
            shape_single = Some(shape.clone());
        }
        inst.instrs.push((
            Instr::Call {
                dsts,
                callee: id,
                args: args_atoms,
            },
            span,
        ));
        let n = words.len();
        let shape = if outs.len() == 1 {
            shape_single.unwrap()
        } else {
            vec![n]
        };
        Ok(Val { words, shape })
    }

    /// Finds the callee's polymorphic word sizes from the arguments' words.
    pub(super) fn unify(
        &mut self,
        inst: &mut Inst,
        d: &ast::Decl,
        nats: &[i64],
        args: &[Word],
        span: Span,
    ) -> R<BTreeMap<String, u32>> {
        // Each word parameter: (size spec, number of words).
        let mut tmp = Inst::new(String::new(), self.opts.slicing, None);
        let nat_names: Vec<&String> = d
            .inputs
            .iter()
            .filter(|p| p.ty.base == BaseType::Nat)
            .map(|p| &p.name.name)
            .collect();
        for (n, v) in nat_names.iter().zip(nats) {
            tmp.nats.insert((*n).clone(), *v);
        }
        let mut params = Vec::new();
        for p in d.inputs.iter().filter(|p| p.ty.base != BaseType::Nat) {
            if let BaseType::Word { size, count, .. } = &p.ty.base {
                let mut n = count.unwrap_or(1) as usize;
                for dim in &p.ty.dims {
                    let k = self.eval_nat(&tmp, dim)?;
                    n = n.saturating_mul(k.max(0) as usize);
                }
                params.push((size.clone(), n));
            }
        }
        let mut sizes = BTreeMap::new();
        let n_param_words: usize = params.iter().map(|p| p.1).sum();
        let fail = |cx: &mut Ctx, inst: &Inst, msg: String| {
            cx.err(
                inst,
                Diagnostic::error(span, msg)
                    .label("in this call")
                    .with_secondary(d.name.span, "parameters declared here"),
            );
        };
        if n_param_words == args.len() {
            let mut i = 0;
            let mut ok = true;
            for (size, n) in &params {
                for _ in 0..*n {
                    let a = args[i].bits;
                    i += 1;
                    match size {
                        SizeSpec::Known(m) if *m == a => {}
                        SizeSpec::Known(_) => ok = false,
                        SizeSpec::Poly(v) => match sizes.get(v) {
                            Some(&m) if m != a => ok = false,
                            _ => {
                                sizes.insert(v.clone(), a);
                            }
                        },
                    }
                }
            }
            if ok {
                return Ok(sizes);
            }
            if self.opts.slicing != Slicing::B {
                fail(
                    self,
                    inst,
                    format!(
                        "argument word sizes do not match the parameters of `{}`",
                        d.name.name
                    ),
                );
                return Err(());
            }
            sizes.clear();
        }
        if self.opts.slicing == Slicing::B {
            // Bit-level matching: u<B>32 and b32 are both 32 bits.
            let total: usize = args.iter().map(|w| w.bits as usize).sum();
            let known: usize = params
                .iter()
                .filter_map(|(s, n)| {
                    if let SizeSpec::Known(m) = s {
                        Some(*m as usize * n)
                    } else {
                        None
                    }
                })
                .sum();
            let poly: Vec<&String> = params
                .iter()
                .filter_map(|(s, _)| {
                    if let SizeSpec::Poly(v) = s {
                        Some(v)
                    } else {
                        None
                    }
                })
                .collect();
            let poly_words: usize = params
                .iter()
                .filter(|(s, _)| matches!(s, SizeSpec::Poly(_)))
                .map(|p| p.1)
                .sum();
            if poly_words == 0 {
                if known == total {
                    return Ok(sizes);
                }
            } else if total > known
                && (total - known).is_multiple_of(poly_words)
                && poly.iter().all(|v| *v == poly[0])
            {
                let m = (total - known) / poly_words;
                if m <= 64 {
                    sizes.insert(poly[0].clone(), m as u32);
                    return Ok(sizes);
                }
            }
            fail(
                self,
                inst,
                format!(
                    "`{}` expects {} argument bits, {} given",
                    d.name.name,
                    if poly_words == 0 {
                        known.to_string()
                    } else {
                        "a different number of".into()
                    },
                    total
                ),
            );
            return Err(());
        }
        fail(
            self,
            inst,
            format!(
                "`{}` takes {} argument words, {} given",
                d.name.name,
                n_param_words,
                args.len()
            ),
        );
        Err(())
    }
}
