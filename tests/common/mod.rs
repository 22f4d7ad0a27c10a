//! Shared test support: compiling and running generated C natively.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The compiler binary's allocator in every test binary too: with glibc's, `ir_passes` spent
/// ~40% of its time in malloc and free (perf, stop 50).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Where scratch dirs go: the target dir's `tmp`.
fn scratch_base() -> PathBuf {
    // Cargo sets CARGO_TARGET_TMPDIR when it *compiles* an integration test (not in the
    // environment it runs it in): read at run time it was unset, and ~26 000 scratch dirs
    // piled up in /tmp on the development machine. `cargo clean` removes these.
    option_env!("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

/// A fresh scratch directory under the target dir. [`build_and_run`] removes its own once the
/// program has run successfully and keeps it (named in the panic message) after a failure.
pub fn scratch_dir(tag: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let base = scratch_base();
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

/// The optimisation level a test program's C file is compiled at: what compiles it fastest
/// (the tests check results, not speed). At `-O0` gcc keeps every inlined intrinsic of the
/// packed API's SIMD transpositions unsimplified: a small program's AVX-512 C took 2-11 s to
/// compile at `-O0` and 0.4-0.7 s at `-Og`, its SSE/AVX2 C 0.6-3 s against 0.2-0.6 s, and the
/// AVX-512 packed entries of `transpositions_round_trip_and_match_target_layout` (6 MB) 21.6 s
/// against 4.4 s. A big straight-line function goes the other way (AES `-B` avx512, a 1.7 MB
/// raw entry: 4.6 s at `-O0`, 10.8 s at `-Og`; a 526 KB one 3.3 s against 4.6 s; a 160 KB one
/// on SSE 0.95 s against 1.35 s), and so does plain C (`std`). So `-Og` for SIMD C whose
/// longest function (text between two lines `}`) is under 150 KB, `-O0` otherwise (measured on
/// Zen 4, gcc 12; stop 45). `text`: the file with the `.inc` files it includes.
fn test_opt_level(text: &[&str]) -> &'static str {
    let simd = text
        .iter()
        .any(|t| t.contains("__m128i") || t.contains("__m256i") || t.contains("__m512i"));
    let longest_function = text
        .iter()
        .map(|t| {
            let (mut best, mut last, mut pos) = (0, 0, 0);
            for line in t.split('\n') {
                pos += line.len() + 1;
                if line == "}" {
                    best = best.max(pos - last);
                    last = pos;
                }
            }
            best
        })
        .max()
        .unwrap_or(0);
    if simd && longest_function < 150_000 {
        "-Og"
    } else {
        "-O0"
    }
}

/// Builds and runs [`aliasing_driver`] against `new` (the C under test, header `new.h`) and
/// `old` (the reference, header `ref.h`, its `entry` renamed `ref_<entry>`): what it printed.
#[allow(clippy::too_many_arguments)]
pub fn run_aliasing(
    tag: &str,
    entry: &str,
    new: &nakiri::codegen::COutput,
    old: &nakiri::codegen::COutput,
    n_ins: usize,
    sizes: (usize, usize, usize),
    checks: &str,
) -> String {
    let (sb, kb, ob) = sizes;
    let rename = |t: &str| t.replace(entry, &format!("ref_{}", entry));
    let driver = aliasing_driver(entry, n_ins, sb, kb, ob, checks);
    build_and_run(
        tag,
        &[
            ("new.c", &new.c),
            ("new.h", &new.h),
            ("ref.c", &rename(&old.c)),
            ("ref.h", &rename(&old.h)),
            ("driver.c", &driver),
        ],
        &[],
        "",
    )
}

/// A raw entry's call in an aliasing driver ([`aliasing_driver`]): `name(s, [k,] o)`, the
/// key `k` passed when the entry takes `n_ins` > 1 inputs.
pub fn alias_call(name: &str, n_ins: usize, s: &str, o: &str) -> String {
    let mut a = vec![s.to_string()];
    if n_ins > 1 {
        a.push("k".into());
    }
    a.push(o.to_string());
    format!("{}({});", name, a.join(", "))
}

/// A C driver that checks a raw entry `entry(s, [k,] o)` (`n_ins` array inputs, the first of
/// `sb` bytes, a key of `kb`; an output of `ob`) under aliasing: `ref_<entry>` (the reference
/// build, renamed) computes `want` from random `s` and `k` on separate buffers, `entry` must
/// give it disjoint (`o`), then `checks` (C statements over the buffer `big`, setting `bad`
/// on a mismatch) run. It prints `ok` or `FAIL` after the names of the failed cases.
pub fn aliasing_driver(
    entry: &str,
    n_ins: usize,
    sb: usize,
    kb: usize,
    ob: usize,
    checks: &str,
) -> String {
    let protos = |name: &str| {
        let ps: Vec<&str> = (0..n_ins).map(|_| "void *").collect();
        format!("void {}({}, void *);\n", name, ps.join(", "))
    };
    format!(
        r#"#include <stdio.h>
#include <string.h>
#include <stdint.h>
{pn}{pr}
static unsigned char s[{sb}] __attribute__((aligned(64))), k[{kb}] __attribute__((aligned(64)));
static unsigned char want[{ob}] __attribute__((aligned(64))), o[{ob}] __attribute__((aligned(64)));
static unsigned char big[{sb} + {ob} + {kb} + 64 * 16] __attribute__((aligned(64)));
static uint64_t x = 88172645463325252ull;
static unsigned char rnd(void) {{ x ^= x << 13; x ^= x >> 7; x ^= x << 17; return (unsigned char)x; }}
int main(void) {{
    int bad = 0;
    for (size_t i = 0; i < sizeof s; i++) s[i] = rnd();
    for (size_t i = 0; i < sizeof k; i++) k[i] = rnd();
    {cref}
    /* disjoint */
    {c1}
    if (memcmp(o, want, {ob})) {{ printf("disjoint\n"); bad = 1; }}
{checks}    printf("%s\n", bad ? "FAIL" : "ok");
    return 0;
}}
"#,
        pn = protos(entry),
        pr = protos(&format!("ref_{}", entry)),
        sb = sb,
        kb = kb.max(1),
        ob = ob,
        cref = alias_call(&format!("ref_{}", entry), n_ins, "s", "want"),
        c1 = alias_call(entry, n_ins, "s", "o"),
        checks = checks,
    )
}

/// Writes `files` into a scratch dir, compiles each `.c` file on its own at the level
/// [`test_opt_level`] picks for it (a later `-O` in `extra_flags` wins), links them and runs
/// the program with `stdin`; returns its stdout.
/// Panics with the compiler's or program's stderr on failure. The C is built with `-Wall
/// -Wextra`, and a warning located in a generated file (one carrying nakiri's banner) fails the
/// test too: every program a test compiles (the corpus under each configuration, the ciphers)
/// checks that the generated C is warning-free (stop 51; before, the tests passed
/// `-Wno-unused-function -Wno-unused-variable` and warnings did not fail them). Warnings in the
/// tests' own drivers do not count.
pub fn build_and_run(
    tag: &str,
    files: &[(&str, &str)],
    extra_flags: &[&str],
    stdin: &str,
) -> String {
    let dir = scratch_dir(tag);
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let run_cc = |cmd: &mut Command, what: &str| {
        let out = cmd.output().expect("running the C compiler");
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            panic!("C {} failed in {}:\n{}", what, dir.display(), err);
        }
        if let Some(w) = generated_c_warning(&err, files) {
            panic!(
                "the generated C draws a warning (-Wall -Wextra) in {}:\n{}\n\n{}",
                dir.display(),
                w,
                err
            );
        }
    };
    let mut objects = Vec::new();
    for (name, text) in files.iter().filter(|(n, _)| n.ends_with(".c")) {
        let mut unit: Vec<&str> = vec![text];
        unit.extend(
            files
                .iter()
                .filter(|(n, _)| {
                    n.ends_with(".inc") && text.contains(&format!("#include \"{}\"", n))
                })
                .map(|(_, t)| *t),
        );
        let obj = dir.join(format!("{}.o", name));
        let mut cmd = Command::new(cc());
        cmd.args([test_opt_level(&unit), "-std=gnu11", "-Wall", "-Wextra"]);
        if let Some(h) = precompiled_header() {
            cmd.arg("-include").arg(h);
        }
        cmd.args(extra_flags)
            .arg("-c")
            .arg(dir.join(name))
            .arg("-o")
            .arg(&obj);
        run_cc(&mut cmd, "compilation");
        objects.push(obj);
    }
    let exe = dir.join("prog");
    run_cc(
        Command::new(cc())
            .args(extra_flags)
            .args(&objects)
            .arg("-o")
            .arg(&exe),
        "link",
    );
    use std::io::Write;
    let mut child = Command::new(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Feed stdin from another thread so a program that prints a lot before reading all its
    // input cannot deadlock against us.
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    if !out.status.success() {
        panic!(
            "program in {} failed ({}):\n{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    remove_scratch(&dir);
    String::from_utf8(out.stdout).unwrap()
}

/// The first `file:line:col: warning: ...` line of the compiler's output `err` whose file is one
/// of `files` that nakiri generated (its text carries the `Generated by nakiri` banner).
pub fn generated_c_warning(err: &str, files: &[(&str, &str)]) -> Option<String> {
    err.lines()
        .find(|l| {
            let Some((loc, _)) = l.split_once(": warning:") else {
                return false;
            };
            // `path:line:col`: the path's last component names the file
            let path = loc.rsplitn(3, ':').nth(2).unwrap_or(loc);
            let file = path.rsplit('/').next().unwrap_or(path);
            files
                .iter()
                .any(|(n, t)| *n == file && t.contains("Generated by nakiri"))
        })
        .map(str::to_string)
}

/// `f` of every item, on two threads (the machines that run the suite have two cores), taking
/// items in turn; the results in the items' order.
pub fn on_two_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|r| r.0);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Removes a scratch dir whose program ran successfully, unless `NAKIRI_KEEP_SCRATCH` is set.
/// A full test run builds several hundred programs (about 400 MB of C and executables): kept,
/// they filled the disk of a machine that runs the suite over and over.
pub fn remove_scratch(dir: &std::path::Path) {
    if std::env::var_os("NAKIRI_KEEP_SCRATCH").is_none() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A precompiled header of the system headers every generated file includes (`immintrin.h`
/// alone takes gcc ~0.5 s to parse, about half of a small test program's build), made once
/// (the first test process to need it builds it in its own scratch dir, then renames that to
/// `nk-pch-O0g`; later processes reuse it) and force-included by [`build_and_run`]: the corpus
/// test builds ~270 programs.
///
/// `nk_sys.h.gch` is a directory with one header per optimisation level the tests use (`-O0`
/// and `-Og`, see [`test_opt_level`]): gcc rejects a header made at another level (`-O0`
/// defines `__NO_INLINE__`, `-Og` `__OPTIMIZE__`) and tries the next one in the directory.
/// With only the `-O0` header, every `-Og` build (most SIMD C) parsed `immintrin.h` again: a
/// small AVX2 program took 0.76 s to compile against 0.27 s (stop 50). None if the compiler
/// cannot make or read such a directory (clang); gcc also ignores a header it finds
/// incompatible with a build's other flags (`-mavx2`, or made by another gcc) and reads the
/// text instead, so this only changes speed.
pub fn precompiled_header() -> Option<PathBuf> {
    precompiled_header_for(&[])
}

/// [`precompiled_header`] for builds with the target flags `flags` (`-mavx2`, ...): gcc only
/// reads a header made with the same ones. One per flag set, made once, in `nk-pch-O0g` plus
/// the flags.
pub fn precompiled_header_for(flags: &[&str]) -> Option<PathBuf> {
    type Made = std::collections::HashMap<String, Option<PathBuf>>;
    static PCH: std::sync::OnceLock<std::sync::Mutex<Made>> = std::sync::OnceLock::new();
    let key: String = flags.concat();
    let made = PCH.get_or_init(Default::default);
    let mut made = made.lock().unwrap_or_else(|e| e.into_inner());
    made.entry(key.clone())
        .or_insert_with(|| make_precompiled_header(flags, &key))
        .clone()
}

fn make_precompiled_header(flags: &[&str], key: &str) -> Option<PathBuf> {
    let tag: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let shared = scratch_base().join(format!("nk-pch-O0g{tag}"));
    let h = shared.join("nk_sys.h");
    let levels = ["-O0", "-Og"];
    let complete = |d: &std::path::Path| {
        levels
            .iter()
            .all(|l| d.join(format!("nk_sys.h.gch/{}.gch", &l[1..])).is_file())
    };
    if complete(&shared) {
        return Some(h);
    }
    let dir = scratch_dir("pch");
    let text = "#include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n#if defined(__x86_64__) || defined(__i386__)\n#include <immintrin.h>\n#endif\n";
    std::fs::write(dir.join("nk_sys.h"), text).ok()?;
    std::fs::create_dir_all(dir.join("nk_sys.h.gch")).ok()?;
    let made = |level: &str| {
        Command::new(cc())
            .args([level, "-std=gnu11"])
            .args(flags)
            .args(["-x", "c-header"])
            .arg(dir.join("nk_sys.h"))
            .arg("-o")
            .arg(dir.join(format!("nk_sys.h.gch/{}.gch", &level[1..])))
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    // A compiler that cannot read the directory fails this probe: no header then.
    std::fs::write(dir.join("probe.c"), "int nk_probe(void) { return 0; }\n").ok()?;
    let reads = |level: &str| {
        Command::new(cc())
            .args([level, "-std=gnu11"])
            .args(flags)
            .arg("-include")
            .arg(dir.join("nk_sys.h"))
            .arg("-c")
            .arg(dir.join("probe.c"))
            .arg("-o")
            .arg(dir.join("probe.o"))
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    if !levels.iter().all(|l| made(l) && reads(l)) {
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    // Another process may have won the race: then its header is used and ours removed.
    if std::fs::rename(&dir, &shared).is_err() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    complete(&shared).then_some(h)
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

// ------------------------------------------------------------------------------------------
// Running Usuba programs: through the interpreter or natively through the packed C API.

use nakiri::codegen::Arch;
use nakiri::driver::{self, Config};
use nakiri::ir::{Program, Slicing};

/// Per instance: per parameter, its source words.
pub type Instance = Vec<Vec<u64>>;

/// `n` random instances of `prog`'s entry; its `const` inputs share one value across them.
pub fn random_instances(prog: &nakiri::ir::Program, n: usize, rng: &mut Rng) -> Vec<Instance> {
    let entry = prog.entry();
    // const parameters share one value across instances
    let consts: Vec<Vec<u64>> = entry
        .inputs
        .iter()
        .map(|p| {
            (0..nakiri::interp::param_words(prog.slicing, p))
                .map(|_| rng.bits(p.word_bits))
                .collect()
        })
        .collect();
    (0..n)
        .map(|_| {
            entry
                .inputs
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    if p.is_const {
                        consts[i].clone()
                    } else {
                        (0..nakiri::interp::param_words(prog.slicing, p))
                            .map(|_| rng.bits(p.word_bits))
                            .collect()
                    }
                })
                .collect()
        })
        .collect()
}

/// Loads `.ua` sources from disk (paths relative to the crate root).
pub struct Fs;
impl nakiri::syntax::Loader for Fs {
    fn read(&self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(root().join(path)).map_err(|e| e.to_string())
    }
    fn exists(&self, path: &str) -> bool {
        root().join(path).is_file()
    }
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Compiles Usuba source text to optimised IR; panics with the rendered diagnostics on error.
pub fn lower_src(name: &str, src: &str, slicing: Slicing) -> Program {
    lower_src_cfg(
        name,
        src,
        &Config {
            slicing,
            ..Config::default()
        },
    )
}

/// Like [`lower_src`], with every option given.
pub fn lower_src_cfg(name: &str, src: &str, cfg: &Config) -> Program {
    let (front, prog) = driver::lower(name, src, cfg, &Fs);
    match prog {
        Some(p) => p,
        None => panic!(
            "{} failed to compile ({:?}):\n{}",
            name,
            cfg.slicing,
            front.render_diags()
        ),
    }
}

/// Compiles a `.ua` file (path relative to the crate root).
pub fn lower_file(path: &str, slicing: Slicing) -> Program {
    lower_file_cfg(
        path,
        &Config {
            slicing,
            ..Config::default()
        },
    )
}

/// Like [`lower_file`], with every option given.
pub fn lower_file_cfg(path: &str, cfg: &Config) -> Program {
    let src =
        std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{}: {}", path, e));
    lower_src_cfg(path, &src, cfg)
}

/// Runs instances through the interpreter.
pub fn run_interp(prog: &Program, insts: &[Instance]) -> Vec<Instance> {
    insts
        .iter()
        .map(|i| nakiri::interp::run_entry(prog, i))
        .collect()
}

/// The archs this CPU runs; prints the skipped ones.
pub fn native_archs(what: &str) -> Vec<Arch> {
    let mut v = Vec::new();
    for a in [Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512] {
        if a.runs_here() {
            v.push(a);
        } else {
            println!("skipped: {} on {} (CPU lacks it)", what, a);
        }
    }
    println!("skipped: {} on neon (not this CPU)", what);
    v
}

fn is_native_word(m: u32) -> bool {
    matches!(m, 8 | 16 | 32 | 64)
}

/// Bytes of one instance of a bit-string parameter (see codegen::packed).
fn pack_bits(words: &[u64], m: u32) -> Vec<u64> {
    let nbits = words.len() * m as usize;
    let mut bytes = vec![0u64; nbits.div_ceil(8)];
    let mut k = 0;
    for w in words {
        for b in 0..m {
            let bit = (w >> (m - 1 - b)) & 1;
            bytes[k / 8] |= bit << (7 - k % 8);
            k += 1;
        }
    }
    bytes
}

fn unpack_bits(bytes: &[u64], n_words: usize, m: u32) -> Vec<u64> {
    let mut out = Vec::with_capacity(n_words);
    let mut k = 0;
    for _ in 0..n_words {
        let mut w = 0u64;
        for _ in 0..m {
            w = (w << 1) | ((bytes[k / 8] >> (7 - k % 8)) & 1);
            k += 1;
        }
        out.push(w);
    }
    out
}

/// Compiles `prog` for `arch`, runs all instances natively through `<Entry>__packed`
/// (instances sharing the same `const` parameters go in one call), returns the outputs.
pub fn run_native(prog: &Program, arch: Arch, insts: &[Instance]) -> Vec<Instance> {
    use nakiri::codegen::{generate, CodegenConfig};
    let out = generate(
        prog,
        &CodegenConfig {
            arch,
            header_name: "out.h".into(),
            banner: "test".into(),
            spill: nakiri::codegen::SPILL_DEFAULT,
            mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
            loop_regs: None,
            opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
            uarch: nakiri::target::Uarch::host(),
            state_loads: None,
            loop_align: None,
        },
    )
    .unwrap_or_else(|e| panic!("codegen failed for {}: {}", arch, e));
    run_native_out(prog, &out, arch, insts)
}

/// [`run_native`] on C already generated for `prog` (header named `out.h`), e.g. by
/// `driver::compile` with an interleaved kernel behind the packed entry.
pub fn run_native_out(
    prog: &Program,
    out: &nakiri::codegen::COutput,
    arch: Arch,
    insts: &[Instance],
) -> Vec<Instance> {
    run_native_out_flags(prog, out, arch, insts, &[])
}

/// [`run_native_out`] with extra C compiler flags (e.g. `-mavx512vl`, to run the code paths a
/// `-march=native` build takes on a CPU with more than the target needs).
pub fn run_native_out_flags(
    prog: &Program,
    out: &nakiri::codegen::COutput,
    arch: Arch,
    insts: &[Instance],
    flags: &[&str],
) -> Vec<Instance> {
    use std::fmt::Write as _;
    let entry = prog.entry();
    let name = &entry.name;
    let ctype = |m: u32| {
        if is_native_word(m) {
            format!("uint{}_t", m)
        } else {
            "uint8_t".to_string()
        }
    };
    let per_inst = |p: &nakiri::ir::Param| -> usize {
        let w = nakiri::interp::param_words(prog.slicing, p);
        if is_native_word(p.word_bits) {
            w
        } else {
            (w * p.word_bits as usize).div_ceil(8)
        }
    };
    let fmt = |m: u32| match m {
        64 => "%llx",
        _ => "%llx",
    };
    let mut d = String::new();
    // One translation unit (the generated C is included): the system headers are read once.
    d.push_str(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <stdint.h>\n#include \"out.c.inc\"\n",
    );
    d.push_str("int main(void) {\n  size_t n;\n  while (scanf(\"%zu\", &n) == 1) {\n");
    for (i, p) in entry.inputs.iter().enumerate() {
        let cnt = if p.is_const {
            format!("{}", per_inst(p))
        } else {
            format!("n*{}", per_inst(p))
        };
        let _ = writeln!(
            d,
            "    size_t c_in{i} = {cnt};\n    {t} *in{i} = malloc(c_in{i} * sizeof({t}) + 8);",
            t = ctype(p.word_bits)
        );
        let _ = writeln!(d, "    for (size_t k = 0; k < c_in{i}; k++) {{ unsigned long long v; if (scanf(\"{f}\", &v) != 1) return 2; in{i}[k] = ({t})v; }}", f = fmt(p.word_bits), t = ctype(p.word_bits));
    }
    for (i, p) in entry.outputs.iter().enumerate() {
        let _ = writeln!(
            d,
            "    size_t c_out{i} = n*{};\n    {t} *out{i} = malloc(c_out{i} * sizeof({t}) + 8);",
            per_inst(p),
            t = ctype(p.word_bits)
        );
    }
    let args: Vec<String> = (0..entry.inputs.len())
        .map(|i| format!("in{}", i))
        .chain((0..entry.outputs.len()).map(|i| format!("out{}", i)))
        .collect();
    let _ = writeln!(d, "    {}__packed(n, {});", name, args.join(", "));
    for (i, _) in entry.outputs.iter().enumerate() {
        let _ = writeln!(d, "    for (size_t k = 0; k < c_out{i}; k++) printf(\"%llx \", (unsigned long long)out{i}[k]);\n    printf(\"\\n\");");
    }
    for i in 0..entry.inputs.len() {
        let _ = writeln!(d, "    free(in{});", i);
    }
    for i in 0..entry.outputs.len() {
        let _ = writeln!(d, "    free(out{});", i);
    }
    d.push_str("  }\n  return 0;\n}\n");
    // Group instances by their const parameters.
    let const_idx: Vec<usize> = entry
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_const)
        .map(|(i, _)| i)
        .collect();
    let mut groups: Vec<(Vec<Vec<u64>>, Vec<usize>)> = Vec::new();
    for (k, inst) in insts.iter().enumerate() {
        let key: Vec<Vec<u64>> = const_idx.iter().map(|&i| inst[i].clone()).collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(k),
            None => groups.push((key, vec![k])),
        }
    }
    let enc = |p: &nakiri::ir::Param, words: &[u64]| -> Vec<u64> {
        if is_native_word(p.word_bits) {
            words.to_vec()
        } else {
            pack_bits(words, p.word_bits)
        }
    };
    let mut input = String::new();
    for (_, members) in &groups {
        let _ = writeln!(input, "{}", members.len());
        for (i, p) in entry.inputs.iter().enumerate() {
            let list: Vec<&usize> = if p.is_const {
                members.iter().take(1).collect()
            } else {
                members.iter().collect()
            };
            for &&k in &list {
                for v in enc(p, &insts[k][i]) {
                    let _ = write!(input, "{:x} ", v);
                }
            }
            input.push('\n');
        }
    }
    let stdout = build_and_run(
        &format!("native-{}{}", arch, flags.concat()),
        &[("out.c.inc", &out.c), ("out.h", &out.h), ("driver.c", &d)],
        flags,
        &input,
    );
    let mut lines = stdout.lines();
    let mut results: Vec<Instance> = vec![Vec::new(); insts.len()];
    for (_, members) in &groups {
        for p in &entry.outputs {
            let line = lines.next().expect("driver printed too few lines");
            let vals: Vec<u64> = line
                .split_whitespace()
                .map(|x| u64::from_str_radix(x, 16).unwrap())
                .collect();
            let per = per_inst(p);
            assert_eq!(vals.len(), per * members.len(), "output size");
            for (j, &k) in members.iter().enumerate() {
                let chunk = &vals[j * per..(j + 1) * per];
                let words = if is_native_word(p.word_bits) {
                    chunk.to_vec()
                } else {
                    unpack_bits(
                        chunk,
                        nakiri::interp::param_words(prog.slicing, p),
                        p.word_bits,
                    )
                };
                results[k].push(words);
            }
        }
    }
    results
}

/// Runs `insts` through the interpreter and natively on every arch this CPU runs; asserts that
/// all agree, and returns the interpreter's outputs. `what` names the case in messages.
pub fn run_everywhere(what: &str, prog: &Program, insts: &[Instance]) -> Vec<Instance> {
    // The interpreter on a thread of its own and the targets two at a time: a test of a big
    // program (ACE `-B`: 3 MB of C per SIMD target, ~50 s of gcc) is often the last one its
    // binary runs, and would otherwise leave the second core idle.
    let archs = native_archs(what);
    let (reference, native) = std::thread::scope(|s| {
        let reference = s.spawn(|| run_interp(prog, insts));
        let native = on_two_threads(&archs, |&arch| run_native(prog, arch, insts));
        (
            reference
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            native,
        )
    });
    for (arch, got) in archs.into_iter().zip(native) {
        for (k, (g, r)) in got.iter().zip(&reference).enumerate() {
            assert_eq!(
                g, r,
                "{}: {} ({:?}) instance {} differs from the interpreter (inputs {:x?})",
                what, arch, prog.slicing, k, insts[k]
            );
        }
    }
    reference
}
