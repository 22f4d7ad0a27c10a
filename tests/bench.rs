//! `nakiri bench`, the measuring instrument: the shape of what it prints (never timings: a
//! benchmark is not a test). The objdump parser and the bytes-per-call rule have unit tests in
//! `src/cli/bench/{asm,harness}.rs`.

mod common;

use std::process::Command;

fn nakiri(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args(args)
        .current_dir(common::root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The widest SIMD target this CPU runs (sse/avx2), else std.
fn simd_arch() -> &'static str {
    let (_, out, _) = nakiri(&["targets"]);
    let runs = |a: &str| {
        out.lines()
            .any(|l| l.split_whitespace().next() == Some(a) && l.contains("runs here"))
    };
    ["avx2", "sse"]
        .into_iter()
        .find(|a| runs(a))
        .unwrap_or("std")
}

/// Cells of the markdown table rows that start with `prefix`.
fn rows<'a>(out: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    out.lines()
        .filter(|l| l.starts_with(prefix))
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim()).collect())
        .collect()
}

fn positive(cell: &str) -> f64 {
    let v: f64 = cell
        .trim_start_matches('~')
        .parse()
        .unwrap_or_else(|_| panic!("`{}` is not a number", cell));
    assert!(v.is_finite() && v > 0.0, "`{}` is not positive", cell);
    v
}

fn non_negative(cell: &str) -> f64 {
    let v: f64 = cell
        .trim_start_matches('~')
        .parse()
        .unwrap_or_else(|_| panic!("`{}` is not a number", cell));
    assert!(v.is_finite() && v >= 0.0, "`{}` is negative", cell);
    v
}

#[test]
fn bench_file_prints_raw_and_packed_rows() {
    let arch = simd_arch();
    let (code, out, err) = nakiri(&[
        "bench",
        "ciphers/rectangle/rectangle.ua",
        "-V",
        "--arch",
        arch,
        "--quick",
        "--runs",
        "2",
    ]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let ratio_line = out
        .lines()
        .find(|l| l.contains("TSC/core-clock ratio"))
        .expect("ratio line");
    // `--runs 2`: the minimum over two processes' windows
    assert!(ratio_line.contains(" in 2 processes "), "{}", ratio_line);
    let ratio = ratio_line
        .split("ratio ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap();
    positive(ratio);
    let header = rows(&out, "| entry");
    assert_eq!(header.len(), 1);
    assert_eq!(header[0].len(), 9, "{:?}", header[0]);
    let raw = rows(&out, "| raw ");
    assert_eq!(raw.len(), 1, "{}", out);
    let r = &raw[0];
    let instances = positive(r[1]);
    // RECTANGLE: plain is u16x4 = 8 bytes per instance; the const key is not data
    assert_eq!(positive(r[2]), instances * 8.0, "bytes/call");
    positive(r[3]); // TSC cycles/byte
    positive(r[4]); // core cycles/byte
    positive(r[5]); // instructions per block
    non_negative(r[6]);
    non_negative(r[7]);
    positive(r[8]); // code bytes
    let packed = rows(&out, "| packed ");
    assert_eq!(packed.len(), 1, "{}", out);
    let p = &packed[0];
    assert_eq!(positive(p[2]), positive(p[1]) * 8.0);
    positive(p[3]);
    positive(p[4]);
}

/// Both variants and their ratio; with `--runs 3` two more processes, the second linking B's
/// objects first: their ratios, the geometric mean of the three runs' ratios, each variant's
/// minimum over the runs and the ratio of the minima. `--swap` is `--runs 2`.
#[test]
fn bench_compare_prints_both_and_the_ratio() {
    let compare = |runs: &str| {
        let mut args = vec![
            "bench",
            "compare",
            "tests/in/table.ua",
            "-V",
            "--",
            "-B",
            "--quick",
        ];
        args.extend(runs.split_whitespace());
        let (code, out, err) = nakiri(&args);
        assert_eq!(code, 0, "{}\n{}", out, err);
        out
    };
    let out = compare("--runs 3");
    let a = rows(&out, "| A |");
    let b = rows(&out, "| B |");
    let ratio = rows(&out, "| B/A |");
    assert_eq!((a.len(), b.len(), ratio.len()), (1, 1, 1), "{}", out);
    let (ra, rb) = (positive(a[0][1]), positive(b[0][1]));
    let q = positive(ratio[0][1]);
    assert!(
        (q - rb / ra).abs() <= 0.01 * q + 0.002,
        "B/A = {} but {} / {}",
        q,
        rb,
        ra
    );
    let second = rows(&out, "| B/A, run 2, B linked first |");
    let third = rows(&out, "| B/A, run 3 |");
    let mean = rows(&out, "| B/A, geometric mean |");
    let (min_a, min_b) = (
        rows(&out, "| A, minimum of 3 runs |"),
        rows(&out, "| B, minimum of 3 runs |"),
    );
    let of_minima = rows(&out, "| B/A, of the minima |");
    assert_eq!(
        [
            second.len(),
            third.len(),
            mean.len(),
            min_a.len(),
            min_b.len(),
            of_minima.len()
        ],
        [1; 6],
        "{}",
        out
    );
    let close = |x: f64, y: f64| (x - y).abs() <= 0.01 * y.abs() + 0.002;
    for col in [1, 2] {
        let (q1, q2, q3, m) = (
            positive(ratio[0][col]),
            positive(second[0][col]),
            positive(third[0][col]),
            positive(mean[0][col]),
        );
        assert!(
            close(m * m * m, q1 * q2 * q3),
            "column {}: mean {} of {}, {} and {}\n{}",
            col,
            m,
            q1,
            q2,
            q3,
            out
        );
        // each minimum is at most the first run's figure, and their ratio is printed
        let (ma, mb) = (positive(min_a[0][col]), positive(min_b[0][col]));
        assert!(
            ma <= positive(a[0][col]) && mb <= positive(b[0][col]),
            "{}",
            out
        );
        assert!(close(positive(of_minima[0][col]), mb / ma), "{}", out);
    }
    let out = compare("--swap");
    assert_eq!(
        (
            rows(&out, "| B/A, B linked first |").len(),
            rows(&out, "| B, minimum of 2 runs |").len()
        ),
        (1, 1),
        "{}",
        out
    );
    let (code, _, err) = nakiri(&[
        "bench",
        "compare",
        "tests/in/table.ua",
        "--",
        "-B",
        "--runs",
        "0",
    ]);
    assert_eq!(code, 2, "{}", err);
    assert!(err.contains("`--runs`"), "{}", err);
}

/// `--b-nakiri PATH`: variant B's C from another nakiri binary (here the same one, so both
/// variants are the same code: equal instruction counts and code size).
#[test]
fn bench_compare_against_another_nakiri_build() {
    let me = env!("CARGO_BIN_EXE_nakiri");
    let (code, out, err) = nakiri(&[
        "bench",
        "compare",
        "tests/in/table.ua",
        "-B",
        "--quick",
        "--",
        "-B",
        "--b-nakiri",
        me,
    ]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let (a, b) = (rows(&out, "| A |"), rows(&out, "| B |"));
    assert_eq!((a.len(), b.len()), (1, 1), "{}", out);
    assert_eq!(
        (a[0][3], a[0][6]),
        (b[0][3], b[0][6]),
        "same C: same instructions and code bytes\n{}",
        out
    );
    let (code, _, err) = nakiri(&[
        "bench",
        "compare",
        "tests/in/table.ua",
        "-B",
        "--",
        "-B",
        "--b-nakiri",
    ]);
    assert_eq!(code, 2, "{}", err);
    let (code, _, err) = nakiri(&[
        "bench",
        "compare",
        "tests/in/table.ua",
        "-B",
        "--quick",
        "--",
        "-B",
        "--b-nakiri",
        "/no/such/nakiri",
    ]);
    assert_eq!(code, 1, "{}", err);
    assert!(err.contains("cannot run"), "{}", err);
}

#[test]
fn bench_errors_are_reported_not_panics() {
    let (code, _, err) = nakiri(&["bench", "no/such/file.ua", "--quick"]);
    assert_eq!(code, 1, "{}", err);
    assert!(err.contains("cannot read"), "{}", err);
    let (code, _, err) = nakiri(&["bench", "tests/diag/out_of_bounds_loop.ua", "--quick"]);
    assert_eq!(code, 1, "{}", err);
    assert!(
        err.contains("does not compile") && err.contains("out of bounds"),
        "{}",
        err
    );
    let (code, _, err) = nakiri(&["bench", "tests/in/table.ua", "--frobnicate"]);
    assert_eq!(code, 2, "{}", err);
    let (code, _, err) = nakiri(&["bench", "compare", "tests/in/table.ua", "-V"]);
    assert_eq!(code, 2, "{}", err);
    assert!(err.contains("--"), "{}", err);
    let (code, _, err) = nakiri(&["bench", "ciphers", "--slicing", "X"]);
    assert_eq!(code, 2, "{}", err);
    // `--runs` where it does not apply is refused, not ignored
    for sub in ["transpose", "modes"] {
        let (code, _, err) = nakiri(&["bench", sub, "--quick", "--runs", "2"]);
        assert_eq!(code, 2, "{}", err);
        assert!(err.contains("`--runs`"), "{}", err);
    }
}

/// `bench ciphers --json`: one JSON object per row with the required keys, numbers where
/// measured, and the peer rows (measured, or reported missing).
#[test]
fn bench_ciphers_json_rows_have_the_keys() {
    let (code, out, err) = nakiri(&[
        "bench",
        "ciphers",
        "--json",
        "--quick",
        "--arch",
        "std",
        "--only",
        "gimli",
        "--slicing",
        "V",
    ]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() >= 2, "{}", out);
    for l in &lines {
        assert!(
            l.starts_with('{') && l.ends_with('}'),
            "not one object per line: {}",
            l
        );
        for k in [
            "cipher",
            "slicing",
            "arch",
            "raw_cpb",
            "packed_cpb",
            "insns_per_block",
            "spills_per_block",
            "code_bytes",
            "peer",
            "peer_cpb",
        ] {
            assert!(
                l.contains(&format!("\"{}\":", k)),
                "key `{}` missing in {}",
                k,
                l
            );
        }
    }
    let gimli: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("\"kind\":\"nakiri\""))
        .collect();
    assert_eq!(gimli.len(), 1, "{}", out);
    let g = gimli[0];
    assert!(
        g.contains("\"cipher\":\"Gimli\"")
            && g.contains("\"slicing\":\"V\"")
            && g.contains("\"arch\":\"std\""),
        "{}",
        g
    );
    let num = |key: &str| -> f64 {
        let rest = g.split(&format!("\"{}\":", key)).nth(1).unwrap();
        let v = rest.split([',', '}']).next().unwrap();
        v.parse()
            .unwrap_or_else(|_| panic!("{} = `{}` in {}", key, v, g))
    };
    for k in ["raw_cpb", "packed_cpb", "insns_per_block", "code_bytes"] {
        assert!(num(k) > 0.0, "{} in {}", k, g);
    }
    assert!(num("spills_per_block") >= 0.0);
    assert_eq!(num("processes"), 1.0, "{}", g);
    // Gimli -V on std: the packed entry's kernel rule says no (`driver::packed_kernel`).
    assert_eq!(num("packed_kernel"), 1.0, "{}", g);
    // every peer is listed, measured or reported missing, never a crash
    let peers: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("\"kind\":\"peer\""))
        .collect();
    assert!(peers.len() >= 6, "{}", out);
    for p in peers {
        assert!(
            p.contains("\"status\":\"ok\"") || p.contains("missing (run scripts/install-peers.sh)"),
            "{}",
            p
        );
    }
}

/// `bench transpose`: one row per layout with positive in/out/copy figures; an arch the CPU
/// lacks is a `skipped` row, not an error.
#[test]
fn bench_transpose_prints_every_layout() {
    let arch = simd_arch();
    let (code, out, err) = nakiri(&["bench", "transpose", "--quick", "--arch", arch]);
    assert_eq!(code, 0, "{err}");
    let r = rows(&out, &format!("| {arch} |"));
    assert_eq!(
        r.len(),
        9 + 8 + 5,
        "V (4 word sizes x 2 widths, and u8x32), B (8), H (5) rows:\n{out}"
    );
    for row in &r {
        assert!(
            ["-V", "-B", "-H"].iter().any(|p| row[1].starts_with(p)),
            "{row:?}"
        );
        for c in &row[2..5] {
            positive(c);
        }
    }
    let (code, out, _) = nakiri(&["bench", "transpose", "--arch", "bogus"]);
    assert_eq!(code, 2, "{out}");
}

/// `bench transpose --b-nakiri PATH`: the other build's routines timed in the same program.
/// Here B is this very binary, so every row has both builds' figures and their ratio (near
/// 1, not asserted: a timing); a path that is not a nakiri binary is an error.
#[test]
fn bench_transpose_against_another_build() {
    let arch = simd_arch();
    let me = env!("CARGO_BIN_EXE_nakiri");
    let (code, out, err) = nakiri(&[
        "bench",
        "transpose",
        "--quick",
        "--arch",
        arch,
        "--b-nakiri",
        me,
    ]);
    assert_eq!(code, 0, "{err}");
    let r = rows(&out, &format!("| {arch} |"));
    assert_eq!(r.len(), 9 + 8 + 5, "{out}");
    for row in &r {
        assert_eq!(row.len(), 9, "{row:?}");
        for c in &row[2..9] {
            positive(c);
        }
    }
    let (code, _, err) = nakiri(&[
        "bench",
        "transpose",
        "--quick",
        "--arch",
        arch,
        "--b-nakiri",
        "/nonexistent/nakiri",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--b-nakiri"), "{err}");
}

/// `bench limits`: every shipped cipher x slicing on every target (static, AVX-512 too). The
/// ChaCha20 counts are checked against RFC 8439's structure, not against nakiri: 10 double
/// rounds of 8 quarter rounds, each 4 additions, 4 XORs and 4 rotations, then 16 feed-forward
/// additions, on 64-byte blocks. On `std` a rotation is one instruction (one block per call:
/// 976 per 64 bytes); on AVX2 the rotations by 16 and 8 are one byte shuffle and those by 12
/// and 7 two shifts and an OR, each instruction on 8 blocks (1296 per 512 bytes). With
/// `--from` a run's raw figure and the fraction of the limit appear.
#[test]
fn bench_limits_counts_operations_per_byte() {
    let (code, out, err) = nakiri(&["bench", "limits"]);
    assert_eq!(code, 0, "{err}");
    let cha: Vec<Vec<&str>> = rows(&out, "| ChaCha20 | -V |");
    assert_eq!(cha.len(), 4, "{out}");
    let ops = |arch: &str| -> f64 {
        positive(
            cha.iter()
                .find(|r| r[2] == arch)
                .unwrap_or_else(|| panic!("no {arch} row:\n{out}"))[3],
        )
    };
    let std_expected = (10.0 * 8.0 * 12.0 + 16.0) / 64.0;
    let avx2_expected = (10.0 * 8.0 * (4.0 + 4.0 + 2.0 * 1.0 + 2.0 * 3.0) + 16.0) / (8.0 * 64.0);
    assert!(
        (ops("std") - std_expected).abs() < 0.01,
        "std {} vs {std_expected}",
        ops("std")
    );
    assert!(
        (ops("avx2") - avx2_expected).abs() < 0.01,
        "avx2 {} vs {avx2_expected}",
        ops("avx2")
    );
    // The limit is ops/B over 4 per cycle on avx2 on AMD, 3 on Intel (the host's vendor).
    let avx2 = cha.iter().find(|r| r[2] == "avx2").unwrap();
    let width = match nakiri::target::Uarch::host() {
        nakiri::target::Uarch::Intel => 3.0,
        nakiri::target::Uarch::Amd => 4.0,
    };
    assert!(
        (positive(avx2[4]) - avx2_expected / width).abs() < 0.01,
        "{avx2:?}"
    );
    // Every cipher x slicing x target has a row, none failed.
    assert!(!out.contains("FAILED"), "{out}");
    let n: usize = nakiri::cli::bench::ciphers::CIPHERS
        .iter()
        .map(|c| c.slicings.len())
        .sum();
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| cipher"))
            .count(),
        4 * n,
        "{out}"
    );
    // From a committed `bench ciphers` run: the measured raw figure and the fraction reached.
    let (code, out, err) = nakiri(&[
        "bench",
        "limits",
        "--arch",
        "avx2",
        "--from",
        "benches/ciphers-2026-11-23-lockstep.json",
    ]);
    assert_eq!(code, 0, "{err}");
    let r = rows(&out, "| ChaCha20 | -V | avx2 |");
    assert_eq!(r.len(), 1, "{out}");
    let (tsc, raw, frac) = (positive(r[0][5]), positive(r[0][6]), positive(r[0][7]));
    assert!((tsc / raw - frac).abs() < 0.02 && frac < 1.0, "{:?}", r[0]);
    // Compile flags after `--` apply to every row: without ternary-logic fusion, bitsliced
    // DES on AVX-512 executes more instructions per byte.
    // (`--only des`: DES's rows alone.)
    let des = |flags: &[&str]| -> f64 {
        let mut a = vec!["bench", "limits", "--arch", "avx512", "--only", "des"];
        a.extend_from_slice(flags);
        let (code, out, err) = nakiri(&a);
        assert_eq!(code, 0, "{err}");
        let table: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| cipher"))
            .collect();
        assert!(
            !table.is_empty() && table.iter().all(|l| l.starts_with("| DES |")),
            "--only des:\n{out}"
        );
        positive(rows(&out, "| DES | -B | avx512 |")[0][3])
    };
    let (with, without) = (des(&[]), des(&["--", "--disable", "ternlog"]));
    assert!(
        without > 1.2 * with,
        "ternlog: {with} ops/B with, {without} without"
    );
    let (code, _, _) = nakiri(&["bench", "limits", "--arch", "bogus"]);
    assert_eq!(code, 2);
    // From another directory too: AES const rk includes `aes_planes.ua`, found next to it
    // (it read "FAILED: cannot find included file" outside the repository until stop 42).
    let out = Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args(["bench", "limits", "--arch", "std", "--only", "aes"])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && !text.contains("FAILED"), "{text}");
    assert_eq!(
        rows(&text, "| AES-128 const rk | -V | std |").len(),
        1,
        "{text}"
    );
}

/// `bench modes`: per size, the two helpers (AES-CTR over both the -B and -H builds) with
/// positive figures; with OpenSSL's headers installed, its two peers and the ratios as well.
#[test]
fn bench_modes_prints_both_aes_builds() {
    let arch = simd_arch();
    let (code, out, err) = nakiri(&["bench", "modes", "--quick", "--arch", arch]);
    assert_eq!(code, 0, "{err}");
    let r = rows(&out, &format!("| {arch} |"));
    assert_eq!(r.len(), 2, "16 KiB and 1 MiB rows:\n{out}");
    let openssl = std::path::Path::new("/usr/include/openssl/evp.h").exists();
    for row in &r {
        assert_eq!(row.len(), 10, "{row:?}");
        for i in [2, 5, 6] {
            positive(row[i]);
        }
        if openssl {
            for i in [3, 4, 7, 8, 9] {
                positive(row[i]);
            }
        }
    }
}
