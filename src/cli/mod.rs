//! The command line. The only module (with the autotuner) that touches files and processes.
//!
//! Native: `nakiri check FILE.ua [-B|-V|-H] [-I DIR] [--dump ast|typed|ir]`,
//! `nakiri compile FILE.ua [-B|-V|-H] [--arch A] [-o OUT.c] [-I DIR] [--dump ...]`.
//! Compatibility: the original usubac's command line (`nakiri -arch avx -o out.c -B file.ua`,
//! `nakiri -type-only -B file.ua`, ...), single-dash flags included.

pub mod bench;
pub mod ctcheck;
pub mod demo;
pub mod tune;

use crate::codegen::Arch;
use crate::driver::{self, Config};
use crate::ir::Slicing;
use crate::opt::PassId;
use crate::syntax::Loader;
use std::io::Write;

/// Reads files from disk: regular files only (a FIFO, device or folder is refused without
/// being opened for long), at most `syntax::MAX_SOURCE_BYTES` bytes, UTF-8 text only (the
/// reason for a refusal never quotes the content).
pub struct FsLoader;

impl Loader for FsLoader {
    fn read(&self, path: &str) -> Result<String, String> {
        read_source_file(path)
    }
    fn exists(&self, path: &str) -> bool {
        std::path::Path::new(path).is_file()
    }
    fn canonical(&self, path: &str) -> String {
        match std::fs::canonicalize(path) {
            Ok(p) => p.to_string_lossy().into_owned(),
            Err(_) => crate::syntax::lexical_normalize(path),
        }
    }
}

/// Reads one source file (see [`FsLoader`]).
pub fn read_source_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let limit = crate::syntax::MAX_SOURCE_BYTES;
    let not_regular = |m: &std::fs::Metadata| -> Option<String> {
        let ft = m.file_type();
        if ft.is_dir() {
            Some("it is a folder, not a source file".into())
        } else if !ft.is_file() {
            Some(
                "not a regular file (a device, FIFO or socket); Usuba sources are regular files"
                    .into(),
            )
        } else {
            None
        }
    };
    // Checked before opening: opening a FIFO would wait for a writer.
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if let Some(e) = not_regular(&meta) {
        return Err(e);
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(target_os = "linux")]
    {
        // O_NONBLOCK: should the file be swapped for a FIFO after the check, open returns at once.
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(0o4000);
    }
    let f = opts.open(path).map_err(|e| e.to_string())?;
    if let Some(e) = f.metadata().ok().as_ref().and_then(not_regular) {
        return Err(e);
    }
    let mut bytes = Vec::new();
    f.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() > limit {
        return Err(format!(
            "larger than {} bytes (the largest source file read)",
            limit
        ));
    }
    crate::syntax::source_text(bytes)
}

const HELP: &str = "nakiri — an optimizing compiler for the Usuba language

USAGE:
    nakiri check FILE.ua [OPTIONS]        parse and type-check; prints `ok` or diagnostics
    nakiri compile FILE.ua [OPTIONS]      compile to C (FILE.c and FILE.h, or -o OUT.c)
    nakiri demo [aes|des|chacha20]        compile a shipped cipher for the best target of this
                                          CPU, build and run its known-answer check
    nakiri bench FILE.ua [OPTIONS] [--quick] [--cold] [--runs N]
                                          build with cc -O3 -march=native and measure: cycles/byte
                                          of the raw and packed entries (TSC, min over windows;
                                          --runs N: and over N processes), TSC/core-clock ratio,
                                          insns/spills per block, code bytes
    nakiri bench compare FILE.ua A-OPTIONS -- B-OPTIONS [--swap | --runs N]
                                          two variants timed side by side in one process;
                                          --runs N: in N processes (every other one with B
                                          linked first), the mean ratio, each variant's minimum
                                          over the runs and their ratio; --swap = --runs 2
    nakiri bench ciphers [--json [FILE]] [--arch A] [--slicing BVH] [--only NAMES] [--quick]
                         [--runs N]       every shipped cipher x slicing x target, with the peers
                                          (OpenSSL, libsodium, Botan: scripts/install-peers.sh)
    nakiri bench transpose [--arch A] [--quick] [--b-nakiri PATH]
                                          the packed API's transpositions alone, per layout, c/B
                                          next to a memcpy of the same bytes
    nakiri bench modes [--arch A] [--quick]
                                          chacha20_xor and aes128_ctr_xor on 16 KiB and 1 MiB
                                          next to OpenSSL
    nakiri bench limits [--arch A] [--only NAMES] [--from FILE.json]... [-- FLAGS]
                                          the physical limit of every cipher x slicing x target
                                          (ALU operations per byte / issue width, static) and,
                                          from a bench ciphers JSON run, how close raw gets
    nakiri bench [frontend|compile]       timing tables (front end; source to C)
    nakiri bench compile --scaling        time and peak memory of 1k/10k/100k-node chains
                                          and wide entries (near-linear growth)
    nakiri bench ciphers --scaling        per cipher, c/B on std/sse/avx2/avx512 and the
                                          speedup of each over GP registers
    nakiri ctcheck FILE.ua [OPTIONS] [--secret NAMES] [--all] [--cflags F]
                                          build the C and run its packed entry under valgrind
                                          memcheck with the secret inputs (default: all
                                          inputs, const ones too) marked undefined; reports
                                          every branch or address that depends on a secret,
                                          with its C line. --all: every shipped cipher
    nakiri tune FILE.ua [OPTIONS] [--budget S] [--goal hot|cold|size|packed] [--knobs K,..]
                [--allow-abi-change] [--report R.md] [--plot P.svg] [--no-cache] [--quick]
                [--runs N]                autotune: measure variants (inlining per node, kept
                                          loops per loop, schedulers, ternlog, C compiler and
                                          flags; interleaving with --allow-abi-change) on this
                                          machine, write the best C, a report and a plot;
                                          cached per source, flags, CPU and compiler;
                                          --runs N: each batch in N processes, the minima
    nakiri targets                        which targets run natively on this CPU
    nakiri [usubac flags] FILE.ua         the original usubac command line (compiles)

OPTIONS:
    -B, --bitslice        bitslice (every bit in its own register)
    -V, --vslice          vertical slicing (default)
    -H, --hslice          horizontal slicing
    --arch A, -arch A     std (gp), sse, avx (avx2), avx512, neon   [default: std]
    -o OUT.c              output C file; the header is written beside it as OUT.h
    -I DIR                add an include search folder (repeatable)
    --dump ast|typed|ir   print the program after parsing, after typing, or as optimised IR
    --disable P[,P..]     switch optimisation passes off (names: see --dump-after)
    --enable P[,P..]      switch on passes that are off by default (sched-ilp)
    --dump-after P        print the IR after pass P (outline, copy-prop, inline, fold, cse,
                          reroll, ...) in the `--dump ir` text form, and stop
    -v                    print each optimisation pass's time, the IR size after it
                          (instructions, atoms, most values live at once) and its rewrites
    --sched-window N      run the m-slice scheduler (off by default) with this window
                          (default 10; usubac -sched-n)
    --spill, --no-spill   explicit spilling of vsliced kept-loop bodies on SSE/AVX2/AVX-512
                          (on by default; target/spill.rs)
    --mem-loops, --no-mem-loops
                          kept loops whose state has more words than the target has
                          registers keep it in memory, double-buffered, and read their
                          per-round inputs in place (on by default; codegen/memloop.rs)
    --loop-regs N         how many state words of such a loop stay in registers from
                          one iteration to the next (default: half the registers on
                          avx512, none elsewhere; 0: none)
    --loop-align K        x86-64: each kept loop's body starts 64-byte aligned plus K bytes
                          of no-ops (K: 0, 8, .., 56; default: where the C compiler puts
                          it); how the body falls in 64-byte lines can change its speed
                          (README, Stop 49; the tuner's loop-align knob)
    --entry-halves, --no-entry-halves
                          -B on avx512: the raw entry runs a 256-bit program on each
                          half of its registers (off by default; a tuner knob: README,
                          the avx512 raw entry on two 256-bit halves)
    --halves-ir avx2|avx512
                          which program those halves run: the source compiled for
                          avx2 (default), or the avx512 program itself at 256 bits
    --halves-in-place, --no-halves-in-place
                          run them in place on strided arrays, or on copies of each
                          half (default)
    --state-loads, --no-state-loads
                          kept loops with their state in memory read each state word
                          into a register once (within 8 instructions) instead of
                          letting the C compiler re-read it (default: on AVX2 in a
                          loop body where those loads are >= 4.5% of its work; a
                          tuner knob: README, state loads)
    --opaque-not, --no-opaque-not
                          SSE/AVX2: negations XOR with an all-ones register the C compiler
                          cannot see as a constant (off by default; a tuner knob: README,
                          opaque negations)
    --packed-interleave K the packed entry runs whole steps through a K-way interleaved copy
                          of the kernel (1-4; the raw entry is unchanged); default: auto,
                          the measured rule (README, Interleaving behind the packed entry)
    --packed-consts compact|full|auto
                          bitslice with const inputs: the packed API keeps them prepared as
                          one uint64_t per register and calls E__with_consts (compact), or
                          as whole registers (full); default auto, the measured rule
                          (README, compact consts)
    --sbox-circuit small|shallow|auto
                          an S-box table with several database circuits (AES) takes the
                          one with fewest gates or least depth; default auto, the measured
                          rule: small in bitslice, shallow otherwise (README, S-box circuits)
    --sched-bits-in S     the slicings the register-pressure scheduler (sched-bits) runs
                          in: B, BH (default) or BHV
    --sched-bits-up, --no-sched-bits-up
                          sched-bits keeps only a bottom-up order (values computed just
                          before their first reader), or only a top-down one; default: the
                          bottom-up order where its estimated spills are below 0.91 of the
                          top-down one's (README, the bottom-up schedule)
    --compat usubac|nakiri
                          whose meaning usubac's quirks follow (repeated `=`, the S-box
                          database bit order); default: nakiri with `check`/`compile`,
                          usubac with the usubac spelling (no subcommand)
    --max-ops N           the work budget (default 2000000): at most N operations, N loop
                          iterations unrolled, N atoms (registers) and 64*N bytes of C (past
                          it, an error names the place); N/8 instructions copied by inlining
                          (past it, calls stay calls)
    --loops P             which loops stay C `for` loops: chains (loops whose every iteration
                          reads the previous one's results, e.g. rounds), all, unroll, or
                          auto (default: chains, but on avx512 round loops are unrolled,
                          except Feistel ones and, in -H, those of words over 16 bits, and
                          in -B on Intel (--uarch) rounds with little work per bit, on AMD
                          a permutation's single round loop whose state fits L1)
    --uarch amd|intel|host
                          whose measurements the rules that differ between processor
                          families follow (--loops auto on avx512); default: host, the
                          CPU nakiri runs on (README, Loops on Intel)
    -h, --help            this help
    --version             print the version

USUBAC COMPATIBILITY FLAGS (accepted; those without an effect print a note):
    -no-inline (inline only _inline nodes)  -inline-all (inline every node not marked _no_inline)
    -unroll (same as --loops unroll)  -parse-only  -type-only
    -no-CSE (--disable cse)  -no-copy-prop (--disable copy-prop)  -no-fold-const (--disable fold)
    -no-CSE-CP-CF (all three)  -v N (N > 0: same as -v)
    -no-pre-sched (--disable sched-bits)  -no-sched (--disable sched-ilp)  -sched-n N
    -bits-per-reg N (std -B/-H: DATATYPE is uintN_t)  -lf (const inputs passed as uintN_t)
    -no-arr-entry (one C parameter per entry word)  -keep-tables (tables typed by word size,
    y = T[x] per word; computed by constant-time circuits)
    -inter-factor K (--interleave K: K copies on independent instances, usubac's ABI)
    -interleave G (--interleave-granularity G: instructions of a copy at a time; factor 2
    unless -inter-factor says)  -light-inline (only small nodes, pure wiring and _inline
    ones)  -heavy-inline (same as -inline-all)  -no-precalc-tbl
    -check-tbl -no-arr -no-share -gen-bench -w
    -bench-all -bench-inline -bench-inter -bench-bitsched -bench-msched (run `nakiri tune`
    with those knobs; -bench-inter implies --allow-abi-change)

EXIT STATUS: 0 on success, 1 on errors in the program, 2 on a bad command line.
";

#[derive(Default)]
struct Args {
    mode: Option<String>,
    file: Option<String>,
    out: Option<String>,
    dump: Option<String>,
    slicing: Option<Slicing>,
    arch: Option<Arch>,
    includes: Vec<String>,
    notes: Vec<String>,
    /// Passes switched off (`--disable`, usubac `-no-CSE` ...).
    disabled: Vec<crate::opt::PassId>,
    dump_after: Vec<crate::opt::PassId>,
    /// `-v`: print the optimiser's per-pass report on stderr.
    verbose: bool,
    sched_window: Option<usize>,
    sched_bits_in: Option<crate::opt::SchedBitsIn>,
    sched_bits_up: Option<bool>,
    spill: Option<bool>,
    mem_loops: Option<bool>,
    loop_regs: Option<usize>,
    opaque_not: Option<bool>,
    entry_halves: Option<bool>,
    halves_ir: Option<Arch>,
    halves_in_place: Option<bool>,
    state_loads: Option<bool>,
    loop_align: Option<u32>,
    packed_interleave: Option<u32>,
    packed_consts: Option<Option<bool>>,
    sbox_circuit: Option<Option<crate::normalize::sbox::CircuitGoal>>,
    uarch: Option<crate::target::Uarch>,
    inter_factor: Option<u32>,
    inter_granularity: Option<usize>,
    /// Passes switched on that are off by default (`--enable`, `-sched-n`).
    enabled: Vec<crate::opt::PassId>,
    loops: Option<crate::opt::LoopPolicy>,
    inline: Option<crate::opt::InlinePolicy>,
    /// `check`/`compile` was given (nakiri's own spelling); without it the command line is
    /// usubac's and implies `--compat usubac`.
    subcommand: bool,
    compat: Option<driver::Compat>,
    keep_tables: bool,
    lf: bool,
    no_arr_entry: bool,
    bits_per_reg: Option<u32>,
    max_ops: Option<usize>,
}

pub(crate) fn usage_error(msg: &str) -> i32 {
    eprintln!("error: {}\n(run `nakiri --help` for usage)", msg);
    2
}

/// Entry point of the binary: runs the CLI on a thread with a large stack.
pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let child = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || run(&args));
    let r = child.map(|c| c.join());
    if std::env::var_os("NAKIRI_PEAK_RSS").is_some() {
        // For tests/limits.rs: the peak resident memory of the whole run, measured by the kernel.
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        if let Some(l) = status.lines().find(|l| l.starts_with("VmHWM:")) {
            eprintln!(
                "peak-rss-kb: {}",
                l.trim_start_matches("VmHWM:")
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
            );
        }
        // ... and the CPU time it used (user + system, in clock ticks of 1/100 s on Linux):
        // unlike wall time, it does not grow when other jobs share the machine.
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        if let Some(after) = stat.rsplit_once(')').map(|x| x.1) {
            let f: Vec<&str> = after.split_whitespace().collect();
            if let (Some(u), Some(s)) = (
                f.get(11).and_then(|v| v.parse::<u64>().ok()),
                f.get(12).and_then(|v| v.parse::<u64>().ok()),
            ) {
                eprintln!("cpu-ms: {}", (u + s) * 10);
            }
        }
    }
    match r {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("internal error: the compiler crashed (please report this bug)");
            3
        }
    }
}

/// Parses a compile/check command line (native and usubac spellings). `Err(status)` when the
/// process should exit with that status (help, version, a usage error already printed).
fn parse_args(argv: &[String]) -> Result<Args, i32> {
    let mut a = Args::default();
    let mut i = 0;
    let takes_value = ["-bench-nb-runs"];
    while i < argv.len() {
        let arg = argv[i].as_str();
        let next = |i: &mut usize| -> Option<String> {
            *i += 1;
            argv.get(*i).cloned()
        };
        match arg {
            "-h" | "--help" | "-help" => {
                print!("{}", HELP);
                return Err(0);
            }
            "--version" | "-version" => {
                println!("nakiri {}", env!("CARGO_PKG_VERSION"));
                return Err(0);
            }
            "check" | "compile" if a.mode.is_none() && a.file.is_none() => {
                a.mode = Some(arg.to_string());
                a.subcommand = true;
            }
            "--compat" | "-compat" => match next(&mut i).as_deref() {
                Some("usubac") => a.compat = Some(driver::Compat::Usubac),
                Some("nakiri") => a.compat = Some(driver::Compat::Nakiri),
                _ => return Err(usage_error("`--compat` takes usubac or nakiri")),
            },
            "-keep-tables" | "--keep-tables" => a.keep_tables = true,
            "-lf" | "--lf" => a.lf = true,
            "-no-arr-entry" | "--no-arr-entry" => a.no_arr_entry = true,
            "-bits-per-reg" | "--bits-per-reg" => match next(&mut i).map(|v| v.parse::<u32>()) {
                Some(Ok(n)) if [8, 16, 32, 64].contains(&n) => a.bits_per_reg = Some(n),
                _ => return Err(usage_error("`-bits-per-reg` takes 8, 16, 32 or 64")),
            },
            "-B" | "--bitslice" => a.slicing = Some(Slicing::B),
            "-V" | "--vslice" => a.slicing = Some(Slicing::V),
            "-H" | "--hslice" => a.slicing = Some(Slicing::H),
            "--arch" | "-arch" => match next(&mut i) {
                Some(v) => match Arch::parse(&v) {
                    Some(ar) => a.arch = Some(ar),
                    None => {
                        return Err(usage_error(&format!(
                        "unknown architecture `{}` (expected std, sse, avx, avx2, avx512 or neon)",
                        v
                    )))
                    }
                },
                None => return Err(usage_error("`-arch` needs a value")),
            },
            "-o" => match next(&mut i) {
                Some(v) => a.out = Some(v),
                None => return Err(usage_error("`-o` needs a file name")),
            },
            "-I" => match next(&mut i) {
                Some(v) => a.includes.push(v),
                None => return Err(usage_error("`-I` needs a folder")),
            },
            "--dump" => match next(&mut i) {
                Some(v) if ["ast", "typed", "ir"].contains(&v.as_str()) => a.dump = Some(v),
                _ => return Err(usage_error("`--dump` takes ast, typed or ir")),
            },
            "-parse-only" => {
                a.mode = Some("check".into());
                a.dump.get_or_insert_with(|| "parse-only".into());
            }
            "-type-only" => a.mode = Some("check".into()),
            "-no-copy-prop" => a.disabled.push(PassId::CopyProp),
            "-no-CSE" => a.disabled.push(PassId::Cse),
            "-no-pre-sched" => a.disabled.push(PassId::SchedBits),
            "-inter-factor" | "--interleave" => {
                match next(&mut i).and_then(|v| v.parse::<u32>().ok()) {
                    Some(k) if (1..=8).contains(&k) => a.inter_factor = Some(k),
                    _ => {
                        return Err(usage_error(&format!(
                            "`{}` needs a factor from 1 to 8",
                            arg
                        )))
                    }
                }
            }
            "-interleave" | "--interleave-granularity" => {
                match next(&mut i).and_then(|v| v.parse::<usize>().ok()) {
                    Some(g) if g >= 1 => a.inter_granularity = Some(g),
                    _ => {
                        return Err(usage_error(&format!(
                            "`{}` needs a granularity (a number >= 1)",
                            arg
                        )))
                    }
                }
            }
            "-no-sched" => a.disabled.push(PassId::SchedIlp),
            "-sched-n" | "--sched-window" => {
                match next(&mut i).and_then(|v| v.parse::<usize>().ok()) {
                    Some(n) if n >= 1 => {
                        a.sched_window = Some(n);
                        a.enabled.push(PassId::SchedIlp);
                    }
                    _ => {
                        return Err(usage_error(&format!(
                            "`{}` needs a window size (a number >= 1)",
                            arg
                        )))
                    }
                }
            }
            "--sched-bits-in" => {
                match next(&mut i).and_then(|v| crate::opt::SchedBitsIn::parse(&v)) {
                    Some(v) => a.sched_bits_in = Some(v),
                    None => return Err(usage_error("`--sched-bits-in` needs B, BH or BHV")),
                }
            }
            "--packed-consts" => match next(&mut i).as_deref() {
                Some("compact") => a.packed_consts = Some(Some(true)),
                Some("full") => a.packed_consts = Some(Some(false)),
                Some("auto") => a.packed_consts = Some(None),
                _ => return Err(usage_error("`--packed-consts` needs compact, full or auto")),
            },
            "--uarch" => match next(&mut i)
                .as_deref()
                .and_then(crate::target::Uarch::parse)
            {
                Some(u) => a.uarch = Some(u),
                None => return Err(usage_error("`--uarch` needs amd, intel or host")),
            },
            "--sbox-circuit" => match next(&mut i).as_deref() {
                Some("small") => {
                    a.sbox_circuit = Some(Some(crate::normalize::sbox::CircuitGoal::Small))
                }
                Some("shallow") => {
                    a.sbox_circuit = Some(Some(crate::normalize::sbox::CircuitGoal::Shallow))
                }
                Some("auto") => a.sbox_circuit = Some(None),
                _ => return Err(usage_error("`--sbox-circuit` needs small, shallow or auto")),
            },
            "--packed-interleave" => match next(&mut i).and_then(|v| {
                if v == "auto" {
                    Some(0)
                } else {
                    v.parse::<u32>().ok()
                }
            }) {
                Some(k) if k <= 4 => a.packed_interleave = Some(k),
                _ => {
                    return Err(usage_error(
                        "`--packed-interleave` needs auto or a factor from 1 to 4",
                    ))
                }
            },
            "--spill" => a.spill = Some(true),
            "--no-spill" => a.spill = Some(false),
            "--mem-loops" => a.mem_loops = Some(true),
            "--no-mem-loops" => a.mem_loops = Some(false),
            "--loop-regs" => match next(&mut i).and_then(|v| v.parse::<usize>().ok()) {
                Some(n) => a.loop_regs = Some(n),
                None => {
                    return Err(usage_error(
                        "`--loop-regs` needs a count of state slots (0: none)",
                    ))
                }
            },
            "--loop-align" => match next(&mut i).and_then(|v| v.parse::<u32>().ok()) {
                Some(k) if crate::codegen::loop_align_valid(k) => a.loop_align = Some(k),
                _ => {
                    return Err(usage_error(
                        "`--loop-align` needs a byte offset: 0, 8, 16, 24, 32, 40, 48 or 56",
                    ))
                }
            },
            "--opaque-not" => a.opaque_not = Some(true),
            "--no-opaque-not" => a.opaque_not = Some(false),
            "--entry-halves" => a.entry_halves = Some(true),
            "--no-entry-halves" => a.entry_halves = Some(false),
            "--sched-bits-up" => a.sched_bits_up = Some(true),
            "--no-sched-bits-up" => a.sched_bits_up = Some(false),
            "--state-loads" => a.state_loads = Some(true),
            "--no-state-loads" => a.state_loads = Some(false),
            "--halves-in-place" => a.halves_in_place = Some(true),
            "--no-halves-in-place" => a.halves_in_place = Some(false),
            "--halves-ir" => match next(&mut i).as_deref() {
                Some("avx2") => a.halves_ir = Some(Arch::Avx2),
                Some("avx512") => a.halves_ir = Some(Arch::Avx512),
                _ => return Err(usage_error("`--halves-ir` needs avx2 or avx512")),
            },
            "-no-fold-const" => a.disabled.push(PassId::Fold),
            "-no-CSE-CP-CF" => a
                .disabled
                .extend([PassId::Cse, PassId::CopyProp, PassId::Fold]),
            "--disable" | "--dump-after" | "--enable" => {
                let Some(v) = next(&mut i) else {
                    return Err(usage_error(&format!(
                        "`{}` needs a pass name ({})",
                        arg,
                        PassId::names()
                    )));
                };
                for name in v.split(',') {
                    let Some(p) = PassId::parse(name.trim()) else {
                        return Err(usage_error(&format!(
                            "unknown pass `{}` (passes: {})",
                            name,
                            PassId::names()
                        )));
                    };
                    match arg {
                        "--disable" => a.disabled.push(p),
                        "--enable" => a.enabled.push(p),
                        _ => a.dump_after.push(p),
                    }
                }
            }
            "-v" | "--verbose" => {
                // usubac spells it `-v N` (a level); a bare `-v` is nakiri's.
                match argv.get(i + 1).and_then(|n| n.parse::<u32>().ok()) {
                    Some(level) => {
                        i += 1;
                        a.verbose = level > 0;
                    }
                    None => a.verbose = true,
                }
            }
            "-no-inline" => a.inline = Some(crate::opt::InlinePolicy::Marked),
            "-inline-all" | "-heavy-inline" => a.inline = Some(crate::opt::InlinePolicy::All),
            "-light-inline" => a.inline = Some(crate::opt::InlinePolicy::Small),
            "--max-ops" | "-max-ops" => {
                match next(&mut i).map(|v| v.replace('_', "").parse::<usize>()) {
                    Some(Ok(n)) if n > 0 => a.max_ops = Some(n),
                    _ => return Err(usage_error(
                        "`--max-ops` takes a positive number (the work budget; default 2000000)",
                    )),
                }
            }
            "-unroll" | "--unroll" => a.loops = Some(crate::opt::LoopPolicy::Unroll),
            "--loops" => match next(&mut i).as_deref() {
                Some("unroll") => a.loops = Some(crate::opt::LoopPolicy::Unroll),
                Some("chains") => a.loops = Some(crate::opt::LoopPolicy::Chains),
                Some("all") => a.loops = Some(crate::opt::LoopPolicy::All),
                Some("auto") => a.loops = Some(crate::opt::LoopPolicy::Auto),
                _ => return Err(usage_error("`--loops` takes auto, chains, all or unroll")),
            },
            "-w" | "-no-precalc-tbl" | "-check-tbl" | "-no-arr" | "-gen-bench" | "-no-share" => {
                a.notes.push(arg.to_string())
            }
            s if s.starts_with("-I") && s.len() > 2 => a.includes.push(s[2..].to_string()),
            s if takes_value.contains(&s) => {
                if next(&mut i).is_none() {
                    return Err(usage_error(&format!("`{}` needs a value", s)));
                }
                a.notes.push(s.to_string());
            }
            s if s.starts_with("-bench") => a.notes.push(s.to_string()),
            s if s.starts_with('-') => return Err(usage_error(&format!("unknown option `{}`", s))),
            s => {
                if a.file.is_some() {
                    return Err(usage_error(&format!("more than one input file (`{}`)", s)));
                }
                a.file = Some(s.to_string());
            }
        }
        i += 1;
    }
    Ok(a)
}

/// The compilation options a parsed command line asks for (`argv` and `file` give the banner's
/// flags text).
fn config_of(a: &Args, argv: &[String], file: &str) -> Config {
    let mut cfg = Config {
        slicing: a.slicing.unwrap_or(Slicing::V),
        arch: a.arch.unwrap_or(Arch::Std),
        include_dirs: a.includes.clone(),
        flags_text: argv
            .iter()
            .filter(|f| **f != file)
            .cloned()
            .collect::<Vec<_>>()
            .join(" "),
        ..Config::default()
    };
    for &p in &a.enabled {
        cfg.opt.enable(p);
    }
    for &p in &a.disabled {
        cfg.opt.disable(p);
    }
    cfg.opt.dump_after = a.dump_after.clone();
    cfg.opt.report_max_live = a.verbose;
    // usubac: `-interleave G` interleaves (factor 2 unless `-inter-factor` says) at granularity G.
    match (a.inter_factor, a.inter_granularity) {
        (Some(k), g) => {
            cfg.opt.interleave = k;
            cfg.opt.interleave_granularity = g.unwrap_or(cfg.opt.interleave_granularity);
        }
        (None, Some(g)) => {
            cfg.opt.interleave = 2;
            cfg.opt.interleave_granularity = g;
        }
        (None, None) => {}
    }
    if let Some(w) = a.sched_window {
        cfg.opt.sched_window = w;
    }
    if let Some(v) = a.mem_loops {
        cfg.mem_loops = v;
    }
    if a.loop_regs.is_some() {
        cfg.loop_regs = a.loop_regs;
    }
    if let Some(v) = a.opaque_not {
        cfg.opaque_not = v;
    }
    if let Some(v) = a.entry_halves {
        cfg.entry_halves = v;
    }
    if let Some(v) = a.halves_ir {
        cfg.halves_ir = v;
    }
    if let Some(v) = a.halves_in_place {
        cfg.halves_in_place = v;
    }
    if a.state_loads.is_some() {
        cfg.state_loads = a.state_loads;
    }
    if a.loop_align.is_some() {
        cfg.loop_align = a.loop_align;
    }
    if let Some(v) = a.spill {
        cfg.spill = v;
    }
    if let Some(k) = a.packed_interleave {
        cfg.packed_interleave = if k == 0 { None } else { Some(k) };
    }
    if let Some(v) = a.packed_consts {
        cfg.packed_consts = v;
    }
    if let Some(v) = a.sbox_circuit {
        cfg.sbox_circuit = v;
    }
    if let Some(u) = a.uarch {
        cfg.opt.uarch = u;
    }
    if let Some(v) = a.sched_bits_in {
        cfg.opt.sched_bits_in = v;
    }
    if a.sched_bits_up.is_some() {
        cfg.opt.sched_bits_up = a.sched_bits_up;
    }
    if let Some(l) = a.loops {
        cfg.opt.loops = l;
    }
    if let Some(p) = a.inline {
        cfg.opt.inline = p;
    }
    // The usubac spelling (no `check`/`compile` subcommand) implies `--compat usubac`.
    cfg.compat = a.compat.unwrap_or(if a.subcommand {
        driver::Compat::Nakiri
    } else {
        driver::Compat::Usubac
    });
    cfg.keep_tables = a.keep_tables;
    cfg.abi.lf = a.lf;
    cfg.abi.no_arr_entry = a.no_arr_entry;
    cfg.abi.bits_per_reg = a.bits_per_reg;
    if let Some(n) = a.max_ops {
        cfg.max_ops = n;
    }
    cfg
}

/// Notes for accepted flags without an effect, and the warning of `-keep-tables`.
fn print_notes(a: &Args) {
    for n in &a.notes {
        eprintln!(
            "note: `{}` is accepted for usubac compatibility and has no effect in nakiri",
            n
        );
    }
    if a.keep_tables {
        eprintln!("note: `-keep-tables`: tables are typed by word size as usubac does; nakiri computes them with constant-time circuits (usubac emits memory lookups, which are not constant-time)");
    }
}

/// Parses the compile options of another subcommand (`nakiri bench FILE.ua [flags]`): the
/// input file and its configuration. `Err(status)` after printing a usage error.
pub fn parse_compile_flags(argv: &[String]) -> Result<(String, Config), i32> {
    let a = parse_args(argv)?;
    let Some(file) = a.file.clone() else {
        return Err(usage_error("no input file"));
    };
    print_notes(&a);
    let cfg = config_of(&a, argv, &file);
    Ok((file, cfg))
}

/// Runs the CLI with these arguments; returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    if argv.first().map(|s| s.as_str()) == Some("demo") {
        return demo::run(&argv[1..]);
    }
    if argv.first().map(|s| s.as_str()) == Some("targets") {
        println!("targets on this machine (tests run natively where `runs here`):");
        for a in Arch::ALL {
            println!(
                "  {:7} {}",
                a.name(),
                if a.runs_here() {
                    "runs here"
                } else if a == Arch::Neon {
                    "not native here (tests/codegen.rs runs it under qemu-aarch64 when installed, else reports it skipped)"
                } else {
                    "skipped: this CPU lacks it"
                }
            );
        }
        return 0;
    }
    if argv.first().map(|s| s.as_str()) == Some("ctcheck") {
        return ctcheck::run(&argv[1..]);
    }
    if argv.first().map(|s| s.as_str()) == Some("bench") {
        return bench::run(&argv[1..]);
    }
    if argv.first().map(|s| s.as_str()) == Some("tune") {
        return tune::run(&argv[1..]);
    }
    // usubac's autotuning flags (`-bench-all`, `-bench-inline`, ...) run the autotuner.
    if let Some(targs) = tune::usubac_bench_args(argv) {
        return tune::run(&targs);
    }
    let a = match parse_args(argv) {
        Ok(a) => a,
        Err(code) => return code,
    };
    print_notes(&a);
    let Some(file) = a.file.clone() else {
        if argv.is_empty() {
            print!("{}", HELP);
            return 2;
        }
        return usage_error("no input file");
    };
    let text = match read_source_file(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {}", file, e);
            return 1;
        }
    };
    let cfg = config_of(&a, argv, &file);
    let mode = a.mode.clone().unwrap_or_else(|| "compile".into());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();

    if a.dump.as_deref() == Some("ast") || a.dump.as_deref() == Some("parse-only") {
        let front = driver::parse(&file, &text, &cfg, &FsLoader);
        eprint!("{}", front.render_diags());
        if front.has_errors() {
            return 1;
        }
        if a.dump.as_deref() == Some("ast") {
            let _ = write!(
                out,
                "{}",
                crate::syntax::pretty::program(front.ast.as_ref().unwrap())
            );
        } else {
            let _ = writeln!(out, "ok");
        }
        return 0;
    }
    if mode == "check" || a.dump.as_deref() == Some("typed") {
        let front = driver::check(&file, &text, &cfg, &FsLoader);
        eprint!("{}", front.render_diags());
        if front.has_errors() {
            return 1;
        }
        match a.dump.as_deref() {
            Some("typed") => {
                let _ = write!(out, "{}", dump_typed(front.checked.as_ref().unwrap()));
            }
            Some("ir") => {
                let (_, prog) = driver::lower(&file, &text, &cfg, &FsLoader);
                if let Some(p) = prog {
                    let _ = write!(out, "{}", p);
                }
            }
            _ => {
                let _ = writeln!(out, "ok");
            }
        }
        return 0;
    }
    if a.dump.as_deref() == Some("ir") || !a.dump_after.is_empty() {
        let (front, prog) = driver::lower(&file, &text, &cfg, &FsLoader);
        eprint!("{}", front.render_diags());
        if let Some(r) = &front.report {
            if a.verbose {
                eprint!("{}", r.table());
            }
            if !a.dump_after.is_empty() {
                for (p, text) in &r.dumps {
                    let _ = write!(out, "; after pass: {}\n{}", p.name(), text);
                }
                return if prog.is_some() { 0 } else { 1 };
            }
        }
        return match prog {
            Some(p) => {
                let _ = write!(out, "{}", p);
                0
            }
            None => 1,
        };
    }
    // compile
    let c_path = a.out.clone().unwrap_or_else(|| {
        let stem = file.strip_suffix(".ua").unwrap_or(&file);
        format!("{}.c", stem)
    });
    let h_path = match c_path.strip_suffix(".c") {
        Some(s) => format!("{}.h", s),
        None => format!("{}.h", c_path),
    };
    let h_name = std::path::Path::new(&h_path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out.h".into());
    let (front, output) = driver::compile(&file, &text, &cfg, &FsLoader, &h_name);
    eprint!("{}", front.render_diags());
    if let (true, Some(r)) = (a.verbose, &front.report) {
        eprint!("{}", r.table());
        if let Some(o) = &output {
            eprintln!("generated C: {} bytes", o.c.len());
        }
    }
    let Some(output) = output else { return 1 };
    // Never write over a source: the input and every included file (canonical paths, so
    // `./x.ua`, symlinks and `-o hdr.c` whose header is the input `hdr.h` are all caught).
    let sources: Vec<&str> = std::iter::once(file.as_str())
        .chain(front.sources.files.iter().map(|(n, _)| n.as_str()))
        .collect();
    if let Err(e) = check_outputs(&[&c_path, &h_path], &sources) {
        eprintln!("error: {}", e);
        return 1;
    }
    if let Err(e) = write_files_atomically(&[
        (&c_path, output.c.as_bytes()),
        (&h_path, output.h.as_bytes()),
    ]) {
        eprintln!("error: cannot write output: {}", e);
        return 1;
    }
    0
}

/// The canonical form of a path that may not exist yet (its folder's canonical path + its
/// name); `None` if its folder does not exist.
pub fn canonical_output_path(path: &str) -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(path);
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let name = p.file_name()?;
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(name))
}

/// Refuses outputs that are a source file (compared as canonical paths) or each other.
pub fn check_outputs(outputs: &[&str], sources: &[&str]) -> Result<(), String> {
    let srcs: Vec<(std::path::PathBuf, &str)> = sources
        .iter()
        .filter_map(|s| std::fs::canonicalize(s).ok().map(|c| (c, *s)))
        .collect();
    let mut seen: Vec<std::path::PathBuf> = Vec::new();
    for o in outputs {
        let Some(c) = canonical_output_path(o) else {
            continue;
        };
        if let Some((_, s)) = srcs.iter().find(|(sc, _)| *sc == c) {
            return Err(format!(
                "refusing to write `{}`: it is the source file `{}` (choose another output with `-o OUT.c`; the header is written beside it as OUT.h)",
                o, s
            ));
        }
        if seen.contains(&c) {
            return Err(format!(
                "refusing to write `{}` twice (the C file and its header would be the same file)",
                o
            ));
        }
        seen.push(c);
    }
    Ok(())
}

/// Whether each output can be written, checked before a long run (`tune`, `bench ciphers
/// --json FILE`) so that minutes of measuring are not lost to a misspelt folder: the path is
/// not a folder, its folder exists and takes a new file (probed by creating and removing an
/// empty one; [`write_files_atomically`] writes through a temporary file there too).
pub fn check_writable(outputs: &[&str]) -> Result<(), String> {
    use std::path::Path;
    for (k, o) in outputs.iter().enumerate() {
        let p = Path::new(o);
        if p.is_dir() {
            return Err(format!("cannot write `{}`: it is a folder", o));
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(format!(
                "cannot write `{}`: folder `{}` does not exist",
                o,
                dir.display()
            ));
        }
        let probe = dir.join(format!(".nakiri-probe-{}-{}", std::process::id(), k));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
        {
            Ok(_) => {
                let _ = std::fs::remove_file(&probe);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot write `{}`: {}", o, e)),
        }
    }
    Ok(())
}

/// Writes each file whole or not at all: every text goes to a temporary file in the target's
/// folder, then each is renamed over its target (atomic on POSIX). On an error the
/// temporaries are removed and no target has been touched (unless a rename itself fails).
pub fn write_files_atomically(files: &[(&str, &[u8])]) -> std::io::Result<()> {
    use std::io::Write;
    let mut temps: Vec<(std::path::PathBuf, &str)> = Vec::new();
    let cleanup = |temps: &[(std::path::PathBuf, &str)]| {
        for (t, _) in temps {
            let _ = std::fs::remove_file(t);
        }
    };
    for (k, (path, bytes)) in files.iter().enumerate() {
        let p = std::path::Path::new(path);
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".into());
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        let tmp = dir.join(format!(".{}.nakiri-{}-{}.tmp", name, std::process::id(), k));
        let r = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| {
                temps.push((tmp.clone(), path));
                f.write_all(bytes)?;
                f.sync_all()
            });
        if let Err(e) = r {
            cleanup(&temps);
            return Err(std::io::Error::new(e.kind(), format!("{}: {}", path, e)));
        }
    }
    for (i, (tmp, path)) in temps.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, path) {
            cleanup(&temps[i..]);
            return Err(std::io::Error::new(e.kind(), format!("{}: {}", path, e)));
        }
    }
    Ok(())
}

/// `--dump typed`: every monomorphic instance with the concrete type of each variable.
pub fn dump_typed(c: &crate::sema::Checked) -> String {
    let mut s = String::new();
    for inst in &c.instances {
        s.push_str(&format!(
            "instance {} (from node {})\n",
            inst.name, inst.decl
        ));
        for (role, name, ty, is_const) in &inst.vars {
            s.push_str(&format!(
                "  {:6} {}: {}{}\n",
                role,
                name,
                if *is_const { "const " } else { "" },
                ty
            ));
        }
    }
    s
}

/// A path of a shipped file: relative to the current folder, else to the source checkout.
pub fn demo_path(rel: &str) -> std::path::PathBuf {
    let here = std::path::PathBuf::from(rel);
    if here.exists() {
        return here;
    }
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}
