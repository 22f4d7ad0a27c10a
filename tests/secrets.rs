//! The packed entry point as hostile callers use it (issue 10):
//! - under ASan/UBSan, with n = 0, 1, 7, instances - 1, instances, instances + 1 and 1000, on
//!   buffers of exactly the documented size at odd (unaligned) addresses, three ciphers show no
//!   error, and the results do not depend on the alignment;
//! - no copy of a secret is left on the stack after the call (the register arrays and staging
//!   buffers are wiped; `-DNAKIRI_SCRUB_STACK` clears the raw entry's spills too).

mod common;

use nakiri::codegen::{self, packed, Arch, CodegenConfig};
use nakiri::ir::Slicing;
use std::process::Command;

fn generated_for(
    file: &str,
    s: Slicing,
    header: &str,
    arch: Arch,
) -> (codegen::COutput, packed::PackedLayout) {
    let path = common::root().join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    let prog = common::lower_src(path.to_str().unwrap(), &src, s);
    let out = codegen::generate(
        &prog,
        &CodegenConfig {
            arch,
            header_name: header.into(),
            banner: "secrets".into(),
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
    (out, packed::layout(&prog, arch).unwrap())
}

fn sanitizers_work(dir: &std::path::Path) -> bool {
    std::fs::write(dir.join("probe.c"), "int main(void) { return 0; }\n").unwrap();
    let ok = Command::new(common::cc())
        .args(["-fsanitize=address,undefined", "-o"])
        .arg(dir.join("probe"))
        .arg(dir.join("probe.c"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
        && Command::new(dir.join("probe"))
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
    if !ok {
        println!("skipped: the C compiler has no working -fsanitize=address,undefined");
    }
    ok
}

/// Harness: for each n, buffers of exactly the documented size at offset `off` of a malloc'd
/// block (ASan flags any access past them), random inputs, the packed call; prints a checksum
/// of the outputs per (n) so aligned and unaligned runs can be compared.
fn harness(lay: &packed::PackedLayout, header: &str, ns: &[usize]) -> String {
    let e = &lay.entry;
    let mut s = format!("#include <stdio.h>\n#include <stdlib.h>\n#include <stdint.h>\n#include <string.h>\n#include \"{header}\"\n");
    s.push_str("static uint64_t rng = 1;\nstatic void fill(unsigned char *b, size_t len) { for (size_t i = 0; i < len; i++) { rng = rng * 6364136223846793005ull + 1442695040888963407ull; b[i] = (unsigned char)(rng >> 56); } }\n");
    s.push_str(
        "int main(int argc, char **argv) {\n    const size_t off = (size_t)atoi(argv[1]);\n",
    );
    s.push_str(&format!(
        "    const size_t ns[] = {{{}}};\n",
        ns.iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    s.push_str("    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {\n        const size_t n = ns[t];\n        rng = 1 + n;\n        uint64_t sum = 0;\n");
    let mut args = Vec::new();
    for (k, p) in lay.params.iter().enumerate() {
        let count = if p.is_const {
            format!("{}", p.elems)
        } else {
            format!("{} * n", p.elems)
        };
        s.push_str(&format!(
            "        const size_t len{k} = ({count}) * sizeof({});\n",
            p.elem_type
        ));
        s.push_str(&format!("        unsigned char *blk{k} = malloc(len{k} + off + 1);\n        unsigned char *b{k} = blk{k} + off;\n"));
        if p.is_input {
            s.push_str(&format!("        fill(b{k}, len{k});\n"));
        } else {
            s.push_str(&format!("        memset(b{k}, 0, len{k});\n"));
        }
        args.push(format!(
            "({}{} *)(void *)b{k}",
            if p.is_input { "const " } else { "" },
            p.elem_type
        ));
    }
    // Shrink each block so it ends exactly at the buffer's end (ASan's redzone follows).
    for (k, _) in lay.params.iter().enumerate() {
        s.push_str(&format!(
            "        blk{k} = realloc(blk{k}, len{k} + off); b{k} = blk{k} + off;\n"
        ));
    }
    s.push_str(&format!(
        "        {e}__packed(n{}{});\n",
        if args.is_empty() { "" } else { ", " },
        args.join(", ")
    ));
    for (k, p) in lay.params.iter().enumerate() {
        if !p.is_input {
            s.push_str(&format!(
                "        for (size_t i = 0; i < len{k}; i++) sum = sum * 31 + b{k}[i];\n"
            ));
        }
    }
    for (k, _) in lay.params.iter().enumerate() {
        s.push_str(&format!("        free(blk{k});\n"));
    }
    s.push_str("        printf(\"n=%zu %016llx\\n\", n, (unsigned long long)sum);\n    }\n    return 0;\n}\n");
    s
}

#[test]
fn packed_entry_is_clean_under_asan_ubsan_at_any_n_and_alignment() {
    let dir = common::scratch_dir("asan");
    if !sanitizers_work(&dir) {
        return;
    }
    // -O0: the sanitizers check what the C says; gcc at -O1 with ASan takes minutes on a
    // bitsliced AES. Subterranean's 33-byte instances end in a partial 64-bit group (8-byte
    // loads and stores that must stay inside the instances).
    // `simd`: on the widest native SIMD target (the bitslice group routines and the hslice
    // small-slot permutations, which std does not have), else on std.
    let widest = [Arch::Avx2, Arch::Sse]
        .into_iter()
        .find(|a| a.runs_here())
        .unwrap_or(Arch::Std);
    // The cases two at a time (this test is its binary's longest), each in its own dir.
    let cases = [
        ("ciphers/rectangle/rectangle.ua", Slicing::B, false),
        ("ciphers/chacha20/chacha20.ua", Slicing::V, false),
        ("ciphers/ascon/ascon.ua", Slicing::H, false),
        ("ciphers/subterranean/subterranean.ua", Slicing::B, false),
        ("ciphers/subterranean/subterranean.ua", Slicing::B, true),
        ("ciphers/gimli/gimli.ua", Slicing::H, true),
    ];
    common::remove_scratch(&dir);
    common::on_two_threads(&cases, |&(file, s, simd)| {
        let dir = common::scratch_dir("asan");
        let arch = if simd { widest } else { Arch::Std };
        let (out, lay) = generated_for(file, s, "entry.h", arch);
        let inst = lay.step();
        let ns = [0, 1, 7, inst - 1, inst, inst + 1, 1000];
        std::fs::write(dir.join("entry.c"), &out.c).unwrap();
        std::fs::write(dir.join("entry.h"), &out.h).unwrap();
        std::fs::write(dir.join("main.c"), harness(&lay, "entry.h", &ns)).unwrap();
        let exe = dir.join("asan_run");
        let o = Command::new(common::cc())
            .args([
                "-O0",
                "-g",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
                "-fno-omit-frame-pointer",
                "-o",
            ])
            .arg(&exe)
            .arg(dir.join("main.c"))
            .arg(dir.join("entry.c"))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}: {}",
            file,
            String::from_utf8_lossy(&o.stderr)
        );
        let mut sums = Vec::new();
        for off in ["0", "1", "3"] {
            let r = Command::new(&exe)
                .arg(off)
                .env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&r.stderr);
            assert!(
                r.status.success() && !err.contains("runtime error") && !err.contains("ERROR"),
                "{} -{} offset {}:\n{}",
                file,
                s,
                off,
                err
            );
            sums.push(String::from_utf8_lossy(&r.stdout).into_owned());
        }
        println!(
            "{} -{} {}: n = {:?}, offsets 0/1/3: clean",
            file, s, arch, ns
        );
        assert_eq!(sums[0], sums[1], "{}: results depend on alignment", file);
        assert_eq!(sums[0], sums[2], "{}: results depend on alignment", file);
        assert_eq!(sums[0].lines().count(), ns.len());
        common::remove_scratch(&dir);
    });
}

#[test]
fn no_secret_is_left_on_the_stack() {
    // ChaCha20 vsliced on std: the registers hold the state words as they are, so a copy
    // left anywhere (registers array, staging buffer, spill) shows up as the plain pattern.
    // On the widest SIMD target this CPU runs, a plain copy (staging buffers of short tails,
    // the transpositions' scratch, the fused whole-step function's arrays) would.
    let mut archs = vec![Arch::Std];
    if let Some(&a) = common::native_archs("stack residue of the packed entry")
        .iter()
        .rfind(|a| **a != Arch::Std)
    {
        archs.push(a);
    }
    for arch in archs {
        residue_after_packed(arch);
    }
}

fn residue_after_packed(arch: Arch) {
    let dir = common::scratch_dir(&format!("residue-{arch}"));
    let (out, lay) = generated_for("ciphers/chacha20/chacha20.ua", Slicing::V, "cc.h", arch);
    std::fs::write(dir.join("cc.c"), &out.c).unwrap();
    std::fs::write(dir.join("cc.h"), &out.h).unwrap();
    let main = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "cc.h"
static const uint32_t PAT[4] = {0xdeadbeefu, 0x13374299u, 0xa55ac33cu, 0x0ff08118u};
__attribute__((noinline)) static void run(size_t n) {
    static uint32_t s[16 * 64], o[16 * 64];
    for (size_t i = 0; i < n; i++) memcpy(s + 16 * i + 4, PAT, 16); /* the key words */
    chacha20__packed(n, s, o);
}
/* Reads the stack below the caller (where run's callees had their frames). */
__attribute__((noinline)) static int scan(void) {
    volatile uint8_t buf[1 << 18];
    const uint8_t *p = (const uint8_t *)PAT;
    int hits = 0;
    for (size_t i = 0; i + 16 <= sizeof buf; i++) {
        size_t k = 0;
        while (k < 16 && buf[i + k] == p[k]) k++;
        if (k == 16) hits++;
    }
    return hits;
}
int main(int argc, char **argv) {
    run((size_t)atoi(argv[1]));
    printf("%d\n", scan());
    return 0;
}
"#;
    std::fs::write(dir.join("main.c"), main).unwrap();
    // -z now: lazy binding would save vector registers on the stack in the dynamic linker.
    let exe = dir.join("residue");
    let o = Command::new(common::cc())
        .args(["-O3", "-DNAKIRI_SCRUB_STACK=65536", "-Wl,-z,now", "-o"])
        .arg(&exe)
        .arg(dir.join("main.c"))
        .arg(dir.join("cc.c"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let copies = |n: &str| -> i32 {
        String::from_utf8_lossy(&Command::new(&exe).arg(n).output().unwrap().stdout)
            .trim()
            .parse()
            .unwrap()
    };
    // The test can see a copy: with n = 0 nothing ran, so the only copies are the inputs...
    assert_eq!(copies("0"), 0);
    for n in ["1", "5", "64"] {
        assert_eq!(
            copies(n),
            0,
            "copies of the key left on the stack after chacha20__packed({}) on {}",
            n,
            arch
        );
    }
    if arch != Arch::Std {
        // n = 64 ran whole steps through the flattened step function
        assert!(
            out.c.contains("nkp_run_chacha20_step(") || out.c.contains("nkp_runk_chacha20_step("),
            "{arch}: fused whole steps"
        );
        assert!(lay.instances <= 64);
    }
    // ... and the generated code names every wipe.
    // (an output may share its input's register array: then it is not declared)
    for buf in ["nkp_r_s", "nkp_r_o"]
        .into_iter()
        .filter(|b| out.c.contains(&format!(" {}[", b)))
    {
        assert!(
            out.c.contains(&format!("nkp_wipe({0}, sizeof {0});", buf)),
            "{} is wiped",
            buf
        );
    }
}
