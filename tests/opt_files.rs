//! Data-file tests of the optimisation passes: `tests/opt/<pass>/*.ir`.
//!
//! Each file is IR text with a header `; test: <pass>` (and optionally `; target: <arch>` and
//! `; uarch: amd|intel`, whose rules the pass follows; default: the host's),
//! and, after the program, an `; expect:` block holding the printed program after running
//! only that pass. The runner parses the program, runs the pass, verifies the result, checks
//! that the interpreter gives the same outputs before and after on random inputs, and compares
//! the printed program with the block. `BLESS=1 cargo test --test opt_files` rewrites the
//! blocks (read the diff before committing).

mod common;

use common::Rng;
use nakiri::ir::{self, Program};
use nakiri::opt::{self, OptConfig, PassId, PassState};
use nakiri::target::Arch;
use std::collections::BTreeMap;

fn random_inputs(prog: &Program, rng: &mut Rng, n: usize) -> Vec<common::Instance> {
    (0..n)
        .map(|_| {
            prog.entry()
                .inputs
                .iter()
                .map(|p| {
                    (0..nakiri::interp::param_words(prog.slicing, p))
                        .map(|_| rng.bits(p.word_bits))
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        l.trim()
            .strip_prefix(&format!("; {}:", key))
            .map(|v| v.trim())
    })
}

#[test]
fn pass_data_files() {
    let bless = std::env::var("BLESS").is_ok();
    let root = common::root().join("tests/opt");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the pass data files are found");
    let mut per_pass: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut rng = Rng(11);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path
            .strip_prefix(common::root())
            .unwrap()
            .display()
            .to_string();
        let pass_name =
            header(&text, "test").unwrap_or_else(|| panic!("{}: no `; test:` header", name));
        let pass = PassId::parse(pass_name)
            .unwrap_or_else(|| panic!("{}: unknown pass `{}`", name, pass_name));
        *per_pass.entry(pass.name().to_string()).or_default() += 1;
        let program_text = match text.find("; expect:") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        let before = ir::parse::parse(program_text).unwrap_or_else(|e| panic!("{}: {}", name, e));
        ir::verify(&before).unwrap_or_else(|e| panic!("{}: input does not verify: {}", name, e));
        let mut cfg = OptConfig::default();
        if let Some(a) = header(&text, "target") {
            cfg.arch = Arch::parse(a).unwrap_or_else(|| panic!("{}: unknown target {}", name, a));
        }
        if let Some(u) = header(&text, "uarch") {
            cfg.uarch = nakiri::target::Uarch::parse(u)
                .unwrap_or_else(|| panic!("{}: unknown uarch {}", name, u));
        }
        let mut after = before.clone();
        opt::run_pass(
            pass,
            &mut after,
            &Default::default(),
            &cfg,
            &mut PassState::default(),
        );
        ir::verify(&after)
            .unwrap_or_else(|e| panic!("{}: `{}` broke the IR: {}", name, pass.name(), e));
        let inputs = random_inputs(&before, &mut rng, 64);
        assert_eq!(
            common::run_interp(&before, &inputs),
            common::run_interp(&after, &inputs),
            "{}: `{}` changed the meaning",
            name,
            pass.name()
        );
        let printed = ir::print::to_string(&after);
        let expect_block: String = printed.lines().map(|l| format!(";   {}\n", l)).collect();
        let new_text = format!(
            "{}; expect:\n{}",
            program_text.trim_end_matches('\n').to_string() + "\n",
            expect_block
        );
        if new_text != text {
            if bless {
                std::fs::write(path, &new_text).unwrap();
            } else {
                failures.push(format!("{}: the program after `{}` differs from its `; expect:` block.\n--- expected\n{}--- got\n{}(run `BLESS=1 cargo test --test opt_files` to accept)", name, pass.name(), text.find("; expect:").map_or("(none)\n", |i| &text[i..]), expect_block));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    for p in ["fold", "cse", "sched-bits"] {
        assert!(
            per_pass.get(p).copied().unwrap_or(0) >= 1,
            "pass `{}` has data files",
            p
        );
    }
}
