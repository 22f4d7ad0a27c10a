//! The autotuner's search with a fake timer (deterministic): what it visits, what it prunes,
//! the budget, the final check, the cache format and key; and the tuned output of every
//! shipped cipher against the interpreter (the KATs' reference); and `nakiri tune` answering
//! a second run from its cache.

mod common;

use nakiri::driver::{self, Config};
use nakiri::ir::Slicing;
use nakiri::target::Arch;
use nakiri::tune::cache::{self, Store};
use nakiri::tune::compile::{CheckedPreparer, Compiled};
use nakiri::tune::search::{self, Clock, Measurement, Measurer, Params, Preparer, Status};
use nakiri::tune::{report, Cc, Dim, Goal, Knobs, LoopPolicyKnob, Space};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A program with a round loop (kept or unrolled), a node worth inlining or not, and enough
/// work for the estimates to differ.
const SRC: &str = "
node mix (a:u32, b:u32, k:u32) returns (c:u32, d:u32)
let
  c = (a + b) <<< 7;
  d = (b ^ c ^ k) <<< 9;
tel
node round (s:u32x4, k:u32) returns (o:u32x4)
let
  (o[0], o[1]) = mix(s[0] ^ k, s[1] <<< 3, k);
  (o[2], o[3]) = mix(s[2] + k, s[3] ^ (k <<< 5), k ^ o[0]);
tel
node f (x:u32x4, k:u32x8) returns (y:u32x4)
vars st:u32x4[9]
let
  st[0] = x;
  forall i in [0, 7] { st[i+1] = round(st[i], k[i]) }
  y = st[8]
tel
";

fn checked(src: &str, slicing: Slicing) -> nakiri::sema::Checked {
    let cfg = Config {
        slicing,
        ..Config::default()
    };
    let front = driver::check("t.ua", src, &cfg, &nakiri::syntax::MemLoader::default());
    assert!(!front.has_errors(), "{}", front.render_diags());
    front.checked.unwrap()
}

/// The preparer the search uses, over `ch` with `base` (header `t.h`, no other S-box circuits).
/// A knob setting read back from its line unchanged, then compiled.
fn round_trip_and_compile(prep: &mut CheckedPreparer<'_>, k: &Knobs) -> Compiled {
    assert_eq!(
        Knobs::parse(&k.to_line()),
        Some(k.clone()),
        "{}",
        k.to_line()
    );
    prep.compile(k).unwrap()
}

/// Whether the search space of a program of this slicing on `arch` has dimension `d`.
fn searched(d: Dim, slicing: Slicing, arch: Arch) -> bool {
    Space::new(slicing, arch, ccs(), false).dims.contains(&d)
}

/// A shipped cipher in bitslice on AVX-512: its search space, the default configuration, the
/// checked program and the default knobs.
fn b_avx512(file: &str) -> (Space, Config, nakiri::sema::Checked, Knobs) {
    let space = Space::new(Slicing::B, Arch::Avx512, ccs(), false);
    let src = std::fs::read_to_string(common::root().join(file)).unwrap();
    let base = Config {
        slicing: Slicing::B,
        arch: Arch::Avx512,
        ..Config::default()
    };
    let ch = checked(&src, Slicing::B);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    (space, base, ch, default)
}

/// RECTANGLE checked in bitslice, and the default configuration for `arch`.
fn rectangle_b(arch: Arch) -> (nakiri::sema::Checked, Config) {
    let src =
        std::fs::read_to_string(common::root().join("ciphers/rectangle/rectangle.ua")).unwrap();
    let base = Config {
        slicing: Slicing::B,
        arch,
        ..Config::default()
    };
    (checked(&src, Slicing::B), base)
}

fn preparer(ch: &nakiri::sema::Checked, base: Config) -> CheckedPreparer<'_> {
    CheckedPreparer {
        checked: ch,
        base,
        header_name: "t.h".into(),
        sbox_alternatives: vec![],
    }
}

/// Seconds advanced by hand: one second per measured candidate, `compile_s` per compile.
#[derive(Clone)]
struct FakeClock(Rc<Cell<f64>>);
impl Clock for FakeClock {
    fn elapsed(&self) -> f64 {
        self.0.get()
    }
}

/// Cycles/byte as a fixed function of the knobs; records every batch.
struct FakeTimer {
    clock: Rc<Cell<f64>>,
    batches: Rc<RefCell<Vec<Vec<Knobs>>>>,
    score: fn(&Knobs) -> f64,
}
impl Measurer for FakeTimer {
    fn measure(&mut self, batch: &[&Compiled], _goal: Goal) -> Vec<Result<Measurement, String>> {
        self.clock.set(self.clock.get() + batch.len() as f64);
        self.batches
            .borrow_mut()
            .push(batch.iter().map(|c| c.knobs.clone()).collect());
        batch
            .iter()
            .map(|c| {
                let v = (self.score)(&c.knobs);
                Ok(Measurement {
                    hot_cpb: Some(v),
                    cold_cycles: Some(v * 100.0),
                    code_bytes: Some((c.estimate.static_insns * 4.0) as u64),
                    spills_per_block: Some(0.0),
                    insns_per_block: Some(c.estimate.insns),
                    packed_cpb: Some(v),
                })
            })
            .collect()
    }
}

/// A preparer that charges compile time to the fake clock.
struct Charging<'a> {
    inner: CheckedPreparer<'a>,
    clock: Rc<Cell<f64>>,
    compile_s: f64,
}
impl Preparer for Charging<'_> {
    fn compile(&mut self, k: &Knobs) -> Result<Compiled, String> {
        self.clock.set(self.clock.get() + self.compile_s);
        self.inner.compile(k)
    }
    fn inline_flips(&self, c: &Compiled, max: usize) -> Vec<(String, bool)> {
        self.inner.inline_flips(c, max)
    }
    fn loops(&self, c: &Compiled, max: usize) -> Vec<String> {
        self.inner.loops(c, max)
    }
}

/// A shipped cipher checked in vslice, with the user's config for `arch`, its search space and
/// nakiri's default knobs there.
fn shipped_v(file: &str, arch: Arch) -> (nakiri::sema::Checked, Config, Space, Knobs) {
    let src = std::fs::read_to_string(common::root().join(file)).unwrap();
    let ch = checked(&src, Slicing::V);
    let base = Config {
        slicing: Slicing::V,
        arch,
        ..Config::default()
    };
    let space = Space::new(Slicing::V, arch, ccs(), false);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    (ch, base, space, default)
}

fn ccs() -> Vec<Cc> {
    vec![
        Cc {
            name: "cc".into(),
            flags: vec!["-O3".into()],
        },
        Cc {
            name: "cc".into(),
            flags: vec!["-O2".into()],
        },
    ]
}

/// Unrolling and inlining everything pay; -O2 costs; everything else is neutral.
fn score(k: &Knobs) -> f64 {
    let mut v = 10.0;
    if k.loops == LoopPolicyKnob::Unroll {
        v *= 0.8;
    }
    if k.inline == nakiri::tune::InlineKnob::All {
        v *= 0.9;
    }
    if k.cc.flags.contains(&"-O2".to_string()) {
        v *= 1.3;
    }
    v
}

struct Run {
    outcome: search::Outcome,
    batches: Vec<Vec<Knobs>>,
    clock: f64,
}

fn tune(
    src: &str,
    slicing: Slicing,
    params: &Params,
    compile_s: f64,
    score: fn(&Knobs) -> f64,
    dims: Option<&[Dim]>,
) -> Run {
    let ch = checked(src, slicing);
    let base = Config {
        slicing,
        ..Config::default()
    };
    let mut space = Space::new(slicing, Arch::Std, ccs(), false);
    if let Some(d) = dims {
        space.restrict(d);
    }
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    let clock = Rc::new(Cell::new(0.0));
    let batches = Rc::new(RefCell::new(Vec::new()));
    let mut prep = Charging {
        inner: CheckedPreparer {
            checked: &ch,
            base,
            header_name: "t.h".into(),
            sbox_alternatives: vec![],
        },
        clock: clock.clone(),
        compile_s,
    };
    let mut timer = FakeTimer {
        clock: clock.clone(),
        batches: batches.clone(),
        score,
    };
    let fc = FakeClock(clock.clone());
    let mut seen = 0;
    let outcome = search::run(
        &space,
        default,
        &mut prep,
        &mut timer,
        &fc,
        params,
        &mut |p| {
            assert!(p.measured >= seen, "progress only grows");
            seen = p.measured;
        },
    )
    .expect("the search runs");
    let b = batches.borrow().clone();
    Run {
        outcome,
        batches: b,
        clock: clock.get(),
    }
}

#[test]
fn search_visits_what_it_reports_and_keeps_the_fastest() {
    let r = tune(
        SRC,
        Slicing::V,
        &Params::new(Goal::Hot, 1000.0),
        0.0,
        score,
        None,
    );
    let o = &r.outcome;
    let measured: Vec<Knobs> = r.batches.iter().flatten().cloned().collect();
    // Every batch puts the incumbent first; the first batch is the default alone.
    assert_eq!(r.batches[0], vec![o.visits[o.default_id].knobs.clone()]);
    for v in &o.visits {
        let was_measured = measured.contains(&v.knobs);
        assert_eq!(
            v.status == Status::Measured,
            was_measured,
            "#{} `{}`: status {:?}",
            v.id,
            v.knobs.to_line(),
            v.status
        );
        if let Status::Duplicate(first) = v.status {
            assert!(first < v.id && o.visits[first].status != Status::OverBudget);
        }
    }
    // The knobs it says it searched were searched: loops, inline, sched-ilp, cc, per node, per loop.
    // (Per-loop unrolling is not searched here: unrolling all loops won first.)
    for d in [
        Dim::Loops,
        Dim::Inline,
        Dim::SchedIlp,
        Dim::Cc,
        Dim::InlineNode,
    ] {
        assert!(
            o.visits.iter().any(|v| v.dim == Some(d)),
            "no candidate moved `{}`",
            d.name()
        );
    }
    assert!(
        o.visits.iter().all(|v| v.dim != Some(Dim::Interleave)),
        "interleaving needs --allow-abi-change"
    );
    // The fake timer rewards unrolling and inlining everything: the search finds both.
    let chosen = &o.visits[o.chosen_id].knobs;
    assert_eq!(
        chosen.loops,
        LoopPolicyKnob::Unroll,
        "chosen {}",
        chosen.to_line()
    );
    assert_eq!(
        chosen.inline,
        nakiri::tune::InlineKnob::All,
        "chosen {}",
        chosen.to_line()
    );
    assert_eq!(chosen.cc.flags, vec!["-O3".to_string()]);
    let best = measured.iter().map(score).fold(f64::INFINITY, f64::min);
    assert_eq!(
        score(chosen),
        best,
        "the chosen candidate is the fastest measured"
    );
    // Final check against the default, in one batch: default / chosen = 1 / (0.8 * 0.9).
    assert_eq!(r.batches.last().unwrap()[0], o.visits[o.default_id].knobs);
    let gain = o.gain_vs_default.unwrap();
    assert!((gain - 1.0 / 0.72).abs() < 1e-9, "gain {}", gain);
    // The report has one row per visit; the plot one mark per measured or pruned visit.
    let cx = report::Context {
        file: "t.ua",
        slicing: Slicing::V,
        arch: Arch::Std,
        goal: Goal::Hot,
        budget_s: 1000.0,
        cpu: "fake",
        compilers: &[],
        allow_abi_change: false,
        dims: &[Dim::Loops],
        plot: Some("t.svg"),
        runs: 1,
    };
    let md = report::markdown(o, &cx);
    for v in &o.visits {
        assert!(
            md.contains(&format!("\n| {} | ", v.id)),
            "row #{} missing",
            v.id
        );
    }
    let svg = report::svg(o, &cx);
    let marks = o
        .visits
        .iter()
        .filter(|v| v.measurement.is_some() || matches!(v.status, Status::Pruned { .. }))
        .count();
    assert_eq!(svg.matches("<title>#").count(), marks);
    // Deterministic: the same run gives the same visits and choice.
    let again = tune(
        SRC,
        Slicing::V,
        &Params::new(Goal::Hot, 1000.0),
        0.0,
        score,
        None,
    );
    assert_eq!(
        again
            .outcome
            .visits
            .iter()
            .map(|v| v.knobs.clone())
            .collect::<Vec<_>>(),
        o.visits.iter().map(|v| v.knobs.clone()).collect::<Vec<_>>()
    );
    assert_eq!(again.outcome.chosen_id, o.chosen_id);
}

#[test]
fn estimate_prunes_before_measuring() {
    // A prune factor of 1: anything estimated worse than the incumbent is not measured.
    let params = Params {
        prune_factor: 1.0,
        ..Params::new(Goal::Hot, 1000.0)
    };
    let r = tune(SRC, Slicing::V, &params, 0.0, score, None);
    let measured: Vec<Knobs> = r.batches.iter().flatten().cloned().collect();
    let pruned: Vec<_> = r
        .outcome
        .visits
        .iter()
        .filter(|v| matches!(v.status, Status::Pruned { .. }))
        .collect();
    assert!(
        !pruned.is_empty(),
        "some candidate is estimated worse than the default"
    );
    for v in pruned {
        let Status::Pruned { estimate, bound } = v.status else {
            unreachable!()
        };
        assert!(estimate > bound);
        assert_eq!(
            estimate,
            search::estimated(v.estimate.as_ref().unwrap(), Goal::Hot)
        );
        assert!(
            !measured.contains(&v.knobs),
            "pruned `{}` was measured",
            v.knobs.to_line()
        );
    }
}

#[test]
fn budget_is_honoured() {
    // One second per measured candidate, half a second per compile, a 9-second budget.
    for budget in [0.0, 3.0, 9.0] {
        let r = tune(
            SRC,
            Slicing::V,
            &Params::new(Goal::Hot, budget),
            0.5,
            score,
            None,
        );
        // The default (compile + measure: 1.5 s) is always done; past it, the budget holds.
        assert!(
            r.clock <= budget.max(1.5),
            "budget {}: used {} s",
            budget,
            r.clock
        );
        let measured: usize = r.batches.iter().map(|b| b.len()).sum();
        assert!(
            measured as f64 <= budget.max(1.0),
            "budget {}: {} measured",
            budget,
            measured
        );
        assert!(r
            .outcome
            .visits
            .iter()
            .all(|v| v.status != Status::Measured || v.measurement.is_some()));
        if budget < 20.0 {
            assert!(
                r.outcome.notes.iter().any(|n| n.contains("budget")) || r.outcome.visits.len() == 1,
                "budget {}: the report says the budget stopped it",
                budget
            );
        }
    }
}

#[test]
fn never_slower_than_the_default() {
    // A timer under which every change is slower: the default is kept.
    let r = tune(
        SRC,
        Slicing::V,
        &Params::new(Goal::Hot, 1000.0),
        0.0,
        |k| {
            if k.loops == LoopPolicyKnob::Chains
                && k.inline == nakiri::tune::InlineKnob::Small
                && k.sched_ilp.is_none()
                && k.cc.flags == ["-O3"]
                && k.inline_nodes.is_empty()
                && k.unrolled_loops.is_empty()
            {
                1.0
            } else {
                2.0
            }
        },
        None,
    );
    assert_eq!(r.outcome.chosen_id, r.outcome.default_id);
    assert_eq!(r.outcome.gain_vs_default, Some(1.0));
    // With the round loop kept, each loop and each node was tried on its own.
    for d in [Dim::InlineNode, Dim::Loop] {
        assert!(
            r.outcome.visits.iter().any(|v| v.dim == Some(d)),
            "no candidate moved `{}`",
            d.name()
        );
    }
    assert!(
        r.outcome
            .visits
            .iter()
            .any(|v| v.knobs.unrolled_loops == ["round"]),
        "the round loop of f, unrolled alone"
    );
}

#[test]
fn size_goal_takes_the_smallest_within_5_percent() {
    // Unrolling is 3% faster (and bigger): goal size keeps the kept loop, goal hot unrolls.
    let f = |k: &Knobs| {
        if k.loops == LoopPolicyKnob::Unroll {
            0.97
        } else {
            1.0
        }
    };
    let dims = [Dim::Loops];
    let hot = tune(
        SRC,
        Slicing::V,
        &Params::new(Goal::Hot, 1000.0),
        0.0,
        f,
        Some(&dims),
    );
    assert_eq!(
        hot.outcome.visits[hot.outcome.chosen_id].knobs.loops,
        LoopPolicyKnob::Unroll
    );
    let size = tune(
        SRC,
        Slicing::V,
        &Params::new(Goal::Size, 1000.0),
        0.0,
        f,
        Some(&dims),
    );
    let o = &size.outcome;
    let chosen = &o.visits[o.chosen_id];
    let bytes = |v: &search::Visit| v.measurement.as_ref().unwrap().code_bytes.unwrap();
    assert_ne!(chosen.knobs.loops, LoopPolicyKnob::Unroll);
    for v in o.visits.iter().filter(|v| v.measurement.is_some()) {
        assert!(
            bytes(chosen) <= bytes(v) || v.relative.unwrap() > 1.05 * 0.97,
            "#{} is smaller and within 5%",
            v.id
        );
    }
}

#[test]
fn knobs_and_cache_entries_round_trip() {
    let r = tune(
        SRC,
        Slicing::V,
        &Params::new(Goal::Hot, 1000.0),
        0.0,
        score,
        None,
    );
    for v in &r.outcome.visits {
        assert_eq!(
            Knobs::parse(&v.knobs.to_line()).as_ref(),
            Some(&v.knobs),
            "{}",
            v.knobs.to_line()
        );
    }
    let c = &r.outcome.chosen;
    let e = cache::Entry {
        knobs: c.knobs.clone(),
        c: c.out.c.clone(),
        h: c.out.h.clone(),
        report: "r\n| x |\n".into(),
        svg: "<svg/>".into(),
    };
    let text = cache::encode(&e);
    assert_eq!(cache::decode(&text), Some(e.clone()));
    assert_eq!(
        cache::decode(&text[..text.len() - 2]),
        None,
        "a truncated entry is a miss"
    );
    let mut store = cache::MemStore::default();
    let files = vec![("t.ua".to_string(), SRC.to_string())];
    let parts = cache::KeyParts {
        sources: &files,
        flags: "-V --goal hot",
        cpu: "cpu A",
        compilers: "gcc 12",
        build: "b1",
    };
    let k = cache::key(&parts);
    store.put(&k, &text).unwrap();
    assert_eq!(
        store
            .get(&cache::key(&parts.clone()))
            .and_then(|t| cache::decode(&t)),
        Some(e)
    );
    // Any part of the key changes the key.
    let edited = vec![("t.ua".to_string(), SRC.replace("<<< 7", "<<< 5"))];
    for other in [
        cache::KeyParts {
            sources: &edited,
            ..parts.clone()
        },
        cache::KeyParts {
            flags: "-V --goal cold",
            ..parts.clone()
        },
        cache::KeyParts {
            cpu: "cpu B",
            ..parts.clone()
        },
        cache::KeyParts {
            compilers: "gcc 13",
            ..parts.clone()
        },
        cache::KeyParts {
            build: "b2",
            ..parts.clone()
        },
    ] {
        assert_ne!(cache::key(&other), k);
        assert!(store.get(&cache::key(&other)).is_none());
    }
}

#[test]
fn usubac_bench_flags_map_onto_tune() {
    let argv: Vec<String> = [
        "-B",
        "-bench-inline",
        "-bench-bitsched",
        "-bench-nb-runs",
        "5",
        "-o",
        "x.c",
        "f.ua",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let t = nakiri::cli::tune::usubac_bench_args(&argv).unwrap();
    assert_eq!(
        t,
        ["-B", "-o", "x.c", "f.ua", "--knobs", "inline,sched-bits"]
    );
    let t =
        nakiri::cli::tune::usubac_bench_args(&["-bench-inter".to_string(), "f.ua".into()]).unwrap();
    assert_eq!(t, ["f.ua", "--allow-abi-change", "--knobs", "interleave"]);
    assert!(nakiri::cli::tune::usubac_bench_args(&["-B".to_string(), "f.ua".into()]).is_none());
    let mut space = Space::new(Slicing::B, Arch::Std, ccs(), false);
    space.restrict(&[Dim::Inline, Dim::SchedBits]);
    assert_eq!(
        space.dims,
        vec![Dim::Inline, Dim::SchedBits, Dim::InlineNode]
    );
}

/// Faster in its descent batch, slower in the final check against the default (load on the
/// machine changed, say): the default is kept.
struct Drifting(Rc<Cell<f64>>, Knobs, usize);
impl Measurer for Drifting {
    fn measure(&mut self, batch: &[&Compiled], _goal: Goal) -> Vec<Result<Measurement, String>> {
        self.0.set(self.0.get() + batch.len() as f64);
        // Batch 0: the default alone; batch 1: the loop policies; then the final check.
        self.2 += 1;
        let final_check = self.2 > 2;
        batch
            .iter()
            .map(|c| {
                let v = if c.knobs == self.1 {
                    1.0
                } else if final_check {
                    1.1
                } else {
                    0.9
                };
                Ok(Measurement {
                    hot_cpb: Some(v),
                    ..Measurement::default()
                })
            })
            .collect()
    }
}

#[test]
fn final_check_keeps_the_default_when_the_choice_is_slower() {
    let ch = checked(SRC, Slicing::V);
    let base = Config {
        slicing: Slicing::V,
        ..Config::default()
    };
    let mut space = Space::new(Slicing::V, Arch::Std, ccs(), false);
    space.restrict(&[Dim::Loops]);
    space.dims.retain(|d| *d == Dim::Loops);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    let clock = Rc::new(Cell::new(0.0));
    let mut prep = CheckedPreparer {
        checked: &ch,
        base,
        header_name: "t.h".into(),
        sbox_alternatives: vec![],
    };
    let mut m = Drifting(clock.clone(), default.clone(), 0);
    let o = search::run(
        &space,
        default,
        &mut prep,
        &mut m,
        &FakeClock(clock),
        &Params::new(Goal::Hot, 100.0),
        &mut |_| {},
    )
    .unwrap();
    assert_ne!(
        o.visits.iter().filter(|v| v.measurement.is_some()).count(),
        1,
        "candidates were measured"
    );
    assert_eq!(o.chosen_id, o.default_id);
    assert_eq!(o.batches, 3);
    assert_eq!(o.final_metrics, Some((1.0, 1.1)));
    assert!(o.notes.iter().any(|n| n.contains("keeping the default")));
}

#[test]
fn a_loop_forced_unrolled_is_unrolled_and_computes_the_same() {
    let ch = checked(SRC, Slicing::V);
    let base = Config {
        slicing: Slicing::V,
        ..Config::default()
    };
    let space = Space::new(Slicing::V, Arch::Std, ccs(), false);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    let mut prep = CheckedPreparer {
        checked: &ch,
        base,
        header_name: "t.h".into(),
        sbox_alternatives: vec![],
    };
    let kept = prep.compile(&default).unwrap();
    assert_eq!(
        prep.loops(&kept, 6),
        ["round"],
        "the round loop is kept by default in -V"
    );
    let unrolled = prep
        .compile(&Knobs {
            unrolled_loops: vec!["round".into()],
            ..default.clone()
        })
        .unwrap();
    let loops = |p: &nakiri::ir::Program| {
        p.nodes
            .iter()
            .flat_map(|n| &n.body)
            .filter(|i| matches!(i, nakiri::ir::Instr::Loop { .. }))
            .count()
    };
    assert_eq!(loops(&kept.prog), 1);
    assert_eq!(loops(&unrolled.prog), 0);
    let mut rng = common::Rng(7);
    let insts: Vec<common::Instance> = (0..20)
        .map(|_| {
            vec![
                (0..4).map(|_| rng.bits(32)).collect(),
                (0..8).map(|_| rng.bits(32)).collect(),
            ]
        })
        .collect();
    assert_eq!(
        common::run_interp(&unrolled.prog, &insts),
        common::run_interp(&kept.prog, &insts)
    );
    // Inline-all keeps the loop with `round` inlined into an outlined body; unrolling that body
    // gives one straight-line entry.
    let all = Knobs {
        inline: nakiri::tune::InlineKnob::All,
        ..default
    };
    let all_c = prep.compile(&all).unwrap();
    let body = prep.loops(&all_c, 6);
    assert_eq!(body.len(), 1);
    assert_ne!(body[0], "round");
    let flat = prep
        .compile(&Knobs {
            unrolled_loops: body,
            ..all
        })
        .unwrap();
    assert_eq!(flat.prog.nodes.len(), 1, "{}", flat.prog);
    assert_eq!(
        common::run_interp(&flat.prog, &insts),
        common::run_interp(&kept.prog, &insts)
    );
}

/// The `spill` knob: only where explicit spilling can change the C (vslice on SIMD targets);
/// its three values give ChaCha20 `-V` avx2 (its loop kept) homes + spills (the default), spills only, and
/// neither, all computing the same; the knob line round-trips.
#[test]
fn spill_knob_switches_explicit_spilling_and_the_lockstep_order() {
    use nakiri::tune::SpillKnob;
    assert!(searched(Dim::Spill, Slicing::V, Arch::Avx2));
    assert!(!searched(Dim::Spill, Slicing::V, Arch::Std));
    assert!(!searched(Dim::Spill, Slicing::H, Arch::Avx2));
    let (ch, base, space, default) = shipped_v("ciphers/chacha20/chacha20.ua", Arch::Avx2);
    assert_eq!(default.spill, SpillKnob::Lockstep);
    assert_eq!(
        Space::new(Slicing::V, Arch::Std, ccs(), false)
            .default_knobs(&base.opt, base.spill, base.opaque_not)
            .spill,
        SpillKnob::Off,
        "recorded off where it does not apply"
    );
    let alts = space.alternatives(Dim::Spill, &default);
    assert_eq!(
        alts.iter().map(|k| k.spill).collect::<Vec<_>>(),
        [SpillKnob::Off, SpillKnob::Plan]
    );
    let mut prep = CheckedPreparer {
        checked: &ch,
        base,
        header_name: "t.h".into(),
        sbox_alternatives: vec![],
    };
    let mut rng = common::Rng(3);
    let insts: Vec<common::Instance> = (0..8)
        .map(|_| vec![(0..16).map(|_| rng.bits(32)).collect()])
        .collect();
    let mut results = Vec::new();
    for (s, sp, home) in [
        (SpillKnob::Lockstep, true, true),
        (SpillKnob::Plan, true, false),
        (SpillKnob::Off, false, false),
    ] {
        // The double-round loop kept (Intel's default unrolls it on avx2: no loop to spill in).
        let k = Knobs {
            spill: s,
            loops: LoopPolicyKnob::Chains,
            ..default.clone()
        };
        let c = round_trip_and_compile(&mut prep, &k);
        assert_eq!(
            c.out.c.contains("nk_sp["),
            sp,
            "{}: explicit spills",
            s.name()
        );
        assert_eq!(c.out.c.contains("nk_home["), home, "{}: homes", s.name());
        assert_eq!(
            c.prog.nodes.iter().any(|n| n.lockstep),
            home,
            "{}: lockstep body",
            s.name()
        );
        results.push(common::run_interp(&c.prog, &insts));
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0], results[2]);
}

/// Goal `packed` (cycles/byte of `E__packed`): the only goal that searches `packed-interleave`,
/// the interleaved kernel behind the packed entry. Each value reaches the C (the rule's 2-way
/// kernel for Serpent `-V`, none, a 3-way one), computes the same, and round-trips in the
/// knob line; a timer under which the 3-way kernel is fastest makes the search choose it.
#[test]
fn packed_goal_searches_the_kernel_behind_the_packed_entry() {
    assert!(!searched(Dim::PackedInterleave, Slicing::V, Arch::Std));
    let mut space = Space::new(Slicing::V, Arch::Std, ccs(), false);
    space.for_goal(Goal::Packed);
    assert!(space.dims.contains(&Dim::PackedInterleave));
    space.restrict(&[Dim::PackedInterleave]);
    assert_eq!(space.dims, [Dim::PackedInterleave]);
    let src = std::fs::read_to_string(common::root().join("ciphers/serpent/serpent.ua")).unwrap();
    let ch = checked(&src, Slicing::V);
    let base = Config {
        slicing: Slicing::V,
        arch: Arch::Std,
        ..Config::default()
    };
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    assert_eq!(default.packed_interleave, None, "the default is the rule");
    let alts = space.alternatives(Dim::PackedInterleave, &default);
    assert_eq!(
        alts.iter().map(|k| k.packed_interleave).collect::<Vec<_>>(),
        [Some(1), Some(2), Some(3)]
    );
    let mut prep = preparer(&ch, base.clone());
    for (p, kernel) in [
        (None, Some("Serpent__x2(")),
        (Some(1), None),
        (Some(3), Some("Serpent__x3(")),
    ] {
        let k = Knobs {
            packed_interleave: p,
            ..default.clone()
        };
        let c = round_trip_and_compile(&mut prep, &k);
        let has = c.out.c.contains("static NK_TARGET void Serpent__x");
        assert_eq!(has, kernel.is_some(), "{:?}: kernel", p);
        if let Some(name) = kernel {
            assert!(c.out.c.contains(name), "{:?}: {}", p, name);
        }
    }
    let clock = Rc::new(Cell::new(0.0));
    let batches = Rc::new(RefCell::new(Vec::new()));
    let mut timer = FakeTimer {
        clock: clock.clone(),
        batches,
        score: |k| {
            if k.packed_interleave == Some(3) {
                5.0
            } else {
                10.0
            }
        },
    };
    let fc = FakeClock(clock.clone());
    let outcome = search::run(
        &space,
        default,
        &mut prep,
        &mut timer,
        &fc,
        &Params::new(Goal::Packed, 1000.0),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(outcome.chosen.knobs.packed_interleave, Some(3));
}

/// The tuner starts from what `nakiri compile` emits. On avx512 the default loop rule
/// (`--loops auto`) unrolls round loops (`opt::auto_unrolled`): the default knobs must say
/// `auto`, not `chains` (which kept the loop: every `-B` avx512 run's "default" was a variant
/// `compile` does not emit), and compile to the same program as the driver; in vslice the
/// inlining rule too (`inline=default`). Its rounds read round keys computed before the loop
/// (`rk`): on AMD a round loop that reads only its state and the entry's inputs stays a loop
/// by default (`opt::loop_reads_only_state`), as `SRC`'s does.
#[test]
fn default_knobs_are_what_compile_emits_on_avx512() {
    // `SRC` with its rounds fed round keys computed before the loop
    let src = SRC
        .replace("vars st:u32x4[9]", "vars st:u32x4[9], rk:u32[8]")
        .replace(
            "  forall i in [0, 7] { st[i+1] = round(st[i], k[i]) }",
            "  forall i in [0, 7] { rk[i] = k[i] ^ (k[7-i] <<< 3) }\n  forall i in [0, 7] { st[i+1] = round(st[i], rk[i]) }",
        );
    assert!(src.contains("rk[i] = k[i]") && src.contains("rk:u32[8]"));
    let ch = checked(&src, Slicing::B);
    let mut base = Config {
        slicing: Slicing::B,
        arch: Arch::Avx512,
        ..Config::default()
    };
    // the AMD rule, which unrolls this light round (Intel's keeps it: `--uarch`)
    base.opt.uarch = nakiri::target::Uarch::Amd;
    let space = Space::new(Slicing::B, Arch::Avx512, ccs(), false);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    assert_eq!(default.loops, LoopPolicyKnob::Auto);
    let (_, driver_prog) =
        driver::lower("t.ua", &src, &base, &nakiri::syntax::MemLoader::default());
    let driver_prog = driver_prog.expect("compiles");
    let mut prep = preparer(&ch, base.clone());
    let tuned = prep.compile(&default).unwrap();
    assert_eq!(tuned.prog.to_string(), driver_prog.to_string());
    let loops = |p: &nakiri::ir::Program| {
        p.nodes
            .iter()
            .flat_map(|n| &n.body)
            .filter(|i| matches!(i, nakiri::ir::Instr::Loop { .. }))
            .count()
    };
    assert_eq!(
        loops(&tuned.prog),
        0,
        "the auto rule unrolls the round loop on avx512 -B"
    );
    let chains = prep
        .compile(&Knobs {
            loops: LoopPolicyKnob::Chains,
            ..default.clone()
        })
        .unwrap();
    assert_eq!(loops(&chains.prog), 1, "loops=chains keeps it");
    // Elsewhere `auto` is `chains`: the same C.
    let base_v = Config {
        slicing: Slicing::B,
        arch: Arch::Avx2,
        ..Config::default()
    };
    let space_v = Space::new(Slicing::B, Arch::Avx2, ccs(), false);
    let d2 = space_v.default_knobs(&base_v.opt, base_v.spill, base_v.opaque_not);
    let mut prep2 = preparer(&ch, base_v);
    let a = prep2.compile(&d2).unwrap();
    let c = prep2
        .compile(&Knobs {
            loops: LoopPolicyKnob::Chains,
            ..d2.clone()
        })
        .unwrap();
    assert_eq!(a.prog.to_string(), c.prog.to_string());
    assert_eq!(
        Knobs::parse(&default.to_line()).map(|k| k.loops),
        Some(LoopPolicyKnob::Auto),
        "the knob line round-trips"
    );
    // Vslice on avx512: the inlining rule depends on whether a loop stays (`inline=default`).
    let ch_v = checked(&src, Slicing::V);
    let base_v = Config {
        slicing: Slicing::V,
        arch: Arch::Avx512,
        ..Config::default()
    };
    let space_v = Space::new(Slicing::V, Arch::Avx512, ccs(), false);
    let dv = space_v.default_knobs(&base_v.opt, base_v.spill, base_v.opaque_not);
    assert_eq!(dv.inline, nakiri::tune::InlineKnob::Default);
    let (_, driver_v) = driver::lower("t.ua", &src, &base_v, &nakiri::syntax::MemLoader::default());
    let mut prep_v = preparer(&ch_v, base_v);
    let tuned_v = prep_v.compile(&dv).unwrap();
    assert_eq!(
        tuned_v.prog.to_string(),
        driver_v.expect("compiles").to_string()
    );
    assert_eq!(
        tuned_v.prog.nodes.len(),
        1,
        "unrolled and everything inlined: {}",
        tuned_v.prog
    );
    assert_eq!(
        Knobs::parse(&dv.to_line()).map(|k| k.inline),
        Some(nakiri::tune::InlineKnob::Default)
    );
}

/// Goal `packed` in bitslice on SIMD targets also searches `packed-consts` (compact prepared
/// consts and `E__with_consts`, or the full registers): each value reaches the C and
/// round-trips in the knob line (tests/packed.rs checks what both compute).
#[test]
fn packed_goal_searches_compact_consts() {
    let mut space = Space::new(Slicing::B, Arch::Sse, ccs(), false);
    assert!(!space.dims.contains(&Dim::PackedConsts));
    space.for_goal(Goal::Packed);
    assert!(space.dims.contains(&Dim::PackedConsts));
    let mut vspace = Space::new(Slicing::V, Arch::Sse, ccs(), false);
    vspace.for_goal(Goal::Packed);
    assert!(!vspace.dims.contains(&Dim::PackedConsts), "bitslice only");
    let (ch, base) = rectangle_b(Arch::Sse);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    assert_eq!(default.packed_consts, None, "the default is the rule");
    let alts = space.alternatives(Dim::PackedConsts, &default);
    assert_eq!(
        alts.iter().map(|k| k.packed_consts).collect::<Vec<_>>(),
        [Some(true), Some(false)]
    );
    let mut prep = preparer(&ch, base.clone());
    // The rule leaves sse on full consts.
    for (p, compact) in [(None, false), (Some(true), true), (Some(false), false)] {
        let k = Knobs {
            packed_consts: p,
            ..default.clone()
        };
        let c = round_trip_and_compile(&mut prep, &k);
        assert_eq!(
            c.out.c.contains("void Rectangle__with_consts("),
            compact,
            "{:?}: E__with_consts",
            p
        );
    }
}

/// `sbox-circuit` is searched only where a table has a choice of database circuit (AES):
/// each value compiles from the program checked with that circuit, reaches the C (the
/// 115-gate circuit has fewer logic operations) and round-trips in the knob line; the
/// candidates compute the same function (tests/kat_a.rs checks both circuits against FIPS-197).
#[test]
fn sbox_circuit_knob() {
    use nakiri::normalize::sbox::CircuitGoal;
    let space0 = Space::new(Slicing::H, Arch::Sse, ccs(), false);
    assert!(
        !space0.dims.contains(&Dim::SboxCircuit),
        "only with a choice"
    );
    let mut space = space0.clone();
    space.with_sbox_circuit();
    assert_eq!(
        space
            .dims
            .iter()
            .position(|d| *d == Dim::SboxCircuit)
            .unwrap()
            + 1,
        space
            .dims
            .iter()
            .position(|d| *d == Dim::Cc)
            .unwrap_or(space.dims.len())
    );
    let base = Config {
        slicing: Slicing::H,
        arch: Arch::Sse,
        ..Config::default()
    };
    let path = common::root().join("ciphers/aes/aes_rk.ua");
    let path = path.to_str().unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let check = |g: Option<CircuitGoal>| {
        let cfg = Config {
            sbox_circuit: g,
            ..base.clone()
        };
        let front = driver::check(path, &src, &cfg, &nakiri::cli::FsLoader);
        assert!(!front.has_errors(), "{}", front.render_diags());
        front.checked.unwrap()
    };
    let (rule, small, shallow) = (
        check(None),
        check(Some(CircuitGoal::Small)),
        check(Some(CircuitGoal::Shallow)),
    );
    assert!(
        rule.ir == shallow.ir && small.ir != shallow.ir,
        "-H: the rule is shallow"
    );
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    assert_eq!(default.sbox_circuit, None, "the default is the rule");
    let alts = space.alternatives(Dim::SboxCircuit, &default);
    assert_eq!(
        alts.iter().map(|k| k.sbox_circuit).collect::<Vec<_>>(),
        [Some(CircuitGoal::Small), Some(CircuitGoal::Shallow)]
    );
    let mut prep = CheckedPreparer {
        checked: &rule,
        base: base.clone(),
        header_name: "t.h".into(),
        sbox_alternatives: vec![(CircuitGoal::Small, small), (CircuitGoal::Shallow, shallow)],
    };
    let mut ops = vec![];
    for g in [None, Some(CircuitGoal::Small), Some(CircuitGoal::Shallow)] {
        let k = Knobs {
            sbox_circuit: g,
            ..default.clone()
        };
        let c = round_trip_and_compile(&mut prep, &k);
        let n = ["NK_XOR(", "NK_AND(", "NK_ANDN(", "NK_OR(", "NK_NOT("]
            .iter()
            .map(|op| c.out.c.matches(op).count())
            .sum::<usize>();
        ops.push(n);
    }
    assert!(
        ops[0] == ops[2] && ops[1] < ops[2],
        "logic ops rule/small/shallow: {ops:?}"
    );
}

/// A pass's on/off knob that exists only with `ternlog` (AVX-512): `dim` is offered; the
/// default has `on(k)` and its line does not name the knob; the one alternative has it off
/// (ternlog still on), says ` {name}=off`, parses back, and compiles to what `--disable pass`
/// gives; with `ternlog` off the knob has no alternative, and a line naming it on next to
/// `ternlog=off` parses as off. Returns the default's and the alternative's programs, and the
/// alternative.
fn ternlog_pass_knob(
    file: &str,
    slicing: Slicing,
    dim: Dim,
    pass: nakiri::opt::PassId,
    name: &str,
    on: fn(&Knobs) -> bool,
) -> (nakiri::ir::Program, nakiri::ir::Program, Knobs) {
    let src = std::fs::read_to_string(common::root().join(file)).unwrap();
    let ch = checked(&src, slicing);
    let base = Config {
        slicing,
        arch: Arch::Avx512,
        ..Config::default()
    };
    let space = Space::new(slicing, Arch::Avx512, ccs(), false);
    assert!(space.dims.contains(&dim));
    assert!(!Space::new(slicing, Arch::Avx2, ccs(), false)
        .dims
        .contains(&dim));
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    assert!(default.ternlog && on(&default));
    assert!(!default.to_line().contains(name));
    let alts = space.alternatives(dim, &default);
    assert_eq!(alts.len(), 1);
    let off = &alts[0];
    assert!(off.ternlog && !on(off));
    assert!(off.to_line().contains(&format!(" {name}=off")));
    assert_eq!(Knobs::parse(&off.to_line()).as_ref(), Some(off));
    let mut prep = preparer(&ch, base.clone());
    let a = prep.compile(&default).unwrap();
    let b = prep.compile(off).unwrap();
    let mut disabled = base.clone();
    disabled.opt.disable(pass);
    let (_, want) = driver::lower(
        "t.ua",
        &src,
        &disabled,
        &nakiri::syntax::MemLoader::default(),
    );
    assert_eq!(b.prog.to_string(), want.unwrap().to_string());
    // ternlog off: nothing for the pass to do, and a line never says both
    let no_tl = space.alternatives(Dim::Ternlog, &default);
    assert!(no_tl.iter().all(|k| !k.ternlog && !on(k)));
    assert!(space.alternatives(dim, &no_tl[0]).is_empty());
    assert_eq!(
        Knobs::parse(&format!("loops=auto inline=all ternlog=off {name}=on")).map(|k| on(&k)),
        Some(false)
    );
    (a.prog, b.prog, off.clone())
}

/// `ternlog-order`: the default orders the ternlogs' operands, the knob's other value leaves
/// them as `ternlog` made them.
#[test]
fn ternlog_order_knob() {
    let (a, b, _) = ternlog_pass_knob(
        "ciphers/rectangle/rectangle.ua",
        Slicing::B,
        Dim::TernlogOrder,
        nakiri::opt::PassId::TernlogOrder,
        "ternlog-order",
        |k| k.ternlog_order,
    );
    assert_ne!(a.to_string(), b.to_string(), "the order differs somewhere");
}

/// `not-absorb`: the default folds negations into their readers, the knob's other value
/// keeps them (and leaves `ternlog-order` on).
#[test]
fn not_absorb_knob() {
    let (a, b, off) = ternlog_pass_knob(
        "ciphers/ascon/ascon.ua",
        Slicing::V,
        Dim::NotAbsorb,
        nakiri::opt::PassId::NotAbsorb,
        "not-absorb",
        |k| k.not_absorb,
    );
    assert!(off.ternlog_order);
    // Ascon's 12 rounds each negate one row before rotating it: 12 `not`s fewer.
    let nots = |p: &nakiri::ir::Program| {
        p.nodes
            .iter()
            .flat_map(|n| &n.body)
            .filter(|i| {
                matches!(
                    i,
                    nakiri::ir::Instr::Assign {
                        op: nakiri::ir::Op::Not(_),
                        ..
                    }
                )
            })
            .count()
    };
    assert_eq!(nots(&b), nots(&a) + 12, "one negation per round absorbed");
}

/// `ternlog-dup`: the default recomputes shared operations inside their readers' ternlogs
/// (fewer instructions), the knob's other value keeps them.
#[test]
fn ternlog_dup_knob() {
    let (a, b, off) = ternlog_pass_knob(
        "ciphers/present/present.ua",
        Slicing::B,
        Dim::TernlogDup,
        nakiri::opt::PassId::TernlogDup,
        "ternlog-dup",
        |k| k.ternlog_dup,
    );
    assert!(off.ternlog_order && off.not_absorb);
    let ops = |p: &nakiri::ir::Program| p.nodes.iter().map(|n| n.body.len()).sum::<usize>();
    assert!(
        ops(&a) < ops(&b),
        "PRESENT's S-box layer loses operations: {} against {}",
        ops(&a),
        ops(&b)
    );
}

/// The `opaque-not` knob (`--opaque-not`): offered on SSE/AVX2 only, off by default, its line
/// round-trips (and a line without it means off), and the candidate's C redefines `NK_NOT`.
#[test]
fn opaque_not_knob_applies_on_sse_avx2() {
    for (arch, applies) in [
        (Arch::Std, false),
        (Arch::Sse, true),
        (Arch::Avx2, true),
        (Arch::Avx512, false),
    ] {
        assert_eq!(
            searched(Dim::OpaqueNot, Slicing::V, arch),
            applies,
            "{arch}"
        );
    }
    let (ch, base, space, default) = shipped_v("ciphers/gift/gift_v.ua", Arch::Avx2);
    assert!(!default.opaque_not);
    assert!(!default.to_line().contains("opaque-not"));
    let alts = space.alternatives(Dim::OpaqueNot, &default);
    assert_eq!(alts.len(), 1);
    let on = &alts[0];
    assert!(on.opaque_not);
    assert_eq!(on.diff(&default), "opaque-not=on");
    assert_eq!(Knobs::parse(&on.to_line()).as_ref(), Some(on));
    let mut prep = CheckedPreparer {
        checked: &ch,
        base,
        header_name: "t.h".into(),
        sbox_alternatives: vec![],
    };
    let redefined = "#define NK_NOT(a) NK_XOR((a), NK_ONES_OPAQUE)";
    assert!(!prep.compile(&default).unwrap().out.c.contains(redefined));
    assert!(prep.compile(on).unwrap().out.c.contains(redefined));
}

/// The `loop-regs` knob (`--loop-regs N`): searched on SIMD targets only, its values read
/// back from the knob line, and applied to the C: RECTANGLE `-B`'s one-buffer round loop
/// keeps none by the AVX2 rule, and 0 or 8 state slots as asked (one pointer parameter each
/// in the loop body; tests/packed.rs checks what they compute).
#[test]
fn loop_regs_knob() {
    assert!(!searched(Dim::LoopRegs, Slicing::B, Arch::Std));
    let space = Space::new(Slicing::B, Arch::Avx2, ccs(), false);
    assert!(space.dims.contains(&Dim::LoopRegs));
    let (ch, base) = rectangle_b(Arch::Avx2);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    assert_eq!(default.loop_regs, None, "the default is the rule");
    let alts = space.alternatives(Dim::LoopRegs, &default);
    assert_eq!(
        alts.iter().map(|k| k.loop_regs).collect::<Vec<_>>(),
        [Some(0), Some(4), Some(8), Some(12)]
    );
    let mut prep = preparer(&ch, base.clone());
    for (n, want) in [(None, 0usize), (Some(0), 0), (Some(8), 8)] {
        let k = Knobs {
            loop_regs: n,
            ..default.clone()
        };
        let c = round_trip_and_compile(&mut prep, &k);
        let sig = c
            .out
            .c
            .lines()
            .find(|l| l.contains("(DATATYPE *v_nk_st, "))
            .expect("a one-buffer kept loop");
        assert_eq!(
            sig.matches("DATATYPE *restrict v_nk_r").count(),
            want,
            "{n:?}: {sig}"
        );
    }
}

/// The `loop-align` knob (`--loop-align K`): searched on every x86-64 target, none by default,
/// the C compiler's placement and the offsets of `LOOP_ALIGN_TRIED` as alternatives, read back
/// from the knob line, and applied to the C (each kept loop's body begins with the alignment
/// and K/8 eight-byte no-ops; a program without kept loops emits the same C for each value).
#[test]
fn loop_align_knob() {
    use nakiri::tune::LOOP_ALIGN_TRIED;
    for arch in [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512] {
        for slicing in [Slicing::B, Slicing::V, Slicing::H] {
            assert!(
                searched(Dim::LoopAlign, slicing, arch),
                "{slicing:?} {arch}"
            );
        }
    }
    assert!(!searched(Dim::LoopAlign, Slicing::V, Arch::Neon));
    let (space, base, ch, default) = b_avx512("ciphers/ascon/ascon.ua");
    assert_eq!(
        default.loop_align, None,
        "the C compiler's placement by default"
    );
    assert!(!default.to_line().contains("loop-align"));
    let alts = space.alternatives(Dim::LoopAlign, &default);
    assert_eq!(
        alts.iter().map(|k| k.loop_align).collect::<Vec<_>>(),
        LOOP_ALIGN_TRIED
            .iter()
            .map(|&a| Some(a))
            .collect::<Vec<_>>()
    );
    let mut prep = preparer(&ch, base.clone());
    for a in [None, Some(0), Some(24), Some(56)] {
        let k = Knobs {
            loop_align: a,
            ..default.clone()
        };
        assert_eq!(
            Knobs::parse(&k.to_line()),
            Some(k.clone()),
            "{}",
            k.to_line()
        );
        let c = round_trip_and_compile(&mut prep, &k);
        assert_eq!(
            c.out.c.contains(".p2align 6"),
            a.is_some(),
            "loop-align={a:?}"
        );
        let nops = c.out.c.matches(".byte 0x0f, 0x1f, 0x84").count();
        assert_eq!(
            nops,
            a.unwrap_or(0) as usize / 8,
            "loop-align={a:?}: one kept loop"
        );
    }
    assert!(Knobs::parse(&format!("{} loop-align=12", default.to_line())).is_none());
}

/// The `state-loads` knob (`--state-loads`): searched on the SIMD targets only, the rule by
/// default (off on AVX-512), read back from the knob line, and applied to the C (Ascon `-B`'s
/// memory-form round loop reads its state into opaque registers; tests/packed.rs checks what
/// it computes).
#[test]
fn state_loads_knob() {
    for (slicing, arch) in [(Slicing::B, Arch::Std), (Slicing::V, Arch::Std)] {
        assert!(
            !searched(Dim::StateLoads, slicing, arch),
            "{slicing:?} {arch}"
        );
    }
    // Ascon: its S-box reads state slots several times in a row
    let (space, base, ch, default) = b_avx512("ciphers/ascon/ascon.ua");
    assert!(space.dims.contains(&Dim::StateLoads));
    assert_eq!(default.state_loads, None, "the rule by default");
    assert!(!default.to_line().contains("state-loads"));
    let alts = space.alternatives(Dim::StateLoads, &default);
    assert_eq!(
        alts.iter().map(|k| k.state_loads).collect::<Vec<_>>(),
        [Some(true), Some(false)]
    );
    let mut prep = preparer(&ch, base.clone());
    // (on AVX-512 the rule leaves them off)
    for on in [None, Some(false), Some(true)] {
        let k = Knobs {
            state_loads: on,
            ..default.clone()
        };
        let on = on == Some(true);
        assert_eq!(k.to_line().contains("state-loads=on"), on);
        let c = round_trip_and_compile(&mut prep, &k);
        assert_eq!(c.out.c.contains("DATATYPE nk_ld"), on, "state-loads={on}");
    }
}

/// The `sched-bits-up` knob (`--sched-bits-up`): searched where `sched-bits` runs (not in
/// vslice), the rule by default, tried both ways only when `sched-bits` is on, read back from
/// the knob line, and applied (AES-128 `-B` avx512: the default keeps a top-down order, the
/// knob on a bottom-up one, whose C differs; tests/ir_passes.rs checks what it computes).
#[test]
fn sched_bits_up_knob() {
    assert!(!searched(Dim::SchedBitsUp, Slicing::V, Arch::Avx2));
    assert!(searched(Dim::SchedBitsUp, Slicing::H, Arch::Std));
    let (space, base, ch, default) = b_avx512("ciphers/aes/aes.ua");
    assert!(space.dims.contains(&Dim::SchedBitsUp));
    assert_eq!(default.sched_bits_up, None, "the rule by default");
    assert!(!default.to_line().contains("sched-bits-up"));
    let alts = space.alternatives(Dim::SchedBitsUp, &default);
    assert_eq!(
        alts.iter().map(|k| k.sched_bits_up).collect::<Vec<_>>(),
        [Some(true), Some(false)]
    );
    let off = Knobs {
        sched_bits: false,
        ..default.clone()
    };
    assert!(space.alternatives(Dim::SchedBitsUp, &off).is_empty());
    let mut prep = preparer(&ch, base.clone());
    let mut cs = Vec::new();
    for up in [None, Some(false), Some(true)] {
        let k = Knobs {
            sched_bits_up: up,
            ..default.clone()
        };
        let line = k.to_line();
        assert_eq!(line.contains("sched-bits-up=on"), up == Some(true));
        assert_eq!(line.contains("sched-bits-up=off"), up == Some(false));
        assert_eq!(Knobs::parse(&line).map(|p| p.sched_bits_up), Some(up));
        let c = round_trip_and_compile(&mut prep, &k);
        // (the banner names the knobs: compare the code after it)
        let code = c.out.c[c.out.c.find("#include").unwrap()..].to_string();
        cs.push(code);
    }
    assert_eq!(cs[0], cs[1], "the rule keeps the top-down order for AES");
    assert_ne!(cs[0], cs[2], "the knob on gives a bottom-up order");
}

/// The `entry-halves` knob (`--entry-halves`, `--halves-ir`, `--halves-in-place`): searched
/// in bitslice on AVX-512 only, off by default, tried with each program and layout, read back
/// from the knob line, and applied to the C (tests/packed.rs checks what it computes).
#[test]
fn entry_halves_knob() {
    for (slicing, arch) in [
        (Slicing::B, Arch::Avx2),
        (Slicing::V, Arch::Avx512),
        (Slicing::B, Arch::Std),
    ] {
        assert!(
            !searched(Dim::EntryHalves, slicing, arch),
            "{slicing:?} {arch}"
        );
    }
    let space = Space::new(Slicing::B, Arch::Avx512, ccs(), false);
    assert!(space.dims.contains(&Dim::EntryHalves));
    let (ch, base) = rectangle_b(Arch::Avx512);
    let default = space.default_knobs(&base.opt, base.spill, base.opaque_not);
    assert!(!default.entry_halves, "off by default");
    let alts = space.alternatives(Dim::EntryHalves, &default);
    assert_eq!(
        alts.iter()
            .map(|k| (k.entry_halves, k.halves_ir, k.halves_in_place))
            .collect::<Vec<_>>(),
        [
            (true, Arch::Avx2, false),
            (true, Arch::Avx2, true),
            (true, Arch::Avx512, false),
            (true, Arch::Avx512, true)
        ]
    );
    // from one of them, the others and off
    let on = space.alternatives(Dim::EntryHalves, &alts[3]);
    assert_eq!(on.len(), 4);
    assert!(on.contains(&default) && !on.contains(&alts[3]));
    let mut prep = preparer(&ch, base.clone());
    for (on, ir, in_place) in [
        (false, Arch::Avx2, false),
        (true, Arch::Avx2, false),
        (true, Arch::Avx512, true),
    ] {
        let k = Knobs {
            entry_halves: on,
            halves_ir: ir,
            halves_in_place: in_place,
            ..default.clone()
        };
        let c = round_trip_and_compile(&mut prep, &k);
        assert_eq!(
            c.out.c.contains("raw entry point (--entry-halves)"),
            on,
            "entry-halves={on}"
        );
        assert_eq!(
            c.out.c.contains("every register, in place"),
            in_place,
            "halves-in-place={in_place}"
        );
        // the AVX-512 program keeps its ternlogs in the halves, the AVX2 one has none
        if on {
            let sec = &c.out.c[c.out.c.find("raw entry runs").unwrap()..];
            let sec = &sec[..sec.find("---- end of the 256-bit halves").unwrap()];
            assert_eq!(sec.contains("NK_TERNLOG(v"), ir == Arch::Avx512, "{ir}");
        }
    }
}
