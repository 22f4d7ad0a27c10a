//! Diagnostics: plain values with spans, labels and hints, rendered like a modern compiler
//! (`file:line:col`, the source line, a caret label) with `codespan-reporting`.
//!
//! Invariant: user errors are always `Diagnostic`s; nothing on a user-input path panics.

use codespan_reporting::diagnostic as cd;
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;

/// Byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: u32,
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(file: u32, lo: usize, hi: usize) -> Span {
        Span {
            file,
            lo: lo as u32,
            hi: hi as u32,
        }
    }
    /// The smallest span covering both (same file assumed; else `self`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Main location and its label.
    pub primary: Option<(Span, String)>,
    pub secondary: Vec<(Span, String)>,
    /// Extra lines: `help: ...` / `note: ...`.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            primary: Some((span, String::new())),
            secondary: vec![],
            notes: vec![],
        }
    }
    pub fn error_nospan(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            primary: None,
            secondary: vec![],
            notes: vec![],
        }
    }
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }
    pub fn label(mut self, label: impl Into<String>) -> Diagnostic {
        if let Some((_, l)) = &mut self.primary {
            *l = label.into();
        }
        self
    }
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }
    pub fn help(mut self, text: impl Into<String>) -> Diagnostic {
        self.notes.push(format!("help: {}", text.into()));
        self
    }
    pub fn note(mut self, text: impl Into<String>) -> Diagnostic {
        self.notes.push(format!("note: {}", text.into()));
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// All source files of one compilation (the main file and its includes).
#[derive(Default, Clone)]
pub struct SourceMap {
    pub files: Vec<(String, String)>,
}

impl SourceMap {
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> u32 {
        self.files.push((name.into(), text.into()));
        (self.files.len() - 1) as u32
    }
    pub fn text(&self, file: u32) -> &str {
        &self.files[file as usize].1
    }
    pub fn name(&self, file: u32) -> &str {
        &self.files[file as usize].0
    }
    /// 1-based (line, column) of a byte offset.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        let text = self.text(span.file);
        let lo = (span.lo as usize).min(text.len());
        let before = &text[..lo];
        let line = before.matches('\n').count() + 1;
        let col = before
            .rsplit('\n')
            .next()
            .map(|l| l.chars().count())
            .unwrap_or(0)
            + 1;
        (line, col)
    }
}

/// Renders diagnostics as text (no colours), in order.
pub fn render(sm: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut files = SimpleFiles::new();
    for (name, text) in &sm.files {
        files.add(name.clone(), text.clone());
    }
    let config = term::Config::default();
    let mut buf = term::termcolor::NoColor::new(Vec::new());
    for d in diags {
        let mut cdiag = match d.severity {
            Severity::Error => cd::Diagnostic::error(),
            Severity::Warning => cd::Diagnostic::warning(),
            Severity::Note => cd::Diagnostic::note(),
        }
        .with_message(&d.message);
        let mut labels = Vec::new();
        if let Some((sp, l)) = &d.primary {
            labels.push(cd::Label::primary(sp.file as usize, clamp(sm, *sp)).with_message(l));
        }
        for (sp, l) in &d.secondary {
            labels.push(cd::Label::secondary(sp.file as usize, clamp(sm, *sp)).with_message(l));
        }
        cdiag = cdiag.with_labels(labels).with_notes(d.notes.clone());
        if term::emit(&mut buf, &config, &files, &cdiag).is_err() {
            // Fall back to a plain line if a span is somehow out of range.
            let _ = std::io::Write::write_all(
                buf.get_mut(),
                format!("error: {}\n", d.message).as_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

fn clamp(sm: &SourceMap, sp: Span) -> std::ops::Range<usize> {
    let len = sm.text(sp.file).len();
    let mut lo = (sp.lo as usize).min(len);
    let mut hi = (sp.hi as usize).min(len).max(lo);
    let text = sm.text(sp.file);
    while lo > 0 && !text.is_char_boundary(lo) {
        lo -= 1;
    }
    while hi < len && !text.is_char_boundary(hi) {
        hi += 1;
    }
    lo..hi
}
