//! `nakiri bench limits [--arch A] [--only NAMES] [--from FILE.json]... [-- COMPILE-FLAGS]`: the physical limit of every shipped
//! cipher × slicing × target, and how close the measured raw kernel gets to it.
//!
//! The limit is the issue bound of the optimised program's ALU operations: the instructions
//! one raw call executes (each IR operation at the instructions codegen emits for it, calls
//! and kept loops counted through; no loads, stores or spills), per byte of non-`const`
//! input, divided by the instructions the core can issue per cycle ([`issue_per_cycle`], by
//! the host's CPUID vendor, `Uarch::host`): on AMD (Zen 3 and Zen 4, this project's machines until
//! 2026-11-25) 4 on GP registers and on SSE/AVX2 (four integer ALUs, four vector pipes), 2 for
//! 512-bit operations (Zen 4 splits them over its four 256-bit pipes); on Intel (Golden Cove
//! server cores, the machine of 2026-11-26) 4 on GP registers (bitwise ops and adds on five
//! ports, shifts and rotates on two: 4 is the usual mix's bound), 3 on SSE/AVX2 (ports 0, 1,
//! 5) and 2 for 512-bit operations (ports 0 and 5).
//! Shift and shuffle ports (two on Zen 3) and dependency chains are not counted: no program
//! can run faster than this figure, most cannot reach it. Static: no process is run, so every
//! target is reported, AVX-512 too. With `--from` (`nakiri bench ciphers --json` files, the
//! first one holding a row wins) each
//! row also gets the measured raw c/B and limit / raw (1 = at the limit), the limit converted
//! to TSC cycles with the ratio measured in that run. Compile flags after `--` apply to every
//! row (e.g. `--disable ternlog`: what a pass saves, statically, where it cannot be timed).

use crate::driver::{self, Config};
use crate::ir::{Op, Program, Slicing};
use crate::target::{Arch, Uarch};

/// ALU instructions the modelled core issues per cycle on `arch`.
pub fn issue_per_cycle(arch: Arch, vendor: Uarch) -> f64 {
    match (arch, vendor) {
        (Arch::Avx512, _) => 2.0,
        (Arch::Sse | Arch::Avx2, Uarch::Intel) => 3.0,
        _ => 4.0,
    }
}

/// One row: ALU operations per byte and the limit in core cycles per byte.
pub struct Limit {
    pub ops_per_byte: f64,
    pub core_cpb: f64,
}

/// The limit of `file` compiled with the default flags in `slicing` for `arch`, or why not.
pub fn limit_of(
    file: &str,
    slicing: Slicing,
    arch: Arch,
    flags: &[String],
) -> Result<Limit, String> {
    let path = super::super::demo_path(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let cfg = if flags.is_empty() {
        Config {
            slicing,
            arch,
            ..Config::default()
        }
    } else {
        // The row's slicing and target after the user's flags, so that they win.
        let mut argv = vec![path.to_string_lossy().into_owned()];
        argv.extend_from_slice(flags);
        argv.extend([format!("-{slicing}"), "--arch".into(), arch.name().into()]);
        super::super::parse_compile_flags(&argv)
            .map_err(|_| "bad compile flags".to_string())?
            .1
    };
    // The resolved path, not `file`: `include`s are found next to it from any directory.
    let name = path.to_string_lossy();
    let (front, prog) = driver::lower(&name, &text, &cfg, &super::super::FsLoader);
    let prog = prog.ok_or_else(|| {
        front
            .render_diags()
            .lines()
            .next()
            .unwrap_or("does not compile")
            .to_string()
    })?;
    let e = crate::tune::estimate::estimate(&prog, arch);
    let bytes = e.instances as f64 * e.bytes_per_instance;
    if bytes <= 0.0 {
        return Err("no non-const input".into());
    }
    let ops_per_byte = emitted_work(&prog, &crate::target::Target::new(arch)) as f64 / bytes;
    Ok(Limit {
        ops_per_byte,
        core_cpb: ops_per_byte / issue_per_cycle(arch, Uarch::host()),
    })
}

/// Instructions one raw call executes, as the C is emitted: `opt::cost::node_work` at
/// `Target::emitted_cost` (a vslice rotation by whole bytes on SIMD is one byte shuffle), and
/// an hslice shift, rotation or shuffle on SIMD, which `Target::cost` charges as one
/// instruction, counts what codegen emits (`codegen::simd_h_insns`: several for 2- and 4-bit
/// slots).
fn emitted_work(prog: &Program, t: &crate::target::Target) -> u64 {
    let cost = |op: &Op, bits: u32| -> u64 {
        let c = t.emitted_cost(op, bits, prog.slicing).insns as u64;
        match op {
            _ if prog.slicing == Slicing::H => {
                crate::codegen::simd_h_insns(t.arch, bits, op).unwrap_or(c)
            }
            _ => c,
        }
    };
    crate::opt::cost::node_work_by(prog, prog.nodes.len() - 1, &cost, &mut Vec::new())
}

/// (raw c/B, TSC/core ratio) of a `bench ciphers --json` row, by cipher, slicing and arch.
fn measured(json: &str, cipher: &str, slicing: Slicing, arch: Arch) -> Option<(f64, f64)> {
    let field = |line: &str, key: &str| -> Option<String> {
        let pat = format!("\"{key}\":");
        let rest = &line[line.find(&pat)? + pat.len()..];
        let v = if let Some(r) = rest.strip_prefix('"') {
            &r[..r.find('"')?]
        } else {
            &rest[..rest.find([',', '}'])?]
        };
        Some(v.to_string())
    };
    json.lines()
        .filter(|l| l.contains("\"kind\":\"nakiri\""))
        .find_map(|l| {
            if field(l, "cipher")? != cipher
                || field(l, "slicing")? != slicing.to_string()
                || field(l, "arch")? != arch.name()
            {
                return None;
            }
            Some((
                field(l, "raw_cpb")?.parse().ok()?,
                field(l, "tsc_ratio")?.parse().ok()?,
            ))
        })
}

pub fn run(args: &[String]) -> i32 {
    let mut archs: Vec<Arch> = vec![Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512];
    let mut from: Vec<String> = Vec::new();
    let mut only: Option<Vec<String>> = None;
    let mut flags: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--" => {
                flags = args[i + 1..].to_vec();
                break;
            }
            "--arch" if i + 1 < args.len() => {
                match Arch::parse(&args[i + 1]) {
                    Some(a) => archs = vec![a],
                    None => {
                        eprintln!("error: unknown arch `{}`", args[i + 1]);
                        return 2;
                    }
                }
                i += 1;
            }
            "--only" if i + 1 < args.len() => {
                match super::ciphers::parse_only(&args[i + 1]) {
                    Ok(w) => only = Some(w),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return 2;
                    }
                }
                i += 1;
            }
            "--from" if i + 1 < args.len() => {
                from.push(args[i + 1].clone());
                i += 1;
            }
            a => {
                eprintln!("error: unknown option `{a}` for `bench limits` (usage: nakiri bench limits [--arch A] [--only NAMES] [--from FILE.json]... [-- COMPILE-FLAGS])");
                return 2;
            }
        }
        i += 1;
    }
    // Several runs: a row is taken from the first file that has it.
    let mut json: Option<String> = None;
    for f in &from {
        match std::fs::read_to_string(f) {
            Ok(t) => json.get_or_insert_with(String::new).push_str(&t),
            Err(e) => {
                eprintln!("error: {f}: {e}");
                return 1;
            }
        }
    }
    println!(
        "nakiri bench limits — the issue bound of each raw kernel's ALU operations (static){}",
        if flags.is_empty() {
            String::new()
        } else {
            format!("; compile flags: {}", flags.join(" "))
        }
    );
    println!("ops/B = instructions one raw call executes (no loads, stores or spills) per input byte; limit = ops/B / issue width ({}), in core cycles/byte", match Uarch::host() {
        Uarch::Intel => "Intel: 4 per cycle on std, 3 on sse/avx2, 2 for 512-bit operations",
        Uarch::Amd => "AMD: 4 per cycle on std/sse/avx2, 2 for 512-bit operations",
    });
    if !from.is_empty() {
        println!("measured raw c/B from {} (TSC; the first file with the row); limit in TSC c/B = core limit × that run's TSC/core ratio; limit/raw = fraction of the limit reached", from.join(", "));
    }
    println!();
    println!("| cipher | slicing | arch | ops/B | limit core c/B | limit TSC c/B | raw TSC c/B | limit/raw |");
    println!("|---|---|---|---|---|---|---|---|");
    // Each row lowers and optimises one program (the whole table: ~150 pipelines): the rows
    // are computed on every core, then printed in order.
    let archs = &archs;
    let rows: Vec<(&super::ciphers::Cipher, Slicing, Arch)> = super::ciphers::CIPHERS
        .iter()
        .filter(|c| super::ciphers::selected(c, &only))
        .flat_map(|c| {
            c.slicings
                .iter()
                .flat_map(move |&s| archs.iter().map(move |&a| (c, s, a)))
        })
        .collect();
    let limits = par_map(&rows, |&(c, s, arch)| limit_of(c.file, s, arch, &flags));
    for (&(c, s, arch), l) in rows.iter().zip(limits) {
        match l {
            Ok(l) => {
                let m = json.as_deref().and_then(|j| measured(j, c.name, s, arch));
                let (tsc, raw, frac) = match m {
                    Some((raw, ratio)) if ratio.is_finite() && ratio > 0.0 => {
                        let t = l.core_cpb * ratio;
                        (
                            format!("{t:.2}"),
                            format!("{raw:.2}"),
                            format!("{:.2}", t / raw),
                        )
                    }
                    _ => ("-".into(), "-".into(), "-".into()),
                };
                println!(
                    "| {} | -{} | {} | {:.2} | {:.2} | {} | {} | {} |",
                    c.name, s, arch, l.ops_per_byte, l.core_cpb, tsc, raw, frac
                );
            }
            Err(e) => println!("| {} | -{} | {} | FAILED: {} | | | | |", c.name, s, arch, e),
        }
    }
    0
}

/// `f` of every item, in order, computed on as many threads as the machine has cores (this
/// one and helpers with its large stack; if a helper cannot start, the others do its share).
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::with_capacity(items.len()));
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        done.lock().unwrap_or_else(|e| e.into_inner()).push((i, r));
    };
    std::thread::scope(|sc| {
        for _ in 1..workers {
            let _ = std::thread::Builder::new()
                .stack_size(512 << 20)
                .spawn_scoped(sc, work);
        }
        work();
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_width_follows_the_vendor() {
        let intel = Uarch::from_vendor("vendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)");
        let amd = Uarch::from_vendor("vendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC");
        assert_eq!(intel, Uarch::Intel);
        assert_eq!(amd, Uarch::Amd);
        assert_eq!(issue_per_cycle(Arch::Avx2, intel), 3.0);
        assert_eq!(issue_per_cycle(Arch::Sse, intel), 3.0);
        assert_eq!(issue_per_cycle(Arch::Avx2, amd), 4.0);
        assert_eq!(issue_per_cycle(Arch::Std, intel), 4.0);
        assert_eq!(issue_per_cycle(Arch::Avx512, intel), 2.0);
        assert_eq!(issue_per_cycle(Arch::Avx512, amd), 2.0);
    }
}
