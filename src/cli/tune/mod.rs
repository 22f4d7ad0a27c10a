//! `nakiri tune FILE.ua [-B|-V|-H] [--arch A] [--budget SECONDS] [--goal hot|cold|size|packed]
//! [-o OUT.c] [--report R.md] [--plot P.svg] [--knobs K,..] [--allow-abi-change] [--no-cache]
//! [--quick] [--runs N] [compile flags]`: the autotuner's I/O side. The search itself is `crate::tune`;
//! here are its measurer (`measure::HarnessMeasurer`, built on `cli::bench::harness`), its
//! clock, its cache folder, the progress bar, and the files written.
//!
//! usubac's `-bench-all`, `-bench-inline`, `-bench-inter`, `-bench-bitsched`, `-bench-msched`
//! map onto `tune` with those knobs ([`usubac_bench_args`]).

pub mod measure;

use crate::codegen::Arch;
use crate::tune::cache::{self, Store};
use crate::tune::search::{self, Clock, Params};
use crate::tune::{compile::CheckedPreparer, report, Cc, Dim, Goal, Space};
use std::path::PathBuf;
use std::time::Instant;

/// Default search budget in seconds.
pub const DEFAULT_BUDGET_S: f64 = 120.0;

struct WallClock(Instant);
impl Clock for WallClock {
    fn elapsed(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}

/// One file per key in a folder.
pub struct DirStore(pub PathBuf);

impl Store for DirStore {
    fn get(&self, key: &str) -> Option<String> {
        std::fs::read_to_string(self.0.join(format!("{}.tune", key))).ok()
    }
    fn put(&mut self, key: &str, value: &str) -> Result<(), String> {
        std::fs::create_dir_all(&self.0).map_err(|e| format!("{}: {}", self.0.display(), e))?;
        let p = self.0.join(format!("{}.tune", key));
        let ps = p.to_string_lossy().into_owned();
        super::write_files_atomically(&[(&ps, value.as_bytes())]).map_err(|e| e.to_string())
    }
}

/// `$NAKIRI_TUNE_CACHE`, else `$XDG_CACHE_HOME/nakiri/tune`, else `~/.cache/nakiri/tune`.
pub fn cache_dir() -> Option<PathBuf> {
    let nonempty = |v: &str| {
        std::env::var_os(v)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = nonempty("NAKIRI_TUNE_CACHE") {
        return Some(d);
    }
    if let Some(d) = nonempty("XDG_CACHE_HOME") {
        return Some(d.join("nakiri").join("tune"));
    }
    nonempty("HOME").map(|h| h.join(".cache").join("nakiri").join("tune"))
}

/// The first line of `CC --version`, or `None` if it does not run.
fn compiler_version(cc: &str) -> Option<String> {
    let out = std::process::Command::new(cc)
        .arg("--version")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(|l| l.trim().to_string())
}

/// The compilers and flag sets searched (the first is `nakiri bench`'s: `$CC`/`cc -O3
/// -march=native`), with their versions. clang is searched when it runs.
pub fn compilers() -> (Vec<Cc>, Vec<String>) {
    let cc = crate::cli::bench::harness::cc();
    let native = "-march=native".to_string();
    let mut list = vec![
        Cc {
            name: cc.clone(),
            flags: vec!["-O3".into(), native.clone()],
        },
        Cc {
            name: cc.clone(),
            flags: vec!["-O2".into(), native.clone()],
        },
        Cc {
            name: cc.clone(),
            flags: vec!["-O3".into(), native.clone(), "-funroll-loops".into()],
        },
    ];
    let mut versions = vec![format!(
        "{}: {}",
        cc,
        compiler_version(&cc).unwrap_or_else(|| "unknown version".into())
    )];
    if cc != "clang" {
        if let Some(v) = compiler_version("clang") {
            list.push(Cc {
                name: "clang".into(),
                flags: vec!["-O3".into(), native.clone()],
            });
            list.push(Cc {
                name: "clang".into(),
                flags: vec!["-O2".into(), native],
            });
            versions.push(format!("clang: {}", v));
        }
    }
    (list, versions)
}

/// The CPU model (`/proc/cpuinfo`).
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// usubac's autotuning flags as a `tune` command line (`None`: none of them is present).
/// `-bench-inter` implies `--allow-abi-change` (usubac's interleaved entry is its ABI).
pub fn usubac_bench_args(argv: &[String]) -> Option<Vec<String>> {
    let map: &[(&str, &[&str])] = &[
        (
            "-bench-all",
            &[
                "loops",
                "inline",
                "sched-bits",
                "sched-ilp",
                "interleave",
                "ternlog",
                "ternlog-order",
                "not-absorb",
                "spill",
                "opaque-not",
                "cc",
            ],
        ),
        ("-bench-inline", &["inline"]),
        ("-bench-inter", &["interleave"]),
        ("-bench-bitsched", &["sched-bits"]),
        ("-bench-msched", &["sched-ilp"]),
    ];
    let mut knobs: Vec<&str> = Vec::new();
    let mut rest = vec![];
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        if let Some((_, ks)) = map.iter().find(|(f, _)| *f == a) {
            knobs.extend(ks.iter());
        } else if a == "-bench-nb-runs" {
            i += 1;
        } else {
            rest.push(argv[i].clone());
        }
        i += 1;
    }
    if knobs.is_empty() {
        return None;
    }
    knobs.sort();
    knobs.dedup();
    if knobs.contains(&"interleave") {
        rest.push("--allow-abi-change".into());
    }
    rest.push("--knobs".into());
    rest.push(knobs.join(","));
    Some(rest)
}

struct TuneArgs {
    budget: f64,
    goal: Goal,
    out: Option<String>,
    report: Option<String>,
    plot: Option<String>,
    knobs: Option<Vec<Dim>>,
    allow_abi_change: bool,
    no_cache: bool,
    quick: bool,
    /// `--runs N`: each batch timed in N processes, each candidate's minimum
    /// (`harness::measure_min`; README "Several processes").
    runs: usize,
    rest: Vec<String>,
}

fn parse(args: &[String]) -> Result<TuneArgs, i32> {
    let mut t = TuneArgs {
        budget: DEFAULT_BUDGET_S,
        goal: Goal::Hot,
        out: None,
        report: None,
        plot: None,
        knobs: None,
        allow_abi_change: false,
        no_cache: false,
        quick: false,
        runs: 1,
        rest: vec![],
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let mut value = || -> Result<String, i32> {
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| super::usage_error(&format!("`{}` needs a value", a)))
        };
        match a {
            "--budget" => {
                let v = value()?;
                match v.parse::<f64>() {
                    Ok(b) if b.is_finite() && b >= 0.0 => t.budget = b,
                    _ => {
                        return Err(super::usage_error(
                            "`--budget` takes a number of seconds (>= 0)",
                        ))
                    }
                }
            }
            "--goal" => {
                let v = value()?;
                t.goal = Goal::parse(&v).ok_or_else(|| {
                    super::usage_error("`--goal` takes hot, cold, size or packed")
                })?;
            }
            "-o" => t.out = Some(value()?),
            "--report" => t.report = Some(value()?),
            "--plot" => t.plot = Some(value()?),
            "--knobs" => {
                let v = value()?;
                let mut ds = Vec::new();
                for n in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    match Dim::parse(n) {
                        Some(d) => ds.push(d),
                        None => {
                            return Err(super::usage_error(&format!(
                                "unknown knob `{}` (knobs: {})",
                                n,
                                Dim::names()
                            )))
                        }
                    }
                }
                t.knobs = Some(ds);
            }
            "--allow-abi-change" => t.allow_abi_change = true,
            "--no-cache" => t.no_cache = true,
            "--quick" => t.quick = true,
            "--runs" => {
                let v = value()?;
                match v.parse::<usize>() {
                    Ok(n) if (1..=crate::cli::bench::MAX_RUNS).contains(&n) => t.runs = n,
                    _ => {
                        return Err(super::usage_error(&format!(
                            "`--runs` takes a number of processes from 1 to {}",
                            crate::cli::bench::MAX_RUNS
                        )))
                    }
                }
            }
            _ => t.rest.push(args[i].clone()),
        }
        i += 1;
    }
    Ok(t)
}

fn fail(msg: &str) -> i32 {
    eprintln!("error: {}", msg);
    1
}

/// `nakiri tune ...`.
pub fn run(args: &[String]) -> i32 {
    let t = match parse(args) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let (file, cfg) = match super::parse_compile_flags(&t.rest) {
        Ok(v) => v,
        Err(c) => return c,
    };
    if cfg.arch != Arch::Std && !cfg.arch.runs_here() {
        return fail(&format!("target {} does not run on this CPU, and the tuner measures on this CPU (see `nakiri targets`)", cfg.arch));
    }
    if cfg.opt.interleave > 1 && !t.allow_abi_change {
        return fail("interleaving changes the raw entry's ABI: give `--allow-abi-change` to tune an interleaved program");
    }
    // The tuner measures too: the same note as `bench` on a busy machine.
    super::bench::warn_if_busy();
    let text = match super::read_source_file(&file) {
        Ok(s) => s,
        Err(e) => return fail(&format!("cannot read `{}`: {}", file, e)),
    };
    let c_path = t
        .out
        .clone()
        .unwrap_or_else(|| format!("{}.c", file.strip_suffix(".ua").unwrap_or(&file)));
    let stem = c_path.strip_suffix(".c").unwrap_or(&c_path).to_string();
    let h_path = format!("{}.h", stem);
    let report_path = t
        .report
        .clone()
        .unwrap_or_else(|| format!("{}.tune.md", stem));
    let plot_path = t
        .plot
        .clone()
        .unwrap_or_else(|| format!("{}.tune.svg", stem));
    let h_name = std::path::Path::new(&h_path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out.h".into());
    let plot_name = std::path::Path::new(&plot_path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();

    // The cache key needs only the sources (parse resolves includes).
    let parsed = crate::driver::parse(&file, &text, &cfg, &super::FsLoader);
    if parsed.has_errors() {
        eprint!("{}", parsed.render_diags());
        return 1;
    }
    let sources: Vec<&str> = std::iter::once(file.as_str())
        .chain(parsed.sources.files.iter().map(|(n, _)| n.as_str()))
        .collect();
    if let Err(e) = super::check_outputs(&[&c_path, &h_path, &report_path, &plot_path], &sources) {
        return fail(&e);
    }
    if let Err(e) = super::check_writable(&[&c_path, &h_path, &report_path, &plot_path]) {
        return fail(&e);
    }
    let (ccs, versions) = compilers();
    let cpu = cpu_model();
    let mut space = Space::new(cfg.slicing, cfg.arch, ccs, t.allow_abi_change);
    space.for_goal(t.goal);
    if let Some(k) = &t.knobs {
        space.restrict(k);
    }
    let flags =
        format!(
        "-{} --arch {} --goal {} --budget {} --knobs {} abi-change={} quick={} runs={} header={} flags: {}",
        cfg.slicing,
        cfg.arch,
        t.goal.name(),
        t.budget,
        space.dims.iter().map(|d| d.name()).collect::<Vec<_>>().join(","),
        t.allow_abi_change,
        t.quick,
        t.runs,
        h_name,
        cfg.flags_text
    );
    let compilers_text = versions.join("; ");
    // This build: a hash of the running executable (a rebuilt nakiri may emit other C).
    let build = std::env::current_exe()
        .and_then(std::fs::read)
        .map(|b| format!("{:016x}", crate::tune::compile::stable_hash_bytes(&b)))
        .unwrap_or_else(|_| "unknown".into());
    let key = cache::key(&cache::KeyParts {
        sources: &parsed.sources.files,
        flags: &flags,
        cpu: &cpu,
        compilers: &compilers_text,
        build: &build,
    });
    let mut store = cache_dir().map(DirStore);
    if !t.no_cache {
        if let Some(entry) = store
            .as_ref()
            .and_then(|s| s.get(&key))
            .and_then(|v| cache::decode(&v))
        {
            if let Err(e) = write_all(&c_path, &h_path, &report_path, &plot_path, &entry) {
                return fail(&e);
            }
            println!(
                "nakiri tune {}: answered from the cache ({})",
                file,
                store
                    .as_ref()
                    .map(|s| s.0.display().to_string())
                    .unwrap_or_default()
            );
            println!("chosen: {}", entry.knobs.to_line());
            println!(
                "wrote {}, {}, {}, {}",
                c_path, h_path, report_path, plot_path
            );
            return 0;
        }
    }

    let front = crate::driver::check(&file, &text, &cfg, &super::FsLoader);
    if front.has_errors() {
        eprint!("{}", front.render_diags());
        return 1;
    }
    let Some(checked) = front.checked.as_ref() else {
        return fail("no program");
    };
    let mut default = space.default_knobs(&cfg.opt, cfg.spill, cfg.opaque_not);
    default.packed_interleave = cfg.packed_interleave;
    default.packed_consts = cfg.packed_consts;
    default.sbox_circuit = cfg.sbox_circuit;
    // `sbox-circuit` is searched where the two circuits give different programs (AES).
    let sbox_alternatives = sbox_alternatives(&file, &text, &cfg);
    if !sbox_alternatives.is_empty()
        && t.knobs
            .as_ref()
            .is_none_or(|k| k.contains(&Dim::SboxCircuit))
    {
        space.with_sbox_circuit();
    }
    let mut prep = CheckedPreparer {
        checked,
        base: cfg.clone(),
        header_name: h_name.clone(),
        sbox_alternatives,
    };
    let mut measurer = match measure::HarnessMeasurer::new(t.quick, t.runs) {
        Ok(m) => m,
        Err(e) => return fail(&e),
    };
    let clock = WallClock(Instant::now());
    let params = Params::new(t.goal, t.budget);
    let bar = progress_bar(t.budget);
    let outcome = search::run(
        &space,
        default,
        &mut prep,
        &mut measurer,
        &clock,
        &params,
        &mut |p| {
            bar.set_position((p.elapsed.min(p.budget) * 10.0) as u64);
            bar.set_message(format!(
                "{} visited, {} measured; best {:.3}x of default: {}",
                p.visited, p.measured, p.best_relative, p.best
            ));
        },
    );
    bar.finish_and_clear();
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    let cx = report::Context {
        file: &file,
        slicing: cfg.slicing,
        arch: cfg.arch,
        goal: t.goal,
        budget_s: t.budget,
        cpu: &cpu,
        compilers: &versions,
        allow_abi_change: t.allow_abi_change,
        dims: &space.dims,
        plot: Some(&plot_name),
        runs: t.runs,
    };
    let entry = cache::Entry {
        knobs: outcome.chosen.knobs.clone(),
        c: outcome.chosen.out.c.clone(),
        h: outcome.chosen.out.h.clone(),
        report: report::markdown(&outcome, &cx),
        svg: report::svg(&outcome, &cx),
    };
    if let Err(e) = write_all(&c_path, &h_path, &report_path, &plot_path, &entry) {
        return fail(&e);
    }
    if let Some(s) = store.as_mut() {
        if let Err(e) = s.put(&key, &cache::encode(&entry)) {
            eprintln!("warning: cannot write the tuning cache: {}", e);
        }
    }
    let def = &outcome.visits[outcome.default_id];
    println!(
        "nakiri tune {} (-{} --arch {}, goal {}): {} candidates, {} measured, {:.1} s",
        file,
        cfg.slicing,
        cfg.arch,
        t.goal.name(),
        outcome.visits.len(),
        outcome
            .visits
            .iter()
            .filter(|v| v.measurement.is_some())
            .count(),
        outcome.elapsed
    );
    println!(
        "chosen: {} (build with `{}`)",
        outcome.chosen.knobs.diff(&def.knobs),
        outcome.chosen.knobs.cc.label()
    );
    match (t.goal, outcome.final_metrics) {
        (Goal::Size, _) => {}
        (_, Some((d, c))) => println!(
            "final check: default {:.4}, chosen {:.4} ({:.3}x)",
            d,
            c,
            d / c
        ),
        _ => {}
    }
    for n in &outcome.notes {
        println!("note: {}", n);
    }
    println!(
        "wrote {}, {}, {}, {}",
        c_path, h_path, report_path, plot_path
    );
    0
}

fn write_all(c: &str, h: &str, report: &str, plot: &str, e: &cache::Entry) -> Result<(), String> {
    super::write_files_atomically(&[
        (c, e.c.as_bytes()),
        (h, e.h.as_bytes()),
        (report, e.report.as_bytes()),
        (plot, e.svg.as_bytes()),
    ])
    .map_err(|e| format!("cannot write output: {}", e))
}

fn progress_bar(budget: f64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new((budget * 10.0).max(1.0) as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} tune [{elapsed}] {bar:24} {msg}")
    {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// The program checked with each S-box circuit (`--sbox-circuit small` and `shallow`), or
/// nothing when both give the same IR (no table with a choice of circuit).
fn sbox_alternatives(
    file: &str,
    text: &str,
    cfg: &crate::driver::Config,
) -> Vec<(crate::normalize::sbox::CircuitGoal, crate::sema::Checked)> {
    use crate::normalize::sbox::CircuitGoal;
    let mut out = Vec::new();
    for g in [CircuitGoal::Small, CircuitGoal::Shallow] {
        let mut c = cfg.clone();
        c.sbox_circuit = Some(g);
        let front = crate::driver::check(file, text, &c, &super::FsLoader);
        match front.checked {
            Some(ch) if !front.has_errors() => out.push((g, ch)),
            _ => return Vec::new(),
        }
    }
    if out[0].1.ir == out[1].1.ir {
        return Vec::new();
    }
    out
}
