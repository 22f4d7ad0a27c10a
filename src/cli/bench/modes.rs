//! `nakiri bench modes [--arch A] [--quick]`: the cipher library's mode helpers as a user calls
//! them — `chacha20_xor` (`ciphers/chacha20/chacha20_stream.c` over `chacha20.ua -V`) and
//! `aes128_ctr_xor` (`ciphers/aes/aes_ctr.c` over `aes_rk.ua -B` and `aes_keys.c`) — on 16 KiB and 1 MiB, next to
//! OpenSSL's `EVP_chacha20` (on the code path of the row's registers: AVX-512 masked for avx2
//! rows, and so on, as `bench ciphers` does) and `EVP_aes_128_ctr` with AES-NI masked (`OPENSSL_ia32cap`, bitsliced
//! `bsaes`), in TSC cycles per byte (minimum over windows). OpenSSL is linked dynamically
//! (`-lcrypto`); without its headers the peer columns print `-`.

use super::harness::{cc, run_tool, Scratch};
use super::take_bench_opts;
use crate::codegen::Arch;
use crate::driver::Config;
use crate::ir::Slicing;
use std::path::Path;
use std::process::Command;

const SIZES: [usize; 2] = [16 * 1024, 1024 * 1024];

const HARNESS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include "chacha20_stream.h"
#include "aes_ctr.h"
#ifdef NK_OPENSSL
#include <openssl/evp.h>
#endif
/* the same helper over aes_rk.ua -H (its object's symbols renamed with h_) */
void h_aes128_ctr_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t key[16], const uint8_t iv[16]);
static unsigned char *in, *out;
static const unsigned char key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const unsigned char iv[16] = {0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff};
#ifdef NK_OPENSSL
static EVP_CIPHER_CTX *cc_ctx, *ac_ctx;
#endif
static void run(int which, size_t len) {
    int outl = 0;
    switch (which) {
    case 0: chacha20_xor(out, in, len, key, iv, 1); break;
    case 1: aes128_ctr_xor(out, in, len, key, iv); break;
    case 4: h_aes128_ctr_xor(out, in, len, key, iv); break;
#ifdef NK_OPENSSL
    case 2: EVP_EncryptUpdate(cc_ctx, out, &outl, in, (int)len); break;
    case 3: EVP_EncryptUpdate(ac_ctx, out, &outl, in, (int)len); break;
#endif
    }
    (void)outl;
}
int main(int argc, char **argv) {
    int windows = argc > 1 ? atoi(argv[1]) : 30;
    in = malloc(SIZE_MAX_BYTES + 64); out = malloc(SIZE_MAX_BYTES + 64);
    for (size_t i = 0; i < SIZE_MAX_BYTES; i++) in[i] = (unsigned char)(i * 7 + 1);
    int whichs[5] = {0, 1, 4}, nw = 3;
#ifdef NK_OPENSSL
    unsigned char civ[16] = {1, 0, 0, 0};
    memcpy(civ + 4, iv, 12);
    cc_ctx = EVP_CIPHER_CTX_new(); EVP_EncryptInit_ex(cc_ctx, EVP_chacha20(), NULL, key, civ);
    ac_ctx = EVP_CIPHER_CTX_new(); EVP_EncryptInit_ex(ac_ctx, EVP_aes_128_ctr(), NULL, key, iv);
    whichs[3] = 2; whichs[4] = 3; nw = 5;
#endif
    static const size_t sizes[] = {SIZES};
    /* Calibrate every (helper, size) first, then take the windows round-robin over all of
       them, so that a slow stretch of this shared machine hits every row alike (the ratio of
       two rows is what is read). */
    enum { NSZ = sizeof sizes / sizeof sizes[0] };
    uint64_t calls[5][NSZ], best[5][NSZ];
    for (int wi = 0; wi < nw; wi++)
        for (size_t s = 0; s < NSZ; s++) {
            uint64_t c = 1;
            for (;;) {
                _mm_lfence(); uint64_t t0 = __rdtsc();
                for (uint64_t k = 0; k < c; k++) run(whichs[wi], sizes[s]);
                _mm_lfence(); if (__rdtsc() - t0 > 2000000 || c > (1u << 20)) break;
                c *= 2;
            }
            calls[wi][s] = c;
            best[wi][s] = ~(uint64_t)0;
        }
    for (int w = 0; w < windows; w++)
        for (int wi = 0; wi < nw; wi++)
            for (size_t s = 0; s < NSZ; s++) {
                _mm_lfence(); uint64_t t0 = __rdtsc(); _mm_lfence();
                for (uint64_t c = 0; c < calls[wi][s]; c++) run(whichs[wi], sizes[s]);
                _mm_lfence(); uint64_t t = __rdtsc() - t0;
                if (t < best[wi][s]) best[wi][s] = t;
            }
    for (int wi = 0; wi < nw; wi++)
        for (size_t s = 0; s < NSZ; s++)
            printf("row %d %zu %.4f %u\n", whichs[wi], sizes[s], (double)best[wi][s] / (double)calls[wi][s] / (double)sizes[s], (unsigned)out[sizes[s] / 2]);
    return 0;
}
"#;

fn build(dir: &Path, arch: Arch, openssl: bool) -> Result<std::path::PathBuf, String> {
    let root = super::super::demo_path("ciphers");
    let gen = |file: &str, slicing: Slicing, hname: &str| -> Result<(String, String), String> {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {}", path.display(), e))?;
        let cfg = Config {
            slicing,
            arch,
            ..Config::default()
        };
        let (front, out) = crate::driver::compile(
            &path.to_string_lossy(),
            &text,
            &cfg,
            &super::super::FsLoader,
            hname,
        );
        let out = out.ok_or_else(|| front.render_diags())?;
        Ok((out.c, out.h))
    };
    let (cc_c, cc_h) = gen("chacha20/chacha20.ua", Slicing::V, "chacha20.h")?;
    let (ac_c, ac_h) = gen("aes/aes_rk.ua", Slicing::B, "aes_rk.h")?;
    let copy = |rel: &str, name: &str| -> Result<(), String> {
        std::fs::copy(root.join(rel), dir.join(name))
            .map(|_| ())
            .map_err(|e| format!("{}: {}", rel, e))
    };
    for (n, t) in [
        ("chacha20.c", &cc_c),
        ("chacha20.h", &cc_h),
        ("aes_rk.c", &ac_c),
        ("aes_rk.h", &ac_h),
    ] {
        std::fs::write(dir.join(n), t).map_err(|e| e.to_string())?;
    }
    copy("chacha20/chacha20_stream.c", "chacha20_stream.c")?;
    copy("chacha20/chacha20_stream.h", "chacha20_stream.h")?;
    copy("aes/aes_ctr.c", "aes_ctr.c")?;
    copy("aes/aes_ctr.h", "aes_ctr.h")?;
    copy("aes/aes_keys.c", "aes_keys.c")?;
    copy("aes/aes_keys.h", "aes_keys.h")?;
    // The hslice build of the same helper, in its own folder (same file names), linked as one
    // object whose global symbols get the prefix h_.
    let hdir = dir.join("h");
    std::fs::create_dir_all(&hdir).map_err(|e| e.to_string())?;
    let (hc, hh) = gen("aes/aes_rk.ua", Slicing::H, "aes_rk.h")?;
    std::fs::write(hdir.join("aes_rk.c"), hc).map_err(|e| e.to_string())?;
    std::fs::write(hdir.join("aes_rk.h"), hh).map_err(|e| e.to_string())?;
    for f in ["aes_ctr.c", "aes_ctr.h", "aes_keys.c", "aes_keys.h"] {
        copy(&format!("aes/{}", f), &format!("h/{}", f))?;
    }
    run_tool(Command::new(cc()).current_dir(&hdir).args([
        "-O3",
        "-march=native",
        "-c",
        "aes_rk.c",
        "aes_keys.c",
        "aes_ctr.c",
    ]))?;
    run_tool(Command::new("ld").current_dir(&hdir).args([
        "-r",
        "-o",
        "h.o",
        "aes_rk.o",
        "aes_keys.o",
        "aes_ctr.o",
    ]))?;
    let nm = run_tool(
        Command::new("nm")
            .args(["-g", "--defined-only"])
            .arg(hdir.join("h.o")),
    )?;
    let renames: Vec<String> = nm
        .lines()
        .filter_map(
            |l| match l.split_whitespace().collect::<Vec<_>>().as_slice() {
                [_, _, name] => Some(format!("--redefine-sym={}=h_{}", name, name)),
                _ => None,
            },
        )
        .collect();
    run_tool(Command::new("objcopy").args(&renames).arg(hdir.join("h.o")))?;
    let sizes: Vec<String> = SIZES.iter().map(|s| s.to_string()).collect();
    let h = HARNESS
        .replace("SIZE_MAX_BYTES", &SIZES.iter().max().unwrap().to_string())
        .replace("{SIZES}", &format!("{{{}}}", sizes.join(", ")));
    std::fs::write(dir.join("main.c"), h).map_err(|e| e.to_string())?;
    let exe = dir.join("modes");
    let mut cmd = Command::new(cc());
    cmd.current_dir(dir)
        .args([
            "-O3",
            "-march=native",
            "main.c",
            "chacha20.c",
            "chacha20_stream.c",
            "aes_rk.c",
            "aes_keys.c",
            "aes_ctr.c",
            "h/h.o",
            "-o",
        ])
        .arg(&exe);
    if openssl {
        cmd.args(["-DNK_OPENSSL", "-lcrypto"]);
    }
    run_tool(&mut cmd)?;
    Ok(exe)
}

/// (kernel index, bytes, c/B) rows of one harness run.
type Rows = Vec<(usize, usize, f64)>;

fn parse(out: &str) -> Rows {
    out.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                ["row", w, len, v, _] => {
                    Some((w.parse().ok()?, len.parse().ok()?, v.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect()
}

pub fn run(args: &[String]) -> i32 {
    let Ok((opts, rest)) = take_bench_opts(args) else {
        return 2;
    };
    if opts.runs > 1 {
        eprintln!("error: `--runs` is for `bench FILE`, `bench compare` and `bench ciphers`, not `bench modes`");
        return 2;
    }
    let mut archs = vec![Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512];
    if rest.len() == 2 && rest[0] == "--arch" {
        match Arch::parse(&rest[1]) {
            Some(a) => archs = vec![a],
            None => {
                eprintln!("error: `--arch` needs std, sse, avx2 or avx512");
                return 2;
            }
        }
    } else if !rest.is_empty() {
        eprintln!("error: `bench modes` takes --arch A and --quick");
        return 2;
    }
    let windows = if opts.quick { 3 } else { 30 };
    let openssl = Path::new("/usr/include/openssl/evp.h").exists();
    println!("nakiri bench modes — mode helpers as called by a user, TSC cycles/byte (minimum over {} windows)", windows);
    println!("chacha20_xor: chacha20.ua -V; aes128_ctr_xor: aes_rk.ua -B and -H (round keys computed and sliced once per call); OpenSSL: EVP_chacha20 on the code path of the row's registers (OPENSSL_ia32cap, as in `bench ciphers`), EVP_aes_128_ctr with AES-NI masked (bsaes)\n");
    println!("| arch | size | chacha20_xor | OpenSSL ChaCha20 | ratio | aes128_ctr_xor -B | -H | OpenSSL bsaes CTR | ratio -B | ratio -H |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for arch in archs {
        if !arch.runs_here() || arch == Arch::Neon {
            println!(
                "| {} | skipped (this CPU cannot run it) | | | | | | | | |",
                arch
            );
            continue;
        }
        let res = (|| -> Result<(Rows, Rows, Rows), String> {
            let dir = Scratch::new("modes")?;
            let exe = build(&dir.0, arch, openssl)?;
            let a = parse(&run_tool(Command::new(&exe).arg(windows.to_string()))?);
            let b = if openssl {
                parse(&run_tool(
                    Command::new(&exe)
                        .arg(windows.to_string())
                        .env("OPENSSL_ia32cap", "~0x200000000000000"),
                )?)
            } else {
                vec![]
            };
            // ChaCha20 against OpenSSL's code path for this row's registers (its default
            // path is the widest the CPU has), in a process of its own
            let m = match super::peers::openssl_chacha_mask(arch) {
                Some(v) if openssl => parse(&run_tool(
                    Command::new(&exe)
                        .arg(windows.to_string())
                        .env("OPENSSL_ia32cap", v),
                )?),
                _ => a.clone(),
            };
            Ok((a, b, m))
        })();
        match res {
            Err(e) => println!(
                "| {} | failed: {} | | | | | | | | |",
                arch,
                e.lines().next().unwrap_or("")
            ),
            Ok((a, b, m)) => {
                let get = |v: &[(usize, usize, f64)], w: usize, len: usize| {
                    v.iter().find(|r| r.0 == w && r.1 == len).map(|r| r.2)
                };
                let f =
                    |x: Option<f64>| x.map(|v| format!("{:.3}", v)).unwrap_or_else(|| "-".into());
                let ratio = |x: Option<f64>, y: Option<f64>| match (x, y) {
                    (Some(x), Some(y)) if y > 0.0 => format!("{:.2}", x / y),
                    _ => "-".into(),
                };
                for len in SIZES {
                    let (c, oc) = (get(&m, 0, len), get(&m, 2, len));
                    // the AES rows next to bsaes come from the same (masked) process, whose windows
                    // alternate with bsaes's; without OpenSSL from the first one
                    let aes = if b.is_empty() { &a } else { &b };
                    let (ae, ob, ah) = (get(aes, 1, len), get(&b, 3, len), get(aes, 4, len));
                    let size = if len >= 1 << 20 {
                        format!("{} MiB", len >> 20)
                    } else {
                        format!("{} KiB", len >> 10)
                    };
                    println!(
                        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                        arch,
                        size,
                        f(c),
                        f(oc),
                        ratio(c, oc),
                        f(ae),
                        f(ah),
                        f(ob),
                        ratio(ae, ob),
                        ratio(ah, ob)
                    );
                }
            }
        }
    }
    0
}
