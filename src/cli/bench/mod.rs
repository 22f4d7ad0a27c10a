//! `nakiri bench`: the measuring instrument (benchmarks are commands, never timed tests).
//!
//! - `bench FILE.ua [compile flags] [--quick]`: cycles/byte of the raw and the packed entry of
//!   the compiled program, the TSC/core-clock ratio, instructions and spills per block and code
//!   size from the disassembly (`harness`, `asm`).
//! - `bench compare FILE.ua A-flags -- B-flags`: two variants timed in one process.
//! - `bench ciphers [--json [FILE]] [--arch A] [--quick]`: every shipped cipher x slicing x target
//!   this CPU runs, with the peers (OpenSSL, libsodium, Botan) (`ciphers`, `peers`).
//! - `bench transpose [--arch A] [--quick]`: the packed API's transposition routines alone, per
//!   layout, in cycles/byte next to a memcpy baseline (`transpose`).
//! - `bench modes [--arch A] [--quick]`: `chacha20_xor` and `aes128_ctr_xor` on 16 KiB and 1 MiB
//!   next to OpenSSL (`modes`).
//! - `frontend`: parse + check time of a generated 10 000-line program (target: < 100 ms).
//! - `compile`: source-to-C time of shipped ciphers (target: bitsliced AES and DES < 1 s each).

pub mod asm;
pub mod ciphers;
pub mod harness;
pub mod limits;
pub mod modes;
pub mod peers;
pub mod transpose;

use crate::codegen::Arch;
use crate::driver::{self, Config};
use crate::ir::Slicing;
use std::time::{Duration, Instant};

/// A program of `lines` lines: many small nodes with loops, tables, rotations and calls.
pub fn generated_program(lines: usize) -> String {
    let mut s = String::from(
        "table sb (a:v4) returns (b:v4) { 12, 5, 6, 11, 9, 0, 10, 13, 3, 14, 15, 8, 4, 7, 1, 2 }\n",
    );
    let mut k = 0;
    let mut prev: Option<String> = None;
    // Lines counted as they are added (every piece ends with a newline): recounting the
    // whole text per node was quadratic.
    let mut count = s.lines().count();
    while count < lines {
        let name = format!("n{}", k);
        let mut node = String::new();
        node.push_str(&format!(
            "node {} (x:u16x4, key:u16x4) returns (y:u16x4)\nvars t:u16x4[4]\nlet\n",
            name
        ));
        node.push_str("  t[0] = x ^ key;\n");
        node.push_str("  forall i in [1, 3] {\n    t[i] = sb(t[i-1]) <<< 1;\n  }\n");
        for j in 0..8 {
            node.push_str(&format!(
                "  # filler {} keeps the line count realistic\n",
                j
            ));
        }
        match &prev {
            Some(p) => node.push_str(&format!("  y = {}(t[3], key ^ (t[2] <<< 2))\n", p)),
            None => node.push_str("  y = t[3] ^ (t[2] <<< 2)\n"),
        }
        node.push_str("tel\n\n");
        count += node.lines().count();
        s.push_str(&node);
        prev = Some(name);
        k += 1;
    }
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<F: FnMut() -> bool>(runs: usize, mut f: F) -> (Duration, bool) {
    let mut v = Vec::new();
    let mut ok = true;
    for _ in 0..runs {
        let t = Instant::now();
        ok &= f();
        v.push(t.elapsed());
    }
    (median(v), ok)
}

/// The warning `bench` prints when the machine is already busy, from `/proc/loadavg`'s text
/// and the core count: a one-minute load of at least half the cores (at least 1) and, right
/// now, another runnable task besides this one (the average lags: just after a build it is
/// still high on an idle machine). On a 2-core machine another job inflates every figure
/// (stop 53: `bench modes` read `aes128_ctr_xor -B` 1.41x bsaes during a test run, 0.89x on
/// a quiet machine).
fn busy_note(loadavg: &str, cores: usize) -> Option<String> {
    let mut f = loadavg.split_whitespace();
    let load: f64 = f.next()?.parse().ok()?;
    let running: usize = f.nth(2)?.split('/').next()?.parse().ok()?;
    let bar = (cores as f64 / 2.0).max(1.0);
    (load >= bar && running > 1).then(|| {
        format!(
            "note: the machine is busy (one-minute load {load:.2} on {cores} cores): timings read high \
             and ratios drift while other work runs; measure on a quiet machine"
        )
    })
}

/// Prints [`busy_note`] to standard error when it applies (Linux; silent elsewhere). Also
/// called by `nakiri tune`.
pub(crate) fn warn_if_busy() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(n) = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| busy_note(&t, cores))
    {
        eprintln!("{n}");
    }
}

pub fn run(args: &[String]) -> i32 {
    // Every subcommand but the static `limits` times something.
    if args.first().map(|s| s.as_str()) != Some("limits") {
        warn_if_busy();
    }
    match args.first().map(|s| s.as_str()) {
        Some("compare") => return compare(&args[1..]),
        Some("ciphers") => return ciphers::run(&args[1..]),
        Some("transpose") => return transpose::run(&args[1..]),
        Some("modes") => return modes::run(&args[1..]),
        Some("limits") => return limits::run(&args[1..]),
        Some(w)
            if !["frontend", "compile", "all"].contains(&w) && !w.starts_with('-')
                || args.iter().any(|a| a.ends_with(".ua")) =>
        {
            return bench_file(args)
        }
        _ => {}
    }
    let what = args.first().map(|s| s.as_str()).unwrap_or("all");
    if what == "compile" && args.iter().any(|a| a == "--scaling") {
        return scaling();
    }
    if what == "frontend" || what == "all" {
        println!("front end: parse + check (median of 7 runs)");
        println!("| program | lines | slicing | time | target |");
        println!("|---|---|---|---|---|");
        let src = generated_program(10_000);
        let lines = src.lines().count();
        for s in [Slicing::V, Slicing::B] {
            let cfg = Config {
                slicing: s,
                ..Config::default()
            };
            let (d, ok) = time(7, || {
                !driver::check("gen.ua", &src, &cfg, &crate::syntax::MemLoader::default())
                    .has_errors()
            });
            println!(
                "| generated | {} | -{} | {:.1} ms{} | < 100 ms |",
                lines,
                s,
                d.as_secs_f64() * 1e3,
                if ok { "" } else { " (ERRORS)" }
            );
        }
        let (d, _) = time(7, || {
            !driver::parse(
                "gen.ua",
                &src,
                &Config::default(),
                &crate::syntax::MemLoader::default(),
            )
            .has_errors()
        });
        println!(
            "| generated (parse only) | {} | - | {:.1} ms | |",
            lines,
            d.as_secs_f64() * 1e3
        );
    }
    if what == "compile" || what == "all" {
        println!("\nsource to C (median of 5 runs; excludes the C compiler)");
        println!("| cipher | slicing | arch | time | C lines | target |");
        println!("|---|---|---|---|---|---|");
        let cases: &[(&str, Slicing, Arch, &str)] = &[
            ("ciphers/aes/aes.ua", Slicing::B, Arch::Avx512, "< 1 s"),
            ("ciphers/des/des.ua", Slicing::B, Arch::Avx512, "< 1 s"),
            ("ciphers/aes/aes_planes.ua", Slicing::H, Arch::Avx2, ""),
            ("ciphers/chacha20/chacha20.ua", Slicing::V, Arch::Avx2, ""),
            ("ciphers/chacha20/chacha20.ua", Slicing::B, Arch::Avx512, ""),
            ("ciphers/serpent/serpent.ua", Slicing::B, Arch::Avx2, ""),
            (
                "ciphers/skinny128_256/skinny128_256.ua",
                Slicing::B,
                Arch::Avx2,
                "",
            ),
        ];
        for (file, s, arch, target) in cases {
            let path = super::demo_path(file);
            let Ok(text) = std::fs::read_to_string(&path) else {
                println!("| {} | -{} | {} | missing | | |", file, s, arch);
                continue;
            };
            let name = path.to_string_lossy().into_owned();
            let cfg = Config {
                slicing: *s,
                arch: *arch,
                ..Config::default()
            };
            let mut lines = 0;
            let (d, ok) = time(5, || {
                let (_, out) = driver::compile(&name, &text, &cfg, &super::FsLoader, "out.h");
                lines = out.as_ref().map(|o| o.c.lines().count()).unwrap_or(0);
                out.is_some()
            });
            println!(
                "| {} | -{} | {} | {:.1} ms{} | {} | {} |",
                file,
                s,
                arch,
                d.as_secs_f64() * 1e3,
                if ok { "" } else { " (FAILED)" },
                lines,
                target
            );
        }
    }
    if !["frontend", "compile", "all"].contains(&what) {
        eprintln!("error: unknown benchmark `{}` (FILE.ua, compare, ciphers, transpose, modes, frontend, compile, all)", what);
        return 2;
    }
    0
}

/// Options of the measuring commands that are not compile flags.
#[derive(Clone, Debug)]
pub struct BenchOpts {
    pub effort: harness::Effort,
    pub quick: bool,
    /// `--cold`: also time one call on one block with evicted caches (`harness::measure_cold`).
    pub cold: bool,
    /// `--runs N`: time in N processes and keep each figure's minimum
    /// ([`harness::measure_min`]; `bench compare` prints every run).
    pub runs: usize,
}

/// The most processes `--runs N` starts.
pub const MAX_RUNS: usize = 20;

/// Trials of `--cold` (median over them).
pub const COLD_TRIALS: u32 = 301;

/// Removes `--quick`, `--cold`, `--runs N` and `--windows N` from `args`.
pub fn take_bench_opts(args: &[String]) -> Result<(BenchOpts, Vec<String>), i32> {
    let mut o = BenchOpts {
        effort: harness::Effort::FULL,
        quick: false,
        cold: false,
        runs: 1,
    };
    let mut rest = Vec::new();
    let mut windows = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--quick" => o.quick = true,
            "--cold" => o.cold = true,
            "--runs" => {
                i += 1;
                match args
                    .get(i)
                    .and_then(|v| v.parse::<usize>().ok())
                    .filter(|n| (1..=MAX_RUNS).contains(n))
                {
                    Some(n) => o.runs = n,
                    None => {
                        eprintln!(
                            "error: `--runs` needs a number of processes from 1 to {}",
                            MAX_RUNS
                        );
                        return Err(2);
                    }
                }
            }
            "--windows" => {
                i += 1;
                match args
                    .get(i)
                    .and_then(|v| v.parse::<u32>().ok())
                    .filter(|w| *w > 0)
                {
                    Some(w) => windows = Some(w),
                    None => {
                        eprintln!("error: `--windows` needs a positive number");
                        return Err(2);
                    }
                }
            }
            a => rest.push(a.to_string()),
        }
        i += 1;
    }
    if o.quick {
        o.effort = harness::Effort::QUICK;
    }
    if let Some(w) = windows {
        o.effort.windows = w;
        o.effort.budget_s = o.effort.budget_s.max(w as f64 * 0.01);
    }
    Ok((o, rest))
}

fn fail(msg: &str) -> i32 {
    eprintln!("error: {}", msg);
    1
}

fn fmt_num(v: f64, digits: usize) -> String {
    if v.is_finite() {
        format!("{:.*}", digits, v)
    } else {
        "-".into()
    }
}

/// `x` (TSC ticks per call) in cycles per byte.
fn cpb(ticks: f64, bytes: f64) -> f64 {
    ticks / bytes
}

fn stats_cells(b: &harness::Built) -> [String; 4] {
    match &b.stats {
        Some(s) => {
            let n = b.instances as f64;
            let approx = if s.approx { "~" } else { "" };
            [
                format!("{}{}", approx, fmt_num(s.insns / n, 1)),
                format!("{}{}", approx, fmt_num(s.spill_loads / n, 1)),
                format!("{}{}", approx, fmt_num(s.spill_stores / n, 1)),
                s.code_bytes.to_string(),
            ]
        }
        None => ["-".into(), "-".into(), "-".into(), "-".into()],
    }
}

fn print_header(effort: harness::Effort, run: &harness::Run) {
    let procs = if run.processes > 1 {
        format!(" in {} processes", run.processes)
    } else {
        String::new()
    };
    println!(
        "{} -O3 -march=native; TSC cycles, minimum over {} windows{} (>= {} ticks each); TSC/core-clock ratio {:.3} (core cycles = TSC cycles / {:.3})",
        harness::cc(),
        run.windows, procs, effort.window_ticks, run.tsc_ratio, run.tsc_ratio
    );
}

/// `nakiri bench FILE.ua [compile flags] [--quick] [--windows N]`.
fn bench_file(args: &[String]) -> i32 {
    let (opts, rest) = match take_bench_opts(args) {
        Ok(v) => v,
        Err(c) => return c,
    };
    let (file, cfg) = match super::parse_compile_flags(&rest) {
        Ok(v) => v,
        Err(c) => return c,
    };
    if cfg.arch != Arch::Std && !cfg.arch.runs_here() {
        return fail(&format!(
            "target {} does not run on this CPU (see `nakiri targets`)",
            cfg.arch
        ));
    }
    let dir = match harness::Scratch::new("file") {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    let built = match harness::build(&dir.0, "a", &file, &cfg) {
        Ok(b) => b,
        Err(e) => return fail(&e),
    };
    let run = match harness::measure_min(&dir.0, &[&built], opts.effort, opts.runs) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    println!(
        "nakiri bench {} (-{} --arch {})",
        file, cfg.slicing, cfg.arch
    );
    print_header(opts.effort, &run);
    println!("| entry | instances/call | bytes/call | TSC cycles/byte | core cycles/byte | insns/block | spill loads/block | spill stores/block | code bytes |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let t = &run.timings[0];
    let [ins, ld, st, code] = stats_cells(&built);
    let raw_bytes = built.raw_bytes_per_call();
    let c = cpb(t.raw_ticks, raw_bytes);
    println!(
        "| raw {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        built.entry_fn,
        built.instances,
        raw_bytes,
        fmt_num(c, 3),
        fmt_num(c / run.tsc_ratio, 3),
        ins,
        ld,
        st,
        code
    );
    match (
        t.packed_ticks,
        built.packed_n,
        built.packed_bytes_per_call(),
    ) {
        (Some(pt), Some(n), Some(pb)) => {
            let c = cpb(pt, pb);
            let via = if built.packed_kernel > 1 {
                format!(" (via a {}-way interleaved kernel)", built.packed_kernel)
            } else {
                String::new()
            };
            println!(
                "| packed {}packed{} | {} | {} | {} | {} | - | - | - | - |",
                built.entry_fn,
                via,
                n,
                pb,
                fmt_num(c, 3),
                fmt_num(c / run.tsc_ratio, 3)
            );
        }
        _ => println!("| packed | - | - | not available for this program | - | - | - | - | - |"),
    }
    if opts.cold {
        match harness::measure_cold(&dir.0, &[&built], if opts.quick { 31 } else { COLD_TRIALS }) {
            Ok(v) => println!("cold: one call on one block ({}) with evicted caches: {:.0} TSC cycles (median of {} calls)", if built.packed_n.is_some() { "packed entry, n = 1" } else { "raw entry" }, v[0], if opts.quick { 31 } else { COLD_TRIALS }),
            Err(e) => return fail(&e),
        }
    }
    if let Some(s) = &built.stats {
        println!(
            "per block = per call / {} instances; {} bytes/instance (non-const inputs); functions: {}{}{}",
            built.instances,
            built.bytes_per_instance,
            s.functions.join(", "),
            if s.external.is_empty() { String::new() } else { format!("; external calls: {}", s.external.join(", ")) },
            if s.approx { "; ~ = a loop of unknown trip count counted once" } else { "" }
        );
    }
    0
}

/// Raw and packed cycles/byte of one variant's timing (NaN without a packed entry).
fn entry_cpb(t: &harness::Timing, b: &harness::Built) -> (f64, f64) {
    let packed = match (t.packed_ticks, b.packed_bytes_per_call()) {
        (Some(pt), Some(pb)) => cpb(pt, pb),
        _ => f64::NAN,
    };
    (cpb(t.raw_ticks, b.raw_bytes_per_call()), packed)
}

/// `nakiri bench compare FILE.ua A-flags -- B-flags`.
fn compare(args: &[String]) -> i32 {
    let (opts, rest) = match take_bench_opts(args) {
        Ok(v) => v,
        Err(c) => return c,
    };
    let Some(file) = rest.first().cloned() else {
        eprintln!("error: usage: nakiri bench compare FILE.ua A-flags -- B-flags");
        return 2;
    };
    // `--b-nakiri PATH`: variant B's C comes from another build of nakiri (before / after a
    // change to the compiler, timed in one process).
    let mut tail: Vec<String> = rest[1..].to_vec();
    // `--runs N` (`take_bench_opts`): time the variants in N processes, every other one
    // linking B's objects first, and print each run's ratios, their geometric mean, each
    // variant's minimum over the runs and the ratio of the minima. `--swap` is `--runs 2`.
    let mut runs = opts.runs;
    if let Some(i) = tail.iter().position(|a| a == "--swap") {
        tail.remove(i);
        runs = 2;
    }
    let mut b_nakiri: Option<String> = None;
    if let Some(i) = tail.iter().position(|a| a == "--b-nakiri") {
        if i + 1 >= tail.len() {
            eprintln!("error: `--b-nakiri` needs the path of a nakiri binary");
            return 2;
        }
        b_nakiri = Some(tail.remove(i + 1));
        tail.remove(i);
    }
    let tail = &tail[..];
    let Some(sep) = tail.iter().position(|a| a == "--") else {
        eprintln!("error: `nakiri bench compare` needs `--` between the flags of A and of B");
        return 2;
    };
    let mut a_argv = vec![file.clone()];
    a_argv.extend_from_slice(&tail[..sep]);
    let mut b_argv = vec![file.clone()];
    b_argv.extend_from_slice(&tail[sep + 1..]);
    let mut cfgs = Vec::new();
    for argv in [&a_argv, &b_argv] {
        match super::parse_compile_flags(argv) {
            Ok((_, cfg)) => {
                if cfg.arch != Arch::Std && !cfg.arch.runs_here() {
                    return fail(&format!(
                        "target {} does not run on this CPU (see `nakiri targets`)",
                        cfg.arch
                    ));
                }
                cfgs.push(cfg)
            }
            Err(c) => return c,
        }
    }
    let dir = match harness::Scratch::new("cmp") {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    let mut built = Vec::new();
    for (p, cfg) in ["a", "b"].iter().zip(&cfgs) {
        let r = match (&b_nakiri, *p) {
            (Some(bin), "b") => {
                harness::build_with_binary(&dir.0, p, &file, cfg, bin, &b_argv[1..])
            }
            _ => harness::build(&dir.0, p, &file, cfg),
        };
        match r {
            Ok(b) => built.push(b),
            Err(e) => return fail(&format!("variant {}: {}", p.to_uppercase(), e)),
        }
    }
    let run = match harness::measure(&dir.0, &[&built[0], &built[1]], opts.effort) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    println!("nakiri bench compare {}", file);
    println!("A: {}", tail[..sep].join(" "));
    println!("B: {}", tail[sep + 1..].join(" "));
    print_header(opts.effort, &run);
    println!("| variant | raw cycles/byte | packed cycles/byte | insns/block | spill loads/block | spill stores/block | code bytes |");
    println!("|---|---|---|---|---|---|---|");
    let mut raw = Vec::new();
    let mut packed = Vec::new();
    for (name, (b, t)) in ["A", "B"].iter().zip(built.iter().zip(&run.timings)) {
        let (r, p) = entry_cpb(t, b);
        raw.push(r);
        packed.push(p);
        let [ins, ld, st, code] = stats_cells(b);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            name,
            fmt_num(r, 3),
            fmt_num(p, 3),
            ins,
            ld,
            st,
            code
        );
    }
    println!(
        "| B/A | {} | {} | | | | |",
        fmt_num(raw[1] / raw[0], 3),
        fmt_num(packed[1] / packed[0], 3)
    );
    if runs > 1 {
        // Where each variant's code lands moves its time by a few percent ("Trying a hand
        // edit": code placement), so every other process links B's objects first; a change
        // that holds in both orders is not placement. A whole process can also run slow
        // ("Several processes": the machine's state, up to 1.4x on a kept loop), which the
        // minima over the runs leave out.
        let (mut geo_raw, mut geo_packed) = ((raw[1] / raw[0]).ln(), (packed[1] / packed[0]).ln());
        let (mut min_raw, mut min_packed) = (raw.clone(), packed.clone());
        for k in 2..=runs {
            let b_first = k % 2 == 0;
            let order: [&harness::Built; 2] = if b_first {
                [&built[1], &built[0]]
            } else {
                [&built[0], &built[1]]
            };
            let run_k = match harness::measure(&dir.0, &order, opts.effort) {
                Ok(r) => r,
                Err(e) => return fail(&e),
            };
            let (ta, tb) = if b_first {
                (&run_k.timings[1], &run_k.timings[0])
            } else {
                (&run_k.timings[0], &run_k.timings[1])
            };
            let ((ra, pa), (rb, pb)) = (entry_cpb(ta, &built[0]), entry_cpb(tb, &built[1]));
            let (r, p) = ([ra, rb], [pa, pb]);
            for v in 0..2 {
                min_raw[v] = min_raw[v].min(r[v]);
                min_packed[v] = min_packed[v].min(p[v]);
            }
            geo_raw += (r[1] / r[0]).ln();
            geo_packed += (p[1] / p[0]).ln();
            let label = match (runs, b_first) {
                (2, _) => "B/A, B linked first".to_string(),
                (_, true) => format!("B/A, run {}, B linked first", k),
                (_, false) => format!("B/A, run {}", k),
            };
            println!(
                "| {} | {} | {} | | | | |",
                label,
                fmt_num(r[1] / r[0], 3),
                fmt_num(p[1] / p[0], 3)
            );
        }
        let n = runs as f64;
        println!(
            "| B/A, geometric mean | {} | {} | | | | |",
            fmt_num((geo_raw / n).exp(), 3),
            fmt_num((geo_packed / n).exp(), 3)
        );
        for (v, name) in ["A", "B"].iter().enumerate() {
            println!(
                "| {}, minimum of {} runs | {} | {} | | | | |",
                name,
                runs,
                fmt_num(min_raw[v], 3),
                fmt_num(min_packed[v], 3)
            );
        }
        println!(
            "| B/A, of the minima | {} | {} | | | | |",
            fmt_num(min_raw[1] / min_raw[0], 3),
            fmt_num(min_packed[1] / min_packed[0], 3)
        );
    }
    if opts.cold {
        let trials = if opts.quick { 31 } else { COLD_TRIALS };
        match harness::measure_cold(&dir.0, &[&built[0], &built[1]], trials) {
            Ok(v) => println!(
                "cold: one call on one block with evicted caches (median of {} calls, TSC cycles): A {:.0}, B {:.0}, B/A {}",
                trials,
                v[0],
                v[1],
                fmt_num(v[1] / v[0], 3)
            ),
            Err(e) => return fail(&e),
        }
    }
    0
}

/// `nakiri bench compile --scaling`: source-to-C time and peak memory of node chains of
/// 1 000 / 10 000 / 100 000 nodes and of wide entries, each compiled by a child process (so
/// each peak is its own), to show near-linear growth.
pub fn scaling() -> i32 {
    let dir = std::env::temp_dir().join(format!("nakiri-scaling-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: {}: {}", dir.display(), e);
        return 1;
    }
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("error: cannot find the nakiri binary");
        return 1;
    };
    let chain = |n: usize, work: bool| {
        let mut s = String::from("node f0 (a:u8) returns (b:u8) let b = a <<< 1 tel\n");
        for i in 1..n {
            if work {
                s.push_str(&format!(
                    "node f{} (a:u8) returns (b:u8) let b = f{}(a) ^ a tel\n",
                    i,
                    i - 1
                ));
            } else {
                s.push_str(&format!(
                    "node f{} (a:u8) returns (b:u8) let b = f{}(a) tel\n",
                    i,
                    i - 1
                ));
            }
        }
        s
    };
    let wide = |n: usize| {
        format!(
            "node f (x:u64x{n}) returns (y:u64) let y = x[0] ^ x[{}] tel\n",
            n - 1
        )
    };
    type Case = (String, String, Vec<&'static str>, usize);
    let mut cases: Vec<Case> = Vec::new();
    for n in [1_000, 10_000, 100_000] {
        cases.push((
            format!("chain of {} nodes (b = f(a))", n),
            chain(n, false),
            vec!["-V"],
            n,
        ));
    }
    for n in [1_000, 10_000, 100_000] {
        cases.push((
            format!("chain of {} nodes (b = f(a) ^ a), -inline-all", n),
            chain(n, true),
            vec!["-V", "-inline-all"],
            n,
        ));
    }
    // As many nodes, called one after the other by the entry (depth 1, not n).
    let flat = |n: usize| {
        let mut s = String::new();
        for i in 0..n {
            s.push_str(&format!(
                "node g{} (a:u8) returns (b:u8) let b = (a <<< {}) ^ {} tel\n",
                i,
                1 + i % 7,
                i % 251
            ));
        }
        s.push_str(&format!(
            "node main (a:u8) returns (b:u8) vars t:u8[{}] let t[0] = a;\n",
            n + 1
        ));
        for i in 0..n {
            s.push_str(&format!("  t[{}] = g{}(t[{}]);\n", i + 1, i, i));
        }
        s.push_str(&format!("  b = t[{}] tel\n", n));
        s
    };
    for n in [1_000, 10_000, 100_000] {
        cases.push((
            format!("{} nodes called in turn by the entry", n),
            flat(n),
            vec!["-V", "-no-inline"],
            n,
        ));
    }
    for n in [10_000, 100_000, 1_000_000] {
        cases.push((
            format!("entry u64x{} (-V: {} atoms)", n, n),
            wide(n),
            vec!["-V"],
            n,
        ));
    }
    for n in [1_000, 10_000, 30_000] {
        cases.push((
            format!("entry u64x{} (-B: {} atoms)", n, 64 * n),
            wide(n),
            vec!["-B"],
            64 * n,
        ));
    }
    println!("source to C, one child process per row (wall time, peak resident memory)");
    println!("| program | size | time | peak memory | time per unit | status |");
    println!("|---|---|---|---|---|---|");
    for (k, (what, src, flags, size)) in cases.iter().enumerate() {
        let f = dir.join(format!("case{}.ua", k));
        let out = dir.join(format!("case{}.c", k));
        if std::fs::write(&f, src).is_err() {
            continue;
        }
        let t = Instant::now();
        let r = std::process::Command::new(&exe)
            .arg("compile")
            .arg(&f)
            .args(flags)
            .arg("-o")
            .arg(&out)
            .env("NAKIRI_PEAK_RSS", "1")
            .output();
        let d = t.elapsed();
        let (status, peak) = match r {
            Ok(o) => {
                let err = String::from_utf8_lossy(&o.stderr).into_owned();
                let peak = err
                    .lines()
                    .find_map(|l| l.strip_prefix("peak-rss-kb: "))
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .unwrap_or(0);
                let st = if o.status.success() {
                    "ok".to_string()
                } else {
                    err.lines()
                        .find(|l| l.starts_with("error"))
                        .unwrap_or("failed")
                        .to_string()
                };
                (st, peak)
            }
            Err(e) => (e.to_string(), 0),
        };
        println!(
            "| {} | {} | {:.2} s | {:.0} MB | {:.2} us | {} |",
            what,
            size,
            d.as_secs_f64(),
            peak as f64 / 1024.0,
            d.as_secs_f64() * 1e6 / *size as f64,
            status
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    0
}

#[cfg(test)]
mod busy_tests {
    use super::busy_note;

    #[test]
    fn busy_note_from_loadavg() {
        assert_eq!(busy_note("0.31 0.80 1.20 3/180 4242\n", 2), None);
        assert!(busy_note("1.00 0.80 1.20 2/180 4242\n", 2)
            .is_some_and(|n| n.contains("load 1.00 on 2 cores")));
        // The average still high just after other work ended: only this process runs now.
        assert_eq!(busy_note("1.70 1.90 2.10 1/180 4242\n", 2), None);
        assert_eq!(busy_note("3.90 3.00 2.00 5/180 4242", 16), None);
        assert!(busy_note("8.00 3.00 2.00 5/180 4242", 16).is_some());
        assert_eq!(busy_note("", 2), None);
        assert_eq!(busy_note("not-a-number 1 1 2/3 4", 2), None);
        assert_eq!(busy_note("2.0 1 1", 2), None);
    }
}
