//! The command line, as a user runs it: native and usubac spellings, dumps, exit codes.

mod common;

use std::process::Command;

fn nakiri(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args(args)
        .current_dir(common::root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_prints_ok_in_every_slicing() {
    for s in ["-V", "-B", "-H"] {
        let (code, out, err) = nakiri(&["check", s, "tests/in/table.ua"]);
        assert_eq!((code, out.as_str()), (0, "ok\n"), "{}: {}", s, err);
    }
}

#[test]
fn usubac_spellings() {
    let (code, out, _) = nakiri(&["-type-only", "-B", "tests/in/logic.ua"]);
    assert_eq!((code, out.as_str()), (0, "ok\n"));
    let dir = common::scratch_dir("cli");
    let c = dir.join("out.c");
    let (code, _, err) = nakiri(&[
        "-arch",
        "avx",
        "-o",
        c.to_str().unwrap(),
        "-B",
        "-check-tbl",
        "tests/in/table.ua",
    ]);
    assert_eq!(code, 0, "{}", err);
    assert!(
        err.contains("-check-tbl"),
        "a note names the ignored flag: {}",
        err
    );
    let text = std::fs::read_to_string(&c).unwrap();
    assert!(text.contains("void apply__("), "raw entry point present");
    let h = std::fs::read_to_string(dir.join("out.h")).unwrap();
    assert!(
        h.contains("apply__packed"),
        "packed entry declared in the header"
    );
    // self-contained: compiles with no -m flags and no -I
    let st = Command::new(common::cc())
        .args([
            "-O3",
            "-c",
            c.to_str().unwrap(),
            "-o",
            dir.join("out.o").to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn native_compile_and_dumps() {
    let dir = common::scratch_dir("cli2");
    let c = dir.join("x.c");
    let (code, _, err) = nakiri(&[
        "compile",
        "tests/in/arith.ua",
        "-V",
        "--arch",
        "sse",
        "-o",
        c.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{}", err);
    assert!(dir.join("x.h").exists());
    let (code, out, _) = nakiri(&["check", "--dump", "ast", "tests/in/precedence.ua"]);
    assert_eq!(code, 0);
    assert!(out.contains("x = (a + (b ^ d));"), "{}", out);
    let (code, out, _) = nakiri(&["check", "-B", "--dump", "typed", "tests/in/poly_call.ua"]);
    assert_eq!(code, 0);
    assert!(out.contains("instance mix__m16"), "{}", out);
    let (code, out, _) = nakiri(&["compile", "-V", "--dump", "ir", "tests/in/shifts.ua"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("slicing V\nnode shifts"), "{}", out);
    // deterministic output
    let (_, a, _) = nakiri(&["compile", "-B", "--dump", "ir", "tests/in/table.ua"]);
    let (_, b, _) = nakiri(&["compile", "-B", "--dump", "ir", "tests/in/table.ua"]);
    assert_eq!(a, b);
}

#[test]
fn errors_and_usage() {
    let (code, _, err) = nakiri(&["check", "tests/diag/cycle.ua"]);
    assert_eq!(code, 1);
    assert!(err.contains("tests/diag/cycle.ua:1:50"), "{}", err);
    let (code, _, err) = nakiri(&["--arch", "vax", "tests/in/logic.ua"]);
    assert_eq!(code, 2, "{}", err);
    let (code, _, _) = nakiri(&["check", "no/such/file.ua"]);
    assert_eq!(code, 1);
    let (code, out, _) = nakiri(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("nakiri compile FILE.ua"));
    let (code, out, _) = nakiri(&["--version"]);
    assert_eq!((code, out.starts_with("nakiri ")), (0, true));
    // a target that cannot express the program: clear error, exit 1
    let (code, _, err) = nakiri(&[
        "compile",
        "-V",
        "--arch",
        "avx2",
        "tests/in/mixed_std.ua",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(code, 1, "{}", err);
    assert!(err.contains("error"), "{}", err);
}

#[test]
fn loop_policies() {
    let dir = common::scratch_dir("cli_loops");
    let c = dir.join("l.c");
    let c = c.to_str().unwrap();
    let count_loops = |args: &[&str]| -> usize {
        // (no interleaved kernel behind the packed entry: its copy of the loops is not counted)
        let mut a = vec![
            "compile",
            "tests/in/loops.ua",
            "-o",
            c,
            "--packed-interleave",
            "1",
        ];
        a.extend_from_slice(args);
        let (code, _, err) = nakiri(&a);
        assert_eq!(code, 0, "{:?}: {}", args, err);
        std::fs::read_to_string(c)
            .unwrap()
            .matches("for (int nk_i = 0;")
            .count()
    };
    // tests/in/loops.ua: three chains and one map can stay loops (tests/ir_passes.rs)
    assert_eq!(count_loops(&["-V"]), 3, "default in -V: the chains");
    assert_eq!(
        count_loops(&["-V", "--loops", "all", "--disable", "loop-fuse"]),
        4
    );
    // with `loop-fuse` (on by default), the map of `mix` and the chain `w` (4 iterations each,
    // apart, independent) become one loop
    assert_eq!(count_loops(&["-V", "--loops", "all"]), 3);
    assert_eq!(count_loops(&["-V", "--loops", "chains"]), 3);
    assert_eq!(count_loops(&["-V", "--loops", "unroll"]), 0);
    assert_eq!(count_loops(&["-V", "-unroll"]), 0, "usubac spelling");
    assert_eq!(count_loops(&["-B"]), 3, "default in -B: the chains");
    assert_eq!(count_loops(&["-B", "--loops", "unroll"]), 0);
    assert_eq!(count_loops(&["-B", "--loops", "chains"]), 3);
    let (code, _, err) = nakiri(&["compile", "--loops", "sometimes", "tests/in/loops.ua"]);
    assert_eq!(code, 2, "{}", err);
    assert!(err.contains("--loops"), "{}", err);
}

/// The optimiser's flags do what they say: each usubac spelling switches off its pass (the
/// `-v` report no longer lists it, and the IR changes as documented), `--dump-after` prints IR
/// that parses back, unknown pass names are usage errors.
#[test]
fn optimiser_flags() {
    let f = "tests/in/loops.ua";
    // -v lists every pass that ran, with the IR size after it.
    let (code, _, err) = nakiri(&[
        "compile",
        f,
        "-B",
        "--arch",
        "avx2",
        "-o",
        &scratch("v.c"),
        "-v",
    ]);
    assert_eq!(code, 0, "{}", err);
    for p in [
        "outline",
        "copy-prop",
        "inline",
        "fold",
        "cse",
        "reroll",
        "ternlog",
        "sched-bits",
    ] {
        assert!(
            err.lines().any(|l| l.starts_with(p)),
            "-v lists `{}`:\n{}",
            p,
            err
        );
    }
    assert!(
        err.contains("max-live") && err.contains("generated C:"),
        "{}",
        err
    );
    // `--opaque-not` redefines NK_NOT on SSE/AVX2 (tests/codegen.rs runs the result).
    for (flags, want) in [
        (&["--opaque-not"][..], true),
        (&["--opaque-not", "--no-opaque-not"][..], false),
        (&[][..], false),
    ] {
        let out = scratch("opaque_not.c");
        let mut args = vec![
            "compile",
            "ciphers/gift/gift_v.ua",
            "-V",
            "--arch",
            "avx2",
            "-o",
            &out,
        ];
        args.extend_from_slice(flags);
        let (code, _, err) = nakiri(&args);
        assert_eq!(code, 0, "{}", err);
        let c = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            c.contains("#define NK_NOT(a) NK_XOR((a), NK_ONES_OPAQUE)"),
            want,
            "{flags:?}"
        );
    }
    // Each usubac flag removes its pass from the report.
    for (flag, pass) in [
        ("-no-CSE", "cse "),
        ("-no-fold-const", "fold "),
        ("-no-copy-prop", "copy-prop "),
        ("-no-pre-sched", "sched-bits "),
    ] {
        let (code, _, err) = nakiri(&[
            "-B",
            "-arch",
            "avx2",
            flag,
            "-v",
            "1",
            "-o",
            &scratch("u.c"),
            f,
        ]);
        assert_eq!(code, 0, "{}: {}", flag, err);
        assert!(
            !err.lines().any(|l| l.starts_with(pass)),
            "{} leaves `{}` out:\n{}",
            flag,
            pass,
            err
        );
    }
    let (_, _, err) = nakiri(&["-B", "-no-CSE-CP-CF", "-v", "1", "-o", &scratch("u.c"), f]);
    for pass in ["cse ", "fold ", "copy-prop "] {
        assert!(
            !err.lines().any(|l| l.starts_with(pass)),
            "-no-CSE-CP-CF leaves `{}` out:\n{}",
            pass,
            err
        );
    }
    // The m-slice scheduler is off by default; -sched-n turns it on with that window, -no-sched off.
    let (_, _, err) = nakiri(&["compile", f, "-V", "-v", "-o", &scratch("s.c")]);
    assert!(!err.lines().any(|l| l.starts_with("sched-ilp")), "{}", err);
    let (_, _, err) = nakiri(&["-V", "-sched-n", "4", "-v", "1", "-o", &scratch("s.c"), f]);
    assert!(err.lines().any(|l| l.starts_with("sched-ilp")), "{}", err);
    let (_, _, err) = nakiri(&[
        "-V",
        "-sched-n",
        "4",
        "-no-sched",
        "-v",
        "1",
        "-o",
        &scratch("s.c"),
        f,
    ]);
    assert!(!err.lines().any(|l| l.starts_with("sched-ilp")), "{}", err);
    // sched-bits runs in -B and -H by default, in -V only with --sched-bits-in BHV: the -v
    // report gives its rewrites ("moved N") only where it ran.
    let sched_line = |args: &[&str]| -> String {
        let out = scratch("sb.c");
        let mut a = vec!["compile", "-v", "-o", out.as_str()];
        a.extend_from_slice(args);
        let (code, _, err) = nakiri(&a);
        assert_eq!(code, 0, "{:?}: {}", args, err);
        err.lines()
            .find(|l| l.starts_with("sched-bits"))
            .unwrap_or("")
            .to_string()
    };
    let (aes, xoo) = ("ciphers/aes/aes_rk.ua", "ciphers/xoodoo/xoodoo.ua");
    assert!(
        sched_line(&[aes, "-H", "--arch", "avx2"]).contains("moved"),
        "-H scheduled by default"
    );
    assert!(!sched_line(&[aes, "-H", "--arch", "avx2", "--sched-bits-in", "B"]).contains("moved"));
    assert!(
        !sched_line(&[xoo, "-V"]).contains("moved"),
        "-V not scheduled by default"
    );
    assert!(sched_line(&[xoo, "-V", "--sched-bits-in", "BHV"]).contains("moved"));
    let (code, _, err) = nakiri(&["compile", xoo, "--sched-bits-in", "X"]);
    assert_eq!(code, 2, "{}", err);
    // --sched-bits-up / --no-sched-bits-up: only bottom-up or only top-down orders; by
    // default the bottom-up one where its estimate is 9% lower (Gimli -B avx512), else the
    // top-down one (AES -B avx512). The report's "spills-after" is the kept order's estimate.
    let spills = |args: &[&str]| -> usize {
        let l = sched_line(args);
        let n = l.split("spills-after ").nth(1).expect("an estimate");
        n.split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    for (f, up_default) in [
        ("ciphers/gimli/gimli.ua", true),
        ("ciphers/aes/aes.ua", false),
    ] {
        let base = [f, "-B", "--arch", "avx512"];
        let with = |flag: &str| {
            let mut a = base.to_vec();
            a.push(flag);
            spills(&a)
        };
        let (d, up, down) = (
            spills(&base),
            with("--sched-bits-up"),
            with("--no-sched-bits-up"),
        );
        assert_ne!(up, down, "{f}");
        assert_eq!(
            d,
            if up_default { up } else { down },
            "{f}: {d} {up} {down}"
        );
    }
    // --loop-align K: each kept loop's body starts 64-byte aligned plus K bytes of no-ops
    // (Ascon -B: one kept round loop); nothing of it by default; K a multiple of 8 below 64.
    for (k, want) in [(None, 0), (Some("0"), 0), (Some("40"), 5)] {
        let out = scratch("loopalign.c");
        let mut args = vec![
            "compile",
            "ciphers/ascon/ascon.ua",
            "-B",
            "--arch",
            "avx2",
            "-o",
            &out,
        ];
        if let Some(k) = k {
            args.extend(["--loop-align", k]);
        }
        let (code, _, err) = nakiri(&args);
        assert_eq!(code, 0, "{}", err);
        let c = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            c.matches(".p2align 6").count(),
            k.is_some() as usize,
            "{k:?}"
        );
        assert_eq!(c.matches(".byte 0x0f, 0x1f, 0x84").count(), want, "{k:?}");
    }
    for bad in ["12", "64", "x"] {
        let (code, _, err) = nakiri(&["compile", xoo, "--loop-align", bad]);
        assert_eq!(code, 2, "--loop-align {bad}: {}", err);
        assert!(err.contains("--loop-align"), "{}", err);
    }
    // -H on SIMD inlines every node by default (the S-box is no C function any more).
    let (_, ir, _) = nakiri(&[
        "compile", aes, "-H", "--arch", "avx2", "--loops", "unroll", "--dump", "ir",
    ]);
    assert!(
        !ir.contains("call "),
        "-H avx2 inlines every node:\n{}",
        &ir[..ir.len().min(2000)]
    );
    // Folding: without it, `x ^ x`-style identities survive into the IR.
    let src = scratch("fold.ua");
    std::fs::write(&src, "node f (a:u8, b:u8) returns (y:u8)\nvars z:u8\nlet\n  z = a ^ a;\n  y = (b | z) ^ (z | b)\ntel\n").unwrap();
    let (_, with, _) = nakiri(&["compile", &src, "--dump", "ir"]);
    let (_, without, _) = nakiri(&["compile", &src, "--dump", "ir", "--disable", "fold,cse"]);
    assert!(
        !with.contains("xor a a") && with.contains("const 0x0"),
        "folded:\n{}",
        with
    );
    assert!(
        without.contains("xor a a"),
        "--disable fold keeps it:\n{}",
        without
    );
    // --dump-after prints parseable IR after the named pass.
    let (code, out, _) = nakiri(&["compile", f, "-V", "--dump-after", "inline"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("; after pass: inline\n"), "{}", out);
    nakiri::ir::parse::parse(&out).unwrap();
    // Unknown pass: usage error listing the passes.
    let (code, _, err) = nakiri(&["compile", f, "--disable", "nope"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown pass `nope`") && err.contains("sched-bits"),
        "{}",
        err
    );
    // Interleaving: usubac's doubled parameters, E__INSTANCES doubled.
    let (code, _, err) = nakiri(&[
        "-V",
        "-arch",
        "sse",
        "-inter-factor",
        "2",
        "-o",
        &scratch("i.c"),
        "tests/compat/c7_interleave.ua",
    ]);
    assert_eq!(code, 0, "{}", err);
    let h = std::fs::read_to_string(scratch("i.h")).unwrap();
    assert!(h.contains("#define addk2__INSTANCES 8"), "{}", h);
    assert!(h.contains("addk2__DATATYPE x, addk2__DATATYPE x__2, addk2__DATATYPE z, addk2__DATATYPE z__2, addk2__DATATYPE k,"), "{}", h);
    // --packed-interleave: the rule gives Serpent -V a 2-way kernel behind the packed entry
    // (and not ChaCha20 on avx2); 1 removes it, a factor forces it; the raw entry and the
    // header do not change.
    let kernel = |file: &str, extra: &[&str]| -> (bool, String, String) {
        let out = scratch("pk.c");
        let mut a = vec!["compile", file, "-V", "--arch", "avx2", "-o", out.as_str()];
        a.extend_from_slice(extra);
        let (code, _, err) = nakiri(&a);
        assert_eq!(code, 0, "{:?}: {}", extra, err);
        let c = std::fs::read_to_string(&out).unwrap();
        let h = std::fs::read_to_string(scratch("pk.h")).unwrap();
        // (after the banner, which names the flags)
        let raw =
            c[c.find(" */\n").unwrap()..c.find(nakiri::codegen::PACKED_BEGIN).unwrap()].to_string();
        // (and but for the kernel's own XOR-ing entry, `E__xor_kernel_p`)
        let h = h[h.find(" */\n").unwrap()..]
            .lines()
            .filter(|l| !l.contains("xor_kernel") && !l.contains("XOR_KERNEL"))
            .filter(|l| !l.starts_with("/* ") || !l.contains("interleaved kernel"))
            .filter(|l| {
                !l.starts_with("   each input pointer") && !l.starts_with("   call by call")
            })
            .collect::<Vec<_>>()
            .join("\n");
        (c.contains("__x2(") || c.contains("__x3("), raw, h)
    };
    let (serp, cha) = ("ciphers/serpent/serpent.ua", "ciphers/chacha20/chacha20.ua");
    let (on, raw_on, h_on) = kernel(serp, &[]);
    let (off, raw_off, h_off) = kernel(serp, &["--packed-interleave", "1"]);
    assert!(
        on && !off,
        "Serpent -V avx2 gets a kernel by default, none with --packed-interleave 1"
    );
    assert!(
        raw_on == raw_off,
        "the raw program is the same C either way"
    );
    assert!(h_on == h_off, "the header is the same either way");
    // ChaCha20 -V avx2: no kernel by the AMD rule (two copies spill), one by Intel's (its
    // critical path is 0.66 of its port bound: `driver::PACKED_KERNEL_INTEL_V_MIN_CRIT_PORT`)
    assert!(
        kernel(cha, &["--uarch", "intel"]).0,
        "Intel: ChaCha20 -V avx2 kernel"
    );
    assert!(
        !kernel(cha, &["--uarch", "amd"]).0
            && kernel(cha, &["--packed-interleave", "2"]).0
            && kernel(
                cha,
                &["--packed-interleave", "auto", "--packed-interleave", "3"]
            )
            .0
    );
    // Xoodoo -V avx2 on Intel: unrolled, 0.38 of its port bound, over the unrolled programs'
    // bound (`driver::PACKED_KERNEL_INTEL_V_MIN_CRIT_PORT_UNROLLED`); Gimli (0.24) under it
    let (xoo, gim) = ("ciphers/xoodoo/xoodoo.ua", "ciphers/gimli/gimli.ua");
    assert!(
        kernel(xoo, &["--uarch", "intel"]).0 && !kernel(xoo, &["--uarch", "amd"]).0,
        "Xoodoo -V avx2: a kernel on Intel only"
    );
    assert!(
        !kernel(gim, &["--uarch", "intel"]).0,
        "Gimli -V avx2 on Intel: no kernel"
    );
    let (code, _, err) = nakiri(&["compile", serp, "--packed-interleave", "9"]);
    assert_eq!(code, 2, "{}", err);
    // Ternlogs only for AVX-512.
    let (_, avx512, _) = nakiri(&[
        "compile",
        "ciphers/gimli/gimli.ua",
        "-B",
        "--arch",
        "avx512",
        "--dump",
        "ir",
    ]);
    let (_, avx2, _) = nakiri(&[
        "compile",
        "ciphers/gimli/gimli.ua",
        "-B",
        "--arch",
        "avx2",
        "--dump",
        "ir",
    ]);
    assert!(avx512.contains("ternlog") && !avx2.contains("ternlog"));
    // ... emitted as vpternlog, in C that builds without flags (this CPU need not run it).
    let c = scratch("g512.c");
    let (code, _, err) = nakiri(&[
        "compile",
        "ciphers/gimli/gimli.ua",
        "-B",
        "--arch",
        "avx512",
        "-o",
        &c,
    ]);
    assert_eq!(code, 0, "{}", err);
    let text = std::fs::read_to_string(&c).unwrap();
    assert!(
        text.contains("_mm512_ternarylogic_epi64") && text.contains("NK_TERNLOG("),
        "vpternlog emitted"
    );
    let st = std::process::Command::new(common::cc())
        .args(["-O1", "-c", &c, "-o", &scratch("g512.o")])
        .status()
        .unwrap();
    assert!(st.success(), "avx512 C with ternlogs compiles");
}

/// A file in one scratch folder for the whole test.
fn scratch(name: &str) -> String {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| common::scratch_dir("cli-opt"))
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `--sbox-circuit`: AES's S-box has two database circuits. The rule takes the 115-gate one
/// in bitslice and the depth-16 one in hslice and vslice; the flag overrides it either way;
/// a bad value is a usage error.
#[test]
fn sbox_circuit_flag() {
    let dir = common::scratch_dir("cli_sbox_circuit");
    let body = |slicing: &str, extra: &[&str]| -> String {
        let out = dir.join("s.c");
        let out = out.to_str().unwrap();
        let mut a = vec!["compile", "ciphers/aes/aes_planes.ua", slicing, "-o", out];
        a.extend_from_slice(extra);
        let (code, _, err) = nakiri(&a);
        assert_eq!(code, 0, "{slicing} {extra:?}: {err}");
        let c = std::fs::read_to_string(out).unwrap();
        // after the banner, which names the flags
        c[c.find(" */\n").unwrap()..].to_string()
    };
    for (slicing, rule, other) in [
        ("-B", "small", "shallow"),
        ("-H", "shallow", "small"),
        ("-V", "shallow", "small"),
    ] {
        let auto = body(slicing, &[]);
        assert!(
            auto == body(slicing, &["--sbox-circuit", rule]),
            "{slicing}: the rule is {rule}"
        );
        assert!(
            auto == body(
                slicing,
                &["--sbox-circuit", other, "--sbox-circuit", "auto"]
            )
        );
        assert!(
            auto != body(slicing, &["--sbox-circuit", other]),
            "{slicing}: {other} differs"
        );
    }
    let (code, _, err) = nakiri(&[
        "compile",
        "ciphers/aes/aes_planes.ua",
        "--sbox-circuit",
        "tiny",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("small, shallow or auto"), "{err}");
}

/// The packed-kernel rule's code-size bound (`driver::PACKED_KERNEL_MAX_STRAIGHT_INSNS`):
/// AES const rk `-V` on avx512 is straight-line and too big for two copies in the instruction
/// cache, and its kernel with the round loops kept fails the spill bound, so its packed entry
/// calls the raw one; Pyjamask `-V` avx512, under the bound, keeps its straight 2-way kernel;
/// Pyjamask `-V` avx2 (unrolled by the Intel vslice rule, over the bound) gets a 2-way kernel
/// with its round loop kept.
#[test]
fn packed_kernel_code_size_bound() {
    let dir = common::scratch_dir("cli_kernel_size");
    let out = dir.join("k.c");
    let out = out.to_str().unwrap();
    let compile = |file: &str, arch: &str| {
        let (code, _, err) = nakiri(&[
            "compile", file, "-V", "--arch", arch, "--uarch", "intel", "-o", out,
        ]);
        assert_eq!(code, 0, "{file}: {err}");
        std::fs::read_to_string(out).unwrap()
    };
    let has_kernel = |file: &str| compile(file, "avx512").contains("__x2(");
    assert!(
        !has_kernel("ciphers/aes/aes_rk.ua"),
        "AES const rk -V avx512: no kernel"
    );
    assert!(
        has_kernel("ciphers/pyjamask128/pyjamask128.ua"),
        "Pyjamask -V avx512: a kernel"
    );
    // avx2: the raw entry straight-line (no `for` in it), the kernel with a loop
    let c = compile("ciphers/pyjamask128/pyjamask128.ua", "avx2");
    let body = |name: &str| -> String {
        let start = c
            .find(&format!("void {name}("))
            .unwrap_or_else(|| panic!("no {name} in the C"));
        let rest = &c[start..];
        rest[..rest.find("\n}\n").expect("end of function")].to_string()
    };
    assert!(
        !body("pyjamask128__").contains("for ("),
        "Pyjamask -V avx2: the raw entry is unrolled"
    );
    let kernel = c
        .lines()
        .find(|l| l.contains("__x2(") && l.contains("void "))
        .map(|l| l[l.find("void ").unwrap() + 5..l.find('(').unwrap()].to_string())
        .expect("Pyjamask -V avx2: a 2-way kernel");
    assert!(
        body(&kernel).contains("for ("),
        "Pyjamask -V avx2: the kernel keeps its round loop"
    );
}
