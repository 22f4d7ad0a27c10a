//! IR-level checks over the construct corpus and the cipher library:
//! - the text form prints and parses back (print ∘ parse ∘ print = print), and the parsed
//!   program verifies and computes the same outputs;
//! - translation validation of the optimisation pipeline: the program before and after each
//!   pass verifies and gives the same outputs as the interpreter on random inputs.

mod common;

use common::Rng;
use nakiri::driver::{self, Config};
use nakiri::ir::{self, Program, Slicing};

fn random_inputs(prog: &Program, rng: &mut Rng, n: usize) -> Vec<common::Instance> {
    (0..n)
        .map(|_| prog.entry().inputs.iter().map(|p| (0..nakiri::interp::param_words(prog.slicing, p)).map(|_| rng.bits(p.word_bits)).collect()).collect())
        .collect()
}

fn programs() -> Vec<(String, Slicing)> {
    let mut v = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(common::root().join("tests/in")).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().map_or(false, |e| e == "ua")).collect();
    files.sort();
    for p in files {
        let src = std::fs::read_to_string(&p).unwrap();
        let rel = p.strip_prefix(common::root()).unwrap().to_string_lossy().into_owned();
        let first = src.lines().next().unwrap_or("");
        let sl: Vec<Slicing> = match first.strip_prefix("# slicings:") {
            Some(r) => r.split_whitespace().map(|s| match s { "V" => Slicing::V, "H" => Slicing::H, _ => Slicing::B }).collect(),
            None => vec![Slicing::V, Slicing::B],
        };
        for s in sl {
            v.push((rel.clone(), s));
        }
    }
    for (f, s) in [("ciphers/des/des.ua", Slicing::B), ("ciphers/rectangle/rectangle.ua", Slicing::V), ("ciphers/chacha20/chacha20.ua", Slicing::V), ("ciphers/gimli/gimli.ua", Slicing::B)] {
        if common::root().join(f).exists() {
            v.push((f.to_string(), s));
        }
    }
    v
}

#[test]
fn text_form_round_trips() {
    let mut rng = Rng(7);
    for (file, s) in programs() {
        let prog = common::lower_file(&file, s);
        let text = ir::print::to_string(&prog);
        let back = ir::parse::parse(&text).unwrap_or_else(|e| panic!("{} -{}: {}", file, s, e));
        ir::verify(&back).unwrap_or_else(|e| panic!("{} -{}: parsed IR does not verify: {}", file, s, e));
        assert_eq!(ir::print::to_string(&back), text, "{} -{}: print(parse(print(p))) != print(p)", file, s);
        let inputs = random_inputs(&prog, &mut rng, 20);
        assert_eq!(common::run_interp(&prog, &inputs), common::run_interp(&back, &inputs), "{} -{}: parsed program computes differently", file, s);
    }
}

#[test]
fn optimisation_passes_preserve_meaning() {
    let mut rng = Rng(8);
    for (file, s) in programs() {
        let src = std::fs::read_to_string(common::root().join(&file)).unwrap();
        let cfg = Config { slicing: s, ..Config::default() };
        let front = driver::check(&file, &src, &cfg, &common::Fs);
        let before = front.checked.unwrap_or_else(|| panic!("{}", file)).ir;
        ir::verify(&before).unwrap();
        let inputs = random_inputs(&before, &mut rng, 50);
        let expect = common::run_interp(&before, &inputs);
        for policy in [nakiri::opt::InlinePolicy::Default, nakiri::opt::InlinePolicy::All, nakiri::opt::InlinePolicy::Marked] {
            let mut inlined = before.clone();
            nakiri::opt::inline::run(&mut inlined, policy);
            ir::verify(&inlined).unwrap_or_else(|e| panic!("{} -{}: inlining ({:?}) broke the IR: {}", file, s, policy, e));
            assert_eq!(common::run_interp(&inlined, &inputs), expect, "{} -{}: inlining ({:?}) changed the meaning", file, s, policy);
            if policy == nakiri::opt::InlinePolicy::All {
                let n = inlined.nodes.len();
                assert!(inlined.nodes[..n - 1].iter().all(|nd| nd.inline == Some(false)), "{}: -inline-all leaves only the entry and `_no_inline` nodes", file);
            }
        }
        let mut after = before.clone();
        nakiri::opt::copy_prop::run(&mut after);
        ir::verify(&after).unwrap_or_else(|e| panic!("{} -{}: copy_prop broke the IR: {}", file, s, e));
        assert_eq!(common::run_interp(&after, &inputs), expect, "{} -{}: copy_prop changed the meaning", file, s);
        let n_before: usize = before.nodes.iter().map(|n| n.body.len()).sum();
        let n_after: usize = after.nodes.iter().map(|n| n.body.len()).sum();
        assert!(n_after <= n_before, "{}: copy_prop grew the program", file);
    }
}
