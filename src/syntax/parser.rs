//! Recursive-descent parser: tokens to AST items. Never panics; reports several errors per file
//! (recovering at the next equation or declaration). Nesting is bounded (`MAX_NESTING`) so no
//! input overflows the stack; long operator chains are built by loops, not recursion.
//!
//! Precedence, lowest to highest: shifts/rotations (non-associative) < `+ -` < `* / %` <
//! `& | ^` (one level) < prefix `~ !` < calls and postfix indexing.
//! Example: `a + b ^ d` parses as `a + (b ^ d)`; `a ^ b <<< 3` as `(a ^ b) <<< 3`.

use super::ast::*;
use super::lexer::{Tok, Token};
use crate::diag::{Diagnostic, Span};

pub const MAX_NESTING: u32 = 200;

pub enum Item {
    Decl(Decl),
    Include(String, Span),
}

pub struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    pub diags: Vec<Diagnostic>,
    nesting: u32,
}

/// A parse error whose diagnostic is already in [`Parser::diags`].
#[derive(Debug)]
pub struct Reported;

type PResult<T> = Result<T, Reported>;

impl<'a> Parser<'a> {
    pub fn new(toks: &'a [Token]) -> Parser<'a> {
        Parser {
            toks,
            pos: 0,
            diags: Vec::new(),
            nesting: 0,
        }
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].span
    }
    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1).min(self.toks.len() - 1)].span
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }
    fn error_here(&mut self, expected: &str) {
        let found = self.peek().describe();
        let sp = self.span();
        self.diags.push(
            Diagnostic::error(sp, format!("expected {}, found {}", expected, found))
                .label(format!("expected {}", expected)),
        );
    }
    fn expect(&mut self, t: Tok) -> PResult<Span> {
        if self.peek() == &t {
            Ok(self.bump().span)
        } else {
            self.error_here(&t.describe());
            Err(Reported)
        }
    }
    fn ident(&mut self) -> PResult<Ident> {
        match self.peek().clone() {
            Tok::Ident(name) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            _ => {
                self.error_here("a name");
                Err(Reported)
            }
        }
    }
    fn enter(&mut self) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            let sp = self.span();
            self.diags.push(
                Diagnostic::error(sp, format!("nesting deeper than {} levels", MAX_NESTING))
                    .label("too deeply nested")
                    .help("split the expression with intermediate variables"),
            );
            self.nesting -= 1;
            return Err(Reported);
        }
        Ok(())
    }
    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    // ---------------------------------------------------------------- program

    pub fn parse_items(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Include => {
                    let start = self.bump().span;
                    match self.peek().clone() {
                        Tok::Str(s) => {
                            let sp = self.bump().span;
                            items.push(Item::Include(s, start.to(sp)));
                        }
                        _ => {
                            self.error_here("a file name in quotes");
                            self.recover_decl();
                        }
                    }
                }
                _ => match self.decl() {
                    Ok(d) => items.push(Item::Decl(d)),
                    Err(Reported) => self.recover_decl(),
                },
            }
        }
        items
    }

    fn recover_decl(&mut self) {
        self.nesting = 0;
        loop {
            match self.peek() {
                Tok::Eof | Tok::Node | Tok::Table | Tok::Perm | Tok::Include => return,
                Tok::Attr(_)
                    if matches!(
                        self.peek_at(1),
                        Tok::Node | Tok::Table | Tok::Perm | Tok::Attr(_)
                    ) =>
                {
                    return
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn attrs(&mut self) -> Vec<Ident> {
        let mut v = Vec::new();
        while let Tok::Attr(a) = self.peek().clone() {
            let sp = self.bump().span;
            v.push(Ident { name: a, span: sp });
        }
        v
    }

    fn decl(&mut self) -> PResult<Decl> {
        let attrs = self.attrs();
        let start = self.span();
        let kw = self.peek().clone();
        if !matches!(kw, Tok::Node | Tok::Table | Tok::Perm) {
            self.error_here("`node`, `table`, `perm` or `include`");
            return Err(Reported);
        }
        self.bump();
        let is_array = if self.peek() == &Tok::LBrack && self.peek_at(1) == &Tok::RBrack {
            self.bump();
            self.bump();
            true
        } else {
            false
        };
        let name = self.ident()?;
        self.expect(Tok::LParen)?;
        let inputs = self.params(Tok::RParen)?;
        self.expect(Tok::RParen)?;
        self.expect(Tok::Returns)?;
        self.expect(Tok::LParen)?;
        let outputs = self.params(Tok::RParen)?;
        self.expect(Tok::RParen)?;
        let kind = match kw {
            Tok::Node => {
                if is_array {
                    self.expect(Tok::LBrack)?;
                    let mut bodies = Vec::new();
                    loop {
                        if self.peek() == &Tok::RBrack {
                            break;
                        }
                        bodies.push(self.node_body()?);
                        if !self.eat(&Tok::Semi) {
                            break;
                        }
                    }
                    self.expect(Tok::RBrack)?;
                    DeclKind::Node(bodies)
                } else {
                    DeclKind::Node(vec![self.node_body()?])
                }
            }
            _ => {
                let mut lists = Vec::new();
                if is_array {
                    self.expect(Tok::LBrack)?;
                    loop {
                        if self.peek() == &Tok::RBrack {
                            break;
                        }
                        lists.push(self.brace_list()?);
                        if !self.eat(&Tok::Semi) {
                            break;
                        }
                    }
                    self.expect(Tok::RBrack)?;
                } else {
                    lists.push(self.brace_list()?);
                }
                if kw == Tok::Table {
                    DeclKind::Table(lists)
                } else {
                    DeclKind::Perm(lists)
                }
            }
        };
        let span = start.to(self.prev_span());
        Ok(Decl {
            attrs,
            name,
            inputs,
            outputs,
            is_array,
            kind,
            span,
        })
    }

    fn brace_list(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Tok::LBrace)?;
        let mut v = Vec::new();
        if self.peek() != &Tok::RBrace {
            loop {
                v.push(self.expr()?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
                if self.peek() == &Tok::RBrace {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace)?;
        Ok(v)
    }

    fn node_body(&mut self) -> PResult<NodeBody> {
        let start = self.span();
        let vars = if self.eat(&Tok::Vars) {
            self.params(Tok::Let)?
        } else {
            Vec::new()
        };
        self.expect(Tok::Let)?;
        let eqs = self.equations(&Tok::Tel);
        self.expect(Tok::Tel)?;
        Ok(NodeBody {
            vars,
            eqs,
            span: start.to(self.prev_span()),
        })
    }

    /// `group (, group)*` where `group := name (, name)* : [const] [lazyLift] type`.
    fn params(&mut self, end: Tok) -> PResult<Vec<Param>> {
        let mut out = Vec::new();
        if self.peek() == &end {
            return Ok(out);
        }
        loop {
            let mut names = vec![self.ident()?];
            while self.eat(&Tok::Comma) {
                names.push(self.ident()?);
            }
            self.expect(Tok::Colon)?;
            let mut is_const = false;
            let mut lazy_lift = false;
            loop {
                if self.eat(&Tok::Const) {
                    is_const = true;
                } else if self.eat(&Tok::LazyLift) {
                    lazy_lift = true;
                } else {
                    break;
                }
            }
            let ty = self.type_expr()?;
            for name in names {
                out.push(Param {
                    name,
                    ty: ty.clone(),
                    is_const,
                    lazy_lift,
                });
            }
            // Groups are separated by `,` (and, leniently, by `;` in `vars`).
            if self.peek() == &Tok::Comma
                || (self.peek() == &Tok::Semi && matches!(self.peek_at(1), Tok::Ident(_)))
            {
                self.bump();
                continue;
            }
            break;
        }
        Ok(out)
    }

    // ---------------------------------------------------------------- types

    pub fn type_expr(&mut self) -> PResult<TypeExpr> {
        let start = self.span();
        let word = match self.peek().clone() {
            Tok::Ident(w) => w,
            _ => {
                self.error_here("a type");
                return Err(Reported);
            }
        };
        self.bump();
        let base = if word == "nat" {
            BaseType::Nat
        } else if (word == "u" || word == "b" || word == "v") && self.peek() == &Tok::Lt {
            self.bump();
            let dir = self.dir_spec()?;
            self.expect(Tok::Gt)?;
            match word.as_str() {
                "u" => {
                    let size = match self.peek().clone() {
                        Tok::Int(n) => {
                            self.bump();
                            SizeSpec::Known(self.small(n, start)?)
                        }
                        Tok::TyVar(v) => {
                            self.bump();
                            SizeSpec::Poly(v)
                        }
                        _ => {
                            self.error_here("a word size");
                            return Err(Reported);
                        }
                    };
                    let count = self.vector_suffix()?;
                    BaseType::Word { dir, size, count }
                }
                "b" => {
                    let n = self.int_tok("a number of bits")?;
                    BaseType::Word {
                        dir,
                        size: SizeSpec::Known(1),
                        count: Some(self.small(n, start)?),
                    }
                }
                _ => {
                    let n = self.int_tok("a number of words")?;
                    BaseType::Word {
                        dir,
                        size: SizeSpec::Poly("m".into()),
                        count: Some(self.small(n, start)?),
                    }
                }
            }
        } else if let Some(b) = parse_word_type(&word) {
            b
        } else {
            self.diags.push(
                Diagnostic::error(start, format!("unknown type `{}`", word))
                    .label("not a type")
                    .help("types are `nat`, `uN`, `u<D>N`, `u'm`, `uNxK`, `bN`, `vN`, followed by `[size]` dimensions"),
            );
            return Err(Reported);
        };
        let mut dims = Vec::new();
        while self.peek() == &Tok::LBrack {
            self.bump();
            dims.push(self.expr()?);
            self.expect(Tok::RBrack)?;
        }
        Ok(TypeExpr {
            base,
            dims,
            span: start.to(self.prev_span()),
        })
    }

    fn small(&mut self, n: u64, sp: Span) -> PResult<u32> {
        if n == 0 || n > 1 << 20 {
            self.diags.push(
                Diagnostic::error(
                    sp.to(self.prev_span()),
                    format!("size {} is out of range", n),
                )
                .label("invalid size"),
            );
            return Err(Reported);
        }
        Ok(n as u32)
    }

    fn int_tok(&mut self, what: &str) -> PResult<u64> {
        match self.peek().clone() {
            Tok::Int(n) => {
                self.bump();
                Ok(n)
            }
            _ => {
                self.error_here(what);
                Err(Reported)
            }
        }
    }

    /// `x4` directly after a word size (`u<V>16x4`).
    fn vector_suffix(&mut self) -> PResult<Option<u32>> {
        if let Tok::Ident(s) = self.peek().clone() {
            let adjacent = self.span().lo == self.prev_span().hi;
            if adjacent
                && s.starts_with('x')
                && s.len() > 1
                && s[1..].bytes().all(|c| c.is_ascii_digit())
            {
                let sp = self.bump().span;
                let n: u64 = s[1..].parse().unwrap_or(0);
                return Ok(Some(self.small(n, sp)?));
            }
        }
        Ok(None)
    }

    fn dir_spec(&mut self) -> PResult<DirSpec> {
        match self.peek().clone() {
            Tok::Ident(d) if d == "V" || d == "H" || d == "B" => {
                self.bump();
                Ok(match d.as_str() {
                    "V" => DirSpec::V,
                    "H" => DirSpec::H,
                    _ => DirSpec::B,
                })
            }
            Tok::TyVar(v) => {
                self.bump();
                Ok(DirSpec::Poly(v))
            }
            Tok::Int(n) => {
                let sp = self.bump().span;
                self.diags.push(
                    Diagnostic::error(
                        sp,
                        format!("numeric slicing direction `<{}>` is not supported", n),
                    )
                    .label("direction must be V, H, B or a type variable")
                    .help("use `u<V>m` (vslice), `u<H>m` (hslice) or `u<B>m` (bitslice)"),
                );
                Err(Reported)
            }
            _ => {
                self.error_here("a direction (V, H, B or 'D)");
                Err(Reported)
            }
        }
    }

    // ---------------------------------------------------------------- equations

    fn equations(&mut self, end: &Tok) -> Vec<Equation> {
        let mut eqs = Vec::new();
        loop {
            if self.peek() == end || self.peek() == &Tok::Eof {
                break;
            }
            if self.eat(&Tok::Semi) {
                continue;
            }
            let before = self.pos;
            match self.equation() {
                Ok(e) => {
                    let was_loop = matches!(e, Equation::Forall { .. });
                    eqs.push(e);
                    if self.eat(&Tok::Semi) || was_loop {
                        continue;
                    }
                    if self.peek() != end {
                        self.error_here("`;` between equations");
                        self.recover_eq(end);
                    }
                }
                Err(Reported) => {
                    self.recover_eq(end);
                    if self.pos == before {
                        self.bump();
                    }
                }
            }
        }
        eqs
    }

    fn recover_eq(&mut self, end: &Tok) {
        let mut depth = 0i32;
        loop {
            let t = self.peek().clone();
            if t == Tok::Eof
                || (depth <= 0
                    && (&t == end || matches!(t, Tok::Tel | Tok::Node | Tok::Table | Tok::Perm)))
            {
                return;
            }
            match t {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth < 0 {
                        return;
                    }
                }
                Tok::Semi if depth <= 0 => {
                    self.bump();
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn equation(&mut self) -> PResult<Equation> {
        let start = self.span();
        let attrs = self.attrs();
        if self.peek() == &Tok::Forall {
            self.bump();
            let var = self.ident()?;
            self.expect(Tok::In)?;
            self.expect(Tok::LBrack)?;
            let from = self.expr()?;
            self.expect(Tok::Comma)?;
            let to = self.expr()?;
            self.expect(Tok::RBrack)?;
            self.expect(Tok::LBrace)?;
            self.enter()?;
            let body = self.equations(&Tok::RBrace);
            self.leave();
            self.expect(Tok::RBrace)?;
            return Ok(Equation::Forall {
                attrs,
                var,
                from,
                to,
                body,
                span: start.to(self.prev_span()),
            });
        }
        if let Some(a) = attrs.first() {
            self.diags.push(
                Diagnostic::error(a.span, "attribute must precede `forall` or a declaration")
                    .label("misplaced attribute"),
            );
            return Err(Reported);
        }
        let lhs = if self.peek() == &Tok::LParen {
            self.bump();
            let mut v = vec![self.lvalue()?];
            while self.eat(&Tok::Comma) {
                v.push(self.lvalue()?);
            }
            self.expect(Tok::RParen)?;
            v
        } else {
            vec![self.lvalue()?]
        };
        let lhs_span = start.to(self.prev_span());
        let op_tok = self.bump();
        let (kind, compound) = match op_tok.tok {
            Tok::Eq => (AssignKind::Def, None),
            Tok::ColonEq => (AssignKind::Redef, None),
            Tok::Compound(c, redef) => (
                if redef {
                    AssignKind::Redef
                } else {
                    AssignKind::Def
                },
                Some(c),
            ),
            other => {
                self.pos -= 1;
                let _ = other;
                self.error_here("`=`, `:=` or a compound assignment");
                return Err(Reported);
            }
        };
        let e = self.expr()?;
        let rhs = match compound {
            None => e,
            Some(c) => {
                let op = match c {
                    '^' => BinOp::Xor,
                    '&' => BinOp::And,
                    '|' => BinOp::Or,
                    '+' => BinOp::Add,
                    '-' => BinOp::Sub,
                    '*' => BinOp::Mul,
                    '/' => BinOp::Div,
                    _ => BinOp::Mod,
                };
                let l = if lhs.len() == 1 {
                    lhs[0].clone()
                } else {
                    Expr {
                        kind: ExprKind::Tuple(lhs.clone()),
                        span: lhs_span,
                    }
                };
                let span = lhs_span.to(e.span);
                Expr {
                    kind: ExprKind::Bin(op, Box::new(l), Box::new(e)),
                    span,
                }
            }
        };
        Ok(Equation::Assign {
            lhs,
            kind,
            rhs,
            span: start.to(self.prev_span()),
        })
    }

    fn lvalue(&mut self) -> PResult<Expr> {
        let id = self.ident()?;
        let mut e = Expr {
            span: id.span,
            kind: ExprKind::Var(id),
        };
        while self.peek() == &Tok::LBrack {
            e = self.index_suffix(e)?;
        }
        Ok(e)
    }

    // ---------------------------------------------------------------- expressions

    pub fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.shift_expr();
        self.leave();
        r
    }

    fn shift_expr(&mut self) -> PResult<Expr> {
        let l = self.add_expr()?;
        let op = match self.peek() {
            Tok::Shl => ShiftOp::Shl,
            Tok::Shr => ShiftOp::Shr,
            Tok::Sar => ShiftOp::Sar,
            Tok::Rotl => ShiftOp::Rotl,
            Tok::Rotr => ShiftOp::Rotr,
            _ => return Ok(l),
        };
        self.bump();
        let r = self.add_expr()?;
        if matches!(
            self.peek(),
            Tok::Shl | Tok::Shr | Tok::Sar | Tok::Rotl | Tok::Rotr
        ) {
            let sp = self.span();
            self.diags.push(
                Diagnostic::error(sp, "shifts and rotations do not chain")
                    .label("second shift here")
                    .help("add parentheses: `(x <<< a) <<< b`"),
            );
            return Err(Reported);
        }
        let span = l.span.to(r.span);
        Ok(Expr {
            kind: ExprKind::Shift(op, Box::new(l), Box::new(r)),
            span,
        })
    }

    fn add_expr(&mut self) -> PResult<Expr> {
        let mut l = self.mul_expr()?;
        loop {
            let op = match self.peek() {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.mul_expr()?;
            let span = l.span.to(r.span);
            l = Expr {
                kind: ExprKind::Bin(op, Box::new(l), Box::new(r)),
                span,
            };
        }
    }

    fn mul_expr(&mut self) -> PResult<Expr> {
        let mut l = self.log_expr()?;
        loop {
            let op = match self.peek() {
                Tok::Star => BinOp::Mul,
                Tok::Slash => BinOp::Div,
                Tok::Percent => BinOp::Mod,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.log_expr()?;
            let span = l.span.to(r.span);
            l = Expr {
                kind: ExprKind::Bin(op, Box::new(l), Box::new(r)),
                span,
            };
        }
    }

    fn log_expr(&mut self) -> PResult<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Amp => BinOp::And,
                Tok::Pipe => BinOp::Or,
                Tok::Caret => BinOp::Xor,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.unary()?;
            let span = l.span.to(r.span);
            l = Expr {
                kind: ExprKind::Bin(op, Box::new(l), Box::new(r)),
                span,
            };
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        if matches!(self.peek(), Tok::Tilde | Tok::Bang) {
            let sp = self.bump().span;
            self.enter()?;
            let e = self.unary();
            self.leave();
            let e = e?;
            let span = sp.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Not(Box::new(e)),
                span,
            });
        }
        let mut e = self.primary()?;
        while self.peek() == &Tok::LBrack {
            e = self.index_suffix(e)?;
        }
        Ok(e)
    }

    fn index_suffix(&mut self, base: Expr) -> PResult<Expr> {
        self.expect(Tok::LBrack)?;
        let first = self.expr()?;
        let idx = if self.eat(&Tok::DotDot) {
            let last = self.expr()?;
            Index::Range(Box::new(first), Box::new(last))
        } else if self.peek() == &Tok::Comma {
            let mut v = vec![first];
            while self.eat(&Tok::Comma) {
                v.push(self.expr()?);
            }
            Index::List(v)
        } else {
            Index::One(Box::new(first))
        };
        self.expect(Tok::RBrack)?;
        let span = base.span.to(self.prev_span());
        Ok(Expr {
            kind: ExprKind::Index(Box::new(base), idx),
            span,
        })
    }

    fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Tok::LParen)?;
        let mut v = Vec::new();
        if self.peek() != &Tok::RParen {
            loop {
                v.push(self.expr()?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen)?;
        Ok(v)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.span();
        match self.peek().clone() {
            Tok::Int(n) => {
                self.bump();
                let ty = if self.peek() == &Tok::Colon {
                    self.bump();
                    Some(self.type_expr()?)
                } else {
                    None
                };
                Ok(Expr {
                    kind: ExprKind::Int(n, ty),
                    span: start.to(self.prev_span()),
                })
            }
            Tok::LParen => {
                self.bump();
                let mut v = vec![self.expr()?];
                while self.eat(&Tok::Comma) {
                    v.push(self.expr()?);
                }
                self.expect(Tok::RParen)?;
                let span = start.to(self.prev_span());
                if v.len() == 1 {
                    let mut e = v.pop().unwrap();
                    e.span = span;
                    Ok(e)
                } else {
                    Ok(Expr {
                        kind: ExprKind::Tuple(v),
                        span,
                    })
                }
            }
            Tok::Ident(name) => {
                let id = self.ident()?;
                match (name.as_str(), self.peek()) {
                    ("Shuffle", Tok::LParen) => {
                        self.bump();
                        let e = self.expr()?;
                        self.expect(Tok::Comma)?;
                        self.expect(Tok::LBrack)?;
                        let mut pat = Vec::new();
                        if self.peek() != &Tok::RBrack {
                            loop {
                                pat.push(self.expr()?);
                                if !self.eat(&Tok::Comma) {
                                    break;
                                }
                            }
                        }
                        self.expect(Tok::RBrack)?;
                        self.expect(Tok::RParen)?;
                        Ok(Expr {
                            kind: ExprKind::Shuffle(Box::new(e), pat),
                            span: start.to(self.prev_span()),
                        })
                    }
                    ("Bitmask", Tok::LParen) | ("Pack", Tok::LParen) => {
                        let mut a = self.args()?;
                        if a.len() != 2 {
                            self.diags.push(
                                Diagnostic::error(
                                    start.to(self.prev_span()),
                                    format!("`{}` takes two arguments", name),
                                )
                                .label(format!("{} given", a.len())),
                            );
                            return Err(Reported);
                        }
                        let b = a.pop().unwrap();
                        let e = a.pop().unwrap();
                        if name == "Bitmask" {
                            Ok(Expr {
                                kind: ExprKind::Bitmask(Box::new(e), Box::new(b)),
                                span: start.to(self.prev_span()),
                            })
                        } else {
                            let ty = if self.eat(&Tok::Colon) {
                                Some(self.type_expr()?)
                            } else {
                                None
                            };
                            Ok(Expr {
                                kind: ExprKind::Pack(Box::new(e), Box::new(b), ty),
                                span: start.to(self.prev_span()),
                            })
                        }
                    }
                    ("refresh", Tok::LParen) => {
                        let mut a = self.args()?;
                        if a.len() != 1 {
                            self.diags.push(
                                Diagnostic::error(
                                    start.to(self.prev_span()),
                                    "`refresh` takes one argument",
                                )
                                .label(format!("{} given", a.len())),
                            );
                            return Err(Reported);
                        }
                        Ok(Expr {
                            kind: ExprKind::Refresh(Box::new(a.pop().unwrap())),
                            span: start.to(self.prev_span()),
                        })
                    }
                    (_, Tok::LParen) => {
                        let a = self.args()?;
                        Ok(Expr {
                            kind: ExprKind::Call(id, None, a),
                            span: start.to(self.prev_span()),
                        })
                    }
                    (_, Tok::Lt) => {
                        self.bump();
                        let idx = self.add_expr()?;
                        self.expect(Tok::Gt)?;
                        let a = self.args()?;
                        Ok(Expr {
                            kind: ExprKind::Call(id, Some(Box::new(idx)), a),
                            span: start.to(self.prev_span()),
                        })
                    }
                    _ => Ok(Expr {
                        span: id.span,
                        kind: ExprKind::Var(id),
                    }),
                }
            }
            _ => {
                self.error_here("an expression");
                Err(Reported)
            }
        }
    }
}

/// `u32`, `u16x4`, `b8`, `v4`, `u'm` (direction omitted = polymorphic).
fn parse_word_type(w: &str) -> Option<BaseType> {
    let poly = || DirSpec::Poly("D".into());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) && s.len() < 8;
    if let Some(rest) = w.strip_prefix("u'") {
        if !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Some(BaseType::Word {
                dir: poly(),
                size: SizeSpec::Poly(rest.into()),
                count: None,
            });
        }
        return None;
    }
    if let Some(rest) = w.strip_prefix('u') {
        let (m, k) = match rest.split_once('x') {
            Some((m, k)) => (m, Some(k)),
            None => (rest, None),
        };
        if !digits(m) || k.is_some_and(|k| !digits(k)) {
            return None;
        }
        let m: u32 = m.parse().ok()?;
        let count = match k {
            Some(k) => Some(k.parse().ok()?),
            None => None,
        };
        if m == 0 || count == Some(0) {
            return None;
        }
        return Some(BaseType::Word {
            dir: poly(),
            size: SizeSpec::Known(m),
            count,
        });
    }
    if let Some(rest) = w.strip_prefix('b') {
        if digits(rest) {
            let n: u32 = rest.parse().ok()?;
            if n == 0 {
                return None;
            }
            return Some(BaseType::Word {
                dir: poly(),
                size: SizeSpec::Known(1),
                count: Some(n),
            });
        }
    }
    if let Some(rest) = w.strip_prefix('v') {
        if digits(rest) {
            let n: u32 = rest.parse().ok()?;
            if n == 0 {
                return None;
            }
            return Some(BaseType::Word {
                dir: poly(),
                size: SizeSpec::Poly("m".into()),
                count: Some(n),
            });
        }
    }
    None
}
