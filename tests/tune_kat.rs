//! The tuned output of every shipped cipher computes what the default output computes: each
//! source (in its first slicing) is tuned with a small budget and a fake timer that prefers
//! arbitrary (hashed) knob settings, so the choice is usually not the default; the chosen
//! program then runs natively (std, packed API, `cc -O0`) on random instances and must equal
//! the interpreter on the default program — which the KAT tests (`tests/kat_*.rs`) check
//! against the published vectors and the oracles. And `nakiri tune` answers a second run
//! from its cache with the same files.

mod common;

use common::{run_interp, run_native, Rng};
use nakiri::driver::{self, Config};
use nakiri::target::Arch;
use nakiri::tune::compile::{stable_hash, CheckedPreparer, Compiled};
use nakiri::tune::search::{self, Clock, Measurement, Measurer, Params, Preparer};
use nakiri::tune::{Cc, Dim, Goal, Knobs, Space};
use std::cell::Cell;
use std::rc::Rc;

struct FakeClock(Rc<Cell<f64>>);
impl Clock for FakeClock {
    fn elapsed(&self) -> f64 {
        self.0.get()
    }
}

/// Cycles/byte = a hash of the knobs: deterministic, indifferent to what is sensible.
struct HashTimer(Rc<Cell<f64>>);
impl Measurer for HashTimer {
    fn measure(&mut self, batch: &[&Compiled], _goal: Goal) -> Vec<Result<Measurement, String>> {
        self.0.set(self.0.get() + batch.len() as f64);
        batch
            .iter()
            .map(|c| {
                Ok(Measurement {
                    hot_cpb: Some(1.0 + (stable_hash(&c.knobs.to_line()) % 1000) as f64 / 100.0),
                    ..Measurement::default()
                })
            })
            .collect()
    }
}

/// One second per compile on the fake clock, so the budget bounds compiles too.
struct Charging<'a>(CheckedPreparer<'a>, Rc<Cell<f64>>);
impl Preparer for Charging<'_> {
    fn compile(&mut self, k: &Knobs) -> Result<Compiled, String> {
        self.1.set(self.1.get() + 1.0);
        self.0.compile(k)
    }
    fn inline_flips(&self, c: &Compiled, max: usize) -> Vec<(String, bool)> {
        self.0.inline_flips(c, max)
    }
    fn loops(&self, c: &Compiled, max: usize) -> Vec<String> {
        self.0.loops(c, max)
    }
}

#[test]
fn tuned_ciphers_match_the_default() {
    let mut changed = 0;
    let mut total = 0;
    for c in nakiri::cli::bench::ciphers::CIPHERS {
        let slicing = c.slicings[0];
        let path = common::root().join(c.file);
        let text = std::fs::read_to_string(&path).unwrap();
        let cfg = Config {
            slicing,
            ..Config::default()
        };
        let front = driver::check(c.file, &text, &cfg, &common::Fs);
        assert!(!front.has_errors(), "{}", front.render_diags());
        let checked = front.checked.as_ref().unwrap();
        let mut space = Space::new(
            slicing,
            Arch::Std,
            vec![Cc {
                name: "cc".into(),
                flags: vec!["-O3".into()],
            }],
            false,
        );
        space.restrict(&[Dim::Loops, Dim::Inline, Dim::SchedBits, Dim::SchedIlp]);
        space
            .dims
            .retain(|d| ![Dim::InlineNode, Dim::Loop].contains(d));
        let default = space.default_knobs(&cfg.opt, cfg.spill, cfg.opaque_not);
        let clock = Rc::new(Cell::new(0.0));
        let mut prep = Charging(
            CheckedPreparer {
                checked,
                base: cfg.clone(),
                header_name: "t.h".into(),
                sbox_alternatives: vec![],
            },
            clock.clone(),
        );
        let params = Params {
            max_passes: 1,
            ..Params::new(Goal::Hot, 12.0)
        };
        let o = search::run(
            &space,
            default.clone(),
            &mut prep,
            &mut HashTimer(clock.clone()),
            &FakeClock(clock.clone()),
            &params,
            &mut |_| {},
        )
        .unwrap();
        assert!(clock.get() <= 12.0, "{}: budget", c.name);
        total += 1;
        if o.chosen.knobs != default {
            changed += 1;
        }
        // Random instances: a full std chunk and a tail; const inputs shared.
        let (_, default_prog) = driver::lower(c.file, &text, &cfg, &common::Fs);
        let default_prog = default_prog.unwrap();
        let mut rng = Rng(stable_hash(c.file));
        let n = if slicing == nakiri::ir::Slicing::B {
            70
        } else {
            5
        };
        let insts = common::random_instances(&default_prog, n, &mut rng);
        let want = run_interp(&default_prog, &insts);
        let got = run_native(&o.chosen.prog, Arch::Std, &insts);
        assert_eq!(
            got,
            want,
            "{} -{} tuned as `{}`",
            c.name,
            slicing,
            o.chosen.knobs.diff(&default)
        );
    }
    println!(
        "{} of {} ciphers tuned to a non-default configuration",
        changed, total
    );
    assert!(
        changed * 2 >= total,
        "the fake timer should move most choices off the default ({} of {})",
        changed,
        total
    );
}

/// `nakiri tune` through the binary on a small program: the first run measures (for real,
/// `--quick`, budget 0: the default only), the second answers from the cache with the same files.
#[test]
fn second_tune_answers_from_the_cache() {
    let dir = common::scratch_dir("tune-cache");
    let src = dir.join("p.ua");
    std::fs::write(&src, "node p (a:u32x4) returns (b:u32x4) let forall i in [0, 3] { b[i] = (a[i] <<< 3) ^ a[3 - i] } tel\n").unwrap();
    // `nakiri tune p.ua -V --budget 0 --quick EXTRA.. -o OUT.c`, with the test's cache folder
    let tune = |extra: &[&str], out_c: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_nakiri"))
            .args([
                "tune",
                src.to_str().unwrap(),
                "-V",
                "--budget",
                "0",
                "--quick",
            ])
            .args(extra)
            .arg("-o")
            .arg(dir.join(out_c))
            .env("NAKIRI_TUNE_CACHE", dir.join("cache"))
            .output()
            .unwrap()
    };
    let run = || {
        let out = tune(&[], "p_tuned.c");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let files: Vec<String> = [
            "p_tuned.c",
            "p_tuned.h",
            "p_tuned.tune.md",
            "p_tuned.tune.svg",
        ]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect();
        (String::from_utf8_lossy(&out.stdout).into_owned(), files)
    };
    let (first, files1) = run();
    assert!(!first.contains("from the cache"), "{}", first);
    assert!(
        files1[2].contains("| 0 | default | `default` |"),
        "the report lists the default: {}",
        files1[2]
    );
    assert!(files1[1].contains("p__packed"));
    let (second, files2) = run();
    assert!(second.contains("answered from the cache"), "{}", second);
    assert_eq!(files1, files2);
    // Another goal is another question.
    let out = tune(&["--goal", "size"], "p_size.c");
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("from the cache"));
    // `--runs 2`: each batch timed in two processes; another question for the cache too.
    let out = tune(&["--runs", "2"], "p_runs.c");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("from the cache"));
    assert!(std::fs::read_to_string(dir.join("p_runs.tune.md"))
        .unwrap()
        .contains("runs=2"));
    let out = tune(&["--runs", "0"], "p_runs.c");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`--runs`"));
}
