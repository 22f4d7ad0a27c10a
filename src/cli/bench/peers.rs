//! The peers: the same work done by libraries installed from Debian (`scripts/install-peers.sh`),
//! timed like nakiri's kernels (TSC ticks, minimum over windows, one call on `PACKED_BYTES`).
//!
//! - **OpenSSL** (libcrypto, linked statically from `libcrypto.a` so its internal function
//!   symbols are in the harness): ChaCha20 (`EVP_chacha20`) with each x86-64 code path selected
//!   through `OPENSSL_ia32cap` (one child process per setting: default = AVX2 `ChaCha20_8x`,
//!   AVX2 masked = SSSE3 `ChaCha20_4x`, SSSE3 masked = scalar `ChaCha20_ctr32`), and
//!   AES-128-CTR (`EVP_aes_128_ctr`) with AES-NI masked, which OpenSSL runs on its bitsliced
//!   `bsaes` code (`ossl_bsaes_ctr32_encrypt_blocks`).
//! - **libsodium**: `crypto_stream_chacha20_ietf_xor` (its own CPU dispatch).
//! - **Botan 2**: `BlockCipher::create("Serpent")->encrypt_n`, with `CPUID::clear_cpuid_bit`
//!   choosing AVX2, SSE2 (`simd`) or the portable code; `provider()` is printed.
//!
//! **Which code ran is verified, not assumed**: the C harnesses sample their own program counter
//! with a profiling timer (`SIGPROF`) while they are measured; the samples are mapped to
//! function symbols with `nm`, and the function with the most samples is reported in the
//! `path` column (e.g. `_bsaes_encrypt8_bitslice`, `ChaCha20_8x`). Botan reports `provider()`.

use super::harness::{cc, run_tool, Effort, Scratch, PACKED_BYTES};
use crate::codegen::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One peer measurement.
#[derive(Clone, Debug)]
pub struct PeerRow {
    /// Which cipher's rows it pairs with: `chacha20`, `aes`, `serpent`.
    pub cipher: &'static str,
    /// Library and code path asked for.
    pub name: String,
    /// The nakiri target doing comparable work (same register width), if any.
    pub arch: Option<Arch>,
    /// TSC cycles/byte, or why there is none.
    pub cpb: Result<f64, String>,
    /// The code that ran (hottest sampled function, or Botan's provider).
    pub path: String,
}

pub const MISSING: &str = "missing (run scripts/install-peers.sh)";

const SAMPLER_C: &str = r#"
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <x86intrin.h>
#define NK_MAXS 200000
static uintptr_t nk_samples[NK_MAXS];
static volatile int nk_ns;
static void nk_prof(int sig, siginfo_t *si, void *ctx) {
    (void)sig; (void)si;
    ucontext_t *uc = ctx;
    if (nk_ns < NK_MAXS) nk_samples[nk_ns++] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}
static void nk_sampling(int on) {
    struct itimerval it; memset(&it, 0, sizeof it);
    if (on) {
        struct sigaction sa; memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = nk_prof; sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigaction(SIGPROF, &sa, 0);
        it.it_interval.tv_usec = it.it_value.tv_usec = 250;
    }
    setitimer(ITIMER_PROF, &it, 0);
}
static int nk_cmp(const void *a, const void *b) { uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv);
static void nk_report_samples(void) {
    qsort(nk_samples, nk_ns, sizeof nk_samples[0], nk_cmp);
    printf("main %lx\n", (unsigned long)(uintptr_t)&main);
    for (int i = 0; i < nk_ns;) { int j = i; while (j < nk_ns && nk_samples[j] == nk_samples[i]) j++; printf("pc %lx %d\n", (unsigned long)nk_samples[i], j - i); i = j; }
}
static double nk_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static unsigned char *nk_buf(size_t n) { unsigned char *p = aligned_alloc(64, (n + 63) / 64 * 64); if (!p) abort(); for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131 + 7); return p; }
/* Runs `one()` in windows, returns the minimum ticks of one call. */
static double nk_time(void (*one)(void), int windows, double budget) {
    one();
    uint64_t best = ~(uint64_t)0;
    double start = nk_now();
    for (int w = 0; w < windows; w++) {
        _mm_lfence(); uint64_t t0 = __rdtsc(); _mm_lfence();
        one();
        _mm_lfence(); uint64_t t1 = __rdtsc(); _mm_lfence();
        if (t1 - t0 < best) best = t1 - t0;
        if (w >= 4 && nk_now() - start > budget) break;
    }
    /* Where the time goes: sample the program counter (the profiling timer ticks with the
       kernel's clock, a few ms) during 0.3 s more of calls. */
    nk_sampling(1);
    start = nk_now();
    while (nk_now() - start < 0.3) one();
    nk_sampling(0);
    return (double)best;
}
"#;

const OPENSSL_C: &str = r#"
#include <openssl/evp.h>
static EVP_CIPHER_CTX *ctx;
static unsigned char *in, *out;
static size_t len;
static void one(void) { int o = 0; if (!EVP_EncryptUpdate(ctx, out, &o, in, (int)len)) abort(); }
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    len = strtoull(argv[2], 0, 10);
    in = nk_buf(len); out = nk_buf(len + 64);
    unsigned char key[32], iv[16];
    for (int i = 0; i < 32; i++) key[i] = (unsigned char)(3 * i + 1);
    memset(iv, 0, sizeof iv);
    const EVP_CIPHER *c = strcmp(argv[1], "chacha20") == 0 ? EVP_chacha20() : EVP_aes_128_ctr();
    ctx = EVP_CIPHER_CTX_new();
    if (!ctx || !EVP_EncryptInit_ex(ctx, c, 0, key, iv)) { printf("error init\n"); return 1; }
    double t = nk_time(one, atoi(argv[3]), atof(argv[4]));
    printf("cpb %.4f\n", t / (double)len);
    nk_report_samples();
    return out[0] == 0x5a && out[1] == 0xa5 ? 3 : 0;
}
"#;

const SODIUM_C: &str = r#"
#include <sodium.h>
static unsigned char *in, *out, key[32], nonce[12];
static size_t len;
static void one(void) { crypto_stream_chacha20_ietf_xor(out, in, len, nonce, key); }
int main(int argc, char **argv) {
    if (argc < 5 || sodium_init() < 0) return 2;
    len = strtoull(argv[2], 0, 10);
    in = nk_buf(len); out = nk_buf(len);
    for (int i = 0; i < 32; i++) key[i] = (unsigned char)(5 * i + 3);
    double t = nk_time(one, atoi(argv[3]), atof(argv[4]));
    printf("cpb %.4f\n", t / (double)len);
    nk_report_samples();
    return out[0] == 0x5a && out[1] == 0xa5 ? 3 : 0;
}
"#;

const BOTAN_CPP: &str = r#"
#include <botan/block_cipher.h>
#include <botan/cpuid.h>
#include <x86intrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
int main(int argc, char **argv) {
    if (argc < 5) return 2;
    std::string path = argv[1];
    if (path == "sse2" || path == "base") Botan::CPUID::clear_cpuid_bit(Botan::CPUID::CPUID_AVX2_BIT);
    if (path == "base") Botan::CPUID::clear_cpuid_bit(Botan::CPUID::CPUID_SSE2_BIT);
    size_t len = std::strtoull(argv[2], 0, 10) / 16 * 16;
    int windows = std::atoi(argv[3]);
    double budget = std::atof(argv[4]);
    auto c = Botan::BlockCipher::create("Serpent");
    if (!c) { std::printf("error no Serpent\n"); return 1; }
    std::vector<uint8_t> key(16), in(len), out(len);
    for (size_t i = 0; i < len; i++) in[i] = (uint8_t)(i * 131 + 7);
    for (size_t i = 0; i < 16; i++) key[i] = (uint8_t)(3 * i + 1);
    c->set_key(key);
    c->encrypt_n(in.data(), out.data(), len / 16);
    uint64_t best = ~(uint64_t)0;
    auto start = std::chrono::steady_clock::now();
    for (int w = 0; w < windows; w++) {
        _mm_lfence(); uint64_t t0 = __rdtsc(); _mm_lfence();
        c->encrypt_n(in.data(), out.data(), len / 16);
        _mm_lfence(); uint64_t t1 = __rdtsc(); _mm_lfence();
        if (t1 - t0 < best) best = t1 - t0;
        if (w >= 4 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget) break;
    }
    std::printf("cpb %.4f\nprovider %s\n", (double)best / (double)len, c->provider().c_str());
    return out[0] == 0x5a && out[1] == 0xa5 ? 3 : 0;
}
"#;

fn header_exists(rel: &str) -> bool {
    [
        "/usr/include",
        "/usr/include/x86_64-linux-gnu",
        "/usr/local/include",
    ]
    .iter()
    .any(|d| Path::new(d).join(rel).exists())
}

fn static_lib(name: &str) -> Option<PathBuf> {
    [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ]
    .iter()
    .map(|d| Path::new(d).join(name))
    .find(|p| p.exists())
}

/// Builds a peer harness; `Err` (shown in the table) when a library is missing or fails to link.
fn build_c(
    dir: &Path,
    name: &str,
    src: &str,
    header: &str,
    lib_a: &str,
    lib_dyn: &str,
) -> Result<PathBuf, String> {
    if !header_exists(header) {
        return Err(MISSING.into());
    }
    let c = dir.join(format!("{}.c", name));
    std::fs::write(&c, format!("{}{}", SAMPLER_C, src)).map_err(|e| e.to_string())?;
    let exe = dir.join(name);
    let mut cmd = Command::new(cc());
    cmd.args(["-O2", "-march=native"])
        .arg(&c)
        .arg("-o")
        .arg(&exe);
    // Static: the library's internal function symbols end up in the harness, for the sampler.
    match static_lib(lib_a) {
        Some(a) => cmd.arg(a).args(["-pthread", "-ldl"]),
        None => cmd.arg(lib_dyn),
    };
    run_tool(&mut cmd).map_err(|e| format!("{} ({})", MISSING, e.lines().next().unwrap_or("")))?;
    Ok(exe)
}

fn build_botan(dir: &Path) -> Result<PathBuf, String> {
    if !header_exists("botan-2/botan/block_cipher.h") {
        return Err(MISSING.into());
    }
    let c = dir.join("peer_botan.cpp");
    std::fs::write(&c, BOTAN_CPP).map_err(|e| e.to_string())?;
    let exe = dir.join("peer_botan");
    let cxx = std::env::var("CXX")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "g++".into());
    run_tool(
        Command::new(cxx)
            .args([
                "-O2",
                "-march=native",
                "-std=c++17",
                "-I/usr/include/botan-2",
            ])
            .arg(&c)
            .arg("-o")
            .arg(&exe)
            .arg("-lbotan-2"),
    )
    .map_err(|e| format!("{} ({})", MISSING, e.lines().next().unwrap_or("")))?;
    Ok(exe)
}

/// Function symbols of an executable: (address, name), sorted.
fn symbols(exe: &Path) -> Vec<(u64, String)> {
    let Ok(out) = run_tool(Command::new("nm").arg("--defined-only").arg(exe)) else {
        return vec![];
    };
    let mut v: Vec<(u64, String)> = out
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() == 3 && ["t", "T", "W", "w"].contains(&f[1]) {
                Some((u64::from_str_radix(f[0], 16).ok()?, f[2].to_string()))
            } else {
                None
            }
        })
        .collect();
    v.sort();
    v
}

/// What the instructions of a function use: the widest vector registers, and AES-NI.
pub fn insn_kind(disassembly: &str) -> String {
    let width = if disassembly.contains("%zmm") {
        "zmm"
    } else if disassembly.contains("%ymm") {
        "ymm"
    } else if disassembly.contains("%xmm") {
        "xmm"
    } else {
        "general-purpose registers only"
    };
    if disassembly.contains("aesenc") {
        format!("{}, aesenc", width)
    } else {
        width.to_string()
    }
}

fn describe(exe: &Path, syms: &[(u64, String)], name: &str, addr: u64) -> String {
    let end = syms
        .iter()
        .map(|(a, _)| *a)
        .find(|a| *a > addr)
        .unwrap_or(addr + 4096);
    match run_tool(
        Command::new("objdump")
            .arg("-d")
            .arg(format!("--start-address=0x{:x}", addr))
            .arg(format!("--stop-address=0x{:x}", end))
            .arg(exe),
    ) {
        Ok(d) => format!("{}: {}", name, insn_kind(&d)),
        Err(_) => name.to_string(),
    }
}

/// The function with the most `pc` samples (and its share), from a harness's output.
pub fn hottest(out: &str, syms: &[(u64, String)]) -> Option<(String, f64)> {
    let main_rt = out
        .lines()
        .find_map(|l| l.strip_prefix("main "))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())?;
    let main_sym = syms.iter().find(|(_, n)| n == "main")?.0;
    let base = main_rt.checked_sub(main_sym)?;
    let mut per: std::collections::HashMap<String, u64> = Default::default();
    let mut total = 0;
    for l in out.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if let ["pc", pc, n] = f.as_slice() {
            let (Ok(pc), Ok(n)) = (u64::from_str_radix(pc, 16), n.parse::<u64>()) else {
                continue;
            };
            total += n;
            let off = pc.wrapping_sub(base);
            let name = match syms.partition_point(|(a, _)| *a <= off) {
                0 => "?".to_string(),
                k => format!("{}@{:x}", syms[k - 1].1, syms[k - 1].0),
            };
            *per.entry(name).or_default() += n;
        }
    }
    let (name, n) = per.into_iter().max_by_key(|(_, n)| *n)?;
    Some((name, n as f64 / total.max(1) as f64))
}

fn run_peer(
    exe: &Path,
    args: &[&str],
    env: Option<&str>,
    effort: Effort,
) -> (Result<f64, String>, String) {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .arg(PACKED_BYTES.to_string())
        .arg(effort.windows.to_string())
        .arg(format!("{}", effort.budget_s));
    cmd.env_remove("OPENSSL_ia32cap");
    if let Some(v) = env {
        cmd.env("OPENSSL_ia32cap", v);
    }
    let out = match run_tool(&mut cmd) {
        Ok(o) => o,
        Err(e) => {
            return (
                Err(e.lines().next().unwrap_or("failed").to_string()),
                String::new(),
            )
        }
    };
    let cpb = out
        .lines()
        .find_map(|l| l.strip_prefix("cpb "))
        .and_then(|v| v.trim().parse::<f64>().ok());
    let path = if let Some(p) = out.lines().find_map(|l| l.strip_prefix("provider ")) {
        format!("provider {}", p.trim())
    } else {
        let syms = symbols(exe);
        match hottest(&out, &syms) {
            Some((n, share)) => {
                let (name, addr) = n.rsplit_once('@').unwrap_or((&n, "0"));
                let addr = u64::from_str_radix(addr, 16).unwrap_or(0);
                format!(
                    "{} ({:.0}% of samples)",
                    describe(exe, &syms, name, addr),
                    share * 100.0
                )
            }
            None => "unknown (no samples)".into(),
        }
    };
    (
        cpb.filter(|c| *c > 0.0)
            .ok_or_else(|| "no result".to_string()),
        path,
    )
}

/// Builds and runs every peer (each OpenSSL/Botan code path in its own process).
/// [`measure_all`] `runs` times (at least once): each row's minimum cycles/byte.
pub fn measure_min(effort: Effort, runs: usize) -> Vec<PeerRow> {
    let mut best = measure_all(effort);
    for _ in 1..runs {
        for (b, r) in best.iter_mut().zip(measure_all(effort)) {
            if let (Ok(x), Ok(y)) = (&mut b.cpb, &r.cpb) {
                *x = x.min(*y);
            }
        }
    }
    best
}

pub fn measure_all(effort: Effort) -> Vec<PeerRow> {
    let mut rows = Vec::new();
    let dir = match Scratch::new("peers") {
        Ok(d) => d,
        Err(e) => {
            for (c, n) in [
                ("chacha20", "OpenSSL ChaCha20"),
                ("aes", "OpenSSL AES-128-CTR bsaes"),
                ("chacha20", "libsodium ChaCha20"),
                ("serpent", "Botan Serpent"),
            ] {
                rows.push(PeerRow {
                    cipher: c,
                    name: n.into(),
                    arch: None,
                    cpb: Err(e.clone()),
                    path: String::new(),
                });
            }
            return rows;
        }
    };
    let avx512 = Arch::Avx512.runs_here();
    let openssl = build_c(
        &dir.0,
        "peer_openssl",
        OPENSSL_C,
        "openssl/evp.h",
        "libcrypto.a",
        "-lcrypto",
    );
    // OPENSSL_ia32cap: "~A:~B" clears bits A of words 0-1 (CPUID.1 EDX:ECX) and B of words 2-3
    // (CPUID.7 EBX:ECX). Bit 41 = SSSE3, bit 57 = AES-NI; word 2 bit 5 = AVX2, 16 = AVX512F,
    // 31 = AVX512VL.
    // (cipher, peer name, mode, OPENSSL_ia32cap, the rows' registers)
    type Setting<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, Option<Arch>);
    let mut settings: Vec<Setting> = Vec::new();
    if avx512 {
        settings.push((
            "chacha20",
            "OpenSSL ChaCha20 (default)",
            "chacha20",
            None,
            Some(Arch::Avx512),
        ));
    }
    settings.extend([
        (
            "chacha20",
            "OpenSSL ChaCha20, AVX-512 masked",
            "chacha20",
            openssl_chacha_mask(Arch::Avx2),
            Some(Arch::Avx2),
        ),
        (
            "chacha20",
            "OpenSSL ChaCha20, AVX2 masked",
            "chacha20",
            openssl_chacha_mask(Arch::Sse),
            Some(Arch::Sse),
        ),
        (
            "chacha20",
            "OpenSSL ChaCha20, SSSE3 masked",
            "chacha20",
            openssl_chacha_mask(Arch::Std),
            Some(Arch::Std),
        ),
        (
            "aes",
            "OpenSSL AES-128-CTR, AES-NI masked (bsaes)",
            "aes128ctr",
            Some("~0x200000000000000"),
            None,
        ),
        (
            "aes",
            "OpenSSL AES-128-CTR, AES-NI (reference)",
            "aes128ctr",
            None,
            None,
        ),
    ]);
    for (cipher, name, mode, env, arch) in settings {
        let (cpb, path) = match &openssl {
            Ok(exe) => run_peer(exe, &[mode], env, effort),
            Err(e) => (Err(e.clone()), String::new()),
        };
        let name = match env {
            Some(v) => format!("{} [OPENSSL_ia32cap={}]", name, v),
            None => name.to_string(),
        };
        rows.push(PeerRow {
            cipher,
            name,
            arch,
            cpb,
            path,
        });
    }
    let sodium = build_c(
        &dir.0,
        "peer_sodium",
        SODIUM_C,
        "sodium.h",
        "libsodium.a",
        "-lsodium",
    );
    let (cpb, path) = match &sodium {
        Ok(exe) => run_peer(exe, &["chacha20"], None, effort),
        Err(e) => (Err(e.clone()), String::new()),
    };
    let best = [Arch::Avx512, Arch::Avx2, Arch::Sse, Arch::Std]
        .into_iter()
        .find(|a| a.runs_here());
    rows.push(PeerRow {
        cipher: "chacha20",
        name: "libsodium crypto_stream_chacha20_ietf_xor (its own dispatch)".into(),
        arch: best,
        cpb,
        path,
    });
    let botan = build_botan(&dir.0);
    for (setting, arch) in [
        ("avx2", Arch::Avx2),
        ("sse2", Arch::Sse),
        ("base", Arch::Std),
    ] {
        let (cpb, path) = match &botan {
            Ok(exe) => run_peer(exe, &[setting], None, effort),
            Err(e) => (Err(e.clone()), String::new()),
        };
        rows.push(PeerRow {
            cipher: "serpent",
            name: format!("Botan 2 Serpent, {}", setting),
            arch: Some(arch),
            cpb,
            path,
        });
    }
    rows
}

/// The peer a nakiri row of `cipher` on `arch` is compared with: the first measured one of the
/// same cipher on the same target, else (AES: bsaes is the only bitsliced peer) the first
/// measured one of the cipher that pairs with every target.
pub fn peer_for<'a>(peers: &'a [PeerRow], cipher: &str, arch: Arch) -> Option<&'a PeerRow> {
    peers
        .iter()
        .find(|p| p.cipher == cipher && p.arch == Some(arch) && p.cpb.is_ok())
        .or_else(|| {
            peers.iter().find(|p| {
                p.cipher == cipher && p.arch.is_none() && p.cpb.is_ok() && p.name.contains("bsaes")
            })
        })
}

/// `OPENSSL_ia32cap` that keeps OpenSSL's ChaCha20 on the registers of `arch` (bit 41 =
/// SSSE3 of words 0-1; word 2 bit 5 = AVX2, 16 = AVX512F, 31 = AVX512VL); `None`: its default
/// path (the widest the CPU has). Shared by `bench ciphers` and `bench modes`.
pub fn openssl_chacha_mask(arch: Arch) -> Option<&'static str> {
    match arch {
        Arch::Avx2 => Some(":~0x80010000"),
        Arch::Sse => Some(":~0x80010020"),
        Arch::Std => Some("~0x20000000000:~0x80010020"),
        _ => None,
    }
}
