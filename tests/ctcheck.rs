//! Constant time, checked (issue 10): `nakiri ctcheck` runs the packed entry under valgrind's
//! memcheck with the secret inputs marked undefined. Here: planted leaks in generated code are
//! reported with their C line, and a representative subset of the cipher library (every
//! slicing, the biggest ciphers) is clean; `nakiri ctcheck --all` runs the whole matrix.
//! Skipped (with a `skipped:` line) when valgrind is not installed.

mod common;

use nakiri::cli::ctcheck;
use nakiri::codegen::{self, packed, Arch, CodegenConfig};
use nakiri::driver::Config;
use nakiri::ir::Slicing;

fn have_valgrind() -> bool {
    match ctcheck::valgrind_available() {
        Ok(()) => true,
        Err(e) => {
            println!("skipped: {}", e);
            false
        }
    }
}

/// `-O1`: the check is about the generated C's data flow; -O1 keeps gcc fast on the large
/// bitsliced files (the command defaults to -O2, `--cflags` chooses).
fn cflags() -> Vec<String> {
    vec!["-O1".to_string()]
}

#[test]
fn planted_branch_and_table_index_are_reported() {
    if !have_valgrind() {
        return;
    }
    let path = common::root().join("ciphers/chacha20/chacha20.ua");
    let src = std::fs::read_to_string(&path).unwrap();
    let prog = common::lower_src(path.to_str().unwrap(), &src, Slicing::V);
    let header = "ct_entry.h";
    let out = codegen::generate(
        &prog,
        &CodegenConfig {
            arch: Arch::Std,
            header_name: header.into(),
            banner: "planted".into(),
            spill: nakiri::codegen::SPILL_DEFAULT,
            mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
            loop_regs: None,
            opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
            uarch: nakiri::target::Uarch::host(),
            state_loads: None,
            loop_align: None,
        },
    )
    .unwrap();
    let lay = packed::layout(&prog, Arch::Std).unwrap();
    // Plant two leaks at the top of the raw entry: a branch on a state word, and a table
    // lookup indexed by one.
    let sig = "NK_TARGET void chacha20__(DATATYPE s[16], DATATYPE o[16])\n{\n";
    assert!(
        out.c.contains(sig),
        "raw entry signature changed: update the test"
    );
    let planted = format!(
        "volatile unsigned nk_planted_sink;\nstatic const unsigned char nk_planted_table[256] = {{1, 2, 3}};\n{}    if (s[3] & 1) nk_planted_sink++; /* PLANTED-BRANCH */\n    nk_planted_sink += nk_planted_table[s[5] & 255]; /* PLANTED-INDEX */\n",
        sig
    );
    let c = out.c.replace(sig, &planted);
    let dir = common::scratch_dir("ct-planted");
    let names: Vec<String> = vec!["s".into()];
    let r = ctcheck::check_c(&dir, &c, &out.h, header, &lay, &names, &cflags()).unwrap();
    println!("{:#?}", r.leaks);
    let line_of = |tag: &str| c.lines().position(|l| l.contains(tag)).unwrap() + 1;
    assert!(
        r.leaks.iter().any(|l| l.kind == "branch"
            && l.line == line_of("PLANTED-BRANCH")
            && l.file == "ct_entry.c"),
        "the planted branch is reported at ct_entry.c:{}: {:#?}",
        line_of("PLANTED-BRANCH"),
        r.leaks
    );
    assert!(
        r.leaks.iter().any(|l| l.kind == "address"
            && l.line == line_of("PLANTED-INDEX")
            && l.text.contains("nk_planted_table")),
        "the planted table index is reported at line {}: {:#?}",
        line_of("PLANTED-INDEX"),
        r.leaks
    );
    // Nothing else: the unplanted code is clean.
    assert!(
        r.leaks.iter().all(|l| l.text.contains("PLANTED")),
        "{:#?}",
        r.leaks
    );
    // With the state declared public, nothing is reported.
    let r = ctcheck::check_c(
        &common::scratch_dir("ct-public"),
        &c,
        &out.h,
        header,
        &lay,
        &[],
        &cflags(),
    )
    .unwrap();
    assert!(r.leaks.is_empty(), "{:#?}", r.leaks);
}

#[test]
fn cipher_library_subset_is_constant_time() {
    if !have_valgrind() {
        return;
    }
    // Every slicing; the biggest ciphers of each (AES and DES bitsliced, ChaCha20 and Gimli
    // vsliced, AES planes hsliced), and Serpent vsliced, whose packed entry runs an
    // interleaved kernel (checked on two whole steps: the kernel runs, then the raw entry for
    // the tail). `nakiri ctcheck --all` runs every cipher in every slicing.
    let cases: &[(&str, Slicing)] = &[
        ("ciphers/serpent/serpent.ua", Slicing::V),
        ("ciphers/aes/aes.ua", Slicing::B),
        ("ciphers/des/des.ua", Slicing::B),
        ("ciphers/chacha20/chacha20.ua", Slicing::V),
        ("ciphers/gimli/gimli.ua", Slicing::V),
        ("ciphers/aes/aes_planes.ua", Slicing::H),
    ];
    for (file, s) in cases {
        let path = common::root().join(file);
        let cfg = Config {
            slicing: *s,
            arch: Arch::Std,
            ..Config::default()
        };
        let t = std::time::Instant::now();
        // gcc -O1 needs ~15 s on the bitsliced AES (a third of a megabyte of straight-line
        // C): that one is built at -O0 (`nakiri ctcheck` defaults to -O2).
        let flags = if *file == "ciphers/aes/aes.ua" {
            vec!["-O0".to_string()]
        } else {
            cflags()
        };
        let r = ctcheck::check_file(path.to_str().unwrap(), &cfg, None, &flags, false)
            .unwrap_or_else(|e| panic!("{} -{}: {}", file, s, e));
        println!(
            "{} -{}: {} leak(s), {} instances, secret {:?}, {:?}",
            file,
            s,
            r.leaks.len(),
            r.instances,
            r.secrets,
            t.elapsed()
        );
        assert!(r.leaks.is_empty(), "{} -{}: {:#?}", file, s, r.leaks);
        assert!(!r.secrets.is_empty());
        if file.ends_with("serpent.ua") {
            // std vslice: one instance per raw step; the 2-way kernel's step is two.
            assert_eq!(r.instances, 3, "the kernel's step plus a tail");
        }
    }
}

#[test]
fn secret_option_names_inputs() {
    if !have_valgrind() {
        return;
    }
    let path = common::root().join("ciphers/chacha20/chacha20.ua");
    let cfg = Config {
        slicing: Slicing::V,
        ..Config::default()
    };
    let e = ctcheck::check_file(
        path.to_str().unwrap(),
        &cfg,
        Some(&["nope".to_string()]),
        &cflags(),
        false,
    )
    .unwrap_err();
    assert!(
        e.contains("`nope` is not an input") && e.contains("inputs: s"),
        "{}",
        e
    );
    // The command line: exit 0 and an `ok:` line.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args([
            "ctcheck",
            "ciphers/chacha20/chacha20.ua",
            "-V",
            "--arch",
            "std",
            "--secret",
            "s",
            "--cflags",
            "-O1",
        ])
        .current_dir(common::root())
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        so,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(so.starts_with("ok: ") && so.contains("secret: s"), "{}", so);
}

/// The plain-C key-schedule helpers shipped next to the ciphers (`aes_keys.c`, `gift_keys.c`,
/// `rectangle_keys.c`) run on the key: under memcheck with the key bytes marked undefined, no
/// branch or memory index may depend on them (the AES S-box there was once computed with
/// key-dependent branches).
#[test]
fn key_schedule_helpers_are_constant_time() {
    if !have_valgrind() {
        return;
    }
    let cases: &[(&str, &str, usize, &str)] = &[
        ("ciphers/aes/aes_keys.c", "aes_keys.h", 16, "uint16_t rk[88]; aes128_round_key_planes(key, rk); uint8_t rk8[11][16]; aes128_expand_key(key, rk8);"),
        ("ciphers/gift/gift_keys.c", "gift_keys.h", 16, "uint32_t rk[80]; gift128_round_keys(key, rk); gift128_fixsliced_round_keys(key, rk);"),
        ("ciphers/rectangle/rectangle_keys.c", "rectangle_keys.h", 10, "uint16_t rk[104]; rectangle80_round_keys(key, rk);"),
    ];
    for (file, header, key_len, calls) in cases {
        let dir = common::scratch_dir("ct-keys");
        let src = common::root().join(file);
        let driver = format!(
            "#include <stdint.h>\n#include <valgrind/memcheck.h>\n#include \"{header}\"\nint main(void) {{\n    uint8_t key[{key_len}];\n    for (int i = 0; i < {key_len}; i++) key[i] = (uint8_t)(i * 37 + 1);\n    VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);\n    {calls}\n    return 0;\n}}\n"
        );
        std::fs::write(dir.join("drv.c"), driver).unwrap();
        let exe = dir.join("drv");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        for opt in ["-O0", "-O2"] {
            let out = std::process::Command::new(&cc)
                .args([opt, "-g", "-I"])
                .arg(src.parent().unwrap())
                .arg("-o")
                .arg(&exe)
                .arg(dir.join("drv.c"))
                .arg(&src)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: {}",
                file,
                String::from_utf8_lossy(&out.stderr)
            );
            // Copy the helper next to the driver so memcheck's file names resolve in `dir`.
            std::fs::copy(&src, dir.join(src.file_name().unwrap())).unwrap();
            let run = std::process::Command::new("valgrind")
                .args([
                    "--tool=memcheck",
                    "--error-exitcode=99",
                    "--track-origins=no",
                    "--error-limit=no",
                ])
                .arg(&exe)
                .current_dir(&dir)
                .output()
                .unwrap();
            let log = String::from_utf8_lossy(&run.stderr);
            let leaks = ctcheck::parse_memcheck(&log, &dir);
            println!("{} {}: {} leak(s)", file, opt, leaks.len());
            assert!(
                leaks.is_empty() && run.status.code() == Some(0),
                "{} {}: {:#?}\n{}",
                file,
                opt,
                leaks,
                log
            );
        }
    }
}
