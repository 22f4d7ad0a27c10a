//! Known-answer and random tests for group b: ChaCha20 (block function + C stream wrapper),
//! Gimli, Xoodoo[12], Ascon p12/p8/p6. Every Usuba primitive runs through the interpreter and
//! natively (packed C API) on every arch this CPU has (`common::run_everywhere`), and its
//! outputs are compared with the published vectors and with the independent oracles of
//! `nakiri_oracles` on random inputs.

mod common;

use common::{build_and_run, lower_file, run_everywhere, Instance, Rng};
use nakiri::codegen::Arch;
use nakiri::ir::Slicing;
use nakiri_oracles as oracles;
use nakiri_oracles::prng::{hex, hexa};

const RANDOM: usize = 1000;

fn words32(ws: &[u32]) -> Vec<u64> {
    ws.iter().map(|&w| w as u64).collect()
}

fn to_u32<const N: usize>(ws: &[u64]) -> [u32; N] {
    assert_eq!(ws.len(), N);
    core::array::from_fn(|i| {
        assert!(ws[i] <= u32::MAX as u64);
        ws[i] as u32
    })
}

fn to_u64<const N: usize>(ws: &[u64]) -> [u64; N] {
    assert_eq!(ws.len(), N);
    core::array::from_fn(|i| ws[i])
}

fn random_words32<const N: usize>(rng: &mut Rng) -> [u32; N] {
    core::array::from_fn(|_| rng.bits(32) as u32)
}

// ------------------------------------------------------------------------------- ChaCha20

const CHACHA: &str = "ciphers/chacha20/chacha20.ua";

fn rfc_key() -> [u8; 32] {
    core::array::from_fn(|i| i as u8)
}

fn chacha_block(slicing: Slicing, seed: u64) {
    let prog = lower_file(CHACHA, slicing);
    let what = format!("chacha20 {:?}", slicing);
    // Instance 0: RFC 8439 §2.3.2 (key 00..1f, counter 1, nonce 000000090000004a00000000).
    let st0 = oracles::chacha20::init_state(&rfc_key(), 1, &hexa("000000090000004a00000000"));
    let mut states = vec![st0];
    let mut rng = Rng(seed);
    for _ in 0..RANDOM {
        states.push(random_words32::<16>(&mut rng));
    }
    let insts: Vec<Instance> = states.iter().map(|s| vec![words32(s)]).collect();
    let outs = run_everywhere(&what, &prog, &insts);
    let expect = hex(
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
         d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
    );
    let got0: [u32; 16] = to_u32(&outs[0][0]);
    assert_eq!(
        oracles::chacha20::words_to_bytes(&got0).to_vec(),
        expect,
        "{}: RFC 8439 2.3.2",
        what
    );
    for (k, (s, o)) in states.iter().zip(&outs).enumerate() {
        assert_eq!(
            to_u32::<16>(&o[0]),
            oracles::chacha20::permute_add(s),
            "{}: random instance {}",
            what,
            k
        );
    }
    // A few instances through the crate's byte-level block function as well.
    for k in 0..8u32 {
        let key: [u8; 32] = core::array::from_fn(|i| (rng.next() as u8) ^ i as u8);
        let nonce: [u8; 12] = core::array::from_fn(|_| rng.next() as u8);
        let st = oracles::chacha20::init_state(&key, k * 1000, &nonce);
        let o = &run_everywhere_quiet(&prog, &[vec![words32(&st)]])[0];
        assert_eq!(
            oracles::chacha20::words_to_bytes(&to_u32::<16>(&o[0])),
            oracles::chacha20::block(&key, k * 1000, &nonce)
        );
    }
}

/// Interpreter only (the native archs are covered by the big run_everywhere call).
fn run_everywhere_quiet(prog: &nakiri::ir::Program, insts: &[Instance]) -> Vec<Instance> {
    common::run_interp(prog, insts)
}

#[test]
fn chacha20_block_vslice() {
    chacha_block(Slicing::V, 0xc4ac4a20);
}

#[test]
fn chacha20_block_bitslice() {
    chacha_block(Slicing::B, 0xc4ac4a21);
}

/// The C driver for `chacha20_xor`: reads cases `len counter` + key, nonce, data as hex
/// bytes; prints the out-of-place result as hex, and checks in-place gives the same.
const STREAM_DRIVER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chacha20_stream.h"
static int rd(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) { unsigned v; if (scanf("%2x", &v) != 1) return 0; p[i] = (uint8_t)v; }
    return 1;
}
int main(void) {
    size_t len; unsigned long ctr;
    while (scanf("%zu %lu", &len, &ctr) == 2) {
        uint8_t key[32], nonce[12];
        uint8_t *in = malloc(len + 1), *out = malloc(len + 1), *inpl = malloc(len + 1);
        if (!rd(key, 32) || !rd(nonce, 12) || !rd(in, len)) return 2;
        out[len] = 0xa5;
        chacha20_xor(out, in, len, key, nonce, (uint32_t)ctr);
        if (out[len] != 0xa5) { fprintf(stderr, "wrote past the end\n"); return 3; }
        memcpy(inpl, in, len);
        chacha20_xor(inpl, inpl, len, key, nonce, (uint32_t)ctr);
        if (memcmp(inpl, out, len) != 0) { fprintf(stderr, "in-place differs\n"); return 4; }
        /* Odd addresses: input at +1, output at +3, and in place at +5. */
        uint8_t *ib = malloc(len + 8), *ob = malloc(len + 8);
        memcpy(ib + 1, in, len);
        ob[len + 3] = 0x5a;
        chacha20_xor(ob + 3, ib + 1, len, key, nonce, (uint32_t)ctr);
        if (memcmp(ob + 3, out, len) != 0 || ob[len + 3] != 0x5a) { fprintf(stderr, "unaligned differs\n"); return 6; }
        memcpy(ib + 5, in, len);
        chacha20_xor(ib + 5, ib + 5, len, key, nonce, (uint32_t)ctr);
        if (memcmp(ib + 5, out, len) != 0) { fprintf(stderr, "unaligned in-place differs\n"); return 7; }
        for (size_t i = 0; i < len; i++) printf("%02x", out[i]);
        printf("\n");
        free(in); free(out); free(inpl); free(ib); free(ob);
    }
    return 0;
}
"#;

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

fn chacha_stream(slicing: Slicing, archs: &[Arch]) {
    let src = std::fs::read_to_string(common::root().join(CHACHA)).unwrap();
    let dir = common::root().join("ciphers/chacha20");
    let stream_c = std::fs::read_to_string(dir.join("chacha20_stream.c")).unwrap();
    let stream_h = std::fs::read_to_string(dir.join("chacha20_stream.h")).unwrap();
    // Cases: (key, nonce, counter, data).
    // (key, nonce, counter, plaintext)
    type Case = ([u8; 32], [u8; 12], u32, Vec<u8>);
    let mut cases: Vec<Case> = Vec::new();
    // RFC 8439 §2.4.2.
    let sunscreen = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".to_vec();
    cases.push((
        rfc_key(),
        hexa("000000000000004a00000000"),
        1,
        sunscreen.clone(),
    ));
    let mut rng = Rng(0x5742_ea11);
    for &len in &[
        0usize,
        1,
        63,
        64,
        65,
        511,
        513,
        1000,
        1541, // avx2: a kernel batch (2 x 8 blocks), one raw call, a tail
        4096,
        4096 + 17,
        3077, // avx512: a kernel batch (2 x 16 blocks), one raw call, a tail
        1 << 20,
    ] {
        let key: [u8; 32] = core::array::from_fn(|_| rng.next() as u8);
        let nonce: [u8; 12] = core::array::from_fn(|_| rng.next() as u8);
        let ctr = rng.next() as u32 & 0x7fff_ffff;
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        cases.push((key, nonce, ctr, data));
    }
    let mut input = String::new();
    for (k, n, c, d) in &cases {
        input.push_str(&format!(
            "{} {}\n{}\n{}\n{}\n",
            d.len(),
            c,
            hexs(k),
            hexs(n),
            hexs(d)
        ));
    }
    for &arch in archs {
        if !arch.runs_here() {
            println!(
                "skipped: chacha20_xor {:?} on {} (CPU lacks it)",
                slicing, arch
            );
            continue;
        }
        // What `nakiri compile` emits (the driver: with the packed entry's interleaved kernel
        // where the rule gives one, and then `chacha20__xor_kernel_o`).
        let cfg = nakiri::driver::Config {
            slicing,
            arch,
            ..nakiri::driver::Config::default()
        };
        let (_, out) = nakiri::driver::compile(CHACHA, &src, &cfg, &common::Fs, "chacha20.h");
        let out = out.unwrap_or_else(|| panic!("codegen {}: no C", arch));
        if slicing == Slicing::V && arch == Arch::Avx512 {
            assert!(
                out.h.contains("#define chacha20__XOR_KERNEL_o 2"),
                "ChaCha20 -V avx512: the stream runs through the 2-way kernel"
            );
        }
        let stdout = build_and_run(
            &format!("chacha-stream-{}", arch),
            &[
                ("chacha20.c", &out.c),
                ("chacha20.h", &out.h),
                ("chacha20_stream.c", &stream_c),
                ("chacha20_stream.h", &stream_h),
                ("driver.c", STREAM_DRIVER),
            ],
            &[],
            &input,
        );
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), cases.len());
        for ((k, n, c, d), line) in cases.iter().zip(&lines) {
            let got = hex(line);
            assert_eq!(
                got,
                oracles::chacha20::xor_stream(k, n, *c, d),
                "chacha20_xor {:?} {} len {}",
                slicing,
                arch,
                d.len()
            );
        }
        // RFC 8439 §2.4.2 ciphertext, as printed in the RFC.
        let rfc_ct = hex(
            "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b\
             f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8\
             07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736\
             5af90bbf74a35be6b40b8eedf2785e42874d",
        );
        assert_eq!(
            hex(lines[0]),
            rfc_ct,
            "chacha20_xor {:?} {}: RFC 8439 2.4.2",
            slicing,
            arch
        );
    }
}

#[test]
fn chacha20_stream_vslice() {
    chacha_stream(
        Slicing::V,
        &[Arch::Std, Arch::Sse, Arch::Avx2, Arch::Avx512],
    );
}

// The wrapper only uses the packed API, so one bitsliced build checks it works with -B too.
#[test]
fn chacha20_stream_bitslice() {
    chacha_stream(Slicing::B, &[Arch::Std]);
}

// ---------------------------------------------------------------------------------- Gimli

fn gimli(slicing: Slicing, seed: u64) {
    let prog = lower_file("ciphers/gimli/gimli.ua", slicing);
    let what = format!("gimli {:?}", slicing);
    // Spec vector: s[i] = i^3 + i*0x9e3779b9.
    let spec: [u32; 12] = core::array::from_fn(|i| {
        let i = i as u32;
        i.wrapping_mul(i)
            .wrapping_mul(i)
            .wrapping_add(i.wrapping_mul(0x9e37_79b9))
    });
    let mut states = vec![spec];
    let mut rng = Rng(seed);
    for _ in 0..RANDOM {
        states.push(random_words32::<12>(&mut rng));
    }
    let insts: Vec<Instance> = states.iter().map(|s| vec![words32(s)]).collect();
    let outs = run_everywhere(&what, &prog, &insts);
    let expect: [u32; 12] = [
        0xba11c85a, 0x91bad119, 0x380ce880, 0xd24c2c68, 0x3eceffea, 0x277a921c, 0x4f73a0bd,
        0xda5a9cd8, 0x84b673f0, 0x34e52ff7, 0x9e2bef49, 0xf41bb8d6,
    ];
    assert_eq!(to_u32::<12>(&outs[0][0]), expect, "{}: spec vector", what);
    for (k, (s, o)) in states.iter().zip(&outs).enumerate() {
        assert_eq!(
            to_u32::<12>(&o[0]),
            oracles::gimli::permute(*s),
            "{}: random instance {}",
            what,
            k
        );
    }
}

#[test]
fn gimli_vslice() {
    gimli(Slicing::V, 0x6171);
}

#[test]
fn gimli_bitslice() {
    gimli(Slicing::B, 0x6172);
}

#[test]
fn gimli_hslice() {
    gimli(Slicing::H, 0x6173);
}

// --------------------------------------------------------------------------------- Xoodoo

fn xoodoo(slicing: Slicing, seed: u64) {
    let prog = lower_file("ciphers/xoodoo/xoodoo.ua", slicing);
    let what = format!("xoodoo {:?}", slicing);
    let mut states = vec![[0u32; 12]];
    let mut rng = Rng(seed);
    for _ in 0..RANDOM {
        states.push(random_words32::<12>(&mut rng));
    }
    let insts: Vec<Instance> = states.iter().map(|s| vec![words32(s)]).collect();
    let outs = run_everywhere(&what, &prog, &insts);
    // Xoodoo[12](0), lanes as 32-bit words.
    let expect: [u32; 12] = [
        0x89d5d88d, 0xa963fcbf, 0x1b232d19, 0xffa5a014, 0x36b18106, 0xafc7c1fe, 0xaee57cbe,
        0xa77540bd, 0x2e86e870, 0xfef5b7c9, 0x8b4fadf2, 0x5e4f4062,
    ];
    assert_eq!(to_u32::<12>(&outs[0][0]), expect, "{}: Xoodoo[12](0)", what);
    for (k, (s, o)) in states.iter().zip(&outs).enumerate() {
        assert_eq!(
            to_u32::<12>(&o[0]),
            oracles::xoodoo::permute12(*s),
            "{}: random instance {}",
            what,
            k
        );
    }
}

#[test]
fn xoodoo_vslice() {
    xoodoo(Slicing::V, 0x7800);
}

#[test]
fn xoodoo_bitslice() {
    xoodoo(Slicing::B, 0x7801);
}

#[test]
fn xoodoo_hslice() {
    xoodoo(Slicing::H, 0x7802);
}

// ---------------------------------------------------------------------------------- Ascon

/// Ascon v1.2 AEAD with key = nonce = 00..0f, AD = the single byte 00 and an empty plaintext
/// (KAT Count 2): Ascon-128 (rate 64 bits, p^6) for `rounds == 6`, Ascon-128a (rate 128 bits,
/// p^8) for `rounds == 8`. The associated data is one padded block, so the whole computation
/// is p^12 (initialisation), one p^b, p^12 (finalisation). Returns the state right before
/// that p^b call.
fn aead_count2_before_pb(rounds: usize) -> [u64; 5] {
    let (k0, k1) = (0x0001_0203_0405_0607u64, 0x0809_0a0b_0c0d_0e0fu64);
    let iv = match rounds {
        6 => 0x8040_0c06_0000_0000u64, // k=128, r=64, a=12, b=6
        8 => 0x8080_0c08_0000_0000u64, // k=128, r=128, a=12, b=8
        _ => unreachable!(),
    };
    let mut s = oracles::ascon::p12([iv, k0, k1, k0, k1]);
    s[3] ^= k0;
    s[4] ^= k1;
    s[0] ^= 0x0080_0000_0000_0000; // AD block: 00 || pad 80 || 00..
    s
}

/// Finishes the Count 2 computation from the state right after the p^b call: returns the
/// ciphertext (empty) || tag.
fn aead_count2_finish(rounds: usize, after_pb: [u64; 5]) -> Vec<u8> {
    let (k0, k1) = (0x0001_0203_0405_0607u64, 0x0809_0a0b_0c0d_0e0fu64);
    let mut s = after_pb;
    s[4] ^= 1; // domain separation
    s[0] ^= 0x8000_0000_0000_0000; // empty plaintext: the padding block
    let kw = if rounds == 6 { 1 } else { 2 }; // key after the rate
    s[kw] ^= k0;
    s[kw + 1] ^= k1;
    s = oracles::ascon::p12(s);
    [(s[3] ^ k0).to_be_bytes(), (s[4] ^ k1).to_be_bytes()].concat()
}

/// Ascon v1.2 `LWC_AEAD_KAT_128_128.txt` Count 2 (Key = Nonce = 000102..0F, PT empty, AD 00)
/// for Ascon-128 (uses p^6) and Ascon-128a (uses p^8), as in the v1.2 KAT copies of the
/// `ascon-aead` crate's test data (repository sebastinas/ascon-aead), whose Count 1 entries
/// equal the final v1.2 values checked in `nakiri_oracles::ascon`.
fn aead_count2_published(rounds: usize) -> Vec<u8> {
    match rounds {
        6 => hex("944DF887CD4901614C5DEDBC42FC0DA0"),
        8 => hex("AF3031B07B129EC84153373DDCABA528"),
        _ => unreachable!(),
    }
}

fn ascon(file: &str, rounds: usize, slicing: Slicing, seed: u64) {
    let prog = lower_file(file, slicing);
    let what = format!("ascon p{} {:?}", rounds, slicing);
    let oracle = match rounds {
        12 => oracles::ascon::p12,
        8 => oracles::ascon::p8,
        6 => oracles::ascon::p6,
        _ => unreachable!(),
    };
    // Instance 0: for p12 the Ascon-Hash v1.2 initial state (IV word then zeros), whose p12
    // image is checked against the published Ascon-Hash KAT below; for p8/p6 the state before
    // the p^b call of the Ascon-128a/Ascon-128 AEAD KAT Count 2 (checked below too).
    let s0 = match rounds {
        12 => [0x0040_0c00_0000_0100u64, 0, 0, 0, 0],
        _ => {
            let s = aead_count2_before_pb(rounds);
            // The oracle itself reproduces the published vector.
            assert_eq!(
                aead_count2_finish(rounds, oracle(s)),
                aead_count2_published(rounds),
                "oracle p{}: AEAD KAT Count 2",
                rounds
            );
            s
        }
    };
    let mut states = vec![s0];
    let mut rng = Rng(seed);
    for _ in 0..RANDOM {
        states.push(core::array::from_fn(|_| rng.next()));
    }
    let insts: Vec<Instance> = states.iter().map(|s| vec![s.to_vec()]).collect();
    let outs = run_everywhere(&what, &prog, &insts);
    for (k, (s, o)) in states.iter().zip(&outs).enumerate() {
        assert_eq!(
            to_u64::<5>(&o[0]),
            oracle(*s),
            "{}: random instance {}",
            what,
            k
        );
    }
    if rounds != 12 {
        // Published vector through the compiled p^b (the native archs agree with the
        // interpreter on instance 0, checked by run_everywhere).
        let tag = aead_count2_finish(rounds, to_u64::<5>(&outs[0][0]));
        assert_eq!(
            tag,
            aead_count2_published(rounds),
            "{}: Ascon-128{} AEAD KAT Count 2",
            what,
            if rounds == 8 { "a" } else { "" }
        );
    } else {
        // Published vector: Ascon-Hash("") (v1.2 LWC_HASH_KAT_256.txt, Count 1) computed with
        // the compiled p12 (interpreter): absorb the single padding block, squeeze 4 blocks.
        let p12 = |s: [u64; 5]| -> [u64; 5] {
            to_u64(&common::run_interp(&prog, &[vec![s.to_vec()]])[0][0])
        };
        let mut s = to_u64::<5>(&outs[0][0]);
        s[0] ^= 0x8000_0000_0000_0000;
        s = p12(s);
        let mut digest = Vec::new();
        for i in 0..4 {
            digest.extend_from_slice(&s[0].to_be_bytes());
            if i < 3 {
                s = p12(s);
            }
        }
        assert_eq!(
            digest,
            hex("7346BC14F036E87AE03D0997913088F5F68411434B3CF8B54FA796A80D251F91"),
            "{}: Ascon-Hash KAT",
            what
        );
    }
}

#[test]
fn ascon_p12_vslice() {
    ascon("ciphers/ascon/ascon.ua", 12, Slicing::V, 0xa5c0);
}

#[test]
fn ascon_p12_bitslice() {
    ascon("ciphers/ascon/ascon.ua", 12, Slicing::B, 0xa5c1);
}

#[test]
fn ascon_p12_hslice() {
    ascon("ciphers/ascon/ascon.ua", 12, Slicing::H, 0xa5c2);
}

#[test]
fn ascon_p8_vslice() {
    ascon("ciphers/ascon/ascon_p8.ua", 8, Slicing::V, 0xa5c8);
}

#[test]
fn ascon_p6_vslice() {
    ascon("ciphers/ascon/ascon_p6.ua", 6, Slicing::V, 0xa5c6);
}

#[test]
fn ascon_p8_bitslice() {
    ascon("ciphers/ascon/ascon_p8.ua", 8, Slicing::B, 0xa5c9);
}

#[test]
fn ascon_p6_bitslice() {
    ascon("ciphers/ascon/ascon_p6.ua", 6, Slicing::B, 0xa5c7);
}
