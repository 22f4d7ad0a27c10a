//! SKINNY-128-256 and SKINNY-128-384 (Beierle et al., CRYPTO 2016; eprint 2016/660).
//! Via crate `eva-crypto` (`skinny::SKINNY`, a prototype) plus an own model written from the
//! specification; both are checked against the eprint 2016/660 test vectors and compared
//! on random inputs.
//!
//! Conventions (spec order): the 16-byte block is the 4x4 cell state row by row (`block[0]`
//! = cell (0,0), `block[4]` = cell (1,0)); the tweakey is TK1||TK2 (32 bytes) or
//! TK1||TK2||TK3 (48 bytes), each 16-byte TKz in the same cell order.

/// SKINNY 8-bit S-box, derived at compile time from the spec's circuit: three times
/// (NOR-XOR on bits 4 and 0, then the bit permutation (7..0) <- (2,1,7,6,4,0,3,5)), then a
/// fourth NOR-XOR followed by the swap of bits 1 and 2.
pub const SBOX: [u8; 256] = {
    const fn b(x: u8, i: u32) -> u8 {
        (x >> i) & 1
    }
    let mut t = [0u8; 256];
    let mut v = 0usize;
    while v < 256 {
        let mut x = v as u8;
        let mut round = 0;
        while round < 4 {
            x ^= ((!(b(x, 7) | b(x, 6)) & 1) << 4) | (!(b(x, 3) | b(x, 2)) & 1);
            if round < 3 {
                // new bit 7..0 = old bits 2,1,7,6,4,0,3,5
                let src = [5u32, 3, 0, 4, 6, 7, 1, 2]; // src[i] = old bit giving new bit i
                let mut y = 0u8;
                let mut i = 0;
                while i < 8 {
                    y |= b(x, src[i]) << i;
                    i += 1;
                }
                x = y;
            } else {
                x = (x & 0xf9) | (b(x, 1) << 2) | (b(x, 2) << 1);
            }
            round += 1;
        }
        t[v] = x;
        v += 1;
    }
    t
};

const PT: [usize; 16] = [9, 15, 8, 13, 10, 14, 12, 11, 0, 1, 2, 3, 4, 5, 6, 7];

/// Own model of SKINNY-128 with a tweakey of 1, 2 or 3 TK arrays (16, 32 or 48 bytes).
pub fn encrypt_model(tweakey: &[u8], block: &[u8; 16]) -> [u8; 16] {
    let z = tweakey.len() / 16;
    assert!(tweakey.len().is_multiple_of(16) && (1..=3).contains(&z));
    let rounds = [40, 48, 56][z - 1];
    let mut tk: Vec<[u8; 16]> = tweakey.chunks(16).map(|c| c.try_into().unwrap()).collect();
    let mut s = *block;
    let mut rc = 0u8;
    for _ in 0..rounds {
        for b in s.iter_mut() {
            *b = SBOX[*b as usize];
        }
        rc = ((rc << 1) & 0x3f) | (((rc >> 5) ^ (rc >> 4) ^ 1) & 1);
        s[0] ^= rc & 0xf;
        s[4] ^= rc >> 4;
        s[8] ^= 0x2;
        for t in &tk {
            for i in 0..8 {
                s[i] ^= t[i];
            }
        }
        for (zi, t) in tk.iter_mut().enumerate() {
            let old = *t;
            for i in 0..16 {
                t[i] = old[PT[i]];
            }
            for c in t.iter_mut().take(8) {
                let x = *c;
                *c = match zi {
                    1 => (x << 1) | (((x >> 7) ^ (x >> 5)) & 1),
                    2 => (x >> 1) | ((((x) ^ (x >> 6)) & 1) << 7),
                    _ => x,
                };
            }
        }
        // ShiftRows: row r rotated right by r
        let old = s;
        for r in 0..4 {
            for c in 0..4 {
                s[4 * r + c] = old[4 * r + (c + 4 - r) % 4];
            }
        }
        // MixColumns
        for c in 0..4 {
            let (a0, a1, a2, a3) = (s[c], s[4 + c], s[8 + c], s[12 + c]);
            s[c] = a0 ^ a2 ^ a3;
            s[4 + c] = a0;
            s[8 + c] = a1 ^ a2;
            s[12 + c] = a0 ^ a2;
        }
    }
    s
}

/// SKINNY-128-256 (crate `eva-crypto`); tweakey = TK1||TK2.
pub fn encrypt_256(tweakey: &[u8; 32], block: &[u8; 16]) -> [u8; 16] {
    eva_crypto::skinny::SKINNY::new(tweakey, 8).encrypt(block)
}

/// SKINNY-128-384 (crate `eva-crypto`); tweakey = TK1||TK2||TK3.
pub fn encrypt_384(tweakey: &[u8; 48], block: &[u8; 16]) -> [u8; 16] {
    eva_crypto::skinny::SKINNY::new(tweakey, 8).encrypt(block)
}

/// Alias module for SKINNY-128-256.
pub mod skinny128_256 {
    /// Crate-backed encryption (see [`super::encrypt_256`]).
    pub fn encrypt(tweakey: &[u8; 32], block: &[u8; 16]) -> [u8; 16] {
        super::encrypt_256(tweakey, block)
    }
    /// Own model.
    pub fn encrypt_model(tweakey: &[u8; 32], block: &[u8; 16]) -> [u8; 16] {
        super::encrypt_model(tweakey, block)
    }
}

/// Alias module for SKINNY-128-384.
pub mod skinny128_384 {
    /// Crate-backed encryption (see [`super::encrypt_384`]).
    pub fn encrypt(tweakey: &[u8; 48], block: &[u8; 16]) -> [u8; 16] {
        super::encrypt_384(tweakey, block)
    }
    /// Own model.
    pub fn encrypt_model(tweakey: &[u8; 48], block: &[u8; 16]) -> [u8; 16] {
        super::encrypt_model(tweakey, block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::{hexa, SplitMix64};

    #[test]
    fn sbox_matches_crate_table() {
        assert_eq!(SBOX, eva_crypto::skinny::SBOX_8);
    }

    /// eprint 2016/660, Appendix B test vectors.
    #[test]
    fn eprint_vectors() {
        let k: [u8; 16] = hexa("4f55cfb0520cac52fd92c15f37073e93");
        let p: [u8; 16] = hexa("f20adb0eb08b648a3b2eeed1f0adda14");
        assert_eq!(
            encrypt_model(&k, &p),
            hexa::<16>("22ff30d498ea62d7e45b476e33675b74")
        );

        let k: [u8; 32] = hexa("009cec81605d4ac1d2ae9e3085d7a1f31ac123ebfc00fddcf01046ceeddfcab3");
        let p: [u8; 16] = hexa("3a0c47767a26a68dd382a695e7022e25");
        let c: [u8; 16] = hexa("b731d98a4bde147a7ed4a6f16b9b587f");
        assert_eq!(encrypt_256(&k, &p), c);
        assert_eq!(encrypt_model(&k, &p), c);

        let k: [u8; 48] = hexa(
            "df889548cfc7ea52d296339301797449ab588a34a47f1ab2dfe9c8293fbea9a5ab1afac2611012cd8cef952618c3ebe8",
        );
        let p: [u8; 16] = hexa("a3994b66ad85a3459f44e92b08f550cb");
        let c: [u8; 16] = hexa("94ecf589e2017c601b38c6346a10dcfa");
        assert_eq!(encrypt_384(&k, &p), c);
        assert_eq!(encrypt_model(&k, &p), c);
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(9);
        for _ in 0..1000 {
            let k2: [u8; 32] = g.bytes();
            let k3: [u8; 48] = g.bytes();
            let p = g.bytes();
            assert_eq!(encrypt_model(&k2, &p), encrypt_256(&k2, &p));
            assert_eq!(encrypt_model(&k3, &p), encrypt_384(&k3, &p));
        }
    }
}
