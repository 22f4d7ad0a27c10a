//! `nakiri bench`, the measuring instrument: the shape of what it prints (never timings: a
//! benchmark is not a test). The objdump parser and the bytes-per-call rule have unit tests in
//! `src/cli/bench/{asm,harness}.rs`.

mod common;

use std::process::Command;

fn nakiri(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nakiri")).args(args).current_dir(common::root()).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The widest SIMD target this CPU runs (sse/avx2), else std.
fn simd_arch() -> &'static str {
    let (_, out, _) = nakiri(&["targets"]);
    let runs = |a: &str| out.lines().any(|l| l.split_whitespace().next() == Some(a) && l.contains("runs here"));
    ["avx2", "sse"].into_iter().find(|a| runs(a)).unwrap_or("std")
}

/// Cells of the markdown table rows that start with `prefix`.
fn rows<'a>(out: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    out.lines().filter(|l| l.starts_with(prefix)).map(|l| l.trim_matches('|').split('|').map(|c| c.trim()).collect()).collect()
}

fn positive(cell: &str) -> f64 {
    let v: f64 = cell.trim_start_matches('~').parse().unwrap_or_else(|_| panic!("`{}` is not a number", cell));
    assert!(v.is_finite() && v > 0.0, "`{}` is not positive", cell);
    v
}

fn non_negative(cell: &str) -> f64 {
    let v: f64 = cell.trim_start_matches('~').parse().unwrap_or_else(|_| panic!("`{}` is not a number", cell));
    assert!(v.is_finite() && v >= 0.0, "`{}` is negative", cell);
    v
}

#[test]
fn bench_file_prints_raw_and_packed_rows() {
    let arch = simd_arch();
    let (code, out, err) = nakiri(&["bench", "ciphers/rectangle/rectangle.ua", "-V", "--arch", arch, "--quick"]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let ratio_line = out.lines().find(|l| l.contains("TSC/core-clock ratio")).expect("ratio line");
    let ratio = ratio_line.split("ratio ").nth(1).and_then(|r| r.split_whitespace().next()).unwrap();
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

#[test]
fn bench_compare_prints_both_and_the_ratio() {
    let (code, out, err) = nakiri(&["bench", "compare", "tests/in/table.ua", "-V", "--", "-B", "--quick"]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let a = rows(&out, "| A |");
    let b = rows(&out, "| B |");
    let ratio = rows(&out, "| B/A |");
    assert_eq!((a.len(), b.len(), ratio.len()), (1, 1, 1), "{}", out);
    let (ra, rb) = (positive(a[0][1]), positive(b[0][1]));
    let q = positive(ratio[0][1]);
    assert!((q - rb / ra).abs() <= 0.01 * q + 0.002, "B/A = {} but {} / {}", q, rb, ra);
}

#[test]
fn bench_errors_are_reported_not_panics() {
    let (code, _, err) = nakiri(&["bench", "no/such/file.ua", "--quick"]);
    assert_eq!(code, 1, "{}", err);
    assert!(err.contains("cannot read"), "{}", err);
    let (code, _, err) = nakiri(&["bench", "tests/diag/out_of_bounds_loop.ua", "--quick"]);
    assert_eq!(code, 1, "{}", err);
    assert!(err.contains("does not compile") && err.contains("out of bounds"), "{}", err);
    let (code, _, err) = nakiri(&["bench", "tests/in/table.ua", "--frobnicate"]);
    assert_eq!(code, 2, "{}", err);
    let (code, _, err) = nakiri(&["bench", "compare", "tests/in/table.ua", "-V"]);
    assert_eq!(code, 2, "{}", err);
    assert!(err.contains("--"), "{}", err);
    let (code, _, err) = nakiri(&["bench", "ciphers", "--slicing", "X"]);
    assert_eq!(code, 2, "{}", err);
}

/// `bench ciphers --json`: one JSON object per row with the required keys, numbers where
/// measured, and the peer rows (measured, or reported missing).
#[test]
fn bench_ciphers_json_rows_have_the_keys() {
    let (code, out, err) = nakiri(&["bench", "ciphers", "--json", "--quick", "--arch", "std", "--only", "gimli", "--slicing", "V"]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() >= 2, "{}", out);
    for l in &lines {
        assert!(l.starts_with('{') && l.ends_with('}'), "not one object per line: {}", l);
        for k in ["cipher", "slicing", "arch", "raw_cpb", "packed_cpb", "insns_per_block", "spills_per_block", "code_bytes", "peer", "peer_cpb"] {
            assert!(l.contains(&format!("\"{}\":", k)), "key `{}` missing in {}", k, l);
        }
    }
    let gimli: Vec<&&str> = lines.iter().filter(|l| l.contains("\"kind\":\"nakiri\"")).collect();
    assert_eq!(gimli.len(), 1, "{}", out);
    let g = gimli[0];
    assert!(g.contains("\"cipher\":\"Gimli\"") && g.contains("\"slicing\":\"V\"") && g.contains("\"arch\":\"std\""), "{}", g);
    let num = |key: &str| -> f64 {
        let rest = g.split(&format!("\"{}\":", key)).nth(1).unwrap();
        let v = rest.split([',', '}']).next().unwrap();
        v.parse().unwrap_or_else(|_| panic!("{} = `{}` in {}", key, v, g))
    };
    for k in ["raw_cpb", "packed_cpb", "insns_per_block", "code_bytes"] {
        assert!(num(k) > 0.0, "{} in {}", k, g);
    }
    assert!(num("spills_per_block") >= 0.0);
    // Gimli -V on std: the packed entry's kernel rule says no (`driver::packed_kernel`).
    assert_eq!(num("packed_kernel"), 1.0, "{}", g);
    // every peer is listed, measured or reported missing, never a crash
    let peers: Vec<&&str> = lines.iter().filter(|l| l.contains("\"kind\":\"peer\"")).collect();
    assert!(peers.len() >= 6, "{}", out);
    for p in peers {
        assert!(p.contains("\"status\":\"ok\"") || p.contains("missing (run scripts/install-peers.sh)"), "{}", p);
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
    assert_eq!(r.len(), 9 + 4 + 3, "V (4 word sizes x 2 widths, and u8x32), B (4), H (3) rows:\n{out}");
    for row in &r {
        assert!(["-V", "-B", "-H"].iter().any(|p| row[1].starts_with(p)), "{row:?}");
        for c in &row[2..5] {
            positive(c);
        }
    }
    let (code, out, _) = nakiri(&["bench", "transpose", "--arch", "bogus"]);
    assert_eq!(code, 2, "{out}");
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
