//! Front end: source text → AST, with `include` expansion. No I/O here: files are read through
//! the [`Loader`] trait (the CLI passes the real file system, tests an in-memory map).

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod pretty;

use crate::diag::{Diagnostic, SourceMap, Span};
use std::collections::{HashMap, HashSet};

/// Largest source file read (bytes); the loader stops reading past it.
pub const MAX_SOURCE_BYTES: usize = 16 << 20;
/// Largest total of all source files of one program (the main file and its includes).
pub const MAX_TOTAL_SOURCE_BYTES: usize = 64 << 20;

/// Where source files come from.
pub trait Loader {
    /// Reads a file; `Err` carries a human-readable reason (never the file's content).
    fn read(&self, path: &str) -> Result<String, String>;
    /// Whether a file exists at that path.
    fn exists(&self, path: &str) -> bool;
    /// The canonical name of a file (symlinks, `.` and `..` resolved): two paths of one file
    /// give the same string. Include-once and cycle detection compare these. The default
    /// resolves `.`, `..` and repeated `/` lexically.
    fn canonical(&self, path: &str) -> String {
        lexical_normalize(path)
    }
}

/// `a/./b//c/../d` → `a/b/d` (no file system access; a leading `..` stays).
pub fn lexical_normalize(path: &str) -> String {
    let abs = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if abs => {}
            c => parts.push(c),
        }
    }
    let body = parts.join("/");
    if abs {
        format!("/{}", body)
    } else if body.is_empty() {
        ".".to_string()
    } else {
        body
    }
}

/// Checks that bytes read from a file are Usuba source text: UTF-8 (else the byte offset of
/// the first invalid sequence) with no control character but tab, line feed, carriage return
/// and form feed (else "not a text file"). The reason never quotes the content, so including
/// `/proc/self/environ` or a binary prints nothing of it.
pub fn source_text(bytes: Vec<u8>) -> Result<String, String> {
    if let Some(off) = bytes.iter().position(|&b| b < 0x80 && is_control(b as u32)) {
        return Err(format!("not a text file (control byte 0x{:02x} at byte offset {}); Usuba sources are UTF-8 text", bytes[off], off));
    }
    match String::from_utf8(bytes) {
        Ok(s) => match s.char_indices().find(|(_, c)| is_control(*c as u32)) {
            Some((off, c)) => Err(format!("not a text file (control character U+{:04X} at byte offset {}); Usuba sources are UTF-8 text", c as u32, off)),
            None => Ok(s),
        },
        Err(e) => {
            let off = e.utf8_error().valid_up_to();
            let b = e.as_bytes()[off];
            Err(format!("not valid UTF-8 (byte 0x{:02x} at byte offset {} starts no UTF-8 character); Usuba sources are UTF-8 text", b, off))
        }
    }
}

/// C0 controls but tab, LF, CR and FF; DEL; C1 controls.
fn is_control(c: u32) -> bool {
    (c < 0x20 && ![0x09, 0x0a, 0x0c, 0x0d].contains(&c)) || c == 0x7f || (0x80..0xa0).contains(&c)
}

/// In-memory loader (tests, fuzzing).
#[derive(Default)]
pub struct MemLoader(pub HashMap<String, String>);

impl Loader for MemLoader {
    fn read(&self, path: &str) -> Result<String, String> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| "no such file".to_string())
    }
    fn exists(&self, path: &str) -> bool {
        self.0.contains_key(path)
    }
}

/// State of one program's include expansion.
struct Includes<'a> {
    include_dirs: &'a [String],
    loader: &'a dyn Loader,
    /// Canonical names of the files being expanded (innermost last): a cycle is an error.
    stack: Vec<String>,
    /// Canonical names of every file loaded: included again, a file is skipped (include-once).
    loaded: HashSet<String>,
    /// Bytes of source loaded so far.
    total_bytes: usize,
}

/// Parses `text` (named `name`) and everything it includes. Include paths are looked up
/// literally, then relative to the including file's folder, then in each of `include_dirs`.
/// Each file is loaded once per canonical name (`Loader::canonical`), like C's
/// `#pragma once`; a file that includes itself, directly or not, is an error (include cycle).
pub fn parse_program(
    name: &str,
    text: &str,
    include_dirs: &[String],
    loader: &dyn Loader,
    sm: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> ast::Program {
    let mut decls = Vec::new();
    if let Err(e) = source_text(text.as_bytes().to_vec()) {
        diags.push(Diagnostic::error_nospan(format!(
            "cannot read `{}`: {}",
            name, e
        )));
        return ast::Program { decls };
    }
    let canon = loader.canonical(name);
    let mut inc = Includes {
        include_dirs,
        loader,
        stack: vec![canon.clone()],
        loaded: HashSet::new(),
        total_bytes: text.len(),
    };
    inc.loaded.insert(canon);
    parse_file(name, text.to_string(), &mut inc, sm, diags, &mut decls);
    ast::Program { decls }
}

fn parse_file(
    name: &str,
    text: String,
    inc: &mut Includes,
    sm: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
    decls: &mut Vec<ast::Decl>,
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
                let Some(found) = resolve_include(name, &path, inc.include_dirs, inc.loader) else {
                    let mut d =
                        Diagnostic::error(span, format!("cannot find included file `{}`", path))
                            .label("not found");
                    d = d.help("paths are tried as written, then relative to this file, then in each `-I` folder");
                    diags.push(d);
                    continue;
                };
                let canon = inc.loader.canonical(&found);
                if inc.stack.contains(&canon) {
                    diags.push(
                        Diagnostic::error(
                            span,
                            format!("`{}` includes itself (include cycle)", path),
                        )
                        .label("cyclic include")
                        .note(format!(
                            "`{}` is `{}`, which is being included",
                            path, canon
                        )),
                    );
                    continue;
                }
                if inc.stack.len() > 64 {
                    diags.push(
                        Diagnostic::error(span, "includes nested more than 64 deep").label("here"),
                    );
                    continue;
                }
                if !inc.loaded.insert(canon.clone()) {
                    // Already loaded (include-once): its declarations are there.
                    continue;
                }
                match inc
                    .loader
                    .read(&found)
                    .and_then(|t| source_text(t.into_bytes()))
                {
                    Ok(t) => {
                        inc.total_bytes = inc.total_bytes.saturating_add(t.len());
                        if inc.total_bytes > MAX_TOTAL_SOURCE_BYTES {
                            diags.push(
                                Diagnostic::error(
                                    span,
                                    format!(
                                        "the program's source files total more than {} bytes",
                                        MAX_TOTAL_SOURCE_BYTES
                                    ),
                                )
                                .label("this include passes the limit"),
                            );
                            return;
                        }
                        inc.stack.push(canon);
                        parse_file(&found, t, inc, sm, diags, decls);
                        inc.stack.pop();
                    }
                    Err(e) => diags.push(
                        Diagnostic::error(span, format!("cannot read `{}`: {}", found, e))
                            .label("here"),
                    ),
                }
            }
        }
    }
}

fn resolve_include(
    from: &str,
    path: &str,
    include_dirs: &[String],
    loader: &dyn Loader,
) -> Option<String> {
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
