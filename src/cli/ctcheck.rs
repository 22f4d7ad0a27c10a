//! `nakiri ctcheck FILE.ua [-B|-V|-H] [--arch std] [--secret NAMES] [--all] [--cflags F]`:
//! constant time, checked rather than only argued.
//!
//! The program is compiled as usual (the C `nakiri compile` writes, with the interleaved
//! kernel behind the packed entry when there is one); a small C harness calls its packed entry
//! point on pseudo-random instances (one full step, or one step of the kernel, plus a
//! one-instance tail, so every code path runs) after marking the secret inputs *undefined* for valgrind's
//! memcheck (`VALGRIND_MAKE_MEM_UNDEFINED`, the technique of ctgrind and SUPERCOP's TIMECOP).
//! Memcheck then reports every conditional branch and every memory address computed from an
//! undefined — secret — value; each report is printed with its C file, line and source text.
//! Outputs are never printed (they depend on secrets by design); they are marked defined after
//! the call.
//!
//! Secret inputs: by default **every input, `const` ones included** (round keys are `const`
//! parameters and are secret); `--secret a,b` checks only those (the others are public
//! values, e.g. a nonce or a tweak). `--all` checks every shipped cipher (`ciphers/*/*.ua` that
//! is an entry point) in every slicing on `std` (other targets with `--arch`).
//!
//! Needs `valgrind` and its headers (Debian package `valgrind`; `scripts/install-deps.sh`).

use crate::codegen::{self, packed, Arch};
use crate::driver::{self, Config};
use crate::ir::Slicing;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One secret-dependent event memcheck reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leak {
    /// "branch" (conditional jump or move), "address" (memory index), or "other".
    pub kind: &'static str,
    /// The C file (as valgrind names it), line and function of the innermost frame in our code.
    pub file: String,
    pub line: usize,
    pub function: String,
    /// The C source line.
    pub text: String,
}

/// Result of checking one program.
#[derive(Clone, Debug)]
pub struct Report {
    pub leaks: Vec<Leak>,
    /// Instances the packed entry was run on.
    pub instances: usize,
    /// Inputs marked secret.
    pub secrets: Vec<String>,
}

/// Whether valgrind and its memcheck header are available.
pub fn valgrind_available() -> Result<(), String> {
    let ok = Command::new("valgrind")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        return Err("valgrind is not installed (scripts/install-deps.sh installs it: apt-get install valgrind)".into());
    }
    Ok(())
}

/// The C harness: calls `E__packed` on `n` pseudo-random instances with the secret inputs
/// marked undefined.
pub fn harness(lay: &packed::PackedLayout, header: &str, n: usize, secrets: &[String]) -> String {
    let e = &lay.entry;
    let mut s = String::new();
    s.push_str("#include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n#include <valgrind/memcheck.h>\n");
    s.push_str(&format!("#include \"{}\"\n", header));
    s.push_str("static uint64_t nk_rng = 0x9E3779B97F4A7C15ull;\n");
    s.push_str("static void nk_fill(void *p, size_t len) {\n    unsigned char *b = (unsigned char *)p;\n    for (size_t i = 0; i < len; i++) {\n        nk_rng = nk_rng * 6364136223846793005ull + 1442695040888963407ull;\n        b[i] = (unsigned char)(nk_rng >> 56);\n    }\n}\n");
    let mut decls = String::new();
    let mut body = String::new();
    let mut args = Vec::new();
    for (k, p) in lay.params.iter().enumerate() {
        let count = if p.is_const { p.elems } else { p.elems * n };
        let v = format!("nk_p{}", k);
        decls.push_str(&format!(
            "static {} {}[{}];\n",
            p.elem_type,
            v,
            count.max(1)
        ));
        if p.is_input {
            body.push_str(&format!("    nk_fill({v}, sizeof {v});\n"));
            if secrets.contains(&p.name) {
                body.push_str(&format!(
                    "    VALGRIND_MAKE_MEM_UNDEFINED({v}, sizeof {v}); /* secret: {} */\n",
                    p.name
                ));
            }
        }
        args.push(v);
    }
    s.push_str(&decls);
    s.push_str("int main(void) {\n");
    s.push_str(&body);
    s.push_str(&format!(
        "    {e}__packed({n}{}{});\n",
        if args.is_empty() { "" } else { ", " },
        args.join(", ")
    ));
    for (k, p) in lay.params.iter().enumerate() {
        if !p.is_input {
            s.push_str(&format!(
                "    VALGRIND_MAKE_MEM_DEFINED(nk_p{k}, sizeof nk_p{k});\n"
            ));
        }
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// Builds `c` (+ its header `h`, named `header`) with the harness in `dir` and runs it under
/// memcheck. `cflags` e.g. `["-O2"]`.
pub fn check_c(
    dir: &Path,
    c: &str,
    h: &str,
    header: &str,
    lay: &packed::PackedLayout,
    secrets: &[String],
    cflags: &[String],
) -> Result<Report, String> {
    check_c_steps(dir, c, h, header, lay, secrets, cflags, 1)
}

/// [`check_c`] on `steps` whole steps of the packed entry plus a one-instance tail (`steps` =
/// the factor of the interleaved kernel behind the packed entry, so that the kernel runs too).
#[allow(clippy::too_many_arguments)]
pub fn check_c_steps(
    dir: &Path,
    c: &str,
    h: &str,
    header: &str,
    lay: &packed::PackedLayout,
    secrets: &[String],
    cflags: &[String],
    steps: usize,
) -> Result<Report, String> {
    valgrind_available()?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let step = lay.step();
    let n = step * steps.max(1) + 1;
    let c_name = header
        .strip_suffix(".h")
        .map(|s| format!("{}.c", s))
        .unwrap_or_else(|| "entry.c".into());
    std::fs::write(dir.join(&c_name), c).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(header), h).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("ct_harness.c"), harness(lay, header, n, secrets))
        .map_err(|e| e.to_string())?;
    let exe = dir.join("ct_run");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(cflags)
        .args(["-g", "-o"])
        .arg(&exe)
        .arg(dir.join("ct_harness.c"))
        .arg(dir.join(&c_name))
        .output()
        .map_err(|e| format!("cannot run the C compiler `{}`: {}", cc, e))?;
    if !out.status.success() {
        return Err(format!(
            "the C compiler failed in {}:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let out = Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "--error-exitcode=99",
            "--track-origins=no",
            "--num-callers=12",
            "--error-limit=no",
            "--partial-loads-ok=yes",
        ])
        .arg(&exe)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run valgrind: {}", e))?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let leaks = parse_memcheck(&log, dir);
    if leaks.is_empty() && out.status.code() != Some(0) {
        return Err(format!(
            "the harness failed under valgrind (status {:?}):\n{}",
            out.status.code(),
            log
        ));
    }
    Ok(Report {
        leaks,
        instances: n,
        secrets: secrets.to_vec(),
    })
}

/// Memcheck's error blocks → leaks (one per kind and source line), located at the innermost
/// frame that has a file and line.
pub fn parse_memcheck(log: &str, dir: &Path) -> Vec<Leak> {
    let mut leaks: Vec<Leak> = Vec::new();
    let mut kind: Option<&'static str> = None;
    for raw in log.lines() {
        // "==123== message" -> "message"
        let l = match raw.find("== ") {
            Some(i) if raw.starts_with("==") => &raw[i + 3..],
            _ => continue,
        };
        let t = l.trim_start();
        if t.starts_with("Conditional jump or move depends on uninitialised") {
            kind = Some("branch");
        } else if t.starts_with("Use of uninitialised value of size") {
            kind = Some("address");
        } else if t.starts_with("Syscall param") || t.contains("uninitialised") {
            kind = Some("other");
        } else if let (Some(k), true) = (kind, t.starts_with("at ") || t.starts_with("by ")) {
            // "at 0x10A1B2: f__ (aes.c:123)"
            let Some(open) = t.rfind(" (") else { continue };
            let loc = t[open + 2..].trim_end_matches(')');
            let Some((file, line)) = loc.rsplit_once(':') else {
                continue;
            };
            let Ok(line) = line.parse::<usize>() else {
                continue;
            };
            let function = t
                .split(": ")
                .nth(1)
                .map(|f| f[..f.rfind(" (").unwrap_or(f.len())].to_string())
                .unwrap_or_default();
            let text = std::fs::read_to_string(dir.join(file))
                .ok()
                .and_then(|s| {
                    s.lines()
                        .nth(line.saturating_sub(1))
                        .map(|x| x.trim().to_string())
                })
                .unwrap_or_default();
            if !leaks
                .iter()
                .any(|x| x.kind == k && x.file == file && x.line == line)
            {
                leaks.push(Leak {
                    kind: k,
                    file: file.to_string(),
                    line,
                    function,
                    text,
                });
            }
            kind = None;
        } else if t.is_empty() {
            kind = None;
        }
    }
    leaks
}

fn scratch(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    std::env::temp_dir().join(format!(
        "nakiri-ctcheck-{}-{}-{}",
        std::process::id(),
        k,
        tag
    ))
}

/// Compiles `file` with `cfg` and checks it. `secrets`: None = every input.
pub fn check_file(
    file: &str,
    cfg: &Config,
    secrets: Option<&[String]>,
    cflags: &[String],
    keep: bool,
) -> Result<Report, String> {
    let text =
        super::read_source_file(file).map_err(|e| format!("cannot read `{}`: {}", file, e))?;
    let (front, prog) = driver::lower(file, &text, cfg, &super::FsLoader);
    let (Some(prog), Some(checked)) = (prog, front.checked.as_ref()) else {
        return Err(front.render_diags());
    };
    let lay =
        packed::layout(&prog, cfg.arch).map_err(|e| format!("no packed entry point: {}", e))?;
    let inputs: Vec<String> = lay
        .params
        .iter()
        .filter(|p| p.is_input)
        .map(|p| p.name.clone())
        .collect();
    let secrets: Vec<String> = match secrets {
        None => inputs.clone(),
        Some(names) => {
            for n in names {
                if !inputs.contains(n) {
                    return Err(format!(
                        "--secret: `{}` is not an input of the entry node (inputs: {})",
                        n,
                        inputs.join(", ")
                    ));
                }
            }
            names.to_vec()
        }
    };
    let header = "ct_entry.h";
    // The C `nakiri compile` writes, the interleaved kernel behind the packed entry included.
    let with = driver::companions(&checked.ir, &checked.loop_hints, &prog, cfg);
    let mut ccfg = cfg.clone();
    ccfg.abi = codegen::AbiConfig::default();
    let out = driver::generate(
        &prog,
        &with,
        &ccfg,
        header,
        format!("nakiri ctcheck {}", file),
        false,
    )
    .map_err(|e| e.to_string())?;
    let steps = if out
        .c
        .contains(&format!("static NK_TARGET void {}x", lay.raw_fn))
    {
        with.kernel.as_ref().map_or(1, |k| k.interleave as usize)
    } else {
        1
    };
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = scratch(&format!("{}-{}", stem, cfg.slicing));
    let r = check_c_steps(&dir, &out.c, &out.h, header, &lay, &secrets, cflags, steps);
    if !keep && r.as_ref().map(|r| r.leaks.is_empty()).unwrap_or(false) {
        let _ = std::fs::remove_dir_all(&dir);
    } else if r.is_ok() {
        eprintln!(
            "note: the generated C and the harness are kept in {}",
            dir.display()
        );
    }
    r
}

fn print_report(what: &str, r: &Report) -> bool {
    if r.leaks.is_empty() {
        println!(
            "ok: {} — no branch or memory address depends on a secret ({} instances; secret: {})",
            what,
            r.instances,
            r.secrets.join(", ")
        );
        return true;
    }
    println!(
        "LEAK: {} — {} secret-dependent operation(s) (secret: {}):",
        what,
        r.leaks.len(),
        r.secrets.join(", ")
    );
    for l in &r.leaks {
        let k = match l.kind {
            "branch" => "branch on a secret",
            "address" => "memory address from a secret",
            _ => "secret reaches",
        };
        println!(
            "  {}:{}: {} in {}: {}",
            l.file, l.line, k, l.function, l.text
        );
    }
    false
}

/// The shipped ciphers' entry files (those that compile to a packed entry point).
pub fn shipped_ciphers() -> Vec<PathBuf> {
    let root = super::demo_path("ciphers");
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&root) {
        for d in rd.flatten() {
            if let Ok(files) = std::fs::read_dir(d.path()) {
                for f in files.flatten() {
                    let p = f.path();
                    if p.extension().map(|e| e == "ua").unwrap_or(false) {
                        v.push(p);
                    }
                }
            }
        }
    }
    v.sort();
    v
}

pub fn run(argv: &[String]) -> i32 {
    // Our own flags first; the rest are compile flags.
    let mut rest = Vec::new();
    let mut secrets: Option<Vec<String>> = None;
    let mut all = false;
    let mut keep = false;
    let mut cflags: Vec<String> = vec!["-O2".into()];
    let mut i = 0;
    while i < argv.len() {
        match argv[i].as_str() {
            "--secret" => {
                i += 1;
                match argv.get(i) {
                    Some(v) => {
                        secrets = Some(
                            v.split(',')
                                .map(|s| s.trim().to_string())
                                .filter(|s| !s.is_empty())
                                .collect(),
                        )
                    }
                    None => {
                        return super::usage_error(
                            "`--secret` needs a comma-separated list of input names",
                        )
                    }
                }
            }
            "--cflags" => {
                i += 1;
                match argv.get(i) {
                    Some(v) => cflags = v.split_whitespace().map(String::from).collect(),
                    None => {
                        return super::usage_error(
                            "`--cflags` needs the C compiler flags (e.g. \"-O3\")",
                        )
                    }
                }
            }
            "--all" => all = true,
            "--keep" => keep = true,
            _ => rest.push(argv[i].clone()),
        }
        i += 1;
    }
    if let Err(e) = valgrind_available() {
        eprintln!("error: {}", e);
        return 2;
    }
    if all {
        if secrets.is_some() {
            return super::usage_error(
                "`--all` checks every input of every cipher; `--secret` applies to one file",
            );
        }
        rest.push("ciphers/all".into()); // placeholder input for the flag parser
        let Ok((_, base)) = super::parse_compile_flags(&rest) else {
            return 2;
        };
        let slicings: Vec<Slicing> = if rest
            .iter()
            .any(|a| ["-B", "-V", "-H", "--bitslice", "--vslice", "--hslice"].contains(&a.as_str()))
        {
            vec![base.slicing]
        } else {
            vec![Slicing::B, Slicing::V, Slicing::H]
        };
        let mut failed = 0;
        let mut checked = 0;
        for f in shipped_ciphers() {
            let name = f.to_string_lossy().into_owned();
            for s in &slicings {
                let cfg = Config {
                    slicing: *s,
                    ..base.clone()
                };
                let what = format!("{} -{} --arch {}", name, s, cfg.arch);
                match check_file(&name, &cfg, None, &cflags, keep) {
                    Ok(r) => {
                        checked += 1;
                        if !print_report(&what, &r) {
                            failed += 1;
                        }
                    }
                    Err(e) => println!(
                        "skipped: {} ({})",
                        what,
                        e.lines()
                            .find(|l| l.starts_with("error"))
                            .unwrap_or(e.lines().next().unwrap_or(""))
                    ),
                }
            }
        }
        println!(
            "{} program(s) checked, {} with secret-dependent operations",
            checked, failed
        );
        return if failed == 0 && checked > 0 { 0 } else { 1 };
    }
    let Ok((file, cfg)) = super::parse_compile_flags(&rest) else {
        return 2;
    };
    if cfg.arch != Arch::Std && !cfg.arch.runs_here() {
        eprintln!(
            "error: this CPU cannot run {} code (valgrind runs it natively)",
            cfg.arch
        );
        return 2;
    }
    match check_file(&file, &cfg, secrets.as_deref(), &cflags, keep) {
        Ok(r) => {
            if print_report(
                &format!("{} -{} --arch {}", file, cfg.slicing, cfg.arch),
                &r,
            ) {
                0
            } else {
                1
            }
        }
        Err(e) => {
            eprintln!("error: {}", e.trim_end());
            1
        }
    }
}
