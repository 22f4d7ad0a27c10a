//! File-based golden tests. Refresh every expected file with `BLESS=1 cargo test --test golden`.
//!
//! - `tests/in/*.ua`: the construct corpus. The first line may be `# slicings: V B H` (default
//!   `V B`). For each file: `tests/out/<name>.ast` holds `--dump ast`, and
//!   `tests/out/<name>.<S>.typed` the typed dump for each slicing S. (The compiled behaviour of
//!   the same corpus is checked against the interpreter in `tests/corpus.rs`.)
//! - `tests/diag/*.ua`: one file per diagnostic kind; `tests/diag/<name>.stderr` holds the
//!   rendered diagnostics (`# slicing: B` on the first line selects the slicing, default V).

mod common;

use nakiri::driver::{self, Config};
use nakiri::ir::Slicing;
use std::path::{Path, PathBuf};

fn bless() -> bool {
    std::env::var_os("BLESS").is_some()
}

/// Compares `actual` with the file; on BLESS writes it. Returns an error message on mismatch.
fn check_golden(path: &Path, actual: &str) -> Result<(), String> {
    if bless() {
        std::fs::write(path, actual).unwrap();
        return Ok(());
    }
    let expected = std::fs::read_to_string(path).map_err(|_| {
        format!(
            "{} is missing (run with BLESS=1 to create it)",
            path.display()
        )
    })?;
    if expected == actual {
        return Ok(());
    }
    let mut msg = format!("{} differs (BLESS=1 refreshes it):\n", path.display());
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut shown = 0;
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x != y {
            msg.push_str(&format!(
                "  line {}:\n  - {}\n  + {}\n",
                i + 1,
                x.unwrap_or("<none>"),
                y.unwrap_or("<none>")
            ));
            shown += 1;
            if shown > 10 {
                msg.push_str("  ...\n");
                break;
            }
        }
    }
    Err(msg)
}

pub fn slicings_of(src: &str, key: &str, default: &[Slicing]) -> Vec<Slicing> {
    let first = src.lines().next().unwrap_or("");
    match first.strip_prefix(&format!("# {}:", key)) {
        Some(rest) => rest
            .split_whitespace()
            .filter_map(|s| match s {
                "V" => Some(Slicing::V),
                "B" => Some(Slicing::B),
                "H" => Some(Slicing::H),
                _ => None,
            })
            .collect(),
        None => default.to_vec(),
    }
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::root().join(dir))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ua"))
        .collect();
    v.sort();
    v
}

fn rel(p: &Path) -> String {
    p.strip_prefix(common::root())
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn corpus_dumps() {
    let mut failures = Vec::new();
    let inputs = files("tests/in");
    assert!(
        inputs.len() >= 20,
        "the corpus should cover every construct"
    );
    for path in inputs {
        let name = rel(&path);
        let src = std::fs::read_to_string(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let out_dir = common::root().join("tests/out");
        let front = driver::parse(&name, &src, &Config::default(), &common::Fs);
        if front.has_errors() {
            failures.push(format!(
                "{} does not parse:\n{}",
                name,
                front.render_diags()
            ));
            continue;
        }
        let ast = nakiri::syntax::pretty::program(front.ast.as_ref().unwrap());
        if let Err(e) = check_golden(&out_dir.join(format!("{}.ast", stem)), &ast) {
            failures.push(e);
        }
        // The pretty form must parse back to the same pretty form.
        let again = driver::parse(&name, &ast, &Config::default(), &common::Fs);
        assert!(
            !again.has_errors(),
            "{}: pretty-printed AST does not parse:\n{}",
            name,
            again.render_diags()
        );
        assert_eq!(
            nakiri::syntax::pretty::program(again.ast.as_ref().unwrap()),
            ast,
            "{}: pretty printing is not stable",
            name
        );
        for s in slicings_of(&src, "slicings", &[Slicing::V, Slicing::B]) {
            let cfg = Config {
                slicing: s,
                ..Config::default()
            };
            let front = driver::check(&name, &src, &cfg, &common::Fs);
            let text = match &front.checked {
                Some(c) => nakiri::cli::dump_typed(c),
                None => {
                    failures.push(format!(
                        "{} ({}) does not check:\n{}",
                        name,
                        s,
                        front.render_diags()
                    ));
                    continue;
                }
            };
            if let Err(e) = check_golden(&out_dir.join(format!("{}.{}.typed", stem, s)), &text) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn diagnostics() {
    let mut failures = Vec::new();
    let inputs = files("tests/diag");
    assert!(inputs.len() >= 20, "one file per diagnostic kind");
    for path in inputs {
        let name = rel(&path);
        let src = std::fs::read_to_string(&path).unwrap();
        let slicing = slicings_of(&src, "slicing", &[Slicing::V])[0];
        let cfg = Config {
            slicing,
            include_dirs: vec!["tests/diag/inc".into()],
            ..Config::default()
        };
        let front = driver::check(&name, &src, &cfg, &common::Fs);
        if !front.has_errors() {
            failures.push(format!("{}: expected an error, got none", name));
            continue;
        }
        let rendered = front.render_diags();
        assert!(
            rendered.contains(".ua:"),
            "{}: diagnostic lacks file:line:col:\n{}",
            name,
            rendered
        );
        if let Err(e) = check_golden(&path.with_extension("stderr"), &rendered) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
