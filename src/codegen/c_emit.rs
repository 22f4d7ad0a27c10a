//! C text helpers: identifier sanitising and uniquing, literals, comments.

use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// C keywords (C11 + common extensions) that cannot be identifiers.
const C_KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "asm", "typeof", "bool", "true", "false",
];

/// Names that would clash with the C library, the included headers or our own macros when used
/// as a function or variable name.
const C_RESERVED: &[&str] = &[
    "main",
    "abs",
    "labs",
    "llabs",
    "div",
    "ldiv",
    "lldiv",
    "exit",
    "abort",
    "atexit",
    "free",
    "malloc",
    "calloc",
    "realloc",
    "aligned_alloc",
    "rand",
    "srand",
    "atoi",
    "atol",
    "atoll",
    "atof",
    "strtol",
    "strtoul",
    "qsort",
    "bsearch",
    "system",
    "getenv",
    "memcpy",
    "memset",
    "memmove",
    "memcmp",
    "strlen",
    "strcpy",
    "strcmp",
    "printf",
    "puts",
    "putchar",
    "exp",
    "log",
    "pow",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "floor",
    "ceil",
    "round",
    "fabs",
    "index",
    "select",
    "time",
    "clock",
    "signal",
    "raise",
    "random",
    "NULL",
    "EOF",
    "DATATYPE",
    "errno",
    "stdin",
    "stdout",
    "stderr",
    "offsetof",
    "alignof",
    "alignas",
    "static_assert",
    "noreturn",
];

/// Whether `s` is a keyword or a name we must not redefine.
fn reserved_exact(s: &str) -> bool {
    C_KEYWORDS.contains(&s) || C_RESERVED.contains(&s)
}

/// Whether `s` lies in a reserved name space: our runtime's `nk_`/`NK_`, leading underscores,
/// `<stdint.h>` macros (`INT8_MAX`, `UINT64_C`, ...).
fn reserved_prefix(s: &str) -> bool {
    if s.to_ascii_lowercase().starts_with("nk_") || s.starts_with('_') {
        return true;
    }
    (s.starts_with("INT")
        || s.starts_with("UINT")
        || s.starts_with("SIZE_")
        || s.starts_with("PTRDIFF_"))
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether `s` may not be used as a generated identifier.
pub fn is_reserved(s: &str) -> bool {
    reserved_exact(s) || reserved_prefix(s)
}

/// Turns any string into a C identifier (not yet checked against reserved names).
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if c == '\'' {
            out.push_str("_q");
        } else {
            out.push('_');
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'v');
    }
    if out.starts_with('_') {
        out.insert(0, 'v');
    }
    out
}

/// Hands out unique identifiers deterministically (first come, first served; clashes get `_`
/// suffixes).
/// A namer may sit on a parent (the global names) that it consults but does not copy, so each
/// function's local names cost O(locals), not O(globals).
#[derive(Clone, Debug, Default)]
pub struct Namer<'p> {
    parent: Option<&'p Namer<'p>>,
    used: HashSet<String>,
    /// Last counter suffix handed out per base name.
    suffix: HashMap<String, usize>,
}

impl<'p> Namer<'p> {
    pub fn new() -> Namer<'p> {
        Namer::default()
    }
    /// A namer whose names also avoid every name of `parent`.
    pub fn child(parent: &'p Namer<'p>) -> Namer<'p> {
        Namer {
            parent: Some(parent),
            used: HashSet::default(),
            suffix: HashMap::default(),
        }
    }
    fn taken(&self, n: &str) -> bool {
        self.used.contains(n) || self.parent.is_some_and(|p| p.taken(n))
    }
    /// Marks `name` as taken without handing it out.
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }
    pub fn fresh(&mut self, base: &str) -> String {
        let mut n = sanitize(base);
        if reserved_prefix(&n) {
            n.insert_str(0, "v_");
        }
        // A few clashes get `_` suffixes; past that a per-base counter (`x_n7`) keeps naming
        // k atoms of one base O(k), not O(k^2).
        let base = n.clone();
        let mut tries = 0;
        while reserved_exact(&n) || self.taken(&n) {
            if tries < 4 {
                n.push('_');
                tries += 1;
                continue;
            }
            let k = self.suffix.entry(base.clone()).or_insert(0);
            loop {
                *k += 1;
                let cand = format!("{}_n{}", base, k);
                if !(self.used.contains(&cand) || self.parent.is_some_and(|p| p.taken(&cand))) {
                    n = cand;
                    break;
                }
            }
        }
        self.used.insert(n.clone());
        n
    }
}

/// An unsigned C literal for `v`, typed wide enough for `bits`.
pub fn lit(v: u64, bits: u32) -> String {
    if bits > 32 || v > u32::MAX as u64 {
        format!("UINT64_C(0x{:016X})", v)
    } else {
        format!("0x{:X}u", v)
    }
}

/// `text` made safe inside a `/* */` comment, one ` * ` line per input line.
pub fn comment_lines(text: &str) -> String {
    let mut s = String::new();
    for line in text.lines() {
        let clean = line.replace("*/", "* /").replace("/*", "/ *");
        let clean = clean.trim_end();
        if clean.is_empty() {
            s.push_str(" *\n");
        } else {
            s.push_str(" * ");
            s.push_str(clean);
            s.push('\n');
        }
    }
    s
}
