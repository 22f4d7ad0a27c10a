//! Hardening (issue 10): inputs that used to hang the compiler, exhaust its memory or destroy
//! the user's file. Each runs the binary as a user would and must finish in under 2 seconds
//! and 500 MB with a clear answer; the overwrite cases must leave the source untouched.
//!
//! Peak memory is the kernel's high-water mark of the child (`VmHWM`, printed by the binary
//! at exit when `NAKIRI_PEAK_RSS` is set); time is wall-clock, with the child killed at the
//! limit. The cases run one at a time (a lock) so the timings do not compete with each other.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static SERIAL: Mutex<()> = Mutex::new(());

const TIME_LIMIT: Duration = Duration::from_secs(2);
const MEM_LIMIT_KB: u64 = 500 * 1024;

struct Run {
    code: i32,
    stderr: String,
    elapsed: Duration,
    peak_kb: u64,
}

/// Runs `nakiri args` in `dir`, killing it past the time limit; asserts both limits.
fn run_limited(dir: &Path, args: &[&str]) -> Run {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args(args)
        .current_dir(dir)
        .env("NAKIRI_PEAK_RSS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read stderr on a thread (a child blocked on a full pipe would look like a hang).
    let mut err_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err_pipe, &mut s);
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > TIME_LIMIT + Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`nakiri {}` still running after {:?}: killed",
                args.join(" "),
                start.elapsed()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    let stderr = reader.join().unwrap();
    let peak_kb = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak-rss-kb: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no peak memory report from `nakiri {}`:\n{}",
                args.join(" "),
                stderr
            )
        });
    let shown: String = args
        .iter()
        .map(|a| if a.len() > 60 { "<long>" } else { a })
        .collect::<Vec<_>>()
        .join(" ");
    println!(
        "nakiri {}: exit {:?}, {:?}, peak {} MB",
        shown,
        status.code(),
        elapsed,
        peak_kb / 1024
    );
    // The limit is on CPU time (user + system, reported by the child): wall time also counts
    // whatever else shares this 2-core machine (it is bounded by the kill above).
    let cpu_ms: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("cpu-ms: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no CPU time report from `nakiri {}`:\n{}",
                args.join(" "),
                stderr
            )
        });
    assert!(
        Duration::from_millis(cpu_ms) < TIME_LIMIT,
        "`nakiri {}` used {} ms of CPU (limit {:?}; wall {:?})",
        shown,
        cpu_ms,
        TIME_LIMIT,
        elapsed
    );
    assert!(
        peak_kb < MEM_LIMIT_KB,
        "`nakiri {}` peaked at {} MB (limit 500 MB)",
        shown,
        peak_kb / 1024
    );
    Run {
        code: status.code().unwrap_or(-1),
        stderr,
        elapsed,
        peak_kb,
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// The run failed with a diagnostic (exit 1, an `error:` line) containing `what`.
fn assert_diag(r: &Run, what: &str) {
    assert_eq!(r.code, 1, "exit status 1 expected:\n{}", r.stderr);
    assert!(
        r.stderr.contains("error:"),
        "an error is printed:\n{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(what),
        "the message says `{}`:\n{}",
        what,
        r.stderr
    );
    assert!(!r.stderr.contains("internal error"), "{}", r.stderr);
    let _ = (r.elapsed, r.peak_kb);
}

#[test]
fn nested_empty_loops_hit_the_work_budget() {
    let dir = common::scratch_dir("lim-loops");
    // Three levels of 1001 iterations (10^9 empty iterations), then eight levels.
    let three = "node f (a:u8) returns (b:u8) let b = a; forall i in [0,1000] { forall j in [0,1000] { forall k in [0,1000] { } } } tel\n";
    write(&dir, "three.ua", three);
    let mut eight = String::from("node f (a:u8) returns (b:u8) let b = a; ");
    for l in 0..8 {
        eight.push_str(&format!("forall i{} in [0,1000] {{ ", l));
    }
    eight.push_str(&"} ".repeat(8));
    eight.push_str("tel\n");
    write(&dir, "eight.ua", &eight);
    for f in ["three.ua", "eight.ua"] {
        for mode in ["check", "compile"] {
            let r = run_limited(&dir, &[mode, "-B", f]);
            assert_diag(&r, "loop iterations");
            // At the source location, naming the limit and how to raise it.
            assert!(r.stderr.contains(&format!("{}:1:", f)), "{}", r.stderr);
            assert!(r.stderr.contains("--max-ops"), "{}", r.stderr);
            assert!(r.stderr.contains("2000000"), "{}", r.stderr);
        }
    }
    // The budget can be raised (and lowered): 1001 iterations need --max-ops >= 1001.
    write(
        &dir,
        "small.ua",
        "node f (a:u8) returns (b:u8) let b = a; forall i in [0,1000] { } tel\n",
    );
    let r = run_limited(&dir, &["check", "--max-ops", "1000", "small.ua"]);
    assert_diag(&r, "more than 1000 loop iterations");
    let r = run_limited(&dir, &["check", "--max-ops", "1001", "small.ua"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_file_including_itself_twice_is_a_cycle() {
    let dir = common::scratch_dir("lim-self");
    write(
        &dir,
        "d/w.ua",
        "include \"./w.ua\"\ninclude \"./w.ua\"\nnode f (a:u8) returns (b:u8) let b = a tel\n",
    );
    std::os::unix::fs::symlink(dir.join("d"), dir.join("link")).unwrap();
    for f in ["d/w.ua", "link/w.ua", "./d/../d/w.ua"] {
        for mode in ["check", "compile"] {
            let r = run_limited(&dir, &[mode, f]);
            assert_diag(&r, "include cycle");
            assert!(
                r.stderr.contains("w.ua:1:1"),
                "located at the include: {}",
                r.stderr
            );
        }
    }
}

#[test]
fn includes_are_loaded_once() {
    let dir = common::scratch_dir("lim-once");
    // 31 files, each including the next twice: 2^30 expansions without include-once.
    for i in 0..31 {
        let text = if i < 30 {
            format!("include \"f{n}.ua\"\ninclude \"./f{n}.ua\"\nnode g{i} (a:u8) returns (b:u8) let b = g{n}(a) tel\n", n = i + 1, i = i)
        } else {
            "node g30 (a:u8) returns (b:u8) let b = ~a tel\n".to_string()
        };
        write(&dir, &format!("f{}.ua", i), &text);
    }
    for s in ["-V", "-B", "-H"] {
        let r = run_limited(&dir, &["check", s, "f0.ua"]);
        assert_eq!(r.code, 0, "{}: {}", s, r.stderr);
    }
    let r = run_limited(&dir, &["compile", "-B", "f0.ua", "-o", "out.c"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A file included through two spellings (a symlinked folder) is still one file.
    write(
        &dir,
        "lib/h.ua",
        "node h (a:u8) returns (b:u8) let b = a tel\n",
    );
    std::os::unix::fs::symlink(dir.join("lib"), dir.join("lib2")).unwrap();
    write(&dir, "two.ua", "include \"lib/h.ua\"\ninclude \"lib2/h.ua\"\ninclude \"lib/../lib/h.ua\"\nnode f (a:u8) returns (b:u8) let b = h(a) tel\n");
    let r = run_limited(&dir, &["check", "two.ua"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

fn chain(n: usize) -> String {
    let mut s = String::from("node f0 (a:u8) returns (b:u8) let b = a tel\n");
    for i in 1..n {
        s.push_str(&format!(
            "node f{} (a:u8) returns (b:u8) let b = f{}(a) tel\n",
            i,
            i - 1
        ));
    }
    s
}

#[test]
fn node_chains_compile_in_near_linear_time() {
    let dir = common::scratch_dir("lim-chain");
    for n in [3_000, 5_000, 10_000] {
        let f = format!("chain{}.ua", n);
        write(&dir, &f, &chain(n));
        for extra in [&[][..], &["-inline-all"][..], &["-no-inline"][..]] {
            let out = format!("chain{}.c", n);
            let mut args = vec!["compile", f.as_str(), "-o", out.as_str()];
            args.extend_from_slice(extra);
            let r = run_limited(&dir, &args);
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(std::fs::read_to_string(dir.join(&out))
                .unwrap()
                .contains(&format!("f{}__", n - 1)));
        }
    }
    // Each node doing work too: inlining copies the chain once, not once per level.
    let mut s = String::from("node f0 (a:u8) returns (b:u8) let b = a <<< 1 tel\n");
    for i in 1..10_000 {
        s.push_str(&format!(
            "node f{} (a:u8) returns (b:u8) let b = f{}(a) ^ a tel\n",
            i,
            i - 1
        ));
    }
    write(&dir, "work.ua", &s);
    let r = run_limited(&dir, &["compile", "-inline-all", "work.ua", "-o", "work.c"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // No interleaved kernel behind the packed entry: the program is straight and too big for
    // two copies, and keeping loops (none here) cannot shrink it (`driver::packed_kernel`;
    // it was built and emitted until stop 49: 6 MB of C instead of 3, 1.8 s instead of 0.9).
    let c = std::fs::read_to_string(dir.join("work.c")).unwrap();
    assert!(
        !c.contains("__x2("),
        "a 2-way kernel of a 30 000-instruction straight program"
    );
}

#[test]
fn wide_entries_hit_the_atom_budget_in_bitslice() {
    let dir = common::scratch_dir("lim-wide");
    write(
        &dir,
        "wide.ua",
        "node f (x:u64x1000000) returns (y:u64) let y = x[0] ^ x[999999] tel\n",
    );
    let r = run_limited(&dir, &["compile", "-B", "wide.ua", "-o", "wide.c"]);
    assert_diag(&r, "atoms");
    assert!(
        r.stderr.contains("wide.ua:1:11"),
        "at the parameter's type: {}",
        r.stderr
    );
    assert!(r.stderr.contains("--max-ops"), "{}", r.stderr);
    assert!(!dir.join("wide.c").exists(), "no output on error");
    // In vslice it is a million atoms: within the budget, and still fast.
    let r = run_limited(&dir, &["check", "-V", "wide.ua"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn non_regular_and_non_text_files_are_refused() {
    let dir = common::scratch_dir("lim-files");
    let r = run_limited(&dir, &["check", "/dev/zero"]);
    assert_diag(&r, "not a regular file");
    let fifo = dir.join("fifo.ua");
    let st = Command::new("mkfifo").arg(&fifo).status();
    if st.map(|s| s.success()).unwrap_or(false) {
        let r = run_limited(&dir, &["check", "fifo.ua"]);
        assert_diag(&r, "not a regular file");
    } else {
        println!("skipped: mkfifo not available");
    }
    std::fs::create_dir_all(dir.join("folder.ua")).unwrap();
    let r = run_limited(&dir, &["check", "folder.ua"]);
    assert_diag(&r, "folder");
    // Included: the environment is never quoted.
    write(
        &dir,
        "env.ua",
        "include \"/proc/self/environ\"\nnode f (a:u8) returns (b:u8) let b = a tel\n",
    );
    let r = Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args(["check", "env.ua"])
        .current_dir(&dir)
        .env("NAKIRI_SECRET_MARKER", "hunter2-must-not-leak")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{}", err);
    assert!(err.contains("not a text file"), "{}", err);
    assert!(
        !err.contains("hunter2"),
        "the environment leaked into a diagnostic:\n{}",
        err
    );
    assert!(err.contains("env.ua:1:1"), "{}", err);
    // A binary file and a non-UTF-8 file: the byte offset, no content.
    let line = "node f (a:u8) returns (b:u8) let b = a tel\n";
    write(&dir, "bin.ua", &format!("{}\u{1b}[31mSECRET\n", line));
    let r = run_limited(&dir, &["check", "bin.ua"]);
    assert_diag(&r, "not a text file");
    assert!(
        r.stderr.contains(&format!("byte offset {}", line.len())),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("SECRET"), "{}", r.stderr);
    std::fs::write(
        dir.join("latin1.ua"),
        b"node f (a:u8) returns (b:u8) let b = a tel # caf\xe9\n",
    )
    .unwrap();
    let r = run_limited(&dir, &["check", "latin1.ua"]);
    assert_diag(&r, "not valid UTF-8");
    assert!(
        r.stderr
            .contains(&format!("byte offset {}", line.len() - 1 + " # caf".len())),
        "{}",
        r.stderr
    );
    // UTF-8 text in comments is fine.
    write(
        &dir,
        "utf8.ua",
        "# café, 暗号\nnode f (a:u8) returns (b:u8) let b = a tel\n",
    );
    let r = run_limited(&dir, &["check", "utf8.ua"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Too large: reading stops at the limit.
    let big = dir.join("big.ua");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len((nakiri::syntax::MAX_SOURCE_BYTES + 10) as u64)
        .unwrap();
    let r = run_limited(&dir, &["check", "big.ua"]);
    assert_diag(&r, "larger than");
}

#[test]
fn outputs_never_overwrite_sources() {
    let dir = common::scratch_dir("lim-out");
    let src = "node f (a:u8) returns (b:u8) let b = a tel\n";
    write(&dir, "self.ua", src);
    write(&dir, "hdr.h", src);
    write(
        &dir,
        "lib.ua",
        "node g (a:u8) returns (b:u8) let b = ~a tel\n",
    );
    write(
        &dir,
        "main.ua",
        "include \"lib.ua\"\nnode f (a:u8) returns (b:u8) let b = g(a) tel\n",
    );
    std::os::unix::fs::symlink(dir.join("self.ua"), dir.join("alias.c")).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["compile", "self.ua", "-o", "self.ua"], "self.ua"),
        (&["compile", "hdr.h", "-o", "hdr.c"], "hdr.h"),
        (&["compile", "self.ua", "-o", "./sub/../self.ua"], "self.ua"),
        (&["compile", "self.ua", "-o", "alias.c"], "self.ua"),
        (&["compile", "main.ua", "-o", "lib.ua"], "lib.ua"),
        (
            &["compile", "main.ua", "-o", "lib.c", "-o", "lib.ua"],
            "lib.ua",
        ),
        (&["-o", "self.ua", "self.ua"], "self.ua"),
    ];
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    for (args, victim) in cases {
        let before = std::fs::read(dir.join(victim)).unwrap();
        let r = run_limited(&dir, args);
        assert_diag(&r, "refusing to write");
        assert_eq!(
            std::fs::read(dir.join(victim)).unwrap(),
            before,
            "{} was modified by {:?}",
            victim,
            args
        );
    }
    assert_eq!(std::fs::read_to_string(dir.join("self.ua")).unwrap(), src);
    assert!(std::fs::symlink_metadata(dir.join("alias.c"))
        .unwrap()
        .file_type()
        .is_symlink());
    // A normal compile still works, leaves no temporary file behind.
    let r = run_limited(&dir, &["compile", "main.ua", "-o", "out.c"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{:?}", names);
    assert!(names.contains(&"out.c".to_string()) && names.contains(&"out.h".to_string()));
}

/// The commands that measure for minutes before they write (`tune`, `bench ciphers --json
/// FILE`) check first that their outputs can be written: a misspelt folder fails at once (under
/// `run_limited`'s limits), not after the search.
#[test]
fn long_runs_check_their_outputs_before_measuring() {
    let dir = common::scratch_dir("lim-late-out");
    write(
        &dir,
        "f.ua",
        "node f (a:u8) returns (b:u8) let b = ~a tel\n",
    );
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["tune", "f.ua", "-o", "nodir/f.c"],
            "folder `nodir` does not exist",
        ),
        (
            &["tune", "f.ua", "--report", "nodir/r.md"],
            "folder `nodir` does not exist",
        ),
        (&["tune", "f.ua", "--plot", "sub"], "it is a folder"),
        (
            &["bench", "ciphers", "--json", "nodir/x.json"],
            "folder `nodir` does not exist",
        ),
    ];
    for (args, what) in cases {
        let r = run_limited(&dir, args);
        assert_diag(&r, what);
    }
    assert!(!dir.join("f.c").exists(), "nothing written");
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".nakiri"))
        .collect();
    assert!(left.is_empty(), "probe files left behind: {:?}", left);
}

/// A misspelt `--only` name is a usage error at once, not an empty table after the peers.
#[test]
fn misspelt_only_names_fail_at_once() {
    let dir = common::scratch_dir("lim-only");
    for args in [
        &["bench", "ciphers", "--only", "nosuchcipher"][..],
        &["bench", "limits", "--only", "des,nosuchcipher"][..],
    ] {
        let r = run_limited(&dir, args);
        assert_eq!(r.code, 2, "{:?}: {}", args, r.stderr);
        assert!(
            r.stderr.contains("no shipped cipher"),
            "{:?}: {}",
            args,
            r.stderr
        );
    }
}

#[test]
fn failed_compiles_leave_previous_outputs_whole() {
    let dir = common::scratch_dir("lim-atomic");
    write(
        &dir,
        "ok.ua",
        "node f (a:u8) returns (b:u8) let b = a tel\n",
    );
    let r = run_limited(&dir, &["compile", "ok.ua", "-o", "out.c"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let before = std::fs::read(dir.join("out.c")).unwrap();
    // Over the C-bytes budget: an error, and the previous output is untouched.
    let r = run_limited(
        &dir,
        &["compile", "ok.ua", "-o", "out.c", "--max-ops", "10"],
    );
    assert_diag(&r, "--max-ops");
    assert_eq!(std::fs::read(dir.join("out.c")).unwrap(), before);
    // An output folder that does not exist: an error, nothing written.
    let r = run_limited(&dir, &["compile", "ok.ua", "-o", "nodir/out.c"]);
    assert_diag(&r, "cannot write output");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{:?}", names);
}
