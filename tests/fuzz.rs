//! Fuzzing the front end and the whole pipeline: random and mutated programs must be compiled
//! or rejected with diagnostics, never panic, hang or overflow the stack. Kept loops (every
//! `--loops` policy) must mean what the unrolled program means: checked on the mutated programs
//! that keep one and on randomly generated valid loop programs (a few of them natively).
//!
//! Runs briefly in `cargo test`; longer with `NAKIRI_FUZZ_ITERS=200000 NAKIRI_FUZZ_SEED=7 cargo test --release --test fuzz`.
//! A failing input is written to `target/fuzz-failure.ua`.

mod common;

use common::Rng;
use nakiri::codegen::{Arch, CodegenConfig};
use nakiri::driver::{self, Config};
use nakiri::ir::Slicing;

const TOKENS: &[&str] = &[
    "node", "table", "perm", "returns", "vars", "let", "tel", "forall", "in", "include", "const",
    "_inline", "_unroll", "(", ")", "[", "]", "{", "}", "=", ":=", "^=", "^:=", ",", ":", ";",
    "..", "&", "|", "^", "~", "!", "+", "-", "*", "/", "%", "<", ">", "<<", ">>", ">>!", "<<<",
    ">>>", "x", "y", "z", "a", "i", "f", "u8", "u16", "u32", "u64", "b1", "b4", "b8", "v4",
    "u16x4", "u<V>16", "u<B>8", "u<H>16", "u'm", "nat", "0", "1", "3", "7", "15", "0xff", "64",
    "Shuffle", "Bitmask", "Pack", "refresh", "__END__", "#c\n", "//c\n", "\"s\"", "'D", "$",
];

fn seeds() -> Vec<String> {
    let mut v = Vec::new();
    for dir in ["tests/in", "tests/diag"] {
        let mut files: Vec<_> = std::fs::read_dir(common::root().join(dir))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        files.sort();
        for p in files {
            if p.extension().is_some_and(|e| e == "ua") {
                v.push(std::fs::read_to_string(p).unwrap());
            }
        }
    }
    v
}

fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut toks: Vec<String> = src
        .split_inclusive(|c: char| c.is_whitespace() || "()[]{};,=".contains(c))
        .map(|s| s.to_string())
        .collect();
    let n = 1 + (rng.next() % 4) as usize;
    for _ in 0..n {
        if toks.is_empty() {
            toks.push(String::new());
        }
        let k = (rng.next() as usize) % toks.len();
        match rng.next() % 6 {
            0 => {
                toks.remove(k);
            }
            1 => toks.insert(
                k,
                format!("{} ", TOKENS[(rng.next() as usize) % TOKENS.len()]),
            ),
            2 => toks[k] = format!("{} ", TOKENS[(rng.next() as usize) % TOKENS.len()]),
            3 => {
                let j = (rng.next() as usize) % toks.len();
                toks.swap(k, j);
            }
            4 => {
                // duplicate a span (creates repeated equations / declarations)
                let j = ((rng.next() as usize) % 8).min(toks.len() - k);
                let piece: Vec<String> = toks[k..k + j].to_vec();
                for (o, p) in piece.into_iter().enumerate() {
                    toks.insert(k + o, p);
                }
            }
            _ => {
                // change a number
                if let Some(t) = toks.iter_mut().find(|t| t.trim().parse::<u64>().is_ok()) {
                    *t = format!("{} ", rng.next() % 70);
                }
            }
        }
    }
    toks.concat()
}

fn random_soup(rng: &mut Rng) -> String {
    let n = 1 + rng.next() % 60;
    (0..n)
        .map(|_| TOKENS[(rng.next() as usize) % TOKENS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Programs whose kept loops were checked against their unrolled form.
static LOOP_CHECKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn run_one(src: &str, slicing: Slicing, loops: nakiri::opt::LoopPolicy) {
    let mut cfg = Config {
        slicing,
        ..Config::default()
    };
    cfg.opt.loops = loops;
    let (front, prog) = driver::lower("fuzz.ua", src, &cfg, &common::Fs);
    let _ = front.render_diags();
    if let Some(p) = prog {
        nakiri::ir::verify(&p).expect("verified IR");
        // Kept loops mean what the unrolled program means (differential check on small programs).
        let size: usize = p.nodes.iter().map(|n| n.body.len()).sum();
        if loops != nakiri::opt::LoopPolicy::Unroll
            && size < 5_000
            && p.nodes
                .iter()
                .flat_map(|n| &n.body)
                .any(|i| matches!(i, nakiri::ir::Instr::Loop { .. }))
        {
            LOOP_CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            cfg.opt.loops = nakiri::opt::LoopPolicy::Unroll;
            let (_, unrolled) = driver::lower("fuzz.ua", src, &cfg, &common::Fs);
            let unrolled = unrolled.expect("compiles unrolled too");
            let mut rng = Rng(size as u64);
            for _ in 0..3 {
                let inst: Vec<Vec<u64>> = p
                    .entry()
                    .inputs
                    .iter()
                    .map(|q| {
                        (0..nakiri::interp::param_words(p.slicing, q))
                            .map(|_| rng.bits(q.word_bits))
                            .collect()
                    })
                    .collect();
                assert_eq!(
                    nakiri::interp::run_entry(&p, &inst),
                    nakiri::interp::run_entry(&unrolled, &inst),
                    "kept loops change the meaning of:\n{}",
                    src
                );
            }
        }
        if p.nodes.iter().map(|n| n.body.len()).sum::<usize>() < 50_000 {
            let _ = nakiri::codegen::generate(
                &p,
                &CodegenConfig {
                    arch: Arch::Avx2,
                    header_name: "f.h".into(),
                    banner: String::new(),
                    spill: nakiri::codegen::SPILL_DEFAULT,
                    mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
                    loop_regs: None,
                    opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                    uarch: nakiri::target::Uarch::host(),
                    state_loads: None,
                    loop_align: None,
                },
            );
        }
    } else {
        assert!(
            front.has_errors(),
            "rejected without an error diagnostic:\n{}",
            src
        );
    }
}

#[test]
fn fuzz_front_end_and_pipeline() {
    let iters: usize = std::env::var("NAKIRI_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    let seeds = seeds();
    let seed: u64 = std::env::var("NAKIRI_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xf00d);
    let mut rng = Rng(seed);
    // Bound the work per program so that a mutated loop bound cannot make the test slow.
    for it in 0..iters {
        let src = if it % 5 == 0 {
            random_soup(&mut rng)
        } else {
            mutate(&seeds[(rng.next() as usize) % seeds.len()], &mut rng)
        };
        let slicing = [Slicing::V, Slicing::B, Slicing::H][it % 3];
        // every loop policy, with `all` (the most transformations) half the time
        let loops = [
            nakiri::opt::LoopPolicy::All,
            nakiri::opt::LoopPolicy::Auto,
            nakiri::opt::LoopPolicy::All,
            nakiri::opt::LoopPolicy::Unroll,
        ][it % 4];
        let s2 = src.clone();
        let r = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || run_one(&s2, slicing, loops))
            .unwrap()
            .join();
        if r.is_err() {
            let path = common::root().join("target/fuzz-failure.ua");
            let _ = std::fs::write(&path, &src);
            panic!(
                "iteration {} ({:?}) panicked; input saved to {}",
                it,
                slicing,
                path.display()
            );
        }
    }
    let checked = LOOP_CHECKS.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "{} fuzzed programs with kept loops checked against their unrolled form",
        checked
    );
    assert!(
        iters < 100 || checked > 0,
        "no fuzzed program kept a loop: the differential check ran on nothing"
    );
}

#[test]
fn pathological_inputs_are_rejected_cleanly() {
    let cases: Vec<String> = vec![
        format!("node f (a:u8) returns (b:u8) let b = {}a{} tel", "(".repeat(100_000), ")".repeat(100_000)),
        format!("node f (a:u8) returns (b:u8) let b = a{} tel", " ^ a".repeat(100_000)),
        format!("node f (a:u8) returns (b:u8) let b = {}a tel", "~".repeat(100_000)),
        "node f (a:u8) returns (b:u8) vars t:u8[1000000] let forall i in [0, 999999] { t[i] = a } b = t[5] tel".to_string(),
        "node f (a:u8) returns (b:u8) vars t:u8 let t := a; forall i in [0, 4000000] { t := t ^ a } b = t tel".to_string(),
        "node f (a:u8[16777216][16777216]) returns (b:u8) let b = a[0][0] tel".to_string(),
        "node f (a:u8) returns (b:u8) let b = a <<< 18446744073709551615 tel".to_string(),
        "node f (a:u8) returns (b:u8) let b = a[99999999999999999999] tel".to_string(),
        (0..3000).map(|i| format!("node f{} (a:u8) returns (b:u8) let b = {}(a) tel\n", i, if i == 0 { "~".to_string() } else { format!("f{}", i - 1) })).collect(),
        // each node calls the previous one twice: naive inlining would be exponential
        (0..40).map(|i| if i == 0 { "node f0 (a:u8) returns (b:u8) let b = ~a tel\n".to_string() } else { format!("node f{} (a:u8) returns (b:u8) let b = f{}(f{}(a)) tel\n", i, i - 1, i - 1) }).collect(),
    ];
    for (k, src) in cases.into_iter().enumerate() {
        let start = std::time::Instant::now();
        let r = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let (front, _) = driver::lower("p.ua", &src, &Config::default(), &common::Fs);
                front.render_diags()
            });
        let out = r
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("case {} panicked", k));
        // Each case is either compiled or rejected; rejections carry a location.
        assert!(
            out.is_empty() || out.contains("p.ua:"),
            "case {}: {}",
            k,
            out
        );
        println!(
            "case {}: {:?}: {}",
            k,
            start.elapsed(),
            out.lines().next().unwrap_or("compiled")
        );
    }
}

/// A random valid program made of loops: round chains through a node, chains of equations,
/// maps, intermediate states read after the loop, `:=` inside loops.
fn random_loop_program(rng: &mut Rng) -> String {
    let w = [8, 16, 32][(rng.next() % 3) as usize];
    let n = 2 + (rng.next() % 6) as usize;
    let pick = |rng: &mut Rng, v: &[&str]| v[(rng.next() as usize) % v.len()].to_string();
    let expr = |rng: &mut Rng, a: &str, b: &str| -> String {
        let r = 1 + rng.next() % (w as u64 - 1);
        match rng.next() % 6 {
            0 => format!("({} ^ {}) <<< {}", a, b, r),
            1 => format!("{} + ({} & ~{})", a, b, a),
            2 => format!("({} | {}) ^ ({} >>> {})", a, b, b, r),
            3 => format!("~({} ^ {}) & {}", a, b, a),
            4 => format!(
                "({} <<< {}) ^ {} ^ {}",
                a,
                r,
                b,
                pick(rng, &["0x5", "0x3c", "1"])
            ),
            _ => format!("{} - ({} >> {})", a, b, r % 8 + 1),
        }
    };
    let mut s = String::new();
    let e1 = expr(rng, "x[0]", "k");
    let e2 = expr(rng, "x[1]", "t");
    let e3 = expr(rng, "t", "x[0]");
    s.push_str(&format!("node g (x:u{w}x2, k:u{w}) returns (y:u{w}x2)\nvars t:u{w}\nlet\n  t = {e1};\n  y[0] = {e2};\n  y[1] = {e3}\ntel\n\n"));
    let h1 = expr(rng, "a", "b");
    let h2 = expr(rng, "b", "a");
    s.push_str(&format!(
        "node h (a:u{w}, b:u{w}) returns (c:u{w})\nlet\n  c = ({h1}) ^ ({h2})\ntel\n\n"
    ));
    s.push_str(&format!(
        "node main (s:u{w}x2, key:u{w}[{n}], m:u{w}[{n}]) returns (o:u{w}x2, p:u{w}[{n}], q:u{w}, z:u{w})\nvars st:u{w}x2[{n1}], a:u{w}[{n1}], b:u{w}\nlet\n",
        n1 = n + 1
    ));
    s.push_str("  st[0] = s;\n");
    match rng.next() % 2 {
        0 => s.push_str(&format!(
            "  forall i in [0, {}] {{ st[i+1] = g(st[i], key[i]) }}\n",
            n - 1
        )),
        _ => {
            let e = expr(rng, "st[i][0]", "key[i]");
            let f = expr(rng, "st[i][1]", "st[i+1][0]");
            s.push_str(&format!(
                "  forall i in [0, {}] {{ st[i+1][0] = {}; st[i+1][1] = {} }}\n",
                n - 1,
                e,
                f
            ));
        }
    }
    s.push_str("  o = st[");
    s.push_str(&n.to_string());
    s.push_str("];\n");
    let j = (rng.next() as usize) % (n + 1);
    s.push_str(&format!("  q = st[{}][{}] ^ m[0];\n", j, rng.next() % 2));
    match rng.next() % 2 {
        0 => s.push_str(&format!(
            "  forall i in [0, {}] {{ p[i] = h(m[i], key[{}]) }}\n",
            n - 1,
            (rng.next() as usize) % n
        )),
        _ => {
            let e = expr(rng, "m[i]", "key[i]");
            s.push_str(&format!(
                "  forall i in [0, {}] {{ p[i] = {} }}\n",
                n - 1,
                e
            ));
        }
    }
    let e = expr(rng, "b", "a[i]");
    let f = expr(rng, "a[i]", "m[i]");
    s.push_str(&format!("  b := m[0];\n  a[0] = key[0];\n  forall i in [0, {}] {{ a[i+1] = {}; b := {} }}\n  z = b ^ a[{}]\ntel\n", n - 1, f, e, n));
    s
}

#[test]
fn random_loop_programs_keep_their_meaning() {
    use nakiri::opt::LoopPolicy;
    let iters: usize = std::env::var("NAKIRI_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(|n: usize| n / 10)
        .unwrap_or(150);
    let mut rng = Rng(std::env::var("NAKIRI_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x100b));
    let (mut kept, mut fused) = (0, 0);
    for it in 0..iters {
        let src = random_loop_program(&mut rng);
        let slicing = [Slicing::V, Slicing::B, Slicing::H][it % 3];
        let lower = |loops: LoopPolicy| {
            let mut cfg = Config {
                slicing,
                ..Config::default()
            };
            cfg.opt.loops = loops;
            common::lower_src_cfg(&format!("generated loop program {}", it), &src, &cfg)
        };
        let reference = lower(LoopPolicy::Unroll);
        for loops in [LoopPolicy::All, LoopPolicy::Chains] {
            let p = lower(loops);
            nakiri::ir::verify(&p).expect("verified IR");
            kept += p
                .entry()
                .body
                .iter()
                .filter(|i| matches!(i, nakiri::ir::Instr::Loop { .. }))
                .count();
            // Loops `loop-fuse` made (its bodies are `<body>__fused`).
            fused += p
                .entry()
                .body
                .iter()
                .filter(|i| {
                    matches!(i, nakiri::ir::Instr::Loop { callee, .. }
                        if p.node(*callee).name.ends_with("__fused"))
                })
                .count();
            let insts: Vec<Vec<Vec<u64>>> = (0..if it < 6 { 100 } else { 4 })
                .map(|_| {
                    p.entry()
                        .inputs
                        .iter()
                        .map(|q| {
                            (0..nakiri::interp::param_words(p.slicing, q))
                                .map(|_| rng.bits(q.word_bits))
                                .collect()
                        })
                        .collect()
                })
                .collect();
            for inst in &insts {
                assert_eq!(
                    nakiri::interp::run_entry(&p, inst),
                    nakiri::interp::run_entry(&reference, inst),
                    "{:?} ({:?}) changes the meaning of:\n{}",
                    loops,
                    slicing,
                    src
                );
            }
            // the first few also as C on every target this CPU runs
            if it < 6 && loops == LoopPolicy::All {
                common::run_everywhere(
                    &format!("generated loop program {} ({:?})", it, slicing),
                    &p,
                    &insts,
                );
            }
        }
    }
    println!("{} kept loops checked, {} of them fused", kept, fused);
    assert!(kept > iters, "the generated programs keep loops");
    assert!(
        fused > 0,
        "no generated program had its loops fused: the check never reached loop-fuse"
    );
}
