//! Lexer: source text to tokens with spans. Never fails: bad characters become
//! diagnostics and are skipped. `__END__` ends the token stream.

use crate::diag::{Diagnostic, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// `'name` (a type variable such as `'D` or `'m`).
    TyVar(String),
    Int(u64),
    Str(String),
    // keywords
    Node,
    Returns,
    Vars,
    Let,
    Tel,
    Perm,
    Table,
    Forall,
    In,
    Include,
    Const,
    LazyLift,
    /// `_inline`, `_unroll`, ... (the name without the underscore)
    Attr(String),
    // symbols
    LParen,
    RParen,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    Eq,
    Comma,
    Colon,
    Semi,
    DotDot,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Bang,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Lt,
    Gt,
    Shl,
    Shr,
    Sar,
    Rotl,
    Rotr,
    /// `:=`
    ColonEq,
    /// compound `op=` (false) or `op:=` (true); op is one of `^ & | + - * / %`
    Compound(char, bool),
    Eof,
}

impl Tok {
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("identifier `{}`", s),
            Tok::TyVar(s) => format!("type variable `'{}`", s),
            Tok::Int(n) => format!("integer `{}`", n),
            Tok::Str(_) => "string".into(),
            Tok::Attr(a) => format!("attribute `_{}`", a),
            Tok::Eof => "end of file".into(),
            Tok::Compound(c, false) => format!("`{}=`", c),
            Tok::Compound(c, true) => format!("`{}:=`", c),
            other => format!("`{}`", symbol_text(other)),
        }
    }
}

fn symbol_text(t: &Tok) -> &'static str {
    match t {
        Tok::Node => "node",
        Tok::Returns => "returns",
        Tok::Vars => "vars",
        Tok::Let => "let",
        Tok::Tel => "tel",
        Tok::Perm => "perm",
        Tok::Table => "table",
        Tok::Forall => "forall",
        Tok::In => "in",
        Tok::Include => "include",
        Tok::Const => "const",
        Tok::LazyLift => "lazyLift",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::LBrack => "[",
        Tok::RBrack => "]",
        Tok::LBrace => "{",
        Tok::RBrace => "}",
        Tok::Eq => "=",
        Tok::Comma => ",",
        Tok::Colon => ":",
        Tok::Semi => ";",
        Tok::DotDot => "..",
        Tok::Amp => "&",
        Tok::Pipe => "|",
        Tok::Caret => "^",
        Tok::Tilde => "~",
        Tok::Bang => "!",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Percent => "%",
        Tok::Lt => "<",
        Tok::Gt => ">",
        Tok::Shl => "<<",
        Tok::Shr => ">>",
        Tok::Sar => ">>!",
        Tok::Rotl => "<<<",
        Tok::Rotr => ">>>",
        Tok::ColonEq => ":=",
        _ => "?",
    }
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

const ATTRS: [&str; 7] = [
    "inline",
    "no_inline",
    "unroll",
    "no_unroll",
    "interleave",
    "no_opt",
    "pipelined",
];

pub fn lex(file: u32, src: &str, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    let sp = |lo: usize, hi: usize| Span::new(file, lo, hi);
    while i < b.len() {
        let c = b[i];
        if c == b' ' || c == b'\t' || c == b'\r' || c == b'\n' {
            i += 1;
            continue;
        }
        if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'\'') {
                i += 1;
            }
            let word = &src[start..i];
            if word == "__END__" {
                break;
            }
            let tok = match word {
                "node" => Tok::Node,
                "returns" => Tok::Returns,
                "vars" => Tok::Vars,
                "let" => Tok::Let,
                "tel" => Tok::Tel,
                "perm" => Tok::Perm,
                "table" => Tok::Table,
                "forall" => Tok::Forall,
                "in" => Tok::In,
                "include" => Tok::Include,
                "const" => Tok::Const,
                "lazyLift" => Tok::LazyLift,
                w if w.starts_with('_') && ATTRS.contains(&&w[1..]) => {
                    Tok::Attr(w[1..].to_string())
                }
                w => Tok::Ident(w.to_string()),
            };
            out.push(Token {
                tok,
                span: sp(start, i),
            });
            continue;
        }
        if c.is_ascii_digit() {
            let (radix, digits_start) =
                if c == b'0' && matches!(b.get(i + 1), Some(b'x') | Some(b'X')) {
                    (16, i + 2)
                } else {
                    (10, i)
                };
            i = digits_start;
            while i < b.len()
                && (b[i].is_ascii_hexdigit() && (radix == 16 || b[i].is_ascii_digit()))
            {
                i += 1;
            }
            let digits = &src[digits_start..i];
            match u64::from_str_radix(digits, radix) {
                Ok(v) => out.push(Token {
                    tok: Tok::Int(v),
                    span: sp(start, i),
                }),
                Err(_) => {
                    diags.push(
                        Diagnostic::error(sp(start, i.max(start + 1)), "invalid integer literal")
                            .label(if digits.is_empty() {
                                "no digits after `0x`"
                            } else {
                                "does not fit in 64 bits"
                            }),
                    );
                    out.push(Token {
                        tok: Tok::Int(0),
                        span: sp(start, i),
                    });
                }
            }
            continue;
        }
        if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            if i >= b.len() || b[i] != b'"' {
                diags.push(
                    Diagnostic::error(sp(start, i), "unterminated string")
                        .label("string starts here"),
                );
                out.push(Token {
                    tok: Tok::Str(src[start + 1..i].to_string()),
                    span: sp(start, i),
                });
                continue;
            }
            out.push(Token {
                tok: Tok::Str(src[start + 1..i].to_string()),
                span: sp(start, i + 1),
            });
            i += 1;
            continue;
        }
        if c == b'\'' {
            i += 1;
            let s2 = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == s2 {
                diags.push(
                    Diagnostic::error(
                        sp(start, start + 1),
                        "a quote must be followed by a type variable name",
                    )
                    .label("here"),
                );
                continue;
            }
            out.push(Token {
                tok: Tok::TyVar(src[s2..i].to_string()),
                span: sp(start, i),
            });
            continue;
        }
        // symbols, longest match first
        let rest = &b[i..];
        let table: &[(&str, Tok)] = &[
            ("<<<", Tok::Rotl),
            (">>>", Tok::Rotr),
            (">>!", Tok::Sar),
            ("<<", Tok::Shl),
            (">>", Tok::Shr),
            ("^:=", Tok::Compound('^', true)),
            ("&:=", Tok::Compound('&', true)),
            ("|:=", Tok::Compound('|', true)),
            ("+:=", Tok::Compound('+', true)),
            ("-:=", Tok::Compound('-', true)),
            ("*:=", Tok::Compound('*', true)),
            ("/:=", Tok::Compound('/', true)),
            ("%:=", Tok::Compound('%', true)),
            ("^=", Tok::Compound('^', false)),
            ("&=", Tok::Compound('&', false)),
            ("|=", Tok::Compound('|', false)),
            ("+=", Tok::Compound('+', false)),
            ("-=", Tok::Compound('-', false)),
            ("*=", Tok::Compound('*', false)),
            ("/=", Tok::Compound('/', false)),
            ("%=", Tok::Compound('%', false)),
            (":=", Tok::ColonEq),
            ("..", Tok::DotDot),
            ("(", Tok::LParen),
            (")", Tok::RParen),
            ("[", Tok::LBrack),
            ("]", Tok::RBrack),
            ("{", Tok::LBrace),
            ("}", Tok::RBrace),
            ("=", Tok::Eq),
            (",", Tok::Comma),
            (":", Tok::Colon),
            (";", Tok::Semi),
            ("&", Tok::Amp),
            ("|", Tok::Pipe),
            ("^", Tok::Caret),
            ("~", Tok::Tilde),
            ("!", Tok::Bang),
            ("+", Tok::Plus),
            ("-", Tok::Minus),
            ("*", Tok::Star),
            ("/", Tok::Slash),
            ("%", Tok::Percent),
            ("<", Tok::Lt),
            (">", Tok::Gt),
        ];
        let mut matched = false;
        for (text, tok) in table {
            if rest.starts_with(text.as_bytes()) {
                out.push(Token {
                    tok: tok.clone(),
                    span: sp(i, i + text.len()),
                });
                i += text.len();
                matched = true;
                break;
            }
        }
        if !matched {
            let ch = src[i..].chars().next().unwrap_or('?');
            diags.push(
                Diagnostic::error(
                    sp(i, i + ch.len_utf8()),
                    format!("unexpected character `{}`", ch.escape_default()),
                )
                .label("not part of Usuba"),
            );
            i += ch.len_utf8();
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: sp(i.min(src.len()), i.min(src.len())),
    });
    out
}
