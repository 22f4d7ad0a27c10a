//! Vslice of a program made only of 1-bit words (DES) on every target: the raw and packed entry
//! points use the bitslice register layout there. Checked against the DES oracle.

mod common;

use nakiri::ir::Slicing;

fn bits(v: u64) -> Vec<u64> {
    (0..64).map(|i| (v >> (63 - i)) & 1).collect()
}

#[test]
fn des_vslice_matches_oracle_everywhere() {
    let prog = common::lower_file("ciphers/des/des.ua", Slicing::V);
    let mut rng = common::Rng(99);
    let mut cases = vec![(0x133457799BBCDFF1u64, 0x0123456789ABCDEFu64)];
    for _ in 0..300 {
        cases.push((rng.next(), rng.next()));
    }
    let insts: Vec<common::Instance> = cases.iter().map(|&(k, p)| vec![bits(p), bits(k)]).collect();
    let out = common::run_everywhere("des.ua -V", &prog, &insts);
    for ((k, p), o) in cases.iter().zip(&out) {
        let expect = nakiri_oracles::des::encrypt_u64(*k, *p);
        let got = o[0].iter().fold(0u64, |a, b| (a << 1) | b);
        assert_eq!(got, expect, "key {:016x} plain {:016x}", k, p);
    }
    assert_eq!(
        out[0][0].iter().fold(0u64, |a, b| (a << 1) | b),
        0x85e813540f0ab405
    );
}
