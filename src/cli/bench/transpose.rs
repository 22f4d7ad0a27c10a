//! `nakiri bench transpose [--arch A] [--quick] [--b-nakiri PATH]`: the transposition
//! routines of the packed API alone (`runtime::transpose`), per layout, in TSC cycles per byte
//! of plain data, next to a `memcpy` of the same bytes (the memory-speed baseline). With
//! `--b-nakiri PATH`, the routines of another build of nakiri (B; this build is A) are compiled
//! into the same timing program and timed in alternation with A's, and each row prints both
//! and B/A: a change to the routines measured in one process (separate processes' rows move by
//! ±10% on a shared machine).
//!
//! Each row converts about 64 KiB of plain instances (in `step` chunks, like the packed entry)
//! into one chunk's registers (`in`), or one chunk's registers back into the 64 KiB (`out`).
//! The routines are the ones the generated C uses, compiled with `cc -O3 -march=native` into
//! one timing program; an empty `asm` with a memory clobber after every call keeps the
//! compiler from dropping any of the work.

use super::harness::{cc, run_tool, Effort, Scratch};
use super::take_bench_opts;
use crate::codegen::Arch;
use crate::ir::Slicing;
use crate::runtime::transpose as tp;
use std::process::Command;

/// One measured layout.
struct Case {
    label: String,
    /// C statements: `IN(src, regs)` and `OUT(regs, dst)` for one chunk.
    call_in: String,
    call_out: String,
    /// Plain bytes of one chunk, and chunk count.
    chunk_bytes: usize,
    /// Registers' bytes of one chunk.
    reg_bytes: usize,
    /// The routine family the case calls (slicing, word size; 8-bit units in B): cases of one
    /// family call the same `static` routine with other arguments, so they are timed from
    /// different translation units ([`units`]).
    routine: (Slicing, u32),
}

fn cases(arch: Arch) -> Vec<Case> {
    let a = arch.name();
    let r = arch.reg_bits() as usize / 8;
    let mut v = Vec::new();
    // Vslice: 16 and 4 words per instance (ChaCha20-like, Serpent-like); 8-bit also 32 (whole
    // 32-word groups on AVX2).
    for m in [8u32, 16, 32, 64] {
        for w in if m == 8 {
            vec![32usize, 16, 4]
        } else {
            vec![16usize, 4]
        } {
            let inst = tp::instances(arch, Slicing::V, m);
            let (cin, cout, rb) = if arch == Arch::Std {
                (
                    format!(
                        "nkp_V_in_u{m}_std_d{m}((const uint{m}_t *)src, {w}, (uint{m}_t *)regs);"
                    ),
                    format!(
                        "nkp_V_out_u{m}_std_d{m}((const uint{m}_t *)regs, {w}, (uint{m}_t *)dst);"
                    ),
                    w * m as usize / 8,
                )
            } else {
                (
                    format!("nkp_V_in_u{m}_{a}((const uint{m}_t *)src, {w}, regs);"),
                    format!("nkp_V_out_u{m}_{a}(regs, {w}, (uint{m}_t *)dst);"),
                    w * r,
                )
            };
            v.push(Case {
                label: format!("-V u{m}x{w}"),
                call_in: cin,
                call_out: cout,
                chunk_bytes: inst * w * m as usize / 8,
                reg_bytes: rb,
                routine: (Slicing::V, m),
            });
        }
    }
    // Bitslice: 16-byte bit strings (AES b8[16]), u16x4 (RECTANGLE), u32x4 (Serpent), 33-byte
    // bit strings (Subterranean: four whole 64-bit groups and a partial one), u64x5 (Ascon,
    // ACE: 40 bytes), 20-byte bit strings (Spongent), u32x12 (Gimli, Xoodoo: 48 bytes).
    let inst = tp::instances(arch, Slicing::B, 1);
    for (ub, units, what) in [
        (8u32, 16usize, "b8[16]"),
        (16, 4, "u16x4"),
        (32, 4, "u32x4"),
        (64, 2, "u64x2"),
        (8, 33, "b8[33]"),
        (64, 5, "u64x5"),
        (8, 20, "b8[20]"),
        (32, 12, "u32x12"),
    ] {
        let bits = ub as usize * units;
        v.push(Case {
            label: format!("-B {what}"),
            call_in: format!("nkp_B_in_u{ub}_{a}((const uint{ub}_t *)src, {units}, {bits}, regs);"),
            call_out: format!("nkp_B_out_u{ub}_{a}(regs, {units}, {bits}, (uint{ub}_t *)dst);"),
            chunk_bytes: inst * bits / 8,
            reg_bytes: bits * r,
            routine: (Slicing::B, ub),
        });
    }
    // Hslice: u16x4 (RECTANGLE), u16x8 (AES planes / const rk), u8x16, u32x12 (Gimli,
    // Xoodoo), u64x5 (Ascon).
    for (m, w) in [(16u32, 4usize), (16, 8), (8, 16), (32, 12), (64, 5)] {
        let step = tp::instances(arch, Slicing::H, m) * tp::h_calls_per_block(arch, m);
        let nc = tp::h_calls_per_block(arch, m);
        v.push(Case {
            label: format!("-H u{m}x{w}"),
            call_in: format!("nkp_H_in_u{m}_{a}_m{m}((const uint{m}_t *)src, {w}, {w}, regs);"),
            call_out: format!("nkp_H_out_u{m}_{a}_m{m}(regs, {w}, {w}, (uint{m}_t *)dst);"),
            chunk_bytes: step * w * m as usize / 8,
            reg_bytes: nc * w * r,
            routine: (Slicing::H, m),
        });
    }
    v
}

/// The translation units the cases are timed from: case `i` goes to unit `k` when `k` cases
/// of its routine family come before it. So no unit calls one `static` routine with two sets of
/// arguments, and the C compiler specialises each routine to its case's constant sizes, as it
/// does in a generated file with one parameter of that layout. (In one unit the three 8-bit
/// bit strings shared one unspecialised `nkp_B_in_u8`: `b8[16]` read 0.27 c/B in, against 0.20
/// specialised, on Zen 3.)
fn units(cases: &[Case]) -> Vec<Vec<usize>> {
    let mut units: Vec<Vec<usize>> = Vec::new();
    for (i, k) in cases.iter().enumerate() {
        let rank = cases[..i].iter().filter(|c| c.routine == k.routine).count();
        if units.len() <= rank {
            units.resize(rank + 1, Vec::new());
        }
        units[rank].push(i);
    }
    units
}

/// One unit: the routines of its cases' families (each family's text brings what it uses;
/// include guards drop repeats) and the timing functions `nkb_in<i>` / `nkb_out<i>` of the
/// cases `idx`.
fn unit_program(arch: Arch, cases: &[Case], idx: &[usize]) -> String {
    let mut c = String::from("#include <x86intrin.h>\n");
    c.push_str(&tp::common());
    for &i in idx {
        c.push_str(&match cases[i].routine {
            (Slicing::V, m) => tp::v_routines(arch, m, m),
            (Slicing::B, _) => tp::b_routines(arch),
            (_, m) => tp::h_routines(arch, m),
        });
    }
    let attr = tp::target_attr(arch);
    c.push_str("extern unsigned char *src, *dst, *regs;\n");
    c.push_str("#define NKB_CLOB(p) __asm__ __volatile__(\"\" : : \"r\"(p) : \"memory\")\n");
    for &i in idx {
        let k = &cases[i];
        let chunks = (64 * 1024) / k.chunk_bytes.max(1);
        c.push_str(&format!(
            "{attr} uint64_t nkb_in{i}(void) {{ _mm_lfence(); uint64_t t0 = __rdtsc();\n    for (size_t s = 0; s < {chunks}; s++) {{ const unsigned char *sp = src + s * {cb}; {call}; NKB_CLOB(regs); }}\n    _mm_lfence(); return __rdtsc() - t0; }}\n",
            cb = k.chunk_bytes,
            call = k.call_in.replace("src,", "sp,").replace("src)", "sp)").replace("(const uint8_t *)src", "sp")
        ));
        c.push_str(&format!(
            "{attr} uint64_t nkb_out{i}(void) {{ _mm_lfence(); uint64_t t0 = __rdtsc();\n    for (size_t s = 0; s < {chunks}; s++) {{ unsigned char *dp = dst + s * {cb}; NKB_CLOB(regs); {call}; NKB_CLOB(dp); }}\n    _mm_lfence(); return __rdtsc() - t0; }}\n",
            cb = k.chunk_bytes,
            call = k.call_out.replace("*)dst)", "*)dp)")
        ));
    }
    c
}

/// Rounds of the A/B timing program: each round times every case, A's and B's windows
/// alternating (`best2`: the two meet the same machine); a figure is the minimum over the
/// rounds.
const AB_ROUNDS: usize = 5;

/// The timing `main`: the buffers, the `memcpy` baseline and every case's minimum; with `ab`,
/// B's timing functions (`nkb_bin<i>` / `nkb_bout<i>`) too, in [`AB_ROUNDS`] rounds (`a k in
/// out` and `b k in out` lines).
fn main_program(cases: &[Case], ab: bool) -> String {
    let mut c = String::from(
        "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <x86intrin.h>\n",
    );
    c.push_str("#define NKB_BYTES (64 * 1024)\nunsigned char *src, *dst, *regs;\n");
    c.push_str("#define NKB_CLOB(p) __asm__ __volatile__(\"\" : : \"r\"(p) : \"memory\")\n");
    c.push_str("static uint64_t nkb_copy(void) { _mm_lfence(); uint64_t t0 = __rdtsc(); memcpy(dst, src, NKB_BYTES); NKB_CLOB(dst); _mm_lfence(); return __rdtsc() - t0; }\n");
    for i in 0..cases.len() {
        c.push_str(&format!(
            "uint64_t nkb_in{i}(void);\nuint64_t nkb_out{i}(void);\n"
        ));
        if ab {
            c.push_str(&format!(
                "uint64_t nkb_bin{i}(void);\nuint64_t nkb_bout{i}(void);\n"
            ));
        }
    }
    let max_regs = cases.iter().map(|k| k.reg_bytes).max().unwrap_or(64);
    c.push_str(&format!(
        "static uint64_t best(uint64_t (*f)(void), int w) {{ uint64_t b = ~(uint64_t)0; for (int i = 0; i < w; i++) {{ uint64_t t = f(); if (t < b) b = t; }} return b; }}\n\
         static __attribute__((unused)) void best2(uint64_t (*f)(void), uint64_t (*g)(void), int w, uint64_t *bf, uint64_t *bg) {{ *bf = *bg = ~(uint64_t)0; for (int i = 0; i < w; i++) {{ uint64_t t = f(); if (t < *bf) *bf = t; t = g(); if (t < *bg) *bg = t; }} }}\n\
         int main(int argc, char **argv) {{\n    int w = argc > 1 ? atoi(argv[1]) : 50;\n\
         \x20   src = aligned_alloc(64, NKB_BYTES); dst = aligned_alloc(64, NKB_BYTES); regs = aligned_alloc(64, {rb});\n\
         \x20   for (size_t i = 0; i < NKB_BYTES; i++) src[i] = (unsigned char)(i * 131 + 7);\n\
         \x20   memset(regs, 1, {rb});\n\
         \x20   printf(\"copy %.4f\\n\", (double)best(nkb_copy, w) / NKB_BYTES);\n",
        rb = max_regs.div_ceil(64) * 64
    ));
    let rounds = if ab { AB_ROUNDS } else { 1 };
    for _ in 0..rounds {
        for (i, k) in cases.iter().enumerate() {
            let bytes = (64 * 1024) / k.chunk_bytes.max(1) * k.chunk_bytes;
            if ab {
                // A's and B's windows alternate, so both meet the same machine.
                c.push_str(&format!(
                    "    {{ uint64_t ai, bi, ao, bo; best2(nkb_in{i}, nkb_bin{i}, w, &ai, &bi); best2(nkb_out{i}, nkb_bout{i}, w, &ao, &bo);\n      printf(\"a {i} %.4f %.4f\\nb {i} %.4f %.4f\\n\", (double)ai / {bytes}, (double)ao / {bytes}, (double)bi / {bytes}, (double)bo / {bytes}); }}\n"
                ));
            } else {
                c.push_str(&format!(
                    "    printf(\"case {i} %.4f %.4f\\n\", (double)best(nkb_in{i}, w) / {bytes}, (double)best(nkb_out{i}, w) / {bytes});\n"
                ));
            }
        }
    }
    c.push_str("    return 0;\n}\n");
    c
}

/// B's translation units for `--b-nakiri`: `bin` run as `bench transpose --arch A --quick`
/// with `NAKIRI_BENCH_KEEP_C` (which every build since stop 53 honours) leaves its timing
/// program's C in `dir`; its units, with their timing functions renamed `nkb_bin<i>` /
/// `nkb_bout<i>` (the routines are `static`), as (name, text). Its cases must be this build's
/// (the same number of timing functions).
fn b_units(
    arch: Arch,
    bin: &str,
    dir: &std::path::Path,
    ncases: usize,
) -> Result<Vec<(String, String)>, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    run_tool(
        Command::new(bin)
            .args(["bench", "transpose", "--quick", "--arch", arch.name()])
            .env("NAKIRI_BENCH_KEEP_C", dir),
    )
    .map_err(|e| format!("`{bin} bench transpose`: {e}"))?;
    let prefix = format!("transpose-{arch}-u");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(&prefix) && n.ends_with(".c"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    let mut timed = 0;
    for n in names {
        let text = std::fs::read_to_string(dir.join(&n)).map_err(|e| e.to_string())?;
        timed += text.matches(" uint64_t nkb_in").count();
        let text = text
            .replace(" uint64_t nkb_in", " uint64_t nkb_bin")
            .replace(" uint64_t nkb_out", " uint64_t nkb_bout");
        out.push((format!("b-{n}"), text));
    }
    if timed != ncases {
        return Err(format!(
            "`{bin}` times {timed} layouts on {arch}, this build {ncases}: the builds differ in their cases"
        ));
    }
    Ok(out)
}

/// Builds the timing program of `cases` in `dir` (the units compiled side by side, with B's
/// units `b` for `--b-nakiri`) and runs it with `windows`; its standard output.
fn build_and_run(
    arch: Arch,
    cases: &[Case],
    dir: &std::path::Path,
    windows: u32,
    b: Option<Vec<(String, String)>>,
) -> Result<String, String> {
    let keep = std::env::var_os("NAKIRI_BENCH_KEEP_C");
    let mut files = vec![("main.c".to_string(), main_program(cases, b.is_some()))];
    for (j, idx) in units(cases).iter().enumerate() {
        files.push((format!("u{j}.c"), unit_program(arch, cases, idx)));
    }
    files.extend(b.unwrap_or_default());
    for (name, text) in &files {
        let f = dir.join(name);
        std::fs::write(&f, text).map_err(|e| e.to_string())?;
        if let Some(keep) = &keep {
            // For reading the routines' assembly: the timing program is copied out.
            let _ = std::fs::copy(
                &f,
                std::path::Path::new(keep).join(format!("transpose-{}-{}", arch, name)),
            );
        }
    }
    // The units compile side by side (each is its routines' text: ~1-5 s of `cc`).
    let objs: Vec<std::path::PathBuf> = files[1..]
        .iter()
        .map(|(name, _)| dir.join(format!("{name}.o")))
        .collect();
    std::thread::scope(|sc| {
        let jobs: Vec<_> = files[1..]
            .iter()
            .zip(&objs)
            .map(|((name, _), obj)| {
                sc.spawn(move || {
                    run_tool(
                        Command::new(cc())
                            .args(["-O3", "-march=native", "-c"])
                            .arg(dir.join(name))
                            .arg("-o")
                            .arg(obj),
                    )
                })
            })
            .collect();
        jobs.into_iter().try_for_each(|j| {
            j.join()
                .unwrap_or_else(|_| Err("a compile thread panicked".into()))
                .map(drop)
        })
    })?;
    let exe = dir.join("t");
    run_tool(
        Command::new(cc())
            .args(["-O3", "-march=native"])
            .arg(dir.join("main.c"))
            .args(&objs)
            .arg("-o")
            .arg(&exe),
    )?;
    run_tool(Command::new(&exe).arg(windows.to_string()))
}

pub fn run(args: &[String]) -> i32 {
    let Ok((opts, rest)) = take_bench_opts(args) else {
        return 2;
    };
    if opts.runs > 1 {
        eprintln!("error: `--runs` is for `bench FILE`, `bench compare` and `bench ciphers`, not `bench transpose`");
        return 2;
    }
    let mut archs: Vec<Arch> = vec![Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512];
    let mut b_nakiri: Option<String> = None;
    let mut i = 0;
    while i < rest.len() {
        match rest[i].as_str() {
            "--b-nakiri" => {
                i += 1;
                match rest.get(i) {
                    Some(p) => b_nakiri = Some(p.clone()),
                    None => {
                        eprintln!("error: `--b-nakiri` needs the path of a nakiri binary");
                        return 2;
                    }
                }
            }
            "--arch" => {
                i += 1;
                match rest.get(i).and_then(|a| Arch::parse(a)) {
                    Some(a) => archs = vec![a],
                    None => {
                        eprintln!("error: `--arch` needs std, sse, avx2 or avx512");
                        return 2;
                    }
                }
            }
            a => {
                eprintln!("error: unknown option `{}` for `bench transpose`", a);
                return 2;
            }
        }
        i += 1;
    }
    let windows = if opts.quick {
        5
    } else {
        Effort::FULL.windows.min(200)
    };
    println!("nakiri bench transpose — the packed API's transpositions alone, TSC cycles per byte of plain data");
    println!("(64 KiB per run, minimum over {} runs; copy = memcpy of the same 64 KiB; in = plain -> registers, out = registers -> plain)\n", windows);
    if let Some(b) = &b_nakiri {
        println!("A = this build, B = `{b}`, timed in one program, {AB_ROUNDS} alternating rounds, minima; B/A = time of B / time of A\n");
        println!("| arch | layout | in A | in B | in B/A | out A | out B | out B/A | copy c/B |");
        println!("|---|---|---|---|---|---|---|---|---|");
    } else {
        println!("| arch | layout | in c/B | out c/B | copy c/B |");
        println!("|---|---|---|---|---|");
    }
    for arch in archs {
        if !arch.runs_here() || arch == Arch::Neon {
            println!("| {} | skipped (this CPU cannot run it) | | | |", arch);
            continue;
        }
        let cs = cases(arch);
        let dir = match Scratch::new("transpose") {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return 1;
            }
        };
        // B's routines: a build that cannot give them is an error, not a row.
        let b = match &b_nakiri {
            Some(bin) => match b_units(arch, bin, &dir.0.join("b"), cs.len()) {
                Ok(b) => Some(b),
                Err(e) => {
                    eprintln!("error: --b-nakiri: {e}");
                    return 1;
                }
            },
            None => None,
        };
        let res = build_and_run(arch, &cs, &dir.0, windows, b);
        match res {
            Err(e) => {
                println!(
                    "| {} | failed: {} | | | |",
                    arch,
                    e.lines().next().unwrap_or("")
                );
            }
            Ok(out) => {
                let mut copy = f64::NAN;
                // --b-nakiri: per case, the minima of A and of B over the rounds.
                let mut ab = vec![[f64::INFINITY; 4]; cs.len()];
                for l in out.lines() {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    match f.as_slice() {
                        ["copy", v] => copy = v.parse().unwrap_or(f64::NAN),
                        [t @ ("a" | "b"), k, vi, vo] => {
                            let k: usize = k.parse().unwrap_or(0);
                            let o = if *t == "a" { 0 } else { 2 };
                            for (j, v) in [vi, vo].iter().enumerate() {
                                let v: f64 = v.parse().unwrap_or(f64::NAN);
                                ab[k][o + j] = ab[k][o + j].min(v);
                            }
                        }
                        ["case", k, vi, vo] => {
                            let k: usize = k.parse().unwrap_or(0);
                            println!(
                                "| {} | {} | {} | {} | {:.3} |",
                                arch, cs[k].label, vi, vo, copy
                            );
                        }
                        _ => {}
                    }
                }
                if b_nakiri.is_some() {
                    for (k, [ai, ao, bi, bo]) in ab.iter().enumerate() {
                        println!(
                            "| {} | {} | {ai:.4} | {bi:.4} | {:.3} | {ao:.4} | {bo:.4} | {:.3} | {copy:.3} |",
                            arch,
                            cs[k].label,
                            bi / ai,
                            bo / ao
                        );
                    }
                }
            }
        }
    }
    0
}
