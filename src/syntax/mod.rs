//! Front end: source text → AST, with `include` expansion. No I/O here: files are read through
//! the [`Loader`] trait (the CLI passes the real file system, tests an in-memory map).

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod pretty;

use crate::diag::{Diagnostic, SourceMap, Span};
use std::collections::HashMap;

/// Where source files come from.
pub trait Loader {
    /// Reads a file; `Err` carries a human-readable reason.
    fn read(&self, path: &str) -> Result<String, String>;
    /// Whether a file exists at that path.
    fn exists(&self, path: &str) -> bool;
}

/// In-memory loader (tests, fuzzing).
#[derive(Default)]
pub struct MemLoader(pub HashMap<String, String>);

impl Loader for MemLoader {
    fn read(&self, path: &str) -> Result<String, String> {
        self.0.get(path).cloned().ok_or_else(|| "no such file".to_string())
    }
    fn exists(&self, path: &str) -> bool {
        self.0.contains_key(path)
    }
}

/// Parses `text` (named `name`) and everything it includes. Include paths are looked up
/// literally, then relative to the including file's folder, then in each of `include_dirs`.
pub fn parse_program(
    name: &str,
    text: &str,
    include_dirs: &[String],
    loader: &dyn Loader,
    sm: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> ast::Program {
    let mut decls = Vec::new();
    let mut stack = vec![name.to_string()];
    parse_file(name, text.to_string(), include_dirs, loader, sm, diags, &mut decls, &mut stack);
    ast::Program { decls }
}

#[allow(clippy::too_many_arguments)]
fn parse_file(
    name: &str,
    text: String,
    include_dirs: &[String],
    loader: &dyn Loader,
    sm: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
    decls: &mut Vec<ast::Decl>,
    stack: &mut Vec<String>,
) {
    let file = sm.add(name, text);
    let toks = lexer::lex(file, sm.text(file), diags);
    let mut p = parser::Parser::new(&toks);
    let items = p.parse_items();
    diags.append(&mut p.diags);
    for item in items {
        match item {
            parser::Item::Decl(d) => decls.push(d),
            parser::Item::Include(path, span) => {
                let Some(found) = resolve_include(name, &path, include_dirs, loader) else {
                    let mut d = Diagnostic::error(span, format!("cannot find included file `{}`", path)).label("not found");
                    d = d.help("paths are tried as written, then relative to this file, then in each `-I` folder");
                    diags.push(d);
                    continue;
                };
                if stack.contains(&found) {
                    diags.push(Diagnostic::error(span, format!("`{}` includes itself (include cycle)", path)).label("cyclic include"));
                    continue;
                }
                if stack.len() > 64 {
                    diags.push(Diagnostic::error(span, "includes nested more than 64 deep").label("here"));
                    continue;
                }
                match loader.read(&found) {
                    Ok(t) => {
                        stack.push(found.clone());
                        parse_file(&found, t, include_dirs, loader, sm, diags, decls, stack);
                        stack.pop();
                    }
                    Err(e) => diags.push(Diagnostic::error(span, format!("cannot read `{}`: {}", found, e)).label("here")),
                }
            }
        }
    }
}

fn resolve_include(from: &str, path: &str, include_dirs: &[String], loader: &dyn Loader) -> Option<String> {
    if loader.exists(path) {
        return Some(path.to_string());
    }
    let dir = match from.rfind('/') {
        Some(i) => &from[..i],
        None => "",
    };
    if !dir.is_empty() {
        let p = format!("{}/{}", dir, path);
        if loader.exists(&p) {
            return Some(p);
        }
    }
    for d in include_dirs {
        let p = format!("{}/{}", d.trim_end_matches('/'), path);
        if loader.exists(&p) {
            return Some(p);
        }
    }
    None
}

/// Iterative depth of an expression tree (no recursion, so safe on any input).
pub fn expr_depth(e: &ast::Expr) -> usize {
    let mut max = 0;
    let mut stack: Vec<(&ast::Expr, usize)> = vec![(e, 1)];
    while let Some((e, d)) = stack.pop() {
        max = max.max(d);
        for c in children(e) {
            stack.push((c, d + 1));
        }
    }
    max
}

/// Direct sub-expressions.
pub fn children(e: &ast::Expr) -> Vec<&ast::Expr> {
    use ast::ExprKind::*;
    let mut v: Vec<&ast::Expr> = Vec::new();
    match &e.kind {
        Int(..) | Var(_) => {}
        Index(b, idx) => {
            v.push(b);
            match idx {
                ast::Index::One(a) => v.push(a),
                ast::Index::Range(a, b) => {
                    v.push(a);
                    v.push(b)
                }
                ast::Index::List(l) => v.extend(l.iter()),
            }
        }
        Tuple(l) => v.extend(l.iter()),
        Not(a) | Refresh(a) => v.push(a),
        Bin(_, a, b) | Shift(_, a, b) | Bitmask(a, b) | Pack(a, b, _) => {
            v.push(a);
            v.push(b)
        }
        Call(_, i, args) => {
            if let Some(i) = i {
                v.push(i)
            }
            v.extend(args.iter())
        }
        Shuffle(a, l) => {
            v.push(a);
            v.extend(l.iter())
        }
    }
    v
}

/// Span of the whole file `file` (for diagnostics without a better place).
pub fn file_span(sm: &SourceMap, file: u32) -> Span {
    Span::new(file, 0, sm.text(file).len())
}
