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
    let out = codegen::generate(&prog, &CodegenConfig { arch: Arch::Std, header_name: header.into(), banner: "planted".into() }).unwrap();
    let lay = packed::layout(&prog, Arch::Std).unwrap();
    // Plant two leaks at the top of the raw entry: a branch on a state word, and a table
    // lookup indexed by one.
    let sig = "NK_TARGET void chacha20__(DATATYPE s[16], DATATYPE o[16])\n{\n";
    assert!(out.c.contains(sig), "raw entry signature changed: update the test");
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
        r.leaks.iter().any(|l| l.kind == "branch" && l.line == line_of("PLANTED-BRANCH") && l.file == "ct_entry.c"),
        "the planted branch is reported at ct_entry.c:{}: {:#?}",
        line_of("PLANTED-BRANCH"),
        r.leaks
    );
    assert!(
        r.leaks.iter().any(|l| l.kind == "address" && l.line == line_of("PLANTED-INDEX") && l.text.contains("nk_planted_table")),
        "the planted table index is reported at line {}: {:#?}",
        line_of("PLANTED-INDEX"),
        r.leaks
    );
    // Nothing else: the unplanted code is clean.
    assert!(r.leaks.iter().all(|l| l.text.contains("PLANTED")), "{:#?}", r.leaks);
    // With the state declared public, nothing is reported.
    let r = ctcheck::check_c(&common::scratch_dir("ct-public"), &c, &out.h, header, &lay, &[], &cflags()).unwrap();
    assert!(r.leaks.is_empty(), "{:#?}", r.leaks);
}

#[test]
fn cipher_library_subset_is_constant_time() {
    if !have_valgrind() {
        return;
    }
    // Every slicing; the biggest ciphers of each (AES and DES bitsliced, ChaCha20 and Gimli
    // vsliced, AES planes hsliced). `nakiri ctcheck --all` runs every cipher in every slicing.
    let cases: &[(&str, Slicing)] = &[
        ("ciphers/aes/aes.ua", Slicing::B),
        ("ciphers/des/des.ua", Slicing::B),
        ("ciphers/chacha20/chacha20.ua", Slicing::V),
        ("ciphers/gimli/gimli.ua", Slicing::V),
        ("ciphers/aes/aes_planes.ua", Slicing::H),
    ];
    for (file, s) in cases {
        let path = common::root().join(file);
        let cfg = Config { slicing: *s, arch: Arch::Std, ..Config::default() };
        let t = std::time::Instant::now();
        // gcc -O1 needs ~15 s on the bitsliced AES (a third of a megabyte of straight-line
        // C): that one is built at -O0 (`nakiri ctcheck` defaults to -O2).
        let flags = if *file == "ciphers/aes/aes.ua" { vec!["-O0".to_string()] } else { cflags() };
        let r = ctcheck::check_file(path.to_str().unwrap(), &cfg, None, &flags, false).unwrap_or_else(|e| panic!("{} -{}: {}", file, s, e));
        println!("{} -{}: {} leak(s), {} instances, secret {:?}, {:?}", file, s, r.leaks.len(), r.instances, r.secrets, t.elapsed());
        assert!(r.leaks.is_empty(), "{} -{}: {:#?}", file, s, r.leaks);
        assert!(!r.secrets.is_empty());
    }
}

#[test]
fn secret_option_names_inputs() {
    if !have_valgrind() {
        return;
    }
    let path = common::root().join("ciphers/chacha20/chacha20.ua");
    let cfg = Config { slicing: Slicing::V, ..Config::default() };
    let e = ctcheck::check_file(path.to_str().unwrap(), &cfg, Some(&["nope".to_string()]), &cflags(), false).unwrap_err();
    assert!(e.contains("`nope` is not an input") && e.contains("inputs: s"), "{}", e);
    // The command line: exit 0 and an `ok:` line.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nakiri"))
        .args(["ctcheck", "ciphers/chacha20/chacha20.ua", "-V", "--arch", "std", "--secret", "s", "--cflags", "-O1"])
        .current_dir(common::root())
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}{}", so, String::from_utf8_lossy(&out.stderr));
    assert!(so.starts_with("ok: ") && so.contains("secret: s"), "{}", so);
}
