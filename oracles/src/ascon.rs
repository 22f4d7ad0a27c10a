//! Ascon permutation (p^a with a = 12, 8, 6 rounds), Ascon v1.2 / NIST SP 800-232.
//! Via the RustCrypto `ascon` crate (`permute12/8/6`), plus an own model of the round
//! function from the Ascon specification, checked against the crate on random inputs and,
//! through Ascon-Hash/Ascon-128 built on the permutation, against published KAT entries.
//!
//! State: five 64-bit words x0..x4 (the spec's words; when serialised, each word big-endian
//! in Ascon v1.2). The round constant of round i (of 12) is `0xf0 - 0x10*i + i`, xored into x2;
//! p^a uses the last a constants.

/// Crate p12.
pub fn p12(state: [u64; 5]) -> [u64; 5] {
    let mut s = state;
    ascon::permute12(&mut s);
    s
}
/// Crate p8.
pub fn p8(state: [u64; 5]) -> [u64; 5] {
    let mut s = state;
    ascon::permute8(&mut s);
    s
}
/// Crate p6.
pub fn p6(state: [u64; 5]) -> [u64; 5] {
    let mut s = state;
    ascon::permute6(&mut s);
    s
}

/// The Ascon 5-bit S-box as a table (spec), x0 = MSB of the index.
pub const SBOX: [u8; 32] = [
    0x4, 0xb, 0x1f, 0x14, 0x1a, 0x15, 0x9, 0x2, 0x1b, 0x5, 0x8, 0x12, 0x1d, 0x3, 0x6, 0x1c, 0x1e,
    0x13, 0x7, 0xe, 0x0, 0xd, 0x11, 0x18, 0x10, 0xc, 0x1, 0x19, 0x16, 0xa, 0xf, 0x17,
];

/// Own model of one round with constant `c` (table S-box applied per bit column).
pub fn round_model(s: [u64; 5], c: u64) -> [u64; 5] {
    let mut x = s;
    x[2] ^= c;
    let mut y = [0u64; 5];
    for j in 0..64 {
        let mut n = 0usize;
        for i in 0..5 {
            n |= (((x[i] >> j) & 1) as usize) << (4 - i);
        }
        let o = SBOX[n] as u64;
        for i in 0..5 {
            y[i] |= ((o >> (4 - i)) & 1) << j;
        }
    }
    let r = |v: u64, a: u32, b: u32| v ^ v.rotate_right(a) ^ v.rotate_right(b);
    [
        r(y[0], 19, 28),
        r(y[1], 61, 39),
        r(y[2], 1, 6),
        r(y[3], 10, 17),
        r(y[4], 7, 41),
    ]
}

/// Own model of p^rounds (rounds <= 12).
pub fn permute_model(state: [u64; 5], rounds: usize) -> [u64; 5] {
    let mut s = state;
    for i in (12 - rounds)..12 {
        let c = ((0xf - i as u64) << 4) | i as u64;
        s = round_model(s, c);
    }
    s
}

/// Ascon-Hash (v1.2, 256-bit output) built on the crate permutation; used to check p12
/// against a published KAT.
pub fn ascon_hash(msg: &[u8]) -> [u8; 32] {
    let mut s = p12([0x0040_0c00_0000_0100, 0, 0, 0, 0]);
    let mut chunks = msg.chunks_exact(8);
    for c in &mut chunks {
        s[0] ^= u64::from_be_bytes(c.try_into().unwrap());
        s = p12(s);
    }
    let rem = chunks.remainder();
    let mut last = [0u8; 8];
    last[..rem.len()].copy_from_slice(rem);
    last[rem.len()] = 0x80;
    s[0] ^= u64::from_be_bytes(last);
    s = p12(s);
    let mut out = [0u8; 32];
    for i in 0..4 {
        out[8 * i..8 * i + 8].copy_from_slice(&s[0].to_be_bytes());
        if i < 3 {
            s = p12(s);
        }
    }
    out
}

/// Ascon-128 (v1.2) encryption with empty associated data; returns ciphertext || tag.
/// Uses p12, and p6 between full 8-byte plaintext blocks (the KATs checked here have plaintexts
/// of at most 2 bytes, so they exercise p12 only; p6 is checked against a published vector in
/// `tests/kat_b.rs`).
pub fn ascon128_encrypt_no_ad(key: &[u8; 16], nonce: &[u8; 16], pt: &[u8]) -> Vec<u8> {
    let k0 = u64::from_be_bytes(key[..8].try_into().unwrap());
    let k1 = u64::from_be_bytes(key[8..].try_into().unwrap());
    let n0 = u64::from_be_bytes(nonce[..8].try_into().unwrap());
    let n1 = u64::from_be_bytes(nonce[8..].try_into().unwrap());
    let mut s = p12([0x8040_0c06_0000_0000, k0, k1, n0, n1]);
    s[3] ^= k0;
    s[4] ^= k1;
    s[4] ^= 1; // domain separation (no AD)
    let mut out = Vec::new();
    let mut chunks = pt.chunks_exact(8);
    for c in &mut chunks {
        s[0] ^= u64::from_be_bytes(c.try_into().unwrap());
        out.extend_from_slice(&s[0].to_be_bytes());
        s = p6(s);
    }
    let rem = chunks.remainder();
    let mut last = [0u8; 8];
    last[..rem.len()].copy_from_slice(rem);
    last[rem.len()] = 0x80;
    s[0] ^= u64::from_be_bytes(last);
    out.extend_from_slice(&s[0].to_be_bytes()[..rem.len()]);
    s[1] ^= k0;
    s[2] ^= k1;
    s = p12(s);
    out.extend_from_slice(&(s[3] ^ k0).to_be_bytes());
    out.extend_from_slice(&(s[4] ^ k1).to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::{hex, SplitMix64};

    /// Published Ascon v1.2 (final) KATs: Ascon-Hash Count 1 ("") and 2 ("00") as printed in
    /// the v1.2 `LWC_HASH_KAT_256.txt` (also the pyascon README value); Ascon-128 AEAD
    /// `LWC_AEAD_KAT_128_128.txt` (ascon-c v1.2.8) Count 1, 34, 67 (empty AD). Note: older
    /// copies of these KAT files in ascon-c (pre-final v1.2) list different values.
    #[test]
    fn published_kats() {
        assert_eq!(
            ascon_hash(b"").to_vec(),
            hex("7346BC14F036E87AE03D0997913088F5F68411434B3CF8B54FA796A80D251F91")
        );
        assert_eq!(
            ascon_hash(&[0]).to_vec(),
            hex("8DD446ADA58A7740ECF56EB638EF775F7D5C0FD5F0C2BBBDFDEC29609D3C43A2")
        );
        let k: [u8; 16] = core::array::from_fn(|i| i as u8);
        assert_eq!(
            ascon128_encrypt_no_ad(&k, &k, b""),
            hex("E355159F292911F794CB1432A0103A8A")
        );
        assert_eq!(
            ascon128_encrypt_no_ad(&k, &k, &[0]),
            hex("BC18C3F4E39ECA7222490D967C79BFFC92")
        );
        assert_eq!(
            ascon128_encrypt_no_ad(&k, &k, &[0, 1]),
            hex("BC82D5BDE868F7494F57D81E06FACBF70CE1")
        );
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(4);
        for _ in 0..1000 {
            let s = g.words64::<5>();
            assert_eq!(permute_model(s, 12), p12(s));
            assert_eq!(permute_model(s, 8), p8(s));
            assert_eq!(permute_model(s, 6), p6(s));
        }
    }
}
