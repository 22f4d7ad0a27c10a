//! The tuning cache: a finished run is stored under a key of (nakiri version and build, the
//! sources' texts, the tuning flags, the CPU model, the C compilers' versions), so a second `tune` of
//! the same program on the same machine answers at once with the same choice. Storage is a
//! [`Store`] (`cli::tune` keeps one file per key under `$NAKIRI_TUNE_CACHE`, else
//! `$XDG_CACHE_HOME/nakiri/tune`, else `~/.cache/nakiri/tune`).

use super::compile::stable_hash;
use super::Knobs;

/// Where cache entries live.
pub trait Store {
    fn get(&self, key: &str) -> Option<String>;
    fn put(&mut self, key: &str, value: &str) -> Result<(), String>;
}

/// An in-memory store (tests).
#[derive(Default)]
pub struct MemStore(pub std::collections::BTreeMap<String, String>);

impl Store for MemStore {
    fn get(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn put(&mut self, key: &str, value: &str) -> Result<(), String> {
        self.0.insert(key.to_string(), value.to_string());
        Ok(())
    }
}

/// What makes two tuning runs the same question.
#[derive(Clone, Debug)]
pub struct KeyParts<'a> {
    /// Every source file read (name, text), includes too.
    pub sources: &'a [(String, String)],
    /// The tuning flags (slicing, arch, goal, budget, knobs, compile flags, the output's
    /// header name, which the C and header mention), as one text.
    pub flags: &'a str,
    pub cpu: &'a str,
    /// `cc --version` (and clang's) first lines.
    pub compilers: &'a str,
    /// This build of nakiri (`cli::tune`: a hash of the running executable). The version
    /// alone let a rebuilt compiler, whose defaults had changed, answer from an old entry.
    pub build: &'a str,
}

/// The cache key: 32 hex digits.
pub fn key(p: &KeyParts) -> String {
    let mut text = format!("nakiri {} build {}\n", env!("CARGO_PKG_VERSION"), p.build);
    for (name, src) in p.sources {
        text.push_str(&format!("file {} {}\n", name.len(), src.len()));
        text.push_str(src);
    }
    text.push_str(&format!(
        "\nflags {}\ncpu {}\ncompilers {}\n",
        p.flags, p.cpu, p.compilers
    ));
    let h1 = stable_hash(&text);
    let h2 = stable_hash(&format!("{}{}", text.len(), text));
    format!("{:016x}{:016x}", h1, h2)
}

/// A stored run: the choice, its C and header, and the report and plot as written then.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub knobs: Knobs,
    pub c: String,
    pub h: String,
    pub report: String,
    pub svg: String,
}

const MAGIC: &str = "nakiri-tune-cache 1\n";

/// Length-prefixed sections, so any text round-trips.
pub fn encode(e: &Entry) -> String {
    let mut s = String::from(MAGIC);
    for (name, body) in [
        ("knobs", e.knobs.to_line()),
        ("c", e.c.clone()),
        ("h", e.h.clone()),
        ("report", e.report.clone()),
        ("svg", e.svg.clone()),
    ] {
        s.push_str(&format!("{} {}\n", name, body.len()));
        s.push_str(&body);
        s.push('\n');
    }
    s
}

/// `None` for anything that is not a whole entry (a truncated or foreign file is a miss).
pub fn decode(s: &str) -> Option<Entry> {
    let mut rest = s.strip_prefix(MAGIC)?;
    let mut parts: Vec<String> = Vec::new();
    for name in ["knobs", "c", "h", "report", "svg"] {
        let (head, after) = rest.split_once('\n')?;
        let (n, len) = head.split_once(' ')?;
        if n != name {
            return None;
        }
        let len: usize = len.parse().ok()?;
        let body = after.get(..len)?;
        parts.push(body.to_string());
        rest = after.get(len..)?.strip_prefix('\n')?;
    }
    if !rest.is_empty() {
        return None;
    }
    let knobs = Knobs::parse(&parts[0])?;
    Some(Entry {
        knobs,
        c: parts[1].clone(),
        h: parts[2].clone(),
        report: parts[3].clone(),
        svg: parts[4].clone(),
    })
}
