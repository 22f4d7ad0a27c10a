//! Known-answer and random tests for group c: RECTANGLE-80, Serpent-128, PRESENT-80, GIFT-128.
//! Each primitive × slicing runs through `common::run_everywhere` (interpreter + every native
//! arch of this CPU, all compared), and the results are compared with the published vectors and
//! with the independent oracles of `nakiri_oracles` on random inputs.

mod common;

use common::{build_and_run, lower_file, run_everywhere, Instance, Rng};
use nakiri::ir::Slicing;
use nakiri_oracles as oracles;

const RANDOM: usize = 1000;
/// Random tests change the (const) key every this many instances.
const PER_KEY: usize = 50;

fn read(path: &str) -> String {
    std::fs::read_to_string(common::root().join(path)).unwrap()
}

// ------------------------------------------------------------------------------ RECTANGLE-80

fn rect_block_words(b: u64) -> Vec<u64> {
    (0..4).map(|j| (b >> (16 * j)) & 0xffff).collect()
}
fn rect_words_block(w: &[u64]) -> u64 {
    w.iter()
        .enumerate()
        .fold(0, |a, (j, &x)| a | (x << (16 * j)))
}
fn rect_key_words(key: u128) -> Vec<u64> {
    oracles::rectangle80::round_keys(key)
        .iter()
        .flat_map(|&rk| rect_block_words(rk))
        .collect()
}

fn rectangle(slicing: Slicing) {
    let prog = lower_file("ciphers/rectangle/rectangle.ua", slicing);
    let mut rng = Rng(0x7ec7 + slicing as u64);
    let mut cases: Vec<(u128, u64)> = vec![(0, 0), ((1u128 << 80) - 1, u64::MAX)];
    let mut key = 0u128;
    for i in 0..RANDOM {
        if i % PER_KEY == 0 {
            key = ((rng.next() as u128) << 16) ^ rng.next() as u128 & ((1u128 << 80) - 1);
            key &= (1u128 << 80) - 1;
        }
        cases.push((key, rng.next()));
    }
    let insts: Vec<Instance> = cases
        .iter()
        .map(|&(k, p)| vec![rect_block_words(p), rect_key_words(k)])
        .collect();
    let out = run_everywhere(&format!("rectangle {:?}", slicing), &prog, &insts);
    let got: Vec<u64> = out.iter().map(|o| rect_words_block(&o[0])).collect();
    // Published vectors.
    assert_eq!(
        got[0], 0x0874E8B1E3542D96,
        "rectangle {:?}: zero vector",
        slicing
    );
    assert_eq!(
        got[1], 0x0112AE3DAA349945,
        "rectangle {:?}: all-ones vector",
        slicing
    );
    for (i, (&(k, p), &g)) in cases.iter().zip(&got).enumerate() {
        assert_eq!(
            g,
            oracles::rectangle80::encrypt(k, p),
            "rectangle {:?}: case {} key {:x} pt {:x}",
            slicing,
            i,
            k,
            p
        );
    }
}

#[test]
fn rectangle_vslice() {
    rectangle(Slicing::V);
}
#[test]
fn rectangle_hslice() {
    rectangle(Slicing::H);
}
#[test]
fn rectangle_bitslice() {
    rectangle(Slicing::B);
}

/// The documented C key schedule helper equals the oracle's key schedule.
#[test]
fn rectangle_key_helper() {
    let mut rng = Rng(0x4e7);
    let mut keys: Vec<[u8; 10]> = vec![[0; 10], [0xff; 10]];
    for _ in 0..200 {
        let mut k = [0u8; 10];
        for b in k.iter_mut() {
            *b = rng.bits(8) as u8;
        }
        keys.push(k);
    }
    let driver = r#"
#include <stdio.h>
#include "rectangle_keys.h"
int main(void) {
    uint8_t k[10]; unsigned v;
    for (;;) {
        for (int i = 0; i < 10; i++) { if (scanf("%x", &v) != 1) return 0; k[i] = (uint8_t)v; }
        uint16_t rk[104];
        rectangle80_round_keys(k, rk);
        for (int i = 0; i < 104; i++) printf("%x ", rk[i]);
        printf("\n");
    }
}
"#;
    let input: String = keys
        .iter()
        .map(|k| k.iter().map(|b| format!("{:x} ", b)).collect::<String>() + "\n")
        .collect();
    let out = build_and_run(
        "rectangle-keys",
        &[
            (
                "rectangle_keys.c",
                &read("ciphers/rectangle/rectangle_keys.c"),
            ),
            (
                "rectangle_keys.h",
                &read("ciphers/rectangle/rectangle_keys.h"),
            ),
            ("driver.c", driver),
        ],
        &[],
        &input,
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), keys.len());
    for (k, line) in keys.iter().zip(lines) {
        let got: Vec<u64> = line
            .split_whitespace()
            .map(|x| u64::from_str_radix(x, 16).unwrap())
            .collect();
        let key = k.iter().fold(0u128, |a, &b| (a << 8) | b as u128);
        assert_eq!(got, rect_key_words(key), "key {:x?}", k);
    }
}

// ------------------------------------------------------------------------------- Serpent-128

fn le_words(b: &[u8; 16]) -> Vec<u64> {
    (0..4)
        .map(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()) as u64)
        .collect()
}
fn words_le(w: &[u64]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for i in 0..4 {
        out[4 * i..4 * i + 4].copy_from_slice(&(w[i] as u32).to_le_bytes());
    }
    out
}
fn serpent_key_words(key: &[u8; 16]) -> Vec<u64> {
    oracles::serpent::round_keys(key)
        .iter()
        .flat_map(|k| k.iter().map(|&w| w as u64))
        .collect()
}
fn random_bytes<const N: usize>(rng: &mut Rng) -> [u8; N] {
    let mut b = [0u8; N];
    for x in b.iter_mut() {
        *x = rng.bits(8) as u8;
    }
    b
}

fn serpent(slicing: Slicing) {
    let prog = lower_file("ciphers/serpent/serpent.ua", slicing);
    let mut rng = Rng(0x5e4 + slicing as u64);
    let mut cases: Vec<([u8; 16], [u8; 16])> = vec![([0; 16], [0; 16])];
    let mut key = [0u8; 16];
    for i in 0..RANDOM {
        if i % PER_KEY == 0 {
            key = random_bytes(&mut rng);
        }
        cases.push((key, random_bytes(&mut rng)));
    }
    let insts: Vec<Instance> = cases
        .iter()
        .map(|(k, p)| vec![le_words(p), serpent_key_words(k)])
        .collect();
    let out = run_everywhere(&format!("serpent {:?}", slicing), &prog, &insts);
    let got: Vec<[u8; 16]> = out.iter().map(|o| words_le(&o[0])).collect();
    // NESSIE vector (zero key, zero block).
    let nessie: [u8; 16] = oracles::prng::hexa("3620b17ae6a993d09618b8768266bae9");
    assert_eq!(got[0], nessie, "serpent {:?}: NESSIE zero vector", slicing);
    for (i, ((k, p), g)) in cases.iter().zip(&got).enumerate() {
        assert_eq!(
            *g,
            oracles::serpent::encrypt(k, p),
            "serpent {:?}: case {} key {:x?} pt {:x?}",
            slicing,
            i,
            k,
            p
        );
    }
}

#[test]
fn serpent_vslice() {
    serpent(Slicing::V);
}
#[test]
fn serpent_bitslice() {
    serpent(Slicing::B);
}

// -------------------------------------------------------------------------------- PRESENT-80

/// The n low bits of `v` as n one-bit source words, most significant first.
fn bits_msb(v: u128, n: usize) -> Vec<u64> {
    (0..n).map(|k| ((v >> (n - 1 - k)) & 1) as u64).collect()
}
fn from_bits_msb(b: &[u64]) -> u128 {
    b.iter().fold(0u128, |a, &x| (a << 1) | x as u128)
}

fn present(slicing: Slicing) {
    let prog = lower_file("ciphers/present/present.ua", slicing);
    let ones80 = (1u128 << 80) - 1;
    // CHES 2007 appendix (key, plaintext, ciphertext).
    let vectors: [(u128, u64, u64); 4] = [
        (0, 0, 0x5579c1387b228445),
        (0, u64::MAX, 0xa112ffc72f68417b),
        (ones80, 0, 0xe72c46c0f5945049),
        (ones80, u64::MAX, 0x3333dcd3213210d2),
    ];
    let mut cases: Vec<(u128, u64)> = vectors.iter().map(|&(k, p, _)| (k, p)).collect();
    let mut rng = Rng(0x9e5 + slicing as u64);
    for _ in 0..RANDOM {
        let key = (((rng.next() as u128) << 64) | rng.next() as u128) & ones80;
        cases.push((key, rng.next()));
    }
    let insts: Vec<Instance> = cases
        .iter()
        .map(|&(k, p)| vec![bits_msb(p as u128, 64), bits_msb(k, 80)])
        .collect();
    let out = run_everywhere(&format!("present {:?}", slicing), &prog, &insts);
    let got: Vec<u64> = out.iter().map(|o| from_bits_msb(&o[0]) as u64).collect();
    for (i, &(_, _, c)) in vectors.iter().enumerate() {
        assert_eq!(got[i], c, "present {:?}: CHES 2007 vector {}", slicing, i);
    }
    for (i, (&(k, p), &g)) in cases.iter().zip(&got).enumerate() {
        assert_eq!(
            g,
            oracles::present80::encrypt_model(k, p),
            "present {:?}: case {} (model)",
            slicing,
            i
        );
        let kb: [u8; 10] = (k.to_be_bytes()[6..16]).try_into().unwrap();
        assert_eq!(
            g,
            oracles::present80::encrypt(&kb, p),
            "present {:?}: case {} (crate)",
            slicing,
            i
        );
    }
}

#[test]
fn present_bitslice() {
    present(Slicing::B);
}

// --------------------------------------------------------------------------------- GIFT-128

fn gift(slicing: Slicing) {
    use oracles::gift128;
    use oracles::prng::hexa;
    let prog = lower_file("ciphers/gift/gift.ua", slicing);
    let k00: [u8; 16] = hexa("000102030405060708090a0b0c0d0e0f");
    // Paper-order cases: the paper-order zero vector, then the two GIFT-COFB vectors converted
    // to paper order, then random.
    let mut cases: Vec<([u8; 16], [u8; 16])> = vec![
        ([0; 16], [0; 16]),
        ([0; 16], gift128::cofb_to_paper(&[0; 16])),
        (k00, gift128::cofb_to_paper(&k00)),
    ];
    let mut rng = Rng(0x61f7 + slicing as u64);
    for _ in 0..RANDOM {
        cases.push((random_bytes(&mut rng), random_bytes(&mut rng)));
    }
    let insts: Vec<Instance> = cases
        .iter()
        .map(|(k, p)| {
            vec![
                bits_msb(u128::from_be_bytes(*p), 128),
                bits_msb(u128::from_be_bytes(*k), 128),
            ]
        })
        .collect();
    let out = run_everywhere(&format!("gift128 {:?}", slicing), &prog, &insts);
    let got: Vec<[u8; 16]> = out
        .iter()
        .map(|o| from_bits_msb(&o[0]).to_be_bytes())
        .collect();
    assert_eq!(
        got[0],
        hexa::<16>("cd0bd738388ad3f668b15a36ceb6ff92"),
        "gift {:?}: paper zero vector",
        slicing
    );
    assert_eq!(
        gift128::paper_to_cofb(&got[1]),
        hexa::<16>("5e8e3a2e1697a77dcc0b89dcd97a64ee"),
        "gift {:?}: COFB zero vector",
        slicing
    );
    assert_eq!(
        gift128::paper_to_cofb(&got[2]),
        hexa::<16>("a94af7f9ba181df9b2b00eb7dbfa93df"),
        "gift {:?}: COFB 00..0f vector",
        slicing
    );
    for (i, ((k, p), g)) in cases.iter().zip(&got).enumerate() {
        assert_eq!(
            *g,
            gift128::encrypt(k, p),
            "gift {:?}: case {} key {:x?} pt {:x?}",
            slicing,
            i,
            k,
            p
        );
    }
}

#[test]
fn gift128_bitslice() {
    gift(Slicing::B);
}
