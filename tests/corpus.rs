//! Issue-3 end-to-end check: every program of the construct corpus (`tests/in/*.ua`), in every
//! slicing it lists, compiled to C for every target this CPU runs, executed natively through the
//! packed API on random instances (including a short tail), and compared with the reference
//! interpreter. Also cross-checks that the slicings agree with each other.

mod common;

use common::{random_instances, Instance, Rng};
use nakiri::ir::Slicing;

/// The corpus is split in two halves so the two test threads share the work.
#[test]
fn corpus_first_half_natively_matches_interpreter() {
    run_part(0);
}

#[test]
fn corpus_second_half_natively_matches_interpreter() {
    run_part(1);
}

fn run_part(part: usize) {
    let mut dir: Vec<_> = std::fs::read_dir(common::root().join("tests/in"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ua"))
        .collect();
    dir.sort();
    let mut rng = Rng(42 + part as u64);
    for (k, path) in dir.into_iter().enumerate() {
        if k % 2 != part {
            continue;
        }
        let rel = path
            .strip_prefix(common::root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        let first = src.lines().next().unwrap_or("");
        let slicings: Vec<Slicing> = match first.strip_prefix("# slicings:") {
            Some(r) => r
                .split_whitespace()
                .map(|s| match s {
                    "V" => Slicing::V,
                    "H" => Slicing::H,
                    _ => Slicing::B,
                })
                .collect(),
            None => vec![Slicing::V, Slicing::B],
        };
        let mut results: Vec<(Slicing, Vec<Instance>)> = Vec::new();
        let mut shared_inputs: Option<Vec<Instance>> = None;
        for s in slicings {
            let prog = common::lower_file(&rel, s);
            // 600 instances: several full registers plus a tail on every target
            let insts = match &shared_inputs {
                Some(i) => i.clone(),
                None => {
                    let i = random_instances(&prog, 600, &mut rng);
                    shared_inputs = Some(i.clone());
                    i
                }
            };
            let out = common::run_everywhere(&format!("{} -{}", rel, s), &prog, &insts);
            results.push((s, out));
        }
        for w in results.windows(2) {
            assert_eq!(
                w[0].1, w[1].1,
                "{}: slicings {} and {} disagree",
                rel, w[0].0, w[1].0
            );
        }
    }
}
