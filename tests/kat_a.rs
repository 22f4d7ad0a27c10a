//! Known-answer and random tests for group `a`: DES (bitslice) and AES-128 (bitslice), each
//! run through the interpreter and natively (packed API) on every arch this CPU has, and
//! compared with the independent oracles of `nakiri-oracles`.

mod common;

use common::{lower_file, lower_file_cfg, run_everywhere, Instance, Rng};
use nakiri::ir::Slicing;
use nakiri::normalize::sbox::CircuitGoal;

/// Bytes -> one-bit source words, MSB of byte 0 first (Usuba bit 0).
fn bytes_to_bits(b: &[u8]) -> Vec<u64> {
    b.iter()
        .flat_map(|&x| (0..8).map(move |i| ((x >> (7 - i)) & 1) as u64))
        .collect()
}

fn bits_to_bytes(bits: &[u64]) -> Vec<u8> {
    bits.chunks(8)
        .map(|c| c.iter().fold(0u8, |a, &b| (a << 1) | b as u8))
        .collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

// ------------------------------------------------------------------------------ DES

fn des_instance(key: u64, plain: u64) -> Instance {
    vec![
        bytes_to_bits(&plain.to_be_bytes()),
        bytes_to_bits(&key.to_be_bytes()),
    ]
}

fn des_output(out: &Instance) -> u64 {
    u64::from_be_bytes(bits_to_bytes(&out[0]).try_into().unwrap())
}

#[test]
fn des_bitslice() {
    let prog = lower_file("ciphers/des/des.ua", Slicing::B);
    // Published vector, plus the oracle on it.
    let (k, p, c) = (
        0x133457799BBCDFF1u64,
        0x0123456789ABCDEFu64,
        0x85e813540f0ab405u64,
    );
    assert_eq!(nakiri_oracles::des::encrypt_u64(k, p), c);
    let mut insts = vec![des_instance(k, p)];
    let mut rng = Rng(0xde5_0001);
    for _ in 0..1000 {
        let (k, p) = (rng.next(), rng.next());
        insts.push(des_instance(k, p));
    }
    let outs = run_everywhere("des -B", &prog, &insts);
    assert_eq!(des_output(&outs[0]), c, "DES published vector");
    for (inst, out) in insts.iter().zip(&outs) {
        let p = u64::from_be_bytes(bits_to_bytes(&inst[0]).try_into().unwrap());
        let k = u64::from_be_bytes(bits_to_bytes(&inst[1]).try_into().unwrap());
        assert_eq!(
            des_output(out),
            nakiri_oracles::des::encrypt_u64(k, p),
            "DES k={:016x} p={:016x}",
            k,
            p
        );
    }
}

// ------------------------------------------------------------------------------ AES-128

fn aes_instance(key: &[u8; 16], plain: &[u8; 16]) -> Instance {
    vec![bytes_to_bits(plain), bytes_to_bits(key)]
}

#[test]
fn aes128_bitslice() {
    let prog = lower_file("ciphers/aes/aes.ua", Slicing::B);
    // FIPS-197 Appendix C.1.
    let key: [u8; 16] = hex("000102030405060708090a0b0c0d0e0f").try_into().unwrap();
    let plain: [u8; 16] = hex("00112233445566778899aabbccddeeff").try_into().unwrap();
    let expect = hex("69c4e0d86a7b0430d8cdb78070b4c55a");
    assert_eq!(
        nakiri_oracles::aes128::encrypt(&key, &plain).to_vec(),
        expect
    );
    let mut cases = vec![(key, plain)];
    let mut rng = Rng(0xae5_0001);
    for _ in 0..1000 {
        let mut k = [0u8; 16];
        let mut p = [0u8; 16];
        for b in k.iter_mut().chain(p.iter_mut()) {
            *b = rng.bits(8) as u8;
        }
        cases.push((k, p));
    }
    let insts: Vec<Instance> = cases.iter().map(|(k, p)| aes_instance(k, p)).collect();
    let outs = run_everywhere("aes128 -B", &prog, &insts);
    assert_eq!(bits_to_bytes(&outs[0][0]), expect, "FIPS-197 C.1");
    for ((k, p), out) in cases.iter().zip(&outs) {
        assert_eq!(
            bits_to_bytes(&out[0]),
            nakiri_oracles::aes128::encrypt(k, p).to_vec(),
            "AES k={:02x?} p={:02x?}",
            k,
            p
        );
    }
}

/// FIPS-197 bytes -> the 8 bit planes of `aes_planes.ua` (plane j, Usuba bit i = bit j of
/// byte i, both MSB-first; as packed-API integers: bit 15-i of word j = bit 7-j of byte i).
fn to_planes(b: &[u8; 16]) -> Vec<u64> {
    (0..8)
        .map(|j| {
            (0..16).fold(0u64, |w, i| {
                w | ((((b[i] >> (7 - j)) & 1) as u64) << (15 - i))
            })
        })
        .collect()
}

fn from_planes(p: &[u64]) -> Vec<u8> {
    (0..16)
        .map(|i| {
            (0..8).fold(0u8, |x, j| {
                x | ((((p[j] >> (15 - i)) & 1) as u8) << (7 - j))
            })
        })
        .collect()
}

fn aes_planes(slicing: Slicing, n_random: usize) {
    aes_planes_circuit(slicing, None, n_random)
}

/// [`aes_planes`] with the S-box's database circuit chosen (`--sbox-circuit`; `None` = rule).
fn aes_planes_circuit(slicing: Slicing, goal: Option<CircuitGoal>, n_random: usize) {
    let cfg = nakiri::driver::Config {
        slicing,
        sbox_circuit: goal,
        ..Default::default()
    };
    let prog = lower_file_cfg("ciphers/aes/aes_planes.ua", &cfg);
    let key: [u8; 16] = hex("000102030405060708090a0b0c0d0e0f").try_into().unwrap();
    let plain: [u8; 16] = hex("00112233445566778899aabbccddeeff").try_into().unwrap();
    let expect = hex("69c4e0d86a7b0430d8cdb78070b4c55a");
    assert_eq!(from_planes(&to_planes(&plain)), plain.to_vec());
    let mut cases = vec![(key, plain)];
    let mut rng = Rng(0xae5_0002 + slicing as u64);
    for _ in 0..n_random {
        let mut k = [0u8; 16];
        let mut p = [0u8; 16];
        for b in k.iter_mut().chain(p.iter_mut()) {
            *b = rng.bits(8) as u8;
        }
        cases.push((k, p));
    }
    let insts: Vec<Instance> = cases
        .iter()
        .map(|(k, p)| vec![to_planes(p), to_planes(k)])
        .collect();
    let outs = run_everywhere(&format!("aes_planes {:?}", slicing), &prog, &insts);
    assert_eq!(
        from_planes(&outs[0][0]),
        expect,
        "FIPS-197 C.1 ({:?})",
        slicing
    );
    for ((k, p), out) in cases.iter().zip(&outs) {
        assert_eq!(
            from_planes(&out[0]),
            nakiri_oracles::aes128::encrypt(k, p).to_vec(),
            "AES ({:?}) k={:02x?} p={:02x?}",
            slicing,
            k,
            p
        );
    }
}

#[test]
fn aes128_planes_hslice() {
    aes_planes(Slicing::H, 1000);
}

#[test]
fn aes128_planes_vslice() {
    aes_planes(Slicing::V, 1000);
}

#[test]
fn aes128_planes_bitslice() {
    aes_planes(Slicing::B, 1000);
}

/// Each slicing with the S-box circuit its rule does not take (`--sbox-circuit`): the
/// depth-16 circuit in bitslice, the 115-gate one in hslice and vslice.
#[test]
fn aes128_planes_other_sbox_circuit() {
    aes_planes_circuit(Slicing::B, Some(CircuitGoal::Shallow), 200);
    aes_planes_circuit(Slicing::H, Some(CircuitGoal::Small), 200);
    aes_planes_circuit(Slicing::V, Some(CircuitGoal::Small), 200);
}

// ----------------------------------------------------- AES-128 with const round keys (C helper)

/// Runs `ciphers/aes/aes_keys.c` on `keys`, built with `flags`; returns per key its 88
/// round-key plane words.
fn aes_keys_helper(keys: &[[u8; 16]], flags: &[&str]) -> Vec<Vec<u64>> {
    let root = common::root();
    let c = std::fs::read_to_string(root.join("ciphers/aes/aes_keys.c")).unwrap();
    let h = std::fs::read_to_string(root.join("ciphers/aes/aes_keys.h")).unwrap();
    let main = r#"
#include <stdio.h>
#include "aes_keys.h"
int main(void) {
    unsigned v[16];
    while (scanf("%x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                 &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15]) == 16) {
        uint8_t key[16], back[16];
        uint16_t rk[88];
        for (int i = 0; i < 16; i++) key[i] = (uint8_t)v[i];
        aes128_round_key_planes(key, rk);
        aes128_planes_to_bytes(rk, back); /* round key 0 is the key itself */
        for (int i = 0; i < 16; i++) if (back[i] != key[i]) return 3;
        for (int i = 0; i < 88; i++) printf("%x ", rk[i]);
        printf("\n");
    }
    return 0;
}
"#;
    let input: String = keys
        .iter()
        .map(|k| k.iter().map(|b| format!("{:x} ", b)).collect::<String>() + "\n")
        .collect();
    let out = common::build_and_run(
        "aes-keys",
        &[("aes_keys.c", &c), ("aes_keys.h", &h), ("main.c", main)],
        flags,
        &input,
    );
    out.lines()
        .map(|l| {
            l.split_whitespace()
                .map(|x| u64::from_str_radix(x, 16).unwrap())
                .collect()
        })
        .collect()
}

fn aes_rk(slicing: Slicing, n_keys: usize, n_random: usize) {
    let key: [u8; 16] = hex("000102030405060708090a0b0c0d0e0f").try_into().unwrap();
    let plain: [u8; 16] = hex("00112233445566778899aabbccddeeff").try_into().unwrap();
    let expect = hex("69c4e0d86a7b0430d8cdb78070b4c55a");
    let mut rng = Rng(0xae5_0100 + slicing as u64);
    let rand16 = |rng: &mut Rng| -> [u8; 16] { core::array::from_fn(|_| rng.bits(8) as u8) };
    let mut keys = vec![key];
    for _ in 0..n_keys {
        keys.push(rand16(&mut rng));
    }
    // The helper against the oracle's key expansion: its generic S-box and plane gathering
    // (plain build), its gf2p8affineinvqb S-box (-mgfni), and with SSSE3 too its
    // gf2p8affineqb plane transpose, where this CPU has GFNI (reported as skipped otherwise).
    let mut builds: Vec<&[&str]> = vec![&[]];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("gfni") {
        builds.push(&["-mgfni"]);
        builds.push(&["-mgfni", "-mssse3"]);
    } else {
        eprintln!("skipped: aes_keys.c's GFNI S-box (this CPU has no GFNI)");
    }
    let mut plain_build = None;
    for flags in builds {
        let rks = aes_keys_helper(&keys, flags);
        assert_eq!(rks.len(), keys.len());
        for (k, rk) in keys.iter().zip(&rks) {
            let want: Vec<u64> = nakiri_oracles::aes128::expand_key(k)
                .iter()
                .flat_map(to_planes)
                .collect();
            assert_eq!(
                rk, &want,
                "aes_keys.c {:?} round keys for key {:02x?}",
                flags, k
            );
        }
        plain_build.get_or_insert(rks);
    }
    let rks = plain_build.unwrap();
    // The cipher with those round keys.
    let prog = lower_file("ciphers/aes/aes_rk.ua", slicing);
    let mut cases = vec![(0usize, plain)];
    for i in 0..n_random {
        cases.push((i % keys.len(), rand16(&mut rng)));
    }
    let insts: Vec<Instance> = cases
        .iter()
        .map(|(k, p)| vec![to_planes(p), rks[*k].clone()])
        .collect();
    let outs = run_everywhere(&format!("aes_rk {:?}", slicing), &prog, &insts);
    assert_eq!(
        from_planes(&outs[0][0]),
        expect,
        "FIPS-197 C.1 ({:?})",
        slicing
    );
    for ((k, p), out) in cases.iter().zip(&outs) {
        assert_eq!(
            from_planes(&out[0]),
            nakiri_oracles::aes128::encrypt(&keys[*k], p).to_vec(),
            "AES rk ({:?}) k={:02x?} p={:02x?}",
            slicing,
            keys[*k],
            p
        );
    }
}

#[test]
fn aes128_const_round_keys_hslice() {
    aes_rk(Slicing::H, 7, 1000);
}

#[test]
fn aes128_const_round_keys_vslice() {
    aes_rk(Slicing::V, 7, 1000);
}

#[test]
fn aes128_const_round_keys_bitslice() {
    aes_rk(Slicing::B, 7, 1000);
}
