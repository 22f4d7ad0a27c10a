//! The usubac compatibility corpus (`tests/compat/`, rules of `shared/spec/compat.md`).
//!
//! Each `NAME.ua` is compiled through the usubac command-line spelling (`nakiri -V -arch sse
//! -o out.c NAME.ua`) for every slicing and target it lists that this CPU runs, and, unless it
//! says `# native: no`, through `nakiri compile` too. `NAME.c` is a hand-written caller in the
//! usubac style: it includes nakiri's header, declares the entry with **usubac's exact
//! signature** (so a different ABI is a compile error), calls it on fixed inputs and checks the
//! outputs given in compat.md (measured on usubac) with `EXPECT`. It is built with
//! `-Wall -Wextra -Werror` against nakiri's C and must print `ok`.
//!
//! Directives (comment lines at the top of `NAME.ua`):
//! - `# usubac: -V -B` the slicings (default `-V`);
//! - `# archs: std sse avx avx512` (default: all four; those this CPU lacks print `skipped`);
//! - `# flags: ...` extra command-line flags for both spellings;
//! - `# native: no` skip `nakiri compile` (the rule is a usubac quirk) — or `# native: same`;
//!   the caller sees `-DNK_NATIVE` when built through `nakiri compile`;
//! - `# warn: TEXT` stderr of the usubac spelling must contain TEXT;
//! - `# native-warn: TEXT` stderr of `nakiri compile` must contain TEXT;
//! - `# error: TEXT` the usubac spelling must fail with TEXT on stderr (no caller then);
//! - `# layout: H` the caller's register layout when it is not the flag's (R5).

mod common;

use nakiri::codegen::Arch;
use std::path::Path;
use std::process::Command;

struct Case {
    name: String,
    slicings: Vec<String>,
    archs: Vec<String>,
    flags: Vec<String>,
    native: bool,
    warn: Vec<String>,
    native_warn: Vec<String>,
    error: Option<String>,
    layout: Option<String>,
}

fn parse_case(path: &Path) -> Case {
    let src = std::fs::read_to_string(path).unwrap();
    let mut c = Case {
        name: path.file_stem().unwrap().to_string_lossy().into_owned(),
        slicings: vec!["-V".into()],
        archs: ["std", "sse", "avx", "avx512"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        flags: vec![],
        native: true,
        warn: vec![],
        native_warn: vec![],
        error: None,
        layout: None,
    };
    for line in src.lines().take_while(|l| l.starts_with('#')) {
        let Some((k, v)) = line[1..].split_once(':') else {
            continue;
        };
        let v = v.trim();
        let words = || {
            v.split_whitespace()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        match k.trim() {
            "usubac" => c.slicings = words(),
            "archs" => c.archs = words(),
            "flags" => c.flags = words(),
            "native" => c.native = v != "no",
            "warn" => c.warn.push(v.to_string()),
            "native-warn" => c.native_warn.push(v.to_string()),
            "error" => c.error = Some(v.to_string()),
            "layout" => c.layout = Some(v.to_string()),
            _ => {}
        }
    }
    c
}

fn nakiri(args: &[String]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args(args)
        .current_dir(common::root())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Compiles `out.c` with the caller, runs it; Err(message) unless it prints `ok`.
fn build_run(dir: &Path, caller: &Path, defines: &[String]) -> Result<(), String> {
    let exe = dir.join("prog");
    // The packed API is not what these tests check, and it is most of the C to compile.
    let c = std::fs::read_to_string(dir.join("out.c")).unwrap();
    if let (Some(a), Some(b)) = (
        c.find(nakiri::codegen::PACKED_BEGIN),
        c.find(nakiri::codegen::PACKED_END),
    ) {
        std::fs::write(dir.join("out.c"), format!("{}{}", &c[..a], &c[b..])).unwrap();
    }
    let mut cmd = Command::new(common::cc());
    cmd.args([
        "-O0",
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-psabi",
    ])
    .args(defines);
    // The system headers precompiled for this target's flags (the `-D`s do not touch them).
    let target: Vec<&str> = defines
        .iter()
        .filter(|d| d.starts_with("-m"))
        .map(|d| d.as_str())
        .collect();
    if let Some(h) = common::precompiled_header_for(&target) {
        cmd.arg("-include").arg(h);
    }
    let out = cmd
        .arg(format!("-I{}", dir.display()))
        .arg(format!(
            "-I{}",
            common::root().join("tests/compat").display()
        ))
        .arg(dir.join("out.c"))
        .arg(caller)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!(
            "C build failed in {}:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    if !run.status.success() || stdout.trim() != "ok" {
        return Err(format!(
            "{} printed:\n{}{}",
            exe.display(),
            stdout,
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    Ok(())
}

fn run_case(c: &Case, log: &mut Vec<String>) -> Vec<String> {
    let mut failures = Vec::new();
    let ua = format!("tests/compat/{}.ua", c.name);
    let caller = common::root().join(format!("tests/compat/{}.c", c.name));
    for sl in &c.slicings {
        for a in &c.archs {
            let arch = Arch::parse(a).unwrap();
            let what = format!("{} {} -arch {}", c.name, sl, a);
            if !arch.runs_here() {
                log.push(format!("skipped: {} (CPU lacks it)", what));
                continue;
            }
            // `nakiri compile` on the first target listed (the rule's meaning does not depend
            // on the target; the usubac spelling covers them all).
            let first = a == &c.archs[0];
            let spellings: &[bool] = if c.native && c.error.is_none() && first {
                &[false, true]
            } else {
                &[false]
            };
            for &native in spellings {
                let dir = common::scratch_dir(&format!("compat-{}", c.name));
                let out_c = dir.join("out.c").to_string_lossy().into_owned();
                let mut args: Vec<String> = if native {
                    vec!["compile".into(), ua.clone()]
                } else {
                    vec![]
                };
                args.extend([sl.clone(), "-arch".into(), a.clone(), "-o".into(), out_c]);
                args.extend(c.flags.iter().cloned());
                if !native {
                    args.push(ua.clone());
                }
                let (ok, stderr) = nakiri(&args);
                let tag = format!("{}{}", what, if native { " (nakiri compile)" } else { "" });
                if let Some(e) = &c.error {
                    if ok || !stderr.contains(e.as_str()) {
                        failures.push(format!(
                            "{}: expected an error containing {:?}, got (ok = {}):\n{}",
                            tag, e, ok, stderr
                        ));
                    }
                    continue;
                }
                if !ok {
                    failures.push(format!("{}: nakiri failed:\n{}", tag, stderr));
                    continue;
                }
                for w in if native { &c.native_warn } else { &c.warn } {
                    if !stderr.contains(w.as_str()) {
                        failures.push(format!("{}: stderr lacks {:?}:\n{}", tag, w, stderr));
                    }
                }
                if !caller.exists() {
                    continue;
                }
                // The caller passes registers by value (usubac's ABI), so it is built for the
                // target like a usubac user's harness; nakiri's C needs no flag itself.
                let mut defines: Vec<String> = match arch {
                    Arch::Sse => vec!["-msse4.2".into()],
                    Arch::Avx2 => vec!["-mavx2".into()],
                    Arch::Avx512 => {
                        vec!["-mavx512f".into(), "-mavx512bw".into(), "-mavx512vl".into()]
                    }
                    _ => vec![],
                };
                defines.extend(vec![format!(
                    "-DNK_{}",
                    c.layout.as_deref().unwrap_or(&sl[1..])
                )]);
                if arch == Arch::Std {
                    defines.push("-DNK_STD".into());
                }
                let bpr = c
                    .flags
                    .iter()
                    .position(|f| f == "-bits-per-reg")
                    .map(|i| c.flags[i + 1].clone());
                let lane = if arch == Arch::Std {
                    bpr.unwrap_or_else(|| "64".into())
                } else {
                    "128".into()
                };
                defines.push(format!("-DNK_LANE={}", lane));
                if native {
                    defines.push("-DNK_NATIVE".into());
                }
                match build_run(&dir, &caller, &defines) {
                    Ok(()) => {
                        log.push(format!("ok: {}", tag));
                        common::remove_scratch(&dir);
                    }
                    Err(e) => failures.push(format!("{}: {}", tag, e)),
                }
            }
        }
    }
    failures
}

#[test]
fn compat_corpus() {
    let dir = common::root().join("tests/compat");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ua"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "the compatibility corpus has one program per example of compat.md"
    );
    let cases: Vec<Case> = files.iter().map(|p| parse_case(p)).collect();
    let results = common::on_two_threads(&cases, |c| {
        let mut log = Vec::new();
        let f = run_case(c, &mut log);
        (log, f)
    });
    let mut failures = Vec::new();
    for (log, f) in results {
        for l in log {
            println!("{}", l);
        }
        failures.extend(f);
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
