//! Compile-time naturals: index, bound and shift expressions over literals, loop indices and
//! `nat` parameters (`%` is the non-negative modulo); anything data-dependent is an error, so
//! generated code never indexes or shifts by a secret.
//!
//! Before: `x[(i + 5) % 4]` with `i = 3`. After: `x[0]`.

use super::*;

impl<'a> Ctx<'a> {
    // --------------------------------------------------------------------------------------
    // Compile-time naturals

    pub(super) fn lookup_name(&self, inst: &Inst, name: &str) -> Option<Name> {
        if let Some((_, v)) = inst.loops.iter().rev().find(|(n, _)| n == name) {
            return Some(Name::Nat(*v));
        }
        if let Some(v) = inst.nats.get(name) {
            return Some(Name::Nat(*v));
        }
        if inst.vars.contains_key(name) {
            return Some(Name::Var);
        }
        None
    }

    pub(super) fn eval_nat_quiet(&mut self, inst: &Inst, e: &Expr) -> Option<i64> {
        let n = self.diags.len();
        let r = self.eval_nat(inst, e).ok();
        self.diags.truncate(n);
        r
    }

    pub(super) fn eval_nat(&mut self, inst: &Inst, e: &Expr) -> R<i64> {
        match &e.kind {
            ExprKind::Int(n, None) => {
                if *n > i64::MAX as u64 {
                    self.err(
                        inst,
                        Diagnostic::error(e.span, "integer too large for an index expression")
                            .label("here"),
                    );
                    return Err(());
                }
                Ok(*n as i64)
            }
            ExprKind::Var(id) => match self.lookup_name(inst, &id.name) {
                Some(Name::Nat(v)) => Ok(v),
                Some(Name::Var) => {
                    self.err(
                        inst,
                        Diagnostic::error(id.span, format!("`{}` is not known at compile time", id.name))
                            .label("data-dependent")
                            .help("indices and shift amounts may only use literals, loop indices and `nat` parameters (constant time)"),
                    );
                    Err(())
                }
                None if inst.nat_locals.contains_key(&id.name) => {
                    self.err(
                        inst,
                        Diagnostic::error(
                            id.span,
                            format!(
                                "`nat` local `{}` is used before it is given a value",
                                id.name
                            ),
                        )
                        .label("no value yet")
                        .help(format!(
                            "give it a value first: `{} = <compile-time expression>;`",
                            id.name
                        )),
                    );
                    Err(())
                }
                None => {
                    self.err(
                        inst,
                        Diagnostic::error(id.span, format!("unknown name `{}`", id.name))
                            .label("not declared"),
                    );
                    Err(())
                }
            },
            ExprKind::Bin(op, a, b) => {
                let x = self.eval_nat(inst, a)?;
                let y = self.eval_nat(inst, b)?;
                let r = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div | BinOp::Mod if y == 0 => {
                        self.err(
                            inst,
                            Diagnostic::error(b.span, "division by zero").label("is zero"),
                        );
                        return Err(());
                    }
                    BinOp::Div => Some(x.div_euclid(y)),
                    BinOp::Mod => Some(x.rem_euclid(y)),
                    _ => {
                        self.err(
                            inst,
                            Diagnostic::error(
                                e.span,
                                "only `+ - * / %` are allowed in compile-time expressions",
                            )
                            .label("not an index operator"),
                        );
                        return Err(());
                    }
                };
                match r {
                    Some(v) => Ok(v),
                    None => {
                        self.err(
                            inst,
                            Diagnostic::error(
                                e.span,
                                "arithmetic overflow in a compile-time expression",
                            )
                            .label("overflows"),
                        );
                        Err(())
                    }
                }
            }
            _ => {
                self.err(
                    inst,
                    Diagnostic::error(e.span, "expected a compile-time expression")
                        .label("not a constant")
                        .help("indices and shift amounts may only use literals, loop indices and `nat` parameters (constant time)"),
                );
                Err(())
            }
        }
    }

    /// Whether `e` is made only of untyped literals, loop indices and nat parameters.
    pub(super) fn is_static(&self, inst: &Inst, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_, None) => true,
            ExprKind::Var(id) => matches!(self.lookup_name(inst, &id.name), Some(Name::Nat(_))),
            ExprKind::Bin(_, a, b) => self.is_static(inst, a) && self.is_static(inst, b),
            _ => false,
        }
    }
}
