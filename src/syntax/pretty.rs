//! Prints an AST back as canonical Usuba (`--dump ast`): one equation per line, every binary
//! operation and shift fully parenthesised, so the dump shows exactly how precedence resolved.
//! The output parses back to the same AST (modulo spans).

use super::ast::*;
use std::fmt::Write;

pub fn program(p: &Program) -> String {
    let mut s = String::new();
    for d in &p.decls {
        decl(&mut s, d);
        s.push('\n');
    }
    s
}

fn decl(s: &mut String, d: &Decl) {
    for a in &d.attrs {
        let _ = write!(s, "_{} ", a.name);
    }
    let kw = match d.kind {
        DeclKind::Node(_) => "node",
        DeclKind::Table(_) => "table",
        DeclKind::Perm(_) => "perm",
    };
    let _ = writeln!(
        s,
        "{}{} {} ({}) returns ({})",
        kw,
        if d.is_array { "[]" } else { "" },
        d.name.name,
        params(&d.inputs),
        params(&d.outputs)
    );
    match &d.kind {
        DeclKind::Node(bodies) => {
            if d.is_array {
                s.push_str("[\n");
            }
            for (i, b) in bodies.iter().enumerate() {
                if i > 0 {
                    s.push_str(";\n");
                }
                if !b.vars.is_empty() {
                    let _ = writeln!(s, "vars {}", params(&b.vars));
                }
                s.push_str("let\n");
                for e in &b.eqs {
                    equation(s, e, 1);
                }
                s.push_str("tel\n");
            }
            if d.is_array {
                s.push_str("]\n");
            }
        }
        DeclKind::Table(lists) | DeclKind::Perm(lists) => {
            let body: Vec<String> = lists
                .iter()
                .map(|l| {
                    format!(
                        "{{ {} }}",
                        l.iter().map(expr).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            if d.is_array {
                let _ = writeln!(s, "[ {} ]", body.join(" ;\n  "));
            } else {
                let _ = writeln!(s, "{}", body.join(""));
            }
        }
    }
}

fn params(ps: &[Param]) -> String {
    ps.iter()
        .map(|p| {
            format!(
                "{}: {}{}{}",
                p.name.name,
                if p.is_const { "const " } else { "" },
                if p.lazy_lift { "lazyLift " } else { "" },
                type_expr(&p.ty)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn type_expr(t: &TypeExpr) -> String {
    let mut s = match &t.base {
        BaseType::Nat => "nat".to_string(),
        BaseType::Word { dir, size, count } => {
            let d = match dir {
                DirSpec::Poly(v) => format!("'{}", v),
                DirSpec::V => "V".into(),
                DirSpec::H => "H".into(),
                DirSpec::B => "B".into(),
            };
            let m = match size {
                SizeSpec::Known(m) => m.to_string(),
                SizeSpec::Poly(v) => format!("'{}", v),
            };
            match count {
                Some(k) => format!("u<{}>{}x{}", d, m, k),
                None => format!("u<{}>{}", d, m),
            }
        }
    };
    for dim in &t.dims {
        let _ = write!(s, "[{}]", expr(dim));
    }
    s
}

fn equation(s: &mut String, e: &Equation, indent: usize) {
    let pad = "  ".repeat(indent);
    match e {
        Equation::Assign { lhs, kind, rhs, .. } => {
            let l: Vec<String> = lhs.iter().map(expr).collect();
            let l = if l.len() == 1 {
                l[0].clone()
            } else {
                format!("({})", l.join(", "))
            };
            let op = match kind {
                AssignKind::Def => "=",
                AssignKind::Redef => ":=",
            };
            let _ = writeln!(s, "{}{} {} {};", pad, l, op, expr(rhs));
        }
        Equation::Forall {
            attrs,
            var,
            from,
            to,
            body,
            ..
        } => {
            let a: String = attrs.iter().map(|a| format!("_{} ", a.name)).collect();
            let _ = writeln!(
                s,
                "{}{}forall {} in [{}, {}] {{",
                pad,
                a,
                var.name,
                expr(from),
                expr(to)
            );
            for e in body {
                equation(s, e, indent + 1);
            }
            let _ = writeln!(s, "{}}}", pad);
        }
    }
}

pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(n, None) => n.to_string(),
        ExprKind::Int(n, Some(t)) => format!("{}:{}", n, type_expr(t)),
        ExprKind::Var(id) => id.name.clone(),
        ExprKind::Index(b, idx) => {
            let i = match idx {
                Index::One(a) => expr(a),
                Index::Range(a, b) => format!("{}..{}", expr(a), expr(b)),
                Index::List(v) => v.iter().map(expr).collect::<Vec<_>>().join(", "),
            };
            format!("{}[{}]", expr(b), i)
        }
        ExprKind::Tuple(v) => format!("({})", v.iter().map(expr).collect::<Vec<_>>().join(", ")),
        ExprKind::Not(a) => format!("~{}", expr(a)),
        ExprKind::Bin(op, a, b) => {
            let o = match op {
                BinOp::And => "&",
                BinOp::Or => "|",
                BinOp::Xor => "^",
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Mod => "%",
            };
            format!("({} {} {})", expr(a), o, expr(b))
        }
        ExprKind::Shift(op, a, b) => {
            let o = match op {
                ShiftOp::Shl => "<<",
                ShiftOp::Shr => ">>",
                ShiftOp::Sar => ">>!",
                ShiftOp::Rotl => "<<<",
                ShiftOp::Rotr => ">>>",
            };
            format!("({} {} {})", expr(a), o, expr(b))
        }
        ExprKind::Call(f, idx, args) => {
            let a = args.iter().map(expr).collect::<Vec<_>>().join(", ");
            match idx {
                Some(i) => format!("{}<{}>({})", f.name, expr(i), a),
                None => format!("{}({})", f.name, a),
            }
        }
        ExprKind::Shuffle(a, p) => format!(
            "Shuffle({}, [{}])",
            expr(a),
            p.iter().map(expr).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Bitmask(a, b) => format!("Bitmask({}, {})", expr(a), expr(b)),
        ExprKind::Pack(a, b, t) => match t {
            Some(t) => format!("Pack({}, {}):{}", expr(a), expr(b), type_expr(t)),
            None => format!("Pack({}, {})", expr(a), expr(b)),
        },
        ExprKind::Refresh(a) => format!("refresh({})", expr(a)),
    }
}
