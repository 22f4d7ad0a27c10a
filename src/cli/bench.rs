//! `nakiri bench frontend|compile`: timing tables (benchmarks are commands, never tests).
//!
//! - `frontend`: parse + check time of a generated 10 000-line program (target: < 100 ms).
//! - `compile`: source-to-C time of shipped ciphers (target: bitsliced AES and DES < 1 s each).

use crate::codegen::Arch;
use crate::driver::{self, Config};
use crate::ir::Slicing;
use std::time::{Duration, Instant};

/// A program of `lines` lines: many small nodes with loops, tables, rotations and calls.
pub fn generated_program(lines: usize) -> String {
    let mut s = String::from("table sb (a:v4) returns (b:v4) { 12, 5, 6, 11, 9, 0, 10, 13, 3, 14, 15, 8, 4, 7, 1, 2 }\n");
    let mut k = 0;
    let mut prev: Option<String> = None;
    while s.lines().count() < lines {
        let name = format!("n{}", k);
        s.push_str(&format!("node {} (x:u16x4, key:u16x4) returns (y:u16x4)\nvars t:u16x4[4]\nlet\n", name));
        s.push_str("  t[0] = x ^ key;\n");
        s.push_str("  forall i in [1, 3] {\n    t[i] = sb(t[i-1]) <<< 1;\n  }\n");
        for j in 0..8 {
            s.push_str(&format!("  # filler {} keeps the line count realistic\n", j));
        }
        match &prev {
            Some(p) => s.push_str(&format!("  y = {}(t[3], key ^ (t[2] <<< 2))\n", p)),
            None => s.push_str("  y = t[3] ^ (t[2] <<< 2)\n"),
        }
        s.push_str("tel\n\n");
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

pub fn run(args: &[String]) -> i32 {
    let what = args.first().map(|s| s.as_str()).unwrap_or("all");
    if what == "frontend" || what == "all" {
        println!("front end: parse + check (median of 7 runs)");
        println!("| program | lines | slicing | time | target |");
        println!("|---|---|---|---|---|");
        let src = generated_program(10_000);
        let lines = src.lines().count();
        for s in [Slicing::V, Slicing::B] {
            let cfg = Config { slicing: s, ..Config::default() };
            let (d, ok) = time(7, || !driver::check("gen.ua", &src, &cfg, &crate::syntax::MemLoader::default()).has_errors());
            println!("| generated | {} | -{} | {:.1} ms{} | < 100 ms |", lines, s, d.as_secs_f64() * 1e3, if ok { "" } else { " (ERRORS)" });
        }
        let (d, _) = time(7, || !driver::parse("gen.ua", &src, &Config::default(), &crate::syntax::MemLoader::default()).has_errors());
        println!("| generated (parse only) | {} | - | {:.1} ms | |", lines, d.as_secs_f64() * 1e3);
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
            ("ciphers/skinny128_256/skinny128_256.ua", Slicing::B, Arch::Avx2, ""),
        ];
        for (file, s, arch, target) in cases {
            let path = super::demo_path(file);
            let Ok(text) = std::fs::read_to_string(&path) else {
                println!("| {} | -{} | {} | missing | | |", file, s, arch);
                continue;
            };
            let name = path.to_string_lossy().into_owned();
            let cfg = Config { slicing: *s, arch: *arch, ..Config::default() };
            let mut lines = 0;
            let (d, ok) = time(5, || {
                let (_, out) = driver::compile(&name, &text, &cfg, &super::FsLoader, "out.h");
                lines = out.as_ref().map(|o| o.c.lines().count()).unwrap_or(0);
                out.is_some()
            });
            println!("| {} | -{} | {} | {:.1} ms{} | {} | {} |", file, s, arch, d.as_secs_f64() * 1e3, if ok { "" } else { " (FAILED)" }, lines, target);
        }
    }
    if !["frontend", "compile", "all"].contains(&what) {
        eprintln!("error: unknown benchmark `{}` (frontend, compile, all)", what);
        return 2;
    }
    0
}
