//! GIFT-128 in vslice (`ciphers/gift/gift_v.ua`, fixsliced GIFT-COFB bitsliced representation,
//! round keys from the C helper `ciphers/gift/gift_keys.c`): known-answer and random tests through
//! `common::run_everywhere` (interpreter + every native arch of this CPU), compared with
//! `nakiri_oracles::gift128`.

mod common;

use common::{build_and_run, lower_file, run_everywhere, Instance, Rng};
use nakiri::ir::Slicing;
use nakiri_oracles::gift128;
use nakiri_oracles::prng::hexa;

const RANDOM: usize = 1000;
/// Random tests change the (const) key every this many instances.
const PER_KEY: usize = 50;

fn read(path: &str) -> String {
    std::fs::read_to_string(common::root().join(path)).unwrap()
}

fn random_bytes<const N: usize>(rng: &mut Rng) -> [u8; N] {
    let mut b = [0u8; N];
    for x in b.iter_mut() {
        *x = rng.bits(8) as u8;
    }
    b
}

/// Own key schedule from the specification: per round r, (U_r, V_r) = (k5||k4, k1||k0).
fn round_keys(key: &[u8; 16]) -> Vec<u64> {
    // k[i] = k_i; key bytes = k7 || .. || k0 big-endian.
    let mut k: [u16; 8] =
        core::array::from_fn(|i| u16::from_be_bytes([key[14 - 2 * i], key[15 - 2 * i]]));
    let mut out = Vec::with_capacity(80);
    for _ in 0..40 {
        out.push(((k[5] as u64) << 16) | k[4] as u64);
        out.push(((k[1] as u64) << 16) | k[0] as u64);
        let (k0, k1) = (k[0], k[1]);
        k.copy_within(2..8, 0);
        k[7] = k1.rotate_right(2);
        k[6] = k0.rotate_right(12);
    }
    out
}

/// The fixsliced representation sigma_k (k = 0..4) of gift_v.ua: sigma_0 = identity,
/// sigma_(k+1) = sigma_k o P_3^-1 with P_3(n) = n/4 + 8*((3*(n%4) + 3) % 4) (GIFT's PermBits on
/// word S3); sigma[k][n] = position of bit n. Applied to U_r, V_r with k = (r+1) mod 5.
fn fixsliced_round_keys(key: &[u8; 16]) -> Vec<u64> {
    let p3: Vec<usize> = (0..32)
        .map(|n| n / 4 + 8 * ((3 * (n % 4) + 3) % 4))
        .collect();
    let mut p3_inv = vec![0usize; 32];
    for n in 0..32 {
        p3_inv[p3[n]] = n;
    }
    let mut sigma: Vec<Vec<usize>> = vec![(0..32).collect()];
    for k in 0..5 {
        let next: Vec<usize> = (0..32).map(|n| sigma[k][p3_inv[n]]).collect();
        sigma.push(next);
    }
    assert_eq!(sigma[5], sigma[0], "P_3 has order 5");
    let place = |s: &[usize], x: u64| (0..32).fold(0u64, |a, n| a | (((x >> n) & 1) << s[n]));
    round_keys(key)
        .iter()
        .enumerate()
        .map(|(i, &w)| place(&sigma[(i / 2 + 1) % 5], w))
        .collect()
}

/// Runs the C helpers `gift128_round_keys` and `gift128_fixsliced_round_keys` on each key:
/// returns (plain, fixsliced).
fn helper_round_keys(keys: &[[u8; 16]]) -> Vec<(Vec<u64>, Vec<u64>)> {
    let driver = r#"
#include <stdio.h>
#include "gift_keys.h"
int main(void) {
    uint8_t k[16]; unsigned v;
    for (;;) {
        for (int i = 0; i < 16; i++) { if (scanf("%x", &v) != 1) return 0; k[i] = (uint8_t)v; }
        uint32_t rk[80];
        gift128_round_keys(k, rk);
        for (int i = 0; i < 80; i++) printf("%x ", rk[i]);
        printf("\n");
        gift128_fixsliced_round_keys(k, rk);
        for (int i = 0; i < 80; i++) printf("%x ", rk[i]);
        printf("\n");
    }
}
"#;
    let input: String = keys
        .iter()
        .map(|k| k.iter().map(|b| format!("{:x} ", b)).collect::<String>() + "\n")
        .collect();
    let out = build_and_run(
        "gift-keys",
        &[
            ("gift_keys.c", &read("ciphers/gift/gift_keys.c")),
            ("gift_keys.h", &read("ciphers/gift/gift_keys.h")),
            ("driver.c", driver),
        ],
        &[],
        &input,
    );
    let lines: Vec<Vec<u64>> = out
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(|x| u64::from_str_radix(x, 16).unwrap())
                .collect()
        })
        .collect();
    assert_eq!(lines.len(), 2 * keys.len());
    lines
        .chunks(2)
        .map(|c| (c[0].clone(), c[1].clone()))
        .collect()
}

/// A GIFT-COFB-order block as the packed API's words S0..S3 (big-endian 32-bit words).
fn cofb_words(b: &[u8; 16]) -> Vec<u64> {
    (0..4)
        .map(|j| u32::from_be_bytes(b[4 * j..4 * j + 4].try_into().unwrap()) as u64)
        .collect()
}
fn words_cofb(w: &[u64]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for j in 0..4 {
        out[4 * j..4 * j + 4].copy_from_slice(&(w[j] as u32).to_be_bytes());
    }
    out
}

/// The documented C key schedule helper equals the own key schedule from the specification.
#[test]
fn gift_v_key_helper() {
    let mut rng = Rng(0x91f7);
    let mut keys: Vec<[u8; 16]> = vec![[0; 16], [0xff; 16], core::array::from_fn(|i| i as u8)];
    for _ in 0..200 {
        keys.push(random_bytes(&mut rng));
    }
    for (k, (plain, fixsliced)) in keys.iter().zip(helper_round_keys(&keys)) {
        assert_eq!(plain, round_keys(k), "key {:x?}", k);
        assert_eq!(
            fixsliced,
            fixsliced_round_keys(k),
            "fixsliced, key {:x?}",
            k
        );
    }
}

fn gift_v(slicing: Slicing) {
    let prog = lower_file("ciphers/gift/gift_v.ua", slicing);
    let k00: [u8; 16] = hexa("000102030405060708090a0b0c0d0e0f");
    // Cases in GIFT-COFB order (key bytes are the same in both orders): the paper-order zero
    // vector converted, the two GIFT-COFB vectors, then random with a new key every PER_KEY.
    let mut cases: Vec<([u8; 16], [u8; 16])> = vec![
        ([0; 16], gift128::paper_to_cofb(&[0; 16])),
        ([0; 16], [0; 16]),
        (k00, k00),
    ];
    let mut rng = Rng(0x61f8 + slicing as u64);
    let mut key = [0u8; 16];
    for i in 0..RANDOM {
        if i % PER_KEY == 0 {
            key = random_bytes(&mut rng);
        }
        cases.push((key, random_bytes(&mut rng)));
    }
    // Round keys from the C helper (checked against the own schedule).
    let mut keys: Vec<[u8; 16]> = Vec::new();
    for (k, _) in &cases {
        if !keys.contains(k) {
            keys.push(*k);
        }
    }
    assert!(keys.len() <= 23);
    let rks = helper_round_keys(&keys);
    for (k, rk) in keys.iter().zip(&rks) {
        assert_eq!(rk.0, round_keys(k), "helper round keys for {:x?}", k);
        assert_eq!(
            rk.1,
            fixsliced_round_keys(k),
            "helper fixsliced round keys for {:x?}",
            k
        );
    }
    let rk_of = |k: &[u8; 16]| rks[keys.iter().position(|x| x == k).unwrap()].1.clone();
    let insts: Vec<Instance> = cases
        .iter()
        .map(|(k, p)| vec![cofb_words(p), rk_of(k)])
        .collect();
    let out = run_everywhere(&format!("gift128 vslice {:?}", slicing), &prog, &insts);
    let got: Vec<[u8; 16]> = out.iter().map(|o| words_cofb(&o[0])).collect();
    assert_eq!(
        gift128::cofb_to_paper(&got[0]),
        hexa::<16>("cd0bd738388ad3f668b15a36ceb6ff92"),
        "{:?}: paper zero vector",
        slicing
    );
    assert_eq!(
        got[1],
        hexa::<16>("5e8e3a2e1697a77dcc0b89dcd97a64ee"),
        "{:?}: COFB zero vector",
        slicing
    );
    assert_eq!(
        got[2],
        hexa::<16>("a94af7f9ba181df9b2b00eb7dbfa93df"),
        "{:?}: COFB 00..0f vector",
        slicing
    );
    for (i, ((k, p), g)) in cases.iter().zip(&got).enumerate() {
        assert_eq!(
            *g,
            gift128::encrypt_cofb(k, p),
            "{:?}: case {} key {:x?} pt {:x?}",
            slicing,
            i,
            k,
            p
        );
        assert_eq!(
            gift128::cofb_to_paper(g),
            gift128::encrypt(k, &gift128::cofb_to_paper(p)),
            "{:?}: case {} (paper order)",
            slicing,
            i
        );
    }
}

#[test]
fn gift128_vslice() {
    gift_v(Slicing::V);
}
