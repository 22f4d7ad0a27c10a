//! `nakiri demo [NAME]`: compiles a shipped cipher for the best target this CPU has, builds a
//! small C known-answer check around its packed API with the system C compiler (`$CC` or `cc`),
//! runs it and prints the result. The vectors are the published ones (FIPS-197, FIPS 46, RFC 8439).

use crate::codegen::Arch;
use crate::driver::{self, Config};
use crate::ir::Slicing;
use std::process::Command;

struct Demo {
    name: &'static str,
    file: &'static str,
    slicing: Slicing,
    what: &'static str,
    /// C body of `main`-side check; `ENTRY` is replaced by the entry name.
    check: &'static str,
}

const DEMOS: &[Demo] = &[
    Demo {
        name: "aes",
        file: "ciphers/aes/aes.ua",
        slicing: Slicing::B,
        what: "AES-128 encryption, FIPS-197 appendix C.1",
        check: r#"
    static const uint8_t key[16] = {0x00,0x01,0x02,0x03,0x04,0x05,0x06,0x07,0x08,0x09,0x0a,0x0b,0x0c,0x0d,0x0e,0x0f};
    static const uint8_t pt[16] = {0x00,0x11,0x22,0x33,0x44,0x55,0x66,0x77,0x88,0x99,0xaa,0xbb,0xcc,0xdd,0xee,0xff};
    static const uint8_t expect[16] = {0x69,0xc4,0xe0,0xd8,0x6a,0x7b,0x04,0x30,0xd8,0xcd,0xb7,0x80,0x70,0xb4,0xc5,0x5a};
    size_t n = N_BLOCKS;
    uint8_t *p = malloc(16 * n), *k = malloc(16 * n), *c = malloc(16 * n);
    for (size_t i = 0; i < n; i++) { memcpy(p + 16 * i, pt, 16); memcpy(k + 16 * i, key, 16); }
    double t0 = now();
    ENTRY__packed(n, p, k, c);
    double t1 = now();
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= memcmp(c + 16 * i, expect, 16) == 0;
    printf("ciphertext: "); for (int i = 0; i < 16; i++) printf("%02x", c[i]); printf("\n");
    printf("expected:   69c4e0d86a7b0430d8cdb78070b4c55a\n");
    report(ok, n, 16, t1 - t0);
"#,
    },
    Demo {
        name: "des",
        file: "ciphers/des/des.ua",
        slicing: Slicing::B,
        what: "DES, k=133457799BBCDFF1 p=0123456789ABCDEF",
        check: r#"
    static const uint8_t key[8] = {0x13,0x34,0x57,0x79,0x9b,0xbc,0xdf,0xf1};
    static const uint8_t pt[8] = {0x01,0x23,0x45,0x67,0x89,0xab,0xcd,0xef};
    static const uint8_t expect[8] = {0x85,0xe8,0x13,0x54,0x0f,0x0a,0xb4,0x05};
    size_t n = N_BLOCKS;
    uint8_t *p = malloc(8 * n), *k = malloc(8 * n), *c = malloc(8 * n);
    for (size_t i = 0; i < n; i++) { memcpy(p + 8 * i, pt, 8); memcpy(k + 8 * i, key, 8); }
    double t0 = now();
    ENTRY__packed(n, p, k, c);
    double t1 = now();
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= memcmp(c + 8 * i, expect, 8) == 0;
    printf("ciphertext: "); for (int i = 0; i < 8; i++) printf("%02x", c[i]); printf("\n");
    printf("expected:   85e813540f0ab405\n");
    report(ok, n, 8, t1 - t0);
"#,
    },
    Demo {
        name: "chacha20",
        file: "ciphers/chacha20/chacha20.ua",
        slicing: Slicing::V,
        what: "ChaCha20 block function, RFC 8439 section 2.3.2",
        check: r#"
    static const uint32_t in[16] = {0x61707865,0x3320646e,0x79622d32,0x6b206574,0x03020100,0x07060504,0x0b0a0908,0x0f0e0d0c,
        0x13121110,0x17161514,0x1b1a1918,0x1f1e1d1c,0x00000001,0x09000000,0x4a000000,0x00000000};
    static const uint32_t expect[16] = {0xe4e7f110,0x15593bd1,0x1fdd0f50,0xc47120a3,0xc7f4d1c7,0x0368c033,0x9aaa2204,0x4e6cd4c3,
        0x466482d2,0x09aa9f07,0x05d7c214,0xa2028bd9,0xd19c12b5,0xb94e16de,0xe883d0cb,0x4e3c50a2};
    size_t n = N_BLOCKS;
    uint32_t *s = malloc(64 * n), *o = malloc(64 * n);
    for (size_t i = 0; i < n; i++) memcpy(s + 16 * i, in, 64);
    double t0 = now();
    ENTRY__packed(n, s, o);
    double t1 = now();
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= memcmp(o + 16 * i, expect, 64) == 0;
    printf("first words: %08x %08x %08x %08x\n", o[0], o[1], o[2], o[3]);
    printf("expected:    e4e7f110 15593bd1 1fdd0f50 c47120a3\n");
    report(ok, n, 64, t1 - t0);
"#,
    },
];

const PRELUDE: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include "demo.h"
#define N_BLOCKS ((size_t)1 << 16)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void report(int ok, size_t n, size_t bytes, double secs) {
    printf("%zu blocks: %s\n", n, ok ? "all match the published vector" : "MISMATCH");
    printf("throughput: %.1f MB/s (%.2f ns/byte, one run)\n", n * bytes / secs / 1e6, secs * 1e9 / (n * bytes));
    printf("%s\n", ok ? "KAT PASSED" : "KAT FAILED");
}
int main(void) {
"#;

fn repo_path(rel: &str) -> std::path::PathBuf {
    let here = std::path::PathBuf::from(rel);
    if here.exists() {
        return here;
    }
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

pub fn best_arch() -> Arch {
    [Arch::Avx512, Arch::Avx2, Arch::Sse, Arch::Std]
        .into_iter()
        .find(|a| a.runs_here())
        .unwrap_or(Arch::Std)
}

pub fn run(args: &[String]) -> i32 {
    let name = args.first().map(|s| s.as_str()).unwrap_or("aes");
    let Some(demo) = DEMOS.iter().find(|d| d.name == name) else {
        eprintln!(
            "error: unknown demo `{}` (available: {})",
            name,
            DEMOS.iter().map(|d| d.name).collect::<Vec<_>>().join(", ")
        );
        return 2;
    };
    let arch = match args.iter().position(|a| a == "--arch" || a == "-arch") {
        Some(i) => match args.get(i + 1).and_then(|s| Arch::parse(s)) {
            Some(a) => a,
            None => {
                eprintln!("error: bad --arch");
                return 2;
            }
        },
        None => best_arch(),
    };
    let path = repo_path(demo.file);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {}", path.display(), e);
            return 1;
        }
    };
    println!(
        "nakiri demo: {} ({}), -{} --arch {}",
        demo.what, demo.file, demo.slicing, arch
    );
    let cfg = Config {
        slicing: demo.slicing,
        arch,
        flags_text: format!("-{} --arch {}", demo.slicing, arch),
        ..Config::default()
    };
    let t = std::time::Instant::now();
    let (front, out) = driver::compile(
        &path.to_string_lossy(),
        &text,
        &cfg,
        &super::FsLoader,
        "demo.h",
    );
    eprint!("{}", front.render_diags());
    let Some(out) = out else { return 1 };
    let (_, prog) = driver::lower(&path.to_string_lossy(), &text, &cfg, &super::FsLoader);
    let entry = prog.map(|p| p.entry().name.clone()).unwrap_or_default();
    println!(
        "compiled in {:.2?}: {} lines of C, entry `{}__packed`",
        t.elapsed(),
        out.c.lines().count(),
        entry
    );
    let dir = std::env::temp_dir().join(format!("nakiri-demo-{}-{}", name, std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let main_c = format!(
        "{}{}    return ok ? 0 : 1;\n}}\n",
        PRELUDE,
        demo.check.replace("ENTRY", &entry)
    );
    let write = std::fs::write(dir.join("demo.c"), &out.c)
        .and_then(|_| std::fs::write(dir.join("demo.h"), &out.h))
        .and_then(|_| std::fs::write(dir.join("main.c"), main_c));
    if let Err(e) = write {
        eprintln!("error: cannot write to {}: {}", dir.display(), e);
        return 1;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let exe = dir.join("demo");
    let t = std::time::Instant::now();
    let status = Command::new(&cc)
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(dir.join("demo.c"))
        .arg(dir.join("main.c"))
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(_) => {
            eprintln!(
                "error: the C compiler failed on the generated code (in {})",
                dir.display()
            );
            return 1;
        }
        Err(e) => {
            eprintln!(
                "error: cannot run the C compiler `{}`: {} (install gcc or clang, or set CC)",
                cc, e
            );
            return 1;
        }
    }
    println!("C compiled with `{} -O2` in {:.2?}", cc, t.elapsed());
    match Command::new(&exe).status() {
        Ok(s) if s.success() => {
            let _ = std::fs::remove_dir_all(&dir);
            0
        }
        _ => 1,
    }
}
