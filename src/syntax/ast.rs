//! The abstract syntax tree, as written (after include expansion). Every node has a span.

use crate::diag::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub decls: Vec<Decl>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decl {
    pub attrs: Vec<Ident>,
    pub name: Ident,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Param>,
    /// `node[]`, `table[]`, `perm[]`
    pub is_array: bool,
    pub kind: DeclKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclKind {
    /// One body per array element (exactly one when not an array).
    Node(Vec<NodeBody>),
    /// One entry list per array element.
    Table(Vec<Vec<Expr>>),
    Perm(Vec<Vec<Expr>>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeBody {
    pub vars: Vec<Param>,
    pub eqs: Vec<Equation>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeExpr,
    pub is_const: bool,
    pub lazy_lift: bool,
}

/// Direction annotation of a word type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirSpec {
    /// omitted or `'D`
    Poly(String),
    V,
    H,
    B,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeSpec {
    Known(u32),
    /// `'m` (also the implicit size of `v4`)
    Poly(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BaseType {
    Nat,
    /// `u<dir>m` words, `count` of them (`u16x4` → 4; `b8` → 8 words of 1 bit; `v4` → 4 words
    /// of size `'m`; plain `u32` → 1).
    Word {
        dir: DirSpec,
        size: SizeSpec,
        count: Option<u32>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeExpr {
    pub base: BaseType,
    /// Array dimensions, outermost first (`T[a][b]`).
    pub dims: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    And,
    Or,
    Xor,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftOp {
    Shl,
    Shr,
    Sar,
    Rotl,
    Rotr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Index {
    One(Box<Expr>),
    Range(Box<Expr>, Box<Expr>),
    List(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Int(u64, Option<TypeExpr>),
    Var(Ident),
    Index(Box<Expr>, Index),
    Tuple(Vec<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Shift(ShiftOp, Box<Expr>, Box<Expr>),
    /// `f(args)` or `f<idx>(args)`
    Call(Ident, Option<Box<Expr>>, Vec<Expr>),
    Shuffle(Box<Expr>, Vec<Expr>),
    Bitmask(Box<Expr>, Box<Expr>),
    Pack(Box<Expr>, Box<Expr>, Option<TypeExpr>),
    Refresh(Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignKind {
    /// `=`
    Def,
    /// `:=`
    Redef,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Equation {
    Assign {
        lhs: Vec<Expr>,
        kind: AssignKind,
        /// `op=` / `op:=` desugared: the rhs already is `lhs op expr`.
        rhs: Expr,
        span: Span,
    },
    Forall {
        attrs: Vec<Ident>,
        var: Ident,
        from: Expr,
        to: Expr,
        body: Vec<Equation>,
        span: Span,
    },
}

impl Equation {
    pub fn span(&self) -> Span {
        match self {
            Equation::Assign { span, .. } | Equation::Forall { span, .. } => *span,
        }
    }
}
