//! `nakiri bench ciphers [--json [FILE]] [--arch A] [--slicing S] [--only NAMES] [--quick]`:
//! every shipped cipher x slicing x target (`ciphers/README.md`), each timed like `nakiri bench
//! FILE` (default compile flags), then the peers (`peers`), and nakiri/peer ratios.
//!
//! Targets this CPU lacks are printed as `skipped`. `--json` prints one JSON object per row
//! (nakiri rows and peer rows, `kind` tells which) instead of the table; `--json FILE` writes
//! them to FILE and prints the table. `--only` keeps the ciphers whose name or file contains
//! one of the comma-separated words (`--only none`: peers only); `--quick` is a smoke run.

use super::harness::{self, Scratch};
use super::peers::{self, PeerRow};
use super::{fmt_num, take_bench_opts};
use crate::codegen::Arch;
use crate::driver::Config;
use crate::ir::Slicing;

/// A shipped cipher source: display name, file, slicings it supports, peer key.
pub struct Cipher {
    pub name: &'static str,
    pub file: &'static str,
    pub slicings: &'static [Slicing],
    pub peer: Option<&'static str>,
    /// Targets the source cannot be compiled for in some slicing (e.g. Serpent -H: std only).
    pub std_only: &'static [Slicing],
}

use Slicing::{B, H, V};

pub const CIPHERS: &[Cipher] = &[
    // aes.ua and aes_planes.ua take a key per instance and expand it per block: not the work of
    // AES-CTR under one key, so only aes_rk.ua (const round keys) is compared with bsaes.
    Cipher {
        name: "AES-128",
        file: "ciphers/aes/aes.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "AES-128 planes",
        file: "ciphers/aes/aes_planes.ua",
        slicings: &[H, V, B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "AES-128 const rk",
        file: "ciphers/aes/aes_rk.ua",
        slicings: &[H, V, B],
        peer: Some("aes"),
        std_only: &[],
    },
    Cipher {
        name: "DES",
        file: "ciphers/des/des.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "ChaCha20",
        file: "ciphers/chacha20/chacha20.ua",
        slicings: &[V, B],
        peer: Some("chacha20"),
        std_only: &[],
    },
    Cipher {
        name: "Gimli",
        file: "ciphers/gimli/gimli.ua",
        slicings: &[V, H, B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "Xoodoo[12]",
        file: "ciphers/xoodoo/xoodoo.ua",
        slicings: &[V, H, B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "Ascon p12",
        file: "ciphers/ascon/ascon.ua",
        slicings: &[V, H, B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "RECTANGLE-80",
        file: "ciphers/rectangle/rectangle.ua",
        slicings: &[V, H, B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "Serpent-128",
        file: "ciphers/serpent/serpent.ua",
        slicings: &[V, B],
        peer: Some("serpent"),
        std_only: &[],
    },
    Cipher {
        name: "PRESENT-80",
        file: "ciphers/present/present.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "GIFT-128",
        file: "ciphers/gift/gift.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "GIFT-128 fixsliced",
        file: "ciphers/gift/gift_v.ua",
        slicings: &[V],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "SKINNY-128-256",
        file: "ciphers/skinny128_256/skinny128_256.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "Pyjamask-128",
        file: "ciphers/pyjamask128/pyjamask128.ua",
        slicings: &[V, B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "Clyde-128",
        file: "ciphers/clyde128/clyde128.ua",
        slicings: &[V, B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "PHOTON-256",
        file: "ciphers/photon256/photon256.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "Spongent-pi[160]",
        file: "ciphers/spongent160/spongent160.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "Subterranean blank8",
        file: "ciphers/subterranean/subterranean.ua",
        slicings: &[B],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "BLAKE2s compress",
        file: "ciphers/blake2s/blake2s.ua",
        slicings: &[V],
        peer: None,
        std_only: &[],
    },
    Cipher {
        name: "ACE",
        file: "ciphers/ace/ace.ua",
        slicings: &[V, B],
        peer: None,
        std_only: &[],
    },
];

const ARCHS: [Arch; 4] = [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512];

/// What one nakiri row measured.
#[derive(Clone, Debug)]
pub struct Measured {
    pub raw_cpb: f64,
    pub packed_cpb: Option<f64>,
    pub insns_per_block: Option<f64>,
    pub spill_loads_per_block: Option<f64>,
    pub spill_stores_per_block: Option<f64>,
    pub code_bytes: Option<u64>,
    pub approx: bool,
    pub instances: usize,
    pub bytes_per_instance: f64,
    pub tsc_ratio: f64,
    /// Processes the figures are the minimum over (`--runs`).
    pub processes: usize,
    /// Interleaving factor of the kernel behind the packed entry (1: none).
    pub packed_kernel: u32,
}

pub struct Row {
    pub cipher: &'static str,
    pub file: &'static str,
    pub slicing: Slicing,
    pub arch: Arch,
    pub result: Result<Measured, String>,
    pub peer: Option<(String, f64)>,
}

fn measure_one(
    c: &Cipher,
    s: Slicing,
    arch: Arch,
    effort: harness::Effort,
    runs: usize,
) -> Result<Measured, String> {
    let path = super::super::demo_path(c.file);
    let file = path.to_string_lossy().into_owned();
    let cfg = Config {
        slicing: s,
        arch,
        flags_text: format!("-{} --arch {}", s, arch),
        ..Config::default()
    };
    let dir = Scratch::new("ciphers")?;
    let b = harness::build(&dir.0, "a", &file, &cfg)?;
    let run = harness::measure_min(&dir.0, &[&b], effort, runs)?;
    let t = &run.timings[0];
    let n = b.instances as f64;
    Ok(Measured {
        raw_cpb: t.raw_ticks / b.raw_bytes_per_call(),
        packed_cpb: match (t.packed_ticks, b.packed_bytes_per_call()) {
            (Some(pt), Some(pb)) => Some(pt / pb),
            _ => None,
        },
        insns_per_block: b.stats.as_ref().map(|s| s.insns / n),
        spill_loads_per_block: b.stats.as_ref().map(|s| s.spill_loads / n),
        spill_stores_per_block: b.stats.as_ref().map(|s| s.spill_stores / n),
        code_bytes: b.stats.as_ref().map(|s| s.code_bytes),
        approx: b.stats.as_ref().is_some_and(|s| s.approx),
        instances: b.instances,
        bytes_per_instance: b.bytes_per_instance,
        tsc_ratio: run.tsc_ratio,
        processes: run.processes,
        packed_kernel: b.packed_kernel,
    })
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{}", (x * 10000.0).round() / 10000.0),
        _ => "null".into(),
    }
}

/// One nakiri row as a JSON object (every key always present; `null` when not measured).
pub fn row_json(r: &Row, date: &str, machine: &str) -> String {
    let m = r.result.as_ref().ok();
    let spills = m.and_then(|m| Some(m.spill_loads_per_block? + m.spill_stores_per_block?));
    let status = match &r.result {
        Ok(_) => "ok".to_string(),
        Err(e) => e.lines().next().unwrap_or("").to_string(),
    };
    format!(
        "{{\"kind\":\"nakiri\",\"cipher\":{},\"file\":{},\"slicing\":{},\"arch\":{},\"status\":{},\"raw_cpb\":{},\"packed_cpb\":{},\"packed_kernel\":{},\"insns_per_block\":{},\"spills_per_block\":{},\"spill_loads_per_block\":{},\"spill_stores_per_block\":{},\"code_bytes\":{},\"counts_approx\":{},\"instances\":{},\"bytes_per_instance\":{},\"tsc_ratio\":{},\"processes\":{},\"peer\":{},\"peer_cpb\":{},\"raw_over_peer\":{},\"date\":{},\"machine\":{}}}",
        json_str(r.cipher),
        json_str(r.file),
        json_str(&r.slicing.to_string()),
        json_str(r.arch.name()),
        json_str(&status),
        json_num(m.map(|m| m.raw_cpb)),
        json_num(m.and_then(|m| m.packed_cpb)),
        m.map(|m| m.packed_kernel.to_string()).unwrap_or_else(|| "null".into()),
        json_num(m.and_then(|m| m.insns_per_block)),
        json_num(spills),
        json_num(m.and_then(|m| m.spill_loads_per_block)),
        json_num(m.and_then(|m| m.spill_stores_per_block)),
        m.and_then(|m| m.code_bytes).map(|c| c.to_string()).unwrap_or_else(|| "null".into()),
        m.is_some_and(|m| m.approx),
        m.map(|m| m.instances.to_string()).unwrap_or_else(|| "null".into()),
        json_num(m.map(|m| m.bytes_per_instance)),
        json_num(m.map(|m| m.tsc_ratio)),
        m.map_or("null".to_string(), |m| m.processes.to_string()),
        r.peer.as_ref().map(|p| json_str(&p.0)).unwrap_or_else(|| "null".into()),
        json_num(r.peer.as_ref().map(|p| p.1)),
        json_num(match (m, &r.peer) {
            (Some(m), Some(p)) => Some(m.raw_cpb / p.1),
            _ => None,
        }),
        json_str(date),
        json_str(machine),
    )
}

/// One peer as a JSON object with the same keys (nakiri's are `null`).
pub fn peer_json(p: &PeerRow, date: &str, machine: &str) -> String {
    format!(
        "{{\"kind\":\"peer\",\"cipher\":{},\"file\":null,\"slicing\":null,\"arch\":{},\"status\":{},\"raw_cpb\":null,\"packed_cpb\":null,\"insns_per_block\":null,\"spills_per_block\":null,\"code_bytes\":null,\"peer\":{},\"peer_cpb\":{},\"peer_path\":{},\"date\":{},\"machine\":{}}}",
        json_str(p.cipher),
        p.arch.map(|a| json_str(a.name())).unwrap_or_else(|| "null".into()),
        json_str(match &p.cpb {
            Ok(_) => "ok",
            Err(e) => e,
        }),
        json_str(&p.name),
        json_num(p.cpb.as_ref().ok().copied()),
        json_str(&p.path),
        json_str(date),
        json_str(machine),
    )
}

/// Today's UTC date, YYYY-MM-DD.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut days = (secs / 86400) as i64;
    let mut year = 1970;
    loop {
        let len = if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 {
            366
        } else {
            365
        };
        if days < len {
            break;
        }
        days -= len;
        year += 1;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let months = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let mut month = 0;
    while days >= months[month] {
        days -= months[month];
        month += 1;
    }
    format!("{:04}-{:02}-{:02}", year, month + 1, days + 1)
}

/// CPU model and core count.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    format!("{}, {} cores", model, cores)
}

/// `--only W1,W2,..` (lower-cased words): whether `c`'s name or file contains one of them
/// (`None`: every cipher). `bench ciphers` and `bench limits` share it.
pub fn selected(c: &Cipher, only: &Option<Vec<String>>) -> bool {
    only.as_ref().is_none_or(|o| {
        let (n, f) = (c.name.to_lowercase(), c.file.to_lowercase());
        o.iter()
            .any(|w| n.contains(w.as_str()) || f.contains(w.as_str()))
    })
}

/// Parses `--only`'s value: comma-separated words, lower-cased, empty ones dropped. A word
/// that selects no shipped cipher is an error (a misspelt name would otherwise give an empty
/// table after minutes of measuring peers).
pub fn parse_only(v: &str) -> Result<Vec<String>, String> {
    let words: Vec<String> = v
        .split(',')
        .map(|w| w.trim().to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return Err("`--only` needs a comma-separated list of names".into());
    }
    for w in &words {
        let one = Some(vec![w.clone()]);
        if !CIPHERS.iter().any(|c| selected(c, &one)) {
            let names: Vec<&str> = CIPHERS.iter().map(|c| c.name).collect();
            return Err(format!(
                "`--only {}`: no shipped cipher's name or file contains `{}` (names: {})",
                v,
                w,
                names.join(", ")
            ));
        }
    }
    Ok(words)
}

pub fn run(args: &[String]) -> i32 {
    let (opts, rest) = match take_bench_opts(args) {
        Ok(v) => v,
        Err(c) => return c,
    };
    let mut json: Option<Option<String>> = None;
    let mut archs: Vec<Arch> = ARCHS.to_vec();
    let mut slicings: Option<Vec<Slicing>> = None;
    let mut only: Option<Vec<String>> = None;
    let mut scaling = false;
    let mut i = 0;
    while i < rest.len() {
        let a = rest[i].as_str();
        let next = rest.get(i + 1).cloned();
        match a {
            "--json" => {
                if let Some(f) = next.filter(|f| !f.starts_with('-')) {
                    json = Some(Some(f));
                    i += 1;
                } else {
                    json = Some(None);
                }
            }
            "--arch" | "-arch" => match next.as_deref().and_then(Arch::parse) {
                Some(ar) => {
                    archs = vec![ar];
                    i += 1;
                }
                None => {
                    return super::super::usage_error("`--arch` takes std, sse, avx2 or avx512")
                }
            },
            "--slicing" => {
                let v: Option<Vec<Slicing>> = next.as_deref().map(|s| {
                    s.chars()
                        .filter_map(|c| match c {
                            'B' | 'b' => Some(B),
                            'V' | 'v' => Some(V),
                            'H' | 'h' => Some(H),
                            _ => None,
                        })
                        .collect()
                });
                match v.filter(|v| !v.is_empty()) {
                    Some(v) => {
                        slicings = Some(v);
                        i += 1;
                    }
                    None => {
                        return super::super::usage_error(
                            "`--slicing` takes B, V, H or a combination (BV)",
                        )
                    }
                }
            }
            "--scaling" => scaling = true,
            "--only" => match next {
                Some(v) => match parse_only(&v) {
                    Ok(w) => {
                        only = Some(w);
                        i += 1;
                    }
                    Err(e) => return super::super::usage_error(&e),
                },
                None => {
                    return super::super::usage_error(
                        "`--only` needs a comma-separated list of names",
                    )
                }
            },
            _ => {
                return super::super::usage_error(&format!(
                    "unknown option `{}` for `bench ciphers`",
                    a
                ))
            }
        }
        i += 1;
    }
    if let Some(Some(f)) = &json {
        if let Err(e) = super::super::check_writable(&[f]) {
            eprintln!("error: {}", e);
            return 1;
        }
    }
    let date = today();
    let machine = machine();
    let table = !matches!(json, Some(None));
    let mut rows: Vec<Row> = Vec::new();
    for c in CIPHERS {
        if !selected(c, &only) {
            continue;
        }
        for &s in c.slicings {
            if slicings.as_ref().is_some_and(|v| !v.contains(&s)) {
                continue;
            }
            for &arch in &archs {
                if arch == Arch::Neon {
                    continue;
                }
                let result = if arch != Arch::Std && !arch.runs_here() {
                    Err(format!("skipped: this CPU has no {}", arch))
                } else if c.std_only.contains(&s) && arch != Arch::Std {
                    Err("skipped: not generated for this target".into())
                } else {
                    eprintln!("measuring {} -{} {} ...", c.name, s, arch);
                    measure_one(c, s, arch, opts.effort, opts.runs)
                };
                rows.push(Row {
                    cipher: c.name,
                    file: c.file,
                    slicing: s,
                    arch,
                    result,
                    peer: None,
                });
            }
        }
    }
    if scaling {
        print_scaling(&rows, &date, &machine);
        return 0;
    }
    eprintln!("measuring the peers ...");
    let peers = peers::measure_min(opts.effort, opts.runs);
    for r in &mut rows {
        let key = CIPHERS
            .iter()
            .find(|c| c.file == r.file)
            .and_then(|c| c.peer);
        if let Some(p) = key.and_then(|k| peers::peer_for(&peers, k, r.arch)) {
            r.peer = p.cpb.as_ref().ok().map(|c| (p.name.clone(), *c));
        }
    }
    let mut lines: Vec<String> = rows.iter().map(|r| row_json(r, &date, &machine)).collect();
    lines.extend(peers.iter().map(|p| peer_json(p, &date, &machine)));
    match &json {
        Some(None) => {
            for l in &lines {
                println!("{}", l);
            }
        }
        Some(Some(f)) => {
            let text = lines.join("\n") + "\n";
            // Whole or not at all, like `compile`'s outputs (a read-only old file is replaced).
            if let Err(e) = super::super::write_files_atomically(&[(f.as_str(), text.as_bytes())]) {
                eprintln!("error: cannot write `{}`: {}", f, e);
                return 1;
            }
        }
        None => {}
    }
    if table {
        print_table(&rows, &peers, &date, &machine, opts.effort, opts.runs);
    }
    0
}

fn print_table(
    rows: &[Row],
    peers: &[PeerRow],
    date: &str,
    machine: &str,
    effort: harness::Effort,
    runs: usize,
) {
    let mut ratios: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.result.as_ref().ok().map(|m| m.tsc_ratio))
        .filter(|r| r.is_finite())
        .collect();
    ratios.sort_by(|a, b| a.total_cmp(b));
    let ratio = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "nakiri bench ciphers — {}, {}; cc -O3 -march=native, default flags",
        date, machine
    );
    println!(
        "TSC cycles/byte (minimum over up to {} windows{}); TSC/core-clock ratio {} (median over rows; core cycles = TSC / ratio)",
        effort.windows,
        if runs > 1 {
            format!(" in each of {} processes, peers too", runs)
        } else {
            String::new()
        },
        fmt_num(ratio, 3)
    );
    println!("raw = the sliced entry on data already in registers' layout; packed = E__packed on {} KiB of plain data; peers on the same {} KiB", harness::PACKED_BYTES / 1024, harness::PACKED_BYTES / 1024);
    println!("insns and spills (stack loads+stores) per block are static counts from objdump (~ = a loop counted once); ratio = nakiri / peer (< 1: nakiri faster)");
    println!();
    println!("| cipher | slicing | arch | raw c/B | packed c/B | insns/block | spills/block | code bytes | peer | peer c/B | raw/peer | packed/peer |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        match &r.result {
            Ok(m) => {
                let ap = if m.approx { "~" } else { "" };
                let spills = match (m.spill_loads_per_block, m.spill_stores_per_block) {
                    (Some(l), Some(s)) => format!("{}{}", ap, fmt_num(l + s, 1)),
                    _ => "-".into(),
                };
                let (pn, pc, rr, pr) = match &r.peer {
                    Some((n, c)) => (
                        short_peer(n),
                        fmt_num(*c, 2),
                        fmt_num(m.raw_cpb / c, 2),
                        m.packed_cpb
                            .map(|p| fmt_num(p / c, 2))
                            .unwrap_or_else(|| "-".into()),
                    ),
                    None => ("-".into(), "-".into(), "-".into(), "-".into()),
                };
                println!(
                    "| {} | -{} | {} | {} | {} | {}{} | {} | {} | {} | {} | {} | {} |",
                    r.cipher,
                    r.slicing,
                    r.arch,
                    fmt_num(m.raw_cpb, 2),
                    m.packed_cpb
                        .map(|p| fmt_num(p, 2))
                        .unwrap_or_else(|| "-".into()),
                    ap,
                    m.insns_per_block
                        .map(|v| fmt_num(v, 0))
                        .unwrap_or_else(|| "-".into()),
                    spills,
                    m.code_bytes
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| "-".into()),
                    pn,
                    pc,
                    rr,
                    pr
                );
            }
            Err(e) => {
                let msg = e.lines().next().unwrap_or("");
                let msg = if msg.starts_with("skipped") {
                    msg.to_string()
                } else {
                    format!("FAILED: {}", msg)
                };
                println!(
                    "| {} | -{} | {} | {} | | | | | | | | |",
                    r.cipher, r.slicing, r.arch, msg
                );
            }
        }
    }
    println!();
    println!("| peer | compared with | c/B | code that ran (sampled) |");
    println!("|---|---|---|---|");
    for p in peers {
        let with = match p.arch {
            Some(a) => format!("{} rows on {}", p.cipher, a),
            None if p.name.contains("bsaes") => format!("{} rows on every target", p.cipher),
            None => "(reference)".into(),
        };
        match &p.cpb {
            Ok(c) => println!(
                "| {} | {} | {} | {} |",
                p.name,
                with,
                fmt_num(*c, 2),
                p.path
            ),
            Err(e) => println!("| {} | {} | {} | |", p.name, with, e),
        }
    }
}

fn short_peer(n: &str) -> String {
    n.split(" [").next().unwrap_or(n).to_string()
}

/// `bench ciphers --scaling`: per cipher and slicing, raw cycles/byte on each target and the
/// speedup of each wider register over GP registers (std), as usubac's evaluation shows it.
fn print_scaling(rows: &[Row], date: &str, machine: &str) {
    println!(
        "nakiri bench ciphers --scaling — {}, {}; raw entry, TSC cycles/byte, default flags",
        date, machine
    );
    println!("speedup = std c/B / target c/B (> 1: the wider registers pay)");
    println!();
    println!("| cipher | slicing | std | sse | avx2 | avx512 | sse/std | avx2/std | avx512/std | avx2/sse |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut keys: Vec<(&str, Slicing)> = Vec::new();
    for r in rows {
        if !keys.contains(&(r.cipher, r.slicing)) {
            keys.push((r.cipher, r.slicing));
        }
    }
    for (c, s) in keys {
        let cpb = |a: Arch| -> Result<f64, String> {
            match rows
                .iter()
                .find(|r| r.cipher == c && r.slicing == s && r.arch == a)
                .map(|r| &r.result)
            {
                Some(Ok(m)) => Ok(m.raw_cpb),
                Some(Err(e)) if e.starts_with("skipped") => Err("skipped".into()),
                Some(Err(_)) => Err("failed".into()),
                None => Err("-".into()),
            }
        };
        let cell = |v: &Result<f64, String>| match v {
            Ok(x) => fmt_num(*x, 2),
            Err(e) => e.clone(),
        };
        let ratio = |a: &Result<f64, String>, b: &Result<f64, String>| match (a, b) {
            (Ok(a), Ok(b)) => fmt_num(a / b, 2),
            _ => "-".into(),
        };
        let [st, ss, av, a5] = [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512].map(cpb);
        println!(
            "| {} | -{} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c,
            s,
            cell(&st),
            cell(&ss),
            cell(&av),
            cell(&a5),
            ratio(&st, &ss),
            ratio(&st, &av),
            ratio(&st, &a5),
            ratio(&ss, &av)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_words_must_select_a_cipher() {
        assert_eq!(
            parse_only(" DES, xoodoo,"),
            Ok(vec!["des".to_string(), "xoodoo".to_string()])
        );
        // A word matches a name or a file, in any case: "planes" selects AES-128 planes.
        let planes = parse_only("Planes").unwrap();
        let chosen: Vec<&str> = CIPHERS
            .iter()
            .filter(|c| selected(c, &Some(planes.clone())))
            .map(|c| c.name)
            .collect();
        assert_eq!(chosen, ["AES-128 planes"]);
        let e = parse_only("des,nosuchcipher").unwrap_err();
        assert!(
            e.contains("`nosuchcipher`") && e.contains("Serpent-128"),
            "{e}"
        );
        assert!(parse_only(" , ").is_err());
    }
}
