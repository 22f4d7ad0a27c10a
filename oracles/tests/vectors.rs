//! Published known-answer vectors, exercised through the public API (one place to see them all).
//! The per-module unit tests add more vectors and the crate-vs-model random comparisons.

use nakiri_oracles::prng::hexa;
use nakiri_oracles::*;

#[test]
fn aes128_fips197() {
    let k = hexa("000102030405060708090a0b0c0d0e0f");
    let p = hexa("00112233445566778899aabbccddeeff");
    assert_eq!(
        aes128::encrypt(&k, &p),
        hexa::<16>("69c4e0d86a7b0430d8cdb78070b4c55a")
    );
}

#[test]
fn des_classic() {
    assert_eq!(
        des::encrypt_u64(0x133457799BBCDFF1, 0x0123456789ABCDEF),
        0x85E813540F0AB405
    );
}

#[test]
fn chacha20_rfc8439() {
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let out = chacha20::block(&key, 1, &hexa("000000090000004a00000000"));
    assert_eq!(out[..16], hexa::<16>("10f1e7e4d13b5915500fdd1fa32071c4"));
}

#[test]
fn serpent_nessie() {
    assert_eq!(
        serpent::encrypt(&[0; 16], &[0; 16]),
        hexa::<16>("3620b17ae6a993d09618b8768266bae9")
    );
}

#[test]
fn rectangle80_paper() {
    assert_eq!(rectangle80::encrypt(0, 0), 0x0874E8B1E3542D96);
}

#[test]
fn present80_ches2007() {
    assert_eq!(present80::encrypt(&[0; 10], 0), 0x5579c1387b228445);
    assert_eq!(
        present80::encrypt(&[0xff; 10], u64::MAX),
        0x3333dcd3213210d2
    );
}

#[test]
fn ascon_hash_v12() {
    assert_eq!(
        ascon::ascon_hash(b""),
        hexa::<32>("7346BC14F036E87AE03D0997913088F5F68411434B3CF8B54FA796A80D251F91")
    );
}

#[test]
fn gimli_spec() {
    let s: [u32; 12] = core::array::from_fn(|i| {
        let i = i as u32;
        i.wrapping_mul(i)
            .wrapping_mul(i)
            .wrapping_add(i.wrapping_mul(0x9e3779b9))
    });
    let out = gimli::permute(s);
    assert_eq!((out[0], out[11]), (0xba11c85a, 0xf41bb8d6));
}

#[test]
fn xoodoo_zero() {
    let out = xoodoo::permute12([0; 12]);
    assert_eq!((out[0], out[11]), (0x89d5d88d, 0x5e4f4062));
}

#[test]
fn gift128_both_orders() {
    assert_eq!(
        gift128::encrypt(&[0; 16], &[0; 16]),
        hexa::<16>("cd0bd738388ad3f668b15a36ceb6ff92")
    );
    assert_eq!(
        gift128::encrypt_cofb(&[0; 16], &[0; 16]),
        hexa::<16>("5e8e3a2e1697a77dcc0b89dcd97a64ee")
    );
}

#[test]
fn skinny_eprint() {
    let k: [u8; 48] = hexa(
        "df889548cfc7ea52d296339301797449ab588a34a47f1ab2dfe9c8293fbea9a5ab1afac2611012cd8cef952618c3ebe8",
    );
    let p = hexa("a3994b66ad85a3459f44e92b08f550cb");
    assert_eq!(
        skinny128_384::encrypt(&k, &p),
        hexa::<16>("94ecf589e2017c601b38c6346a10dcfa")
    );
}

#[test]
fn pyjamask_spec() {
    let k = hexa("00112233445566778899aabbccddeeff");
    assert_eq!(
        pyjamask128::encrypt(&k, b"Pyjamask-128:):)"),
        hexa::<16>("48f139a109bdd9c0726e8261f8d68e7d")
    );
}

#[test]
fn photon256_beetle() {
    let s: [u8; 32] = core::array::from_fn(|i| i as u8);
    assert_eq!(
        photon256::permute(&s),
        hexa::<32>("255e270d37e90d76bca8385365baae7d4acc71338f265b0c1b52093f4d48eef9")
    );
}

#[test]
fn spongent160_elephant() {
    let s: [u8; 20] = core::array::from_fn(|i| i as u8);
    assert_eq!(
        spongent160::permute(&s),
        hexa::<20>("7c800edf9a560df7cc19f1a2262c7d73267bf77b")
    );
}

#[test]
fn blake2s_rfc7693() {
    // RFC 7693 Appendix B: BLAKE2s-256("abc").
    let want = hexa::<32>("508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982");
    assert_eq!(nakiri_oracles::blake2s::hash(b"abc", 32), want.to_vec());
    assert_eq!(nakiri_oracles::blake2s::blake2_crate_hash(b"abc"), want);
    // The model against the crate on random messages, one to five blocks and the empty one.
    let mut rng = nakiri_oracles::prng::SplitMix64::new(0xb1a4e2);
    for len in [0usize, 1, 55, 63, 64, 65, 127, 128, 129, 300] {
        let msg: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        assert_eq!(
            nakiri_oracles::blake2s::hash(&msg, 32),
            nakiri_oracles::blake2s::blake2_crate_hash(&msg).to_vec(),
            "len {}",
            len
        );
    }
}
