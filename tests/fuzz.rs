//! Fuzzing the front end and the whole pipeline: random and mutated programs must be compiled
//! or rejected with diagnostics, never panic, hang or overflow the stack.
//!
//! Runs briefly in `cargo test`; longer with `NAKIRI_FUZZ_ITERS=200000 NAKIRI_FUZZ_SEED=7 cargo test --release --test fuzz`.
//! A failing input is written to `target/fuzz-failure.ua`.

mod common;

use common::Rng;
use nakiri::codegen::{Arch, CodegenConfig};
use nakiri::driver::{self, Config};
use nakiri::ir::Slicing;

const TOKENS: &[&str] = &[
    "node", "table", "perm", "returns", "vars", "let", "tel", "forall", "in", "include", "const", "_inline", "_unroll", "(", ")", "[", "]", "{", "}", "=", ":=",
    "^=", "^:=", ",", ":", ";", "..", "&", "|", "^", "~", "!", "+", "-", "*", "/", "%", "<", ">", "<<", ">>", ">>!", "<<<", ">>>", "x", "y", "z", "a", "i", "f",
    "u8", "u16", "u32", "u64", "b1", "b4", "b8", "v4", "u16x4", "u<V>16", "u<B>8", "u<H>16", "u'm", "nat", "0", "1", "3", "7", "15", "0xff", "64", "Shuffle",
    "Bitmask", "Pack", "refresh", "__END__", "#c\n", "//c\n", "\"s\"", "'D", "$",
];

fn seeds() -> Vec<String> {
    let mut v = Vec::new();
    for dir in ["tests/in", "tests/diag"] {
        let mut files: Vec<_> = std::fs::read_dir(common::root().join(dir)).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for p in files {
            if p.extension().map_or(false, |e| e == "ua") {
                v.push(std::fs::read_to_string(p).unwrap());
            }
        }
    }
    v
}

fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut toks: Vec<String> = src.split_inclusive(|c: char| c.is_whitespace() || "()[]{};,=".contains(c)).map(|s| s.to_string()).collect();
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
            1 => toks.insert(k, format!("{} ", TOKENS[(rng.next() as usize) % TOKENS.len()])),
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
    (0..n).map(|_| TOKENS[(rng.next() as usize) % TOKENS.len()]).collect::<Vec<_>>().join(" ")
}

fn run_one(src: &str, slicing: Slicing) {
    let cfg = Config { slicing, ..Config::default() };
    let (front, prog) = driver::lower("fuzz.ua", src, &cfg, &common::Fs);
    let _ = front.render_diags();
    if let Some(p) = prog {
        nakiri::ir::verify(&p).expect("verified IR");
        if p.nodes.iter().map(|n| n.body.len()).sum::<usize>() < 50_000 {
            let _ = nakiri::codegen::generate(&p, &CodegenConfig { arch: Arch::Avx2, header_name: "f.h".into(), banner: String::new() });
        }
    } else {
        assert!(front.has_errors(), "rejected without an error diagnostic:\n{}", src);
    }
}

#[test]
fn fuzz_front_end_and_pipeline() {
    let iters: usize = std::env::var("NAKIRI_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(1500);
    let seeds = seeds();
    let seed: u64 = std::env::var("NAKIRI_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0xf00d);
    let mut rng = Rng(seed);
    // Bound the work per program so that a mutated loop bound cannot make the test slow.
    for it in 0..iters {
        let src = if it % 5 == 0 { random_soup(&mut rng) } else { mutate(&seeds[(rng.next() as usize) % seeds.len()], &mut rng) };
        let slicing = [Slicing::V, Slicing::B, Slicing::H][it % 3];
        let s2 = src.clone();
        let r = std::thread::Builder::new().stack_size(64 << 20).spawn(move || run_one(&s2, slicing)).unwrap().join();
        if r.is_err() {
            let path = common::root().join("target/fuzz-failure.ua");
            let _ = std::fs::write(&path, &src);
            panic!("iteration {} ({:?}) panicked; input saved to {}", it, slicing, path.display());
        }
    }
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
        let r = std::thread::Builder::new().stack_size(64 << 20).spawn(move || {
            let (front, _) = driver::lower("p.ua", &src, &Config::default(), &common::Fs);
            front.render_diags()
        });
        let out = r.unwrap().join().unwrap_or_else(|_| panic!("case {} panicked", k));
        // Each case is either compiled or rejected; rejections carry a location.
        assert!(out.is_empty() || out.contains("p.ua:"), "case {}: {}", k, out);
        println!("case {}: {:?}: {}", k, start.elapsed(), out.lines().next().unwrap_or("compiled"));
    }
}
