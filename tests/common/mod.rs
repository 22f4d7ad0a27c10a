//! Shared test support: compiling and running generated C natively.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh scratch directory under the target dir (kept for inspection after a failure).
pub fn scratch_dir(tag: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let base = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = base.join(format!("nk-{}-{}-{}", tag, std::process::id(), n));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The C compiler (`$CC` or `cc`).
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Writes `files` (name, contents) into a scratch dir, compiles every `.c` among them with
/// `cc -O1 <extra flags>` into one executable, runs it with `stdin`, returns stdout.
/// Panics with the compiler's or program's stderr on failure.
pub fn build_and_run(tag: &str, files: &[(&str, &str)], extra_flags: &[&str], stdin: &str) -> String {
    let dir = scratch_dir(tag);
    let mut cfiles = Vec::new();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
        if name.ends_with(".c") {
            cfiles.push(dir.join(name));
        }
    }
    let exe = dir.join("prog");
    let out = Command::new(cc())
        .args(["-O1", "-std=gnu11", "-Wall", "-Wno-unused-function", "-Wno-unused-variable"])
        .args(extra_flags)
        .args(&cfiles)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("running the C compiler");
    if !out.status.success() {
        panic!("C compilation failed in {}:\n{}", dir.display(), String::from_utf8_lossy(&out.stderr));
    }
    use std::io::Write;
    let mut child = Command::new(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        panic!("program in {} failed ({}):\n{}", dir.display(), out.status, String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8(out.stdout).unwrap()
}

/// A small deterministic PRNG (splitmix64) for random test inputs.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
    pub fn bits(&mut self, m: u32) -> u64 {
        self.next() & nakiri::ir::mask(m)
    }
}
