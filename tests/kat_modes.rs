//! Modes of operation built in C on the generated packed APIs.
//!
//! AES-128-CTR (`ciphers/aes/aes_ctr.c`, NIST SP 800-38A) over the AES of `ciphers/aes/aes_rk.ua`
//! with the round keys of `aes_keys.c`, in every slicing (`-B`: the fused path; `-H`, `-V`: the
//! packed fallback), natively on every arch this CPU runs: the SP 800-38A F.5.1
//! CTR-AES128.Encrypt vector, and random buffers compared with a CTR loop written here on top of
//! `nakiri_oracles::aes128::encrypt` (crate `aes`), including counters that carry across the low
//! 64 bits and the whole 128 bits, in-place use, and no write past the end.
//! (The ChaCha20 stream wrapper is tested in `kat_b.rs`.)

mod common;

use common::{build_and_run, lower_file_cfg, Rng};
use nakiri::codegen::{generate, CodegenConfig};
use nakiri::driver::Config;
use nakiri::ir::Slicing;
use nakiri_oracles as oracles;
use nakiri_oracles::prng::{hex, hexa};

/// Reference AES-128-CTR: keystream block j = AES_key(iv + j), the counter block being one
/// 128-bit big-endian integer (SP 800-38A, standard incrementing function, mod 2^128).
fn ctr_reference(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let base = u128::from_be_bytes(*iv);
    let mut out = Vec::with_capacity(data.len());
    for (j, chunk) in data.chunks(16).enumerate() {
        let block = base.wrapping_add(j as u128).to_be_bytes();
        let ks = oracles::aes128::encrypt(key, &block);
        out.extend(chunk.iter().zip(ks.iter()).map(|(d, k)| d ^ k));
    }
    out
}

/// The C driver: per case, `len` then key, iv, data as hex bytes. Prints the out-of-place
/// result as hex; fails if a guard byte after `out[len-1]` changed or in-place differs.
const DRIVER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aes_ctr.h"
static int rd(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) { unsigned v; if (scanf("%2x", &v) != 1) return 0; p[i] = (uint8_t)v; }
    return 1;
}
typedef struct { size_t len; uint8_t key[16], iv[16]; uint8_t *in; } Case;
int main(void) {
    /* Read every case first: the harness writes all of stdin before reading stdout, so
       printing while input is pending could fill the pipe and deadlock. */
    size_t ncases = 0, cap = 64, len;
    Case *cs = malloc(cap * sizeof(Case));
    while (scanf("%zu", &len) == 1) {
        if (ncases == cap) { cap *= 2; cs = realloc(cs, cap * sizeof(Case)); }
        Case *c = &cs[ncases++];
        c->len = len;
        c->in = malloc(len + 1);
        if (!rd(c->key, 16) || !rd(c->iv, 16) || !rd(c->in, len)) return 2;
    }
    for (size_t ci = 0; ci < ncases; ci++) {
        Case *c = &cs[ci];
        size_t len = c->len;
        uint8_t iv_copy[16], key_copy[16];
        uint8_t *out = malloc(len + 16), *inpl = malloc(len + 16);
        memcpy(iv_copy, c->iv, 16); memcpy(key_copy, c->key, 16);
        memset(out, 0xa5, len + 16);
        aes128_ctr_xor(out, c->in, len, c->key, c->iv);
        for (size_t k = len; k < len + 16; k++)
            if (out[k] != 0xa5) { fprintf(stderr, "wrote past the end (len %zu)\n", len); return 3; }
        if (memcmp(c->iv, iv_copy, 16) || memcmp(c->key, key_copy, 16)) { fprintf(stderr, "modified key/iv\n"); return 5; }
        memcpy(inpl, c->in, len);
        memset(inpl + len, 0x5a, 16);
        aes128_ctr_xor(inpl, inpl, len, c->key, c->iv);
        if (memcmp(inpl, out, len) != 0) { fprintf(stderr, "in-place differs (len %zu)\n", len); return 4; }
        for (size_t k = len; k < len + 16; k++)
            if (inpl[k] != 0x5a) { fprintf(stderr, "in-place wrote past the end (len %zu)\n", len); return 3; }
        /* Odd addresses: input at +1, output at +3; in place at +5. */
        uint8_t *ib = malloc(len + 8), *ob = malloc(len + 8);
        memcpy(ib + 1, c->in, len);
        ob[len + 3] = 0x5a;
        aes128_ctr_xor(ob + 3, ib + 1, len, c->key, c->iv);
        if (memcmp(ob + 3, out, len) != 0 || ob[len + 3] != 0x5a) { fprintf(stderr, "unaligned differs (len %zu)\n", len); return 6; }
        memcpy(ib + 5, c->in, len);
        aes128_ctr_xor(ib + 5, ib + 5, len, c->key, c->iv);
        if (memcmp(ib + 5, out, len) != 0) { fprintf(stderr, "unaligned in-place differs (len %zu)\n", len); return 7; }
        free(ib); free(ob);
        for (size_t i = 0; i < len; i++) printf("%02x", out[i]);
        printf("\n");
        free(c->in); free(out); free(inpl);
    }
    free(cs);
    return 0;
}
"#;

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

#[test]
fn aes128_ctr_every_slicing() {
    let dir = common::root().join("ciphers/aes");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let (ctr_c, ctr_h, keys_c, keys_h) = (
        read("aes_ctr.c"),
        read("aes_ctr.h"),
        read("aes_keys.c"),
        read("aes_keys.h"),
    );

    // Cases: (key, iv, data).
    let mut cases: Vec<([u8; 16], [u8; 16], Vec<u8>)> = Vec::new();
    // SP 800-38A F.5.1 CTR-AES128.Encrypt.
    let f51_key: [u8; 16] = hexa("2b7e151628aed2a6abf7158809cf4f3c");
    let f51_iv: [u8; 16] = hexa("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    let f51_pt = hex("6bc1bee22e409f96e93d7e117393172a\
         ae2d8a571e03ac9c9eb76fac45af8e51\
         30c81c46a35ce411e5fbc1191a0a52ef\
         f69f2445df4f9b17ad2b417be66c3710");
    let f51_ct = hex("874d6191b620e3261bef6864990db6ce\
         9806f66b7970fdff8617187bb9fffdff\
         5ae4df3edbd5d35e5b4f09020db03eab\
         1e031dda2fbe03d1792170a0f3009cee");
    // The reference itself must reproduce the standard's vector.
    assert_eq!(
        ctr_reference(&f51_key, &f51_iv, &f51_pt),
        f51_ct,
        "reference CTR vs SP 800-38A F.5.1"
    );
    cases.push((f51_key, f51_iv, f51_pt.clone()));
    // F.5.2 (decryption) is the same operation: ciphertext back to plaintext.
    cases.push((f51_key, f51_iv, f51_ct.clone()));

    let mut rng = Rng(0xae5c_7a11);
    let rand16 = |rng: &mut Rng| -> [u8; 16] { core::array::from_fn(|_| rng.next() as u8) };
    for &len in &[
        0usize,
        1,
        15,
        16,
        17,
        63,
        64,
        65,
        1000,
        4096,
        4096 + 33,
        8192 + 15,
        1 << 20,
    ] {
        let key = rand16(&mut rng);
        let iv = rand16(&mut rng);
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        cases.push((key, iv, data));
    }
    // Counter carries: low 64 bits all ones (the carry must reach byte 7), low 64 bits wrapping
    // at block 600 of a 1281-block message (inside a later batch on every arch), and the whole
    // 128-bit block wrapping.
    let mut wraps: Vec<([u8; 16], usize)> = Vec::new();
    let mut iv = rand16(&mut rng);
    iv[8..].fill(0xff);
    wraps.push((iv, 100));
    let mut iv = rand16(&mut rng);
    iv[8..].copy_from_slice(&0xffff_ffff_ffff_fda8u64.to_be_bytes());
    wraps.push((iv, 1280 * 16 + 5));
    let mut iv = rand16(&mut rng);
    iv[7] = 0xff; // carries through byte 7 into byte 6 as well
    iv[8..].fill(0xff);
    wraps.push((iv, 33));
    wraps.push(([0xff; 16], 50));
    for (iv, len) in wraps {
        let key = rand16(&mut rng);
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        // Sanity of the test itself: the counter does wrap the low 64 bits within this message.
        let low = u64::from_be_bytes(iv[8..].try_into().unwrap());
        assert!(low.checked_add((len as u64).div_ceil(16) - 1).is_none());
        cases.push((key, iv, data));
    }

    let expected: Vec<Vec<u8>> = cases
        .iter()
        .map(|(k, iv, d)| ctr_reference(k, iv, d))
        .collect();
    let mut input = String::new();
    for (k, iv, d) in &cases {
        input.push_str(&format!(
            "{}\n{}\n{}\n{}\n",
            d.len(),
            hexs(k),
            hexs(iv),
            hexs(d)
        ));
    }

    for (arch, slicing) in common::native_archs("aes128_ctr_xor (aes_rk.ua)")
        .into_iter()
        .flat_map(|a| {
            [Slicing::B, Slicing::H, Slicing::V]
                .into_iter()
                .map(move |s| (a, s))
        })
    {
        let cfg = Config {
            slicing,
            arch,
            ..Config::default()
        };
        let prog = lower_file_cfg("ciphers/aes/aes_rk.ua", &cfg);
        let out = generate(
            &prog,
            &CodegenConfig {
                arch,
                header_name: "aes_rk.h".into(),
                banner: "kat_modes".into(),
                spill: nakiri::codegen::SPILL_DEFAULT,
                mem_loops: nakiri::codegen::MEM_LOOPS_DEFAULT,
                loop_regs: None,
                opaque_not: nakiri::codegen::OPAQUE_NOT_DEFAULT,
                uarch: nakiri::target::Uarch::host(),
                state_loads: None,
                loop_align: None,
            },
        )
        .unwrap_or_else(|e| panic!("codegen {}: {}", arch, e));
        let stdout = build_and_run(
            &format!("aes-ctr-{}-{:?}", arch, slicing),
            &[
                ("aes_rk.c", &out.c),
                ("aes_rk.h", &out.h),
                ("aes_keys.c", &keys_c),
                ("aes_keys.h", &keys_h),
                ("aes_ctr.c", &ctr_c),
                ("aes_ctr.h", &ctr_h),
                ("driver.c", DRIVER),
            ],
            &[],
            &input,
        );
        let arch = format!("{} {:?}", arch, slicing);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines.len(),
            cases.len(),
            "{}: one output line per case",
            arch
        );
        assert_eq!(
            hex(lines[0]),
            f51_ct,
            "aes128_ctr_xor {}: SP 800-38A F.5.1",
            arch
        );
        assert_eq!(
            hex(lines[1]),
            f51_pt,
            "aes128_ctr_xor {}: SP 800-38A F.5.2",
            arch
        );
        for (k, ((key, iv, d), line)) in cases.iter().zip(&lines).enumerate() {
            let got = hex(line);
            assert!(
                got == expected[k],
                "aes128_ctr_xor {}: case {} (len {}, key {}, iv {}) differs from the reference",
                arch,
                k,
                d.len(),
                hexs(key),
                hexs(iv)
            );
        }
        println!("aes128_ctr_xor {}: {} cases ok", arch, cases.len());
    }
}
