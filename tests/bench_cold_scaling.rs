//! `nakiri bench` additions for the autotuner: `--cold` (one block with evicted caches) and
//! `bench ciphers --scaling`: the shape of what they print (never timings).

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

#[test]
fn bench_compare_cold_times_one_block_of_each() {
    // BLAKE2s with the round loop kept (A) and unrolled (B): the cold line has both and B/A.
    let (code, out, err) = nakiri(&[
        "bench",
        "compare",
        "ciphers/blake2s/blake2s.ua",
        "-V",
        "--loops",
        "chains",
        "--",
        "-V",
        "--loops",
        "unroll",
        "--cold",
        "--quick",
    ]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let line = out
        .lines()
        .find(|l| l.starts_with("cold: "))
        .unwrap_or_else(|| panic!("no cold line:\n{}", out));
    let num = |key: &str| {
        line.split(key)
            .nth(1)
            .and_then(|r| {
                r.split(|c: char| c == ',' || c.is_whitespace())
                    .find(|s| !s.is_empty())
            })
            .unwrap_or_else(|| panic!("{} in {}", key, line))
            .to_string()
    };
    positive(&num(" A "));
    positive(&num(" B "));
    positive(&num("B/A "));
}

#[test]
fn bench_ciphers_scaling_has_a_row_per_slicing_and_the_speedups() {
    let (code, out, err) = nakiri(&[
        "bench",
        "ciphers",
        "--scaling",
        "--quick",
        "--only",
        "blake2s",
    ]);
    assert_eq!(code, 0, "{}\n{}", out, err);
    let header = rows(&out, "| cipher");
    assert_eq!(
        header[0],
        [
            "cipher",
            "slicing",
            "std",
            "sse",
            "avx2",
            "avx512",
            "sse/std",
            "avx2/std",
            "avx512/std",
            "avx2/sse"
        ]
    );
    let r = rows(&out, "| BLAKE2s");
    assert_eq!(r.len(), 1, "{}", out);
    positive(r[0][2]);
    for (k, arch) in [(3, "sse"), (4, "avx2"), (5, "avx512")] {
        let (_, t, _) = nakiri(&["targets"]);
        let here = t
            .lines()
            .any(|l| l.split_whitespace().next() == Some(arch) && l.contains("runs here"));
        if here {
            positive(r[0][k]);
            positive(r[0][k + 3]);
        } else {
            assert_eq!(r[0][k], "skipped");
            println!("skipped: {} column (CPU lacks it)", arch);
        }
    }
}
