//! Known-answer and random tests for the BLAKE2s compression function (`ciphers/blake2s`,
//! vslice): RFC 7693 Appendix B through the compiled F, and 1000 random (h, m, t, f) against
//! the model of `nakiri_oracles::blake2s` (itself checked against RFC 7693 and the crate
//! `blake2`), in both forms the autotuner chooses between (kept round loop and unrolled), on
//! the interpreter and natively on every arch this CPU has.

mod common;

use common::{lower_file_cfg, run_everywhere, run_interp, Instance, Rng};
use nakiri::driver::Config;
use nakiri::ir::Slicing;
use nakiri::opt::LoopPolicy;
use nakiri_oracles::blake2s;
use nakiri_oracles::prng::hexa;

const FILE: &str = "ciphers/blake2s/blake2s.ua";

fn w(ws: &[u32]) -> Vec<u64> {
    ws.iter().map(|&x| x as u64).collect()
}

fn instance(h: &[u32; 8], m: &[u32; 16], t: [u32; 2], f: [u32; 2]) -> Instance {
    vec![w(h), w(m), w(&t), w(&f)]
}

fn words<const N: usize>(o: &[u64]) -> [u32; N] {
    assert_eq!(o.len(), N);
    core::array::from_fn(|i| u32::try_from(o[i]).expect("a 32-bit word"))
}

fn check(loops: LoopPolicy, seed: u64) {
    let cfg = Config {
        slicing: Slicing::V,
        opt: nakiri::opt::OptConfig {
            loops,
            ..Default::default()
        },
        ..Config::default()
    };
    let prog = lower_file_cfg(FILE, &cfg);
    let what = format!("blake2s -V --loops {:?}", loops);
    let kept = prog
        .nodes
        .iter()
        .flat_map(|n| &n.body)
        .filter(|i| matches!(i, nakiri::ir::Instr::Loop { count: 10, .. }))
        .count();
    assert_eq!(
        kept,
        usize::from(loops != LoopPolicy::Unroll),
        "{}: the ten rounds are one kept loop, or unrolled",
        what
    );
    // RFC 7693 Appendix B: "abc" is one block, t = 3, last block.
    let mut h0 = blake2s::IV;
    h0[0] ^= 0x0101_0020;
    let mut block = [0u8; 64];
    block[..3].copy_from_slice(b"abc");
    let m0: [u32; 16] =
        core::array::from_fn(|i| u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap()));
    let mut cases = vec![(h0, m0, [3, 0], [0xFFFF_FFFF, 0])];
    let mut rng = Rng(seed);
    for k in 0..1000 {
        let h: [u32; 8] = core::array::from_fn(|_| rng.bits(32) as u32);
        let m: [u32; 16] = core::array::from_fn(|_| rng.bits(32) as u32);
        let t = [rng.bits(32) as u32, rng.bits(32) as u32];
        let f = match k % 3 {
            0 => [0, 0],
            1 => [0xFFFF_FFFF, 0],
            _ => [rng.bits(32) as u32, rng.bits(32) as u32],
        };
        cases.push((h, m, t, f));
    }
    let insts: Vec<Instance> = cases
        .iter()
        .map(|(h, m, t, f)| instance(h, m, *t, *f))
        .collect();
    let outs = run_everywhere(&what, &prog, &insts);
    let digest: Vec<u8> = words::<8>(&outs[0][0])
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(
        digest,
        hexa::<32>("508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982").to_vec(),
        "{}: RFC 7693 App. B",
        what
    );
    for (k, ((h, m, t, f), o)) in cases.iter().zip(&outs).enumerate() {
        assert_eq!(
            words::<8>(&o[0]),
            blake2s::compress(h, m, *t, *f),
            "{}: instance {}",
            what,
            k
        );
    }
    // Whole multi-block hashes through the compiled F (interpreter), against the crate.
    for len in [0usize, 64, 65, 200] {
        let msg: Vec<u8> = (0..len).map(|_| rng.bits(8) as u8).collect();
        let got = blake2s::hash_with(&msg, 32, &mut |h, m, t, f| {
            words::<8>(&run_interp(&prog, &[instance(h, m, t, f)])[0][0])
        });
        assert_eq!(
            got,
            blake2s::blake2_crate_hash(&msg).to_vec(),
            "{}: hash of {} bytes",
            what,
            len
        );
    }
}

#[test]
fn blake2s_compress_kept_loop() {
    check(LoopPolicy::Chains, 0xb1a2_e501);
}

#[test]
fn blake2s_compress_unrolled() {
    check(LoopPolicy::Unroll, 0xb1a2_e502);
}
