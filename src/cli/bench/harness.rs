//! Building and timing compiled variants: nakiri's C, a generated C driver per variant (timing
//! loops around the raw and the packed entry), and one `main` that interleaves the measurement
//! windows of every variant in one process.
//!
//! Each variant is compiled to its own object with `cc -O3 -march=native` (`$CC` overrides
//! `cc`); the global symbols of the kernel object (`E__`, `E__packed`, `E__instances`) are
//! renamed with `objcopy --redefine-sym` to `<prefix>_E__`… in both the kernel and its driver, so
//! several variants of one program link into one harness. Times are TSC ticks (`__rdtsc` fenced
//! by `lfence`), the minimum over windows of (ticks of the window) / (calls in the window); a
//! window is calibrated to last at least `window_ticks`.

use super::asm;
use crate::driver::{self, Config};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bytes of plain data the packed entry is timed on (per call).
pub const PACKED_BYTES: usize = 64 * 1024;

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    /// Measurement windows per kernel (at most; `budget_s` may stop earlier, after 5).
    pub windows: u32,
    /// Minimum TSC ticks per window (calls per window are calibrated to reach it).
    pub window_ticks: u64,
    /// Seconds of measurement per harness run, over all its kernels.
    pub budget_s: f64,
}

impl Effort {
    pub const FULL: Effort = Effort {
        windows: 400,
        window_ticks: 100_000,
        budget_s: 1.5,
    };
    pub const QUICK: Effort = Effort {
        windows: 8,
        window_ticks: 20_000,
        budget_s: 0.2,
    };
}

/// Bytes of data one instance reads: the sum of the bits of its non-`const` inputs, over 8.
/// (`const` inputs, e.g. round keys, are the same for every instance and are not data.) An
/// interleaved entry has each non-`const` input once per copy, and `E__INSTANCES` counts the
/// copies' instances: one instance reads one copy's inputs.
pub fn bytes_per_instance(prog: &crate::ir::Program) -> f64 {
    let e = prog.entry();
    let bits: u64 = e
        .inputs
        .iter()
        .filter(|p| !p.is_const)
        .flat_map(|p| p.atoms.iter())
        .map(|a| e.bits(*a) as u64)
        .sum();
    bits as f64 / 8.0 / prog.interleave.max(1) as f64
}

/// `E__INSTANCES` as the generated header defines it.
pub fn instances_from_header(h: &str, entry_fn: &str) -> Option<usize> {
    let key = format!("#define {}INSTANCES ", entry_fn);
    h.lines()
        .find_map(|l| l.strip_prefix(&key))
        .and_then(|v| v.trim().parse().ok())
}

/// Instances the packed entry is timed on: about `PACKED_BYTES` of data, a multiple of 512
/// (every instance count and hslice register width divides it).
pub fn packed_instances(bytes_per_instance: f64) -> usize {
    let n = (PACKED_BYTES as f64 / bytes_per_instance.max(1.0)).ceil() as usize;
    n.div_ceil(512).max(1) * 512
}

/// One program compiled one way, ready to link.
pub struct Built {
    pub prefix: String,
    /// C name of the raw entry before renaming (`E__`).
    pub entry_fn: String,
    pub instances: usize,
    pub bytes_per_instance: f64,
    /// Instances per timed packed call, if the program has a packed entry.
    pub packed_n: Option<usize>,
    pub stats: Option<asm::Stats>,
    pub objects: Vec<PathBuf>,
    /// Lines of generated C (for the record).
    pub c_lines: usize,
    /// Interleaving factor of the kernel behind the packed entry (1: it calls the raw entry).
    pub packed_kernel: u32,
}

impl Built {
    pub fn raw_bytes_per_call(&self) -> f64 {
        self.instances as f64 * self.bytes_per_instance
    }
    pub fn packed_bytes_per_call(&self) -> Option<f64> {
        self.packed_n.map(|n| n as f64 * self.bytes_per_instance)
    }
}

/// A scratch folder removed on drop (kept when `NAKIRI_BENCH_KEEP` is set).
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Result<Scratch, String> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let d = std::env::temp_dir().join(format!(
            "nakiri-bench-{}-{}-{}",
            tag,
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).map_err(|e| format!("cannot create {}: {}", d.display(), e))?;
        Ok(Scratch(d))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("NAKIRI_BENCH_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            eprintln!("note: kept {}", self.0.display());
        }
    }
}

pub fn cc() -> String {
    std::env::var("CC")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// Writes the timing `main` (`main_c`) as `dir/main_name`, links it with the variants' objects
/// into `dir/exe_name` and runs it with `args`; its standard output.
fn link_and_run(
    dir: &Path,
    main_name: &str,
    main_c: &str,
    exe_name: &str,
    built: &[&Built],
    args: &[String],
) -> Result<String, String> {
    let mc = dir.join(main_name);
    std::fs::write(&mc, main_c).map_err(|e| format!("cannot write C: {}", e))?;
    let exe = dir.join(exe_name);
    let mut link = Command::new(cc());
    link.args(["-O2", "-march=native"]).arg(&mc);
    for b in built {
        link.args(&b.objects);
    }
    run_tool(link.arg("-o").arg(&exe))?;
    run_tool(Command::new(&exe).args(args))
}

/// Runs a command; `Err` with its stderr (shortened) when it fails or cannot start.
pub fn run_tool(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{:?}`: {}", cmd.get_program(), e))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let short: String = err.lines().take(15).collect::<Vec<_>>().join("\n");
        return Err(format!(
            "`{}` failed ({}):\n{}",
            cmd.get_program().to_string_lossy(),
            out.status,
            short
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The C compiler and flags a kernel is built with (the driver and `main` always use `cc()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CcSpec {
    pub cc: String,
    pub flags: Vec<String>,
}

impl Default for CcSpec {
    /// `$CC` (or `cc`) `-O3 -march=native`: what `nakiri bench` measures.
    fn default() -> CcSpec {
        CcSpec {
            cc: cc(),
            flags: vec!["-O3".into(), "-march=native".into()],
        }
    }
}

/// Compiles `file` with `cfg` to C, builds its kernel and driver objects under `dir` with the
/// symbol prefix `prefix`, and analyses the kernel's disassembly.
pub fn build(dir: &Path, prefix: &str, file: &str, cfg: &Config) -> Result<Built, String> {
    let text =
        std::fs::read_to_string(file).map_err(|e| format!("cannot read `{}`: {}", file, e))?;
    let h_name = format!("k_{}.h", prefix);
    let (front, out) = driver::compile(file, &text, cfg, &super::super::FsLoader, &h_name);
    let Some(out) = out else {
        return Err(format!(
            "`{}` does not compile with these flags:\n{}",
            file,
            front.render_diags().trim_end()
        ));
    };
    let (_, prog) = driver::lower(file, &text, cfg, &super::super::FsLoader);
    let prog = prog.ok_or_else(|| format!("`{}`: no IR", file))?;
    build_from_c(dir, prefix, &prog, &out, cfg.arch, &CcSpec::default())
}

/// [`build`] with the C generated by another nakiri binary `bin` run on `file` with `flags`
/// (`bench compare --b-nakiri`: the same program before and after a change to the
/// compiler). The program's interface (instances, layout) is taken from this build's
/// lowering of `cfg`: the two must agree on it.
pub fn build_with_binary(
    dir: &Path,
    prefix: &str,
    file: &str,
    cfg: &Config,
    bin: &str,
    flags: &[String],
) -> Result<Built, String> {
    let text =
        std::fs::read_to_string(file).map_err(|e| format!("cannot read `{}`: {}", file, e))?;
    let kc = dir.join(format!("k_{}.c", prefix));
    let r = Command::new(bin)
        .arg(file)
        .args(flags)
        .arg("-o")
        .arg(&kc)
        .output()
        .map_err(|e| format!("cannot run `{}`: {}", bin, e))?;
    if !r.status.success() {
        return Err(format!(
            "`{}` failed on `{}`:\n{}",
            bin,
            file,
            String::from_utf8_lossy(&r.stderr).trim_end()
        ));
    }
    let read = |p: std::path::PathBuf| {
        std::fs::read_to_string(&p).map_err(|e| format!("cannot read `{}`: {}", p.display(), e))
    };
    let c = read(kc.clone())?;
    let h = read(kc.with_extension("h"))?;
    // (its header is `k_<prefix>.h` already: the output's name)
    let (_, prog) = driver::lower(file, &text, cfg, &super::super::FsLoader);
    let prog = prog.ok_or_else(|| format!("`{}`: no IR", file))?;
    build_from_c(
        dir,
        prefix,
        &prog,
        &crate::codegen::COutput { c, h },
        cfg.arch,
        &CcSpec::default(),
    )
}

/// [`build`] from C already generated for `prog` (whose header `out.h` is written as
/// `k_<prefix>.h`: generate it with that header name), with the kernel built by `spec`.
pub fn build_from_c(
    dir: &Path,
    prefix: &str,
    prog: &crate::ir::Program,
    out: &crate::codegen::COutput,
    arch: crate::codegen::Arch,
    spec: &CcSpec,
) -> Result<Built, String> {
    let h_name = format!("k_{}.h", prefix);
    let entry_fn = format!("{}__", crate::codegen::c_emit::sanitize(&prog.entry().name));
    let instances = instances_from_header(&out.h, &entry_fn)
        .ok_or_else(|| format!("no `{}INSTANCES` in the generated header", entry_fn))?;
    let bpi = bytes_per_instance(prog);
    let has_packed = out.h.contains(&format!(" {}packed(", entry_fn));
    let packed_layout = if has_packed {
        crate::codegen::packed::layout(prog, arch).ok()
    } else {
        None
    };
    let packed_n = packed_layout.as_ref().map(|_| packed_instances(bpi));
    let packed_kernel = (2..=8u32)
        .find(|k| {
            out.c
                .contains(&format!("static NK_TARGET void {}x{}(", entry_fn, k))
        })
        .unwrap_or(1);

    let kc = dir.join(format!("k_{}.c", prefix));
    std::fs::write(&kc, &out.c)
        .and_then(|_| std::fs::write(dir.join(&h_name), &out.h))
        .map_err(|e| format!("cannot write C: {}", e))?;
    let ko = dir.join(format!("k_{}.o", prefix));
    run_tool(
        Command::new(&spec.cc)
            .args(&spec.flags)
            .arg("-c")
            .arg(&kc)
            .arg("-o")
            .arg(&ko),
    )?;
    let dis = run_tool(Command::new("objdump").args(["-dwr"]).arg(&ko)).map_err(|e| {
        format!(
            "{} (objdump comes with binutils: run scripts/install-peers.sh)",
            e
        )
    })?;
    let stats = asm::analyze(&asm::parse(&dis), &entry_fn);

    // The driver: timing loops around both entries.
    let e = prog.entry();
    let mut d = String::new();
    d.push_str("#include <stdint.h>\n#include <stddef.h>\n#include <stdlib.h>\n#include <string.h>\n#include <x86intrin.h>\n");
    d.push_str(&format!("#include \"{}\"\n", h_name));
    // Every buffer comes from a 2 MiB-aligned arena advised into transparent huge pages: the
    // kept-loop programs (their state in the output array) varied by up to 1.8x from process to
    // process with the buffers in 4 KiB pages, the same binary, even without ASLR (README,
    // "Buffers in huge pages").
    d.push_str("#include <sys/mman.h>\n");
    d.push_str("static unsigned char *nk_arena;\nstatic size_t nk_arena_left;\n");
    d.push_str("static void *nk_alloc(size_t n) {\n    n = (n + 63) / 64 * 64;\n    if (n > nk_arena_left) {\n        size_t sz = (n + ((size_t)2 << 20) - 1) / ((size_t)2 << 20) * ((size_t)2 << 20);\n        nk_arena = aligned_alloc((size_t)2 << 20, sz);\n        if (!nk_arena) abort();\n#ifdef MADV_HUGEPAGE\n        madvise(nk_arena, sz, MADV_HUGEPAGE);\n#endif\n        memset(nk_arena, 0, sz);\n        nk_arena_left = sz;\n    }\n    void *p = nk_arena;\n    nk_arena += n;\n    nk_arena_left -= n;\n    return p;\n}\n");
    d.push_str("static uint64_t nk_rng = 0x9e3779b97f4a7c15ull;\n");
    d.push_str("static void nk_fill(void *p, size_t len) { unsigned char *c = p; for (size_t i = 0; i < len; i++) { nk_rng ^= nk_rng << 13; nk_rng ^= nk_rng >> 7; nk_rng ^= nk_rng << 17; c[i] = (unsigned char)(nk_rng >> 32); } }\n");
    let all: Vec<(&crate::ir::Param, bool)> = e
        .inputs
        .iter()
        .map(|p| (p, true))
        .chain(e.outputs.iter().map(|p| (p, false)))
        .collect();
    for (k, (p, _)) in all.iter().enumerate() {
        d.push_str(&format!(
            "static unsigned char *nk_r{k};\n#define NK_R{k}_BYTES ({} * sizeof({}DATATYPE))\n",
            p.atoms.len().max(1),
            entry_fn
        ));
    }
    let raw_args: Vec<String> = all
        .iter()
        .enumerate()
        .map(|(k, (p, is_in))| {
            if *is_in && p.c_dims.is_empty() {
                format!("*({}DATATYPE *)nk_r{}", entry_fn, k)
            } else {
                format!("(void *)nk_r{}", k)
            }
        })
        .collect();
    let mut init = String::new();
    let mut digest = String::new();
    for (k, (_, is_in)) in all.iter().enumerate() {
        init.push_str(&format!("    nk_r{k} = nk_alloc(NK_R{k}_BYTES);\n"));
        if *is_in {
            init.push_str(&format!("    nk_fill(nk_r{k}, NK_R{k}_BYTES);\n"));
        } else {
            digest.push_str(&format!("    for (size_t i = 0; i < NK_R{k}_BYTES && i < 64; i++) h = h * 31 + nk_r{k}[i];\n"));
        }
    }
    let mut packed_fn = String::from("    (void)calls;\n    return 0;\n");
    // One call on one block (`measure_cold`): the packed entry with n = 1 when there is one.
    let mut cold_call = format!("{}({})", entry_fn, raw_args.join(", "));
    if let (Some(l), Some(n)) = (&packed_layout, packed_n) {
        let mut args = vec![format!("(size_t){}", n)];
        for (k, pp) in l.params.iter().enumerate() {
            let count = if pp.is_const { 1 } else { n };
            let bytes = format!(
                "((size_t){} * {} * sizeof({}))",
                count, pp.elems, pp.elem_type
            );
            d.push_str(&format!("static unsigned char *nk_p{};\n", k));
            init.push_str(&format!(
                "    nk_p{k} = nk_alloc({bytes}); nk_fill(nk_p{k}, {bytes});\n"
            ));
            if !pp.is_input {
                digest.push_str(&format!(
                    "    for (size_t i = 0; i < 64 && i < {bytes}; i++) h = h * 31 + nk_p{k}[i];\n"
                ));
            }
            args.push(format!("(void *)nk_p{}", k));
        }
        let mut one = args.clone();
        one[0] = "(size_t)1".into();
        cold_call = format!("{}packed({})", entry_fn, one.join(", "));
        packed_fn = format!(
            "    _mm_lfence(); uint64_t t0 = __rdtsc(); _mm_lfence();\n    for (uint64_t c = 0; c < calls; c++) {}packed({});\n    _mm_lfence(); uint64_t t1 = __rdtsc(); _mm_lfence();\n    return t1 - t0;\n",
            entry_fn,
            args.join(", ")
        );
    }
    d.push_str(&format!(
        "void {p}_init(void) {{\n{init}}}\n",
        p = prefix,
        init = init
    ));
    d.push_str(&format!(
        "uint64_t {p}_raw(uint64_t calls) {{\n    _mm_lfence(); uint64_t t0 = __rdtsc(); _mm_lfence();\n    for (uint64_t c = 0; c < calls; c++) {e}({a});\n    _mm_lfence(); uint64_t t1 = __rdtsc(); _mm_lfence();\n    return t1 - t0;\n}}\n",
        p = prefix,
        e = entry_fn,
        a = raw_args.join(", ")
    ));
    d.push_str(&format!(
        "uint64_t {p}_packed(uint64_t calls) {{\n{b}}}\n",
        p = prefix,
        b = packed_fn
    ));
    d.push_str(&format!(
        "uint64_t {p}_cold(void) {{\n    _mm_lfence(); uint64_t t0 = __rdtsc(); _mm_lfence();\n    {c};\n    _mm_lfence(); uint64_t t1 = __rdtsc(); _mm_lfence();\n    return t1 - t0;\n}}\n",
        p = prefix,
        c = cold_call
    ));
    d.push_str(&format!(
        "uint64_t {p}_digest(void) {{\n    uint64_t h = 0;\n{d}    return h;\n}}\n",
        p = prefix,
        d = digest
    ));
    let dc = dir.join(format!("d_{}.c", prefix));
    std::fs::write(&dc, d).map_err(|e| format!("cannot write C: {}", e))?;
    let dobj = dir.join(format!("d_{}.o", prefix));
    run_tool(
        Command::new(cc())
            .args(["-O2", "-march=native", "-c"])
            .arg(&dc)
            .arg("-o")
            .arg(&dobj),
    )?;

    // Rename the kernel's global symbols in both objects.
    let nm = run_tool(Command::new("nm").args(["-g", "--defined-only"]).arg(&ko))?;
    let mut objcopy_args: Vec<String> = Vec::new();
    for l in nm.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 3 {
            objcopy_args.push(format!("--redefine-sym={}={}_{}", f[2], prefix, f[2]));
        }
    }
    for o in [&ko, &dobj] {
        run_tool(Command::new("objcopy").args(&objcopy_args).arg(o))?;
    }
    Ok(Built {
        prefix: prefix.to_string(),
        entry_fn,
        instances,
        bytes_per_instance: bpi,
        packed_n,
        stats,
        objects: vec![ko, dobj],
        c_lines: out.c.lines().count(),
        packed_kernel,
    })
}

/// Per-call timings of one variant (TSC ticks per call, minimum over windows).
#[derive(Clone, Debug, Default)]
pub struct Timing {
    pub raw_ticks: f64,
    pub packed_ticks: Option<f64>,
}

/// Result of one harness run.
#[derive(Clone, Debug)]
pub struct Run {
    /// TSC ticks per core clock cycle.
    pub tsc_ratio: f64,
    /// Windows timed per variant (summed over the processes).
    pub windows: u32,
    /// Processes the timings are the minimum over ([`measure_min`]; 1 for [`measure`]).
    pub processes: usize,
    pub timings: Vec<Timing>,
}

/// [`measure`] in `processes` processes (at least one): each variant's raw and packed
/// ticks, the minimum over them. On a shared machine a whole process can run slow (README,
/// "Several processes": a kept-loop kernel 1.4x in some processes); the minimum is the
/// figure of the processes that did not.
pub fn measure_min(
    dir: &Path,
    built: &[&Built],
    effort: Effort,
    processes: usize,
) -> Result<Run, String> {
    let mut best = measure(dir, built, effort)?;
    for _ in 1..processes {
        let r = measure(dir, built, effort)?;
        best.windows += r.windows;
        best.processes += 1;
        for (b, t) in best.timings.iter_mut().zip(&r.timings) {
            b.raw_ticks = b.raw_ticks.min(t.raw_ticks);
            b.packed_ticks = match (b.packed_ticks, t.packed_ticks) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            };
        }
    }
    Ok(best)
}

/// TSC ticks per core cycle: a chain of dependent register-register adds (1 core cycle each)
/// timed with rdtsc. Not `add $imm, reg`: Intel's Golden Cove cores fold chains of immediate
/// adds at rename, which read a ratio of 0.12 on the Sapphire-Rapids-class machine of
/// 2026-11-26 (0.72 with a register operand, the same as an `imul` chain divided by its
/// latency of 3).
pub const TSC_RATIO_C: &str = r#"
static double nk_tsc_ratio(int windows) {
    uint64_t best = ~(uint64_t)0, x = 1, one = 1;
    for (int w = 0; w < windows; w++) {
        _mm_lfence(); uint64_t t0 = __rdtsc(); _mm_lfence();
        for (int i = 0; i < 100; i++)
            __asm__ volatile(".rept 1000\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
        _mm_lfence(); uint64_t t1 = __rdtsc(); _mm_lfence();
        if (t1 - t0 < best) best = t1 - t0;
    }
    nk_sink ^= x;
    return (double)best / 100000.0;
}
"#;

/// Links the built variants into one harness and runs it; kernels are measured in interleaved
/// windows (the order alternates every window). Each timed window follows one untimed window
/// of the same calls: the variants' code and data together can outgrow L2 (two Serpent `-B`
/// avx512 variants: 4 x ~0.4 MB of code and 2 x 270 KB of raw key registers), and a window of a
/// few calls that began by refetching them from L3 read 1.3-2.8x the steady-state time, in
/// whichever slot the eviction order hurt (Intel, 2026-11-26: 4.3 and 7.5 c/B against 2.65
/// alone, identical code; one untimed call before each window still left 2.88 and 3.38).
pub fn measure(dir: &Path, built: &[&Built], effort: Effort) -> Result<Run, String> {
    let mut m = String::from("#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <time.h>\n#include <x86intrin.h>\n");
    m.push_str("static volatile uint64_t nk_sink;\n");
    m.push_str(TSC_RATIO_C);
    m.push_str("typedef uint64_t (*nk_fn)(uint64_t);\n");
    let mut fns = Vec::new();
    for b in built {
        let p = &b.prefix;
        m.push_str(&format!("void {p}_init(void); uint64_t {p}_raw(uint64_t); uint64_t {p}_packed(uint64_t); uint64_t {p}_digest(void);\n"));
        fns.push((format!("{}_raw", p), format!("{}_digest", p)));
        if b.packed_n.is_some() {
            fns.push((format!("{}_packed", p), format!("{}_digest", p)));
        }
    }
    let k = fns.len();
    m.push_str(&format!(
        "static nk_fn fns[{}] = {{{}}};\n",
        k,
        fns.iter()
            .map(|f| f.0.clone())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    m.push_str(&format!(
        "static uint64_t (*digests[{}])(void) = {{{}}};\n",
        k,
        fns.iter()
            .map(|f| f.1.clone())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    m.push_str("static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }\n");
    m.push_str("int main(int argc, char **argv) {\n    if (argc < 4) return 2;\n    int windows = atoi(argv[1]); uint64_t target = strtoull(argv[2], 0, 10); double budget = atof(argv[3]);\n");
    for b in built {
        m.push_str(&format!("    {}_init();\n", b.prefix));
    }
    m.push_str(&format!(
        r#"    enum {{ K = {k} }};
    uint64_t calls[K], best[K];
    for (int i = 0; i < K; i++) {{
        uint64_t c = 1;
        for (;;) {{ uint64_t t = fns[i](c); if (t >= target || c >= ((uint64_t)1 << 30)) break; c *= 2; }}
        calls[i] = c; best[i] = ~(uint64_t)0;
    }}
    double ratio = nk_tsc_ratio(windows < 20 ? 20 : 200);
    double start = now();
    int w = 0;
    for (; w < windows; w++) {{
        for (int j = 0; j < K; j++) {{
            int i = (w & 1) ? K - 1 - j : j;
            (void)fns[i](calls[i]); /* untimed: refetch what the other variants' windows evicted */
            uint64_t t = fns[i](calls[i]);
            if (t < best[i]) best[i] = t;
            nk_sink ^= digests[i]();
        }}
        if (w >= 4 && now() - start > budget) {{ w++; break; }}
    }}
    printf("tsc_ratio %.5f\nwindows %d\n", ratio, w);
    for (int i = 0; i < K; i++) printf("ticks %d %.3f\n", i, (double)best[i] / (double)calls[i]);
    return 0;
}}
"#
    ));
    let out = link_and_run(
        dir,
        "main.c",
        &m,
        "bench",
        built,
        &[
            effort.windows.to_string(),
            effort.window_ticks.to_string(),
            format!("{}", effort.budget_s),
        ],
    )?;
    let mut ratio = None;
    let mut windows = 0;
    let mut ticks: Vec<f64> = Vec::new();
    for l in out.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.as_slice() {
            ["tsc_ratio", v] => ratio = v.parse().ok(),
            ["windows", v] => windows = v.parse().unwrap_or(0),
            ["ticks", _, v] => ticks.push(v.parse().unwrap_or(f64::NAN)),
            _ => {}
        }
    }
    if ticks.len() != k {
        return Err(format!(
            "the harness printed {} timings, expected {}:\n{}",
            ticks.len(),
            k,
            out
        ));
    }
    let mut timings = Vec::new();
    let mut it = ticks.into_iter();
    for b in built {
        let raw = it.next().unwrap_or(f64::NAN);
        let packed = if b.packed_n.is_some() {
            it.next()
        } else {
            None
        };
        timings.push(Timing {
            raw_ticks: raw,
            packed_ticks: packed,
        });
    }
    Ok(Run {
        processes: 1,
        tsc_ratio: ratio.unwrap_or(f64::NAN),
        windows,
        timings,
    })
}

/// Cycles of one call on one block (the packed entry with n = 1, else one raw call) with cold
/// caches: before every call the harness runs ~390 KiB of unrelated straight-line code (more
/// than the L1 instruction cache and most of L2) and writes 1 MiB of data, so the kernel's
/// code, constants and stack are fetched again. Variants alternate; the median over `trials`
/// calls per variant (TSC ticks) is returned, in the order of `built`.
pub fn measure_cold(dir: &Path, built: &[&Built], trials: u32) -> Result<Vec<f64>, String> {
    let mut m = String::from(
        "#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <x86intrin.h>\n",
    );
    m.push_str("static volatile uint64_t nk_sink;\nstatic unsigned char nk_junk[1 << 20];\n");
    m.push_str("__attribute__((noinline)) static void nk_evict(void) {\n    __asm__ volatile(\".rept 65536\\n\\tadd $1, %%eax\\n\\tadd $1, %%ecx\\n\\t.endr\" ::: \"eax\", \"ecx\", \"cc\");\n    for (size_t i = 0; i < sizeof nk_junk; i += 64) nk_junk[i]++;\n    nk_sink ^= nk_junk[4096];\n}\n");
    m.push_str("static int nk_cmp(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; return x < y ? -1 : x > y; }\n");
    for b in built {
        m.push_str(&format!(
            "void {p}_init(void); uint64_t {p}_cold(void); uint64_t {p}_digest(void);\n",
            p = b.prefix
        ));
    }
    let k = built.len();
    m.push_str(&format!(
        "typedef uint64_t (*nk_fn)(void);\nstatic nk_fn fns[{}] = {{{}}};\n",
        k,
        built
            .iter()
            .map(|b| format!("{}_cold", b.prefix))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    m.push_str(&format!(
        "static nk_fn digests[{}] = {{{}}};\n",
        k,
        built
            .iter()
            .map(|b| format!("{}_digest", b.prefix))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    m.push_str("int main(int argc, char **argv) {\n    if (argc < 2) return 2;\n    int trials = atoi(argv[1]); if (trials < 1) trials = 1;\n");
    for b in built {
        m.push_str(&format!("    {}_init();\n", b.prefix));
    }
    m.push_str(&format!(
        r#"    enum {{ K = {k} }};
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)trials * K);
    if (!t) return 3;
    for (int w = 0; w < trials; w++)
        for (int j = 0; j < K; j++) {{
            int i = (w & 1) ? K - 1 - j : j;
            nk_evict();
            t[(size_t)i * trials + w] = fns[i]();
            nk_sink ^= digests[i]();
        }}
    for (int i = 0; i < K; i++) {{
        qsort(t + (size_t)i * trials, trials, sizeof(uint64_t), nk_cmp);
        printf("cold %d %llu\n", i, (unsigned long long)t[(size_t)i * trials + trials / 2]);
    }}
    return 0;
}}
"#
    ));
    let out = link_and_run(
        dir,
        "main_cold.c",
        &m,
        "bench_cold",
        built,
        &[trials.to_string()],
    )?;
    let v: Vec<f64> = out
        .lines()
        .filter_map(|l| l.strip_prefix("cold "))
        .filter_map(|r| r.split_whitespace().nth(1)?.parse().ok())
        .collect();
    if v.len() != k {
        return Err(format!(
            "the cold harness printed {} timings, expected {}:\n{}",
            v.len(),
            k,
            out
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::Arch;
    use crate::ir::Slicing;

    const SRC: &str = "node f (plain:u16x4, key:const u16x4, tweak:u16x4) returns (c:u16x4) let c = plain ^ key ^ tweak tel\n";

    /// Bytes per raw call = instances x bytes of the non-const inputs of one instance (here
    /// `plain` and `tweak`: 2 x 4 x 16 bits = 16 bytes; the const `key` is not data), checked
    /// against the instance count the generated header declares, in every slicing on SIMD.
    #[test]
    fn bytes_per_call_on_simd() {
        let cases = [
            (Slicing::B, Arch::Avx2, 256),
            (Slicing::V, Arch::Avx2, 16),
            (Slicing::H, Arch::Avx2, 16),
            (Slicing::B, Arch::Sse, 128),
            (Slicing::V, Arch::Sse, 8),
            (Slicing::H, Arch::Sse, 8),
            (Slicing::B, Arch::Avx512, 512),
            (Slicing::V, Arch::Avx512, 32),
            (Slicing::V, Arch::Std, 1),
            (Slicing::B, Arch::Std, 64),
        ];
        for (s, arch, inst) in cases {
            let cfg = Config {
                slicing: s,
                arch,
                ..Config::default()
            };
            let (front, prog) =
                driver::lower("t.ua", SRC, &cfg, &crate::syntax::MemLoader::default());
            let prog = prog.unwrap_or_else(|| panic!("{}", front.render_diags()));
            assert_eq!(bytes_per_instance(&prog), 16.0, "-{} {}", s, arch);
            let (_, out) = driver::compile(
                "t.ua",
                SRC,
                &cfg,
                &crate::syntax::MemLoader::default(),
                "t.h",
            );
            let out = out.unwrap();
            let n = instances_from_header(&out.h, "f__").unwrap();
            assert_eq!(n, inst, "-{} {}: instances per call", s, arch);
            let b = Built {
                prefix: "a".into(),
                entry_fn: "f__".into(),
                instances: n,
                bytes_per_instance: 16.0,
                packed_n: Some(packed_instances(16.0)),
                stats: None,
                objects: vec![],
                c_lines: 0,
                packed_kernel: 1,
            };
            assert_eq!(
                b.raw_bytes_per_call(),
                inst as f64 * 16.0,
                "-{} {}",
                s,
                arch
            );
            assert_eq!(
                b.packed_bytes_per_call(),
                Some(PACKED_BYTES as f64),
                "-{} {}: 4096 instances of 16 bytes",
                s,
                arch
            );
        }
    }

    #[test]
    fn bitslice_bits_count_once() {
        // b64 plain (64 one-bit words) and b80 key per instance: 18 bytes per instance
        let src = "node p (x:b64, k:b80) returns (y:b64) let y = x ^ k[0..63] tel\n";
        for s in [Slicing::B, Slicing::V] {
            let cfg = Config {
                slicing: s,
                arch: Arch::Avx2,
                ..Config::default()
            };
            let (front, prog) =
                driver::lower("t.ua", src, &cfg, &crate::syntax::MemLoader::default());
            let prog = prog.unwrap_or_else(|| panic!("{}", front.render_diags()));
            assert_eq!(bytes_per_instance(&prog), 18.0, "-{}", s);
        }
        assert_eq!(
            packed_instances(18.0),
            4096,
            "64 KiB / 18 B rounded up to a multiple of 512"
        );
    }
}
