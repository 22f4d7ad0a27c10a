//! GIFT-128 (Banik et al., CHES 2017), 40 rounds. Via crate `gift-cipher` (original paper bit
//! order) plus an own bit-level model from the paper; the model is checked against the paper
//! vector and against the crate on random inputs, and its GIFT-COFB-order wrapper against the
//! GIFT-COFB vectors.
//!
//! Two byte/bit orders are in use for the same permutation:
//! * **Paper order** ([`encrypt`], [`encrypt_model`]): the block is the 128-bit integer
//!   b127..b0 serialised big-endian (`block[0]` = b127..b120); nibble i = b_{4i+3}..b_{4i}.
//!   The key is k7||...||k0 (16-bit words), serialised big-endian (`key[0..2]` = k7).
//! * **GIFT-COFB order** ([`encrypt_cofb`]): the block is loaded as four 32-bit big-endian
//!   words S0 = block[0..4], .., S3 = block[12..16] and the cipher is described bitsliced:
//!   bit i of S_j is the paper's b_{4i+j}. The key bytes are used exactly as in paper order
//!   (W0 = key[0..2] = k7, ..., W7 = k0).

use gift_cipher::cipher::{Array, BlockCipherEncrypt, KeyInit};

/// The GIFT S-box GS.
pub const SBOX: [u8; 16] = [
    0x1, 0xa, 0x4, 0xc, 0x6, 0xf, 0x3, 0x9, 0x2, 0xd, 0xb, 0x7, 0x5, 0x0, 0x8, 0xe,
];

/// GIFT-128 encryption, paper order (crate `gift-cipher`).
pub fn encrypt(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let c = gift_cipher::Gift128::new(&Array::from(*key));
    let mut b = Array::from(*block);
    c.encrypt_block(&mut b);
    b.into()
}

/// The 40 round constants (6-bit LFSR).
pub const RC: [u8; 40] = {
    let mut rc = [0u8; 40];
    let mut c = 0u8;
    let mut i = 0;
    while i < 40 {
        let fb = ((c >> 5) ^ (c >> 4) ^ 1) & 1;
        c = ((c << 1) & 0x3f) | fb;
        rc[i] = c;
        i += 1;
    }
    rc
};

fn perm128(i: u32) -> u32 {
    4 * (i / 16) + 32 * ((3 * ((i % 16) / 4) + (i % 4)) % 4) + (i % 4)
}

/// Own model, paper order, on integers: `key` = k7||..||k0, `block` = b127..b0.
pub fn encrypt_model_u128(key: u128, block: u128) -> u128 {
    let mut s = block;
    let mut k: [u16; 8] = core::array::from_fn(|i| (key >> (16 * i)) as u16); // k[i] = k_i
    for r in 0..40 {
        // SubCells
        let mut t = 0u128;
        for n in 0..32 {
            t |= (SBOX[((s >> (4 * n)) & 0xf) as usize] as u128) << (4 * n);
        }
        // PermBits
        let mut p = 0u128;
        for i in 0..128 {
            p |= ((t >> i) & 1) << perm128(i);
        }
        s = p;
        // AddRoundKey
        let u = ((k[5] as u32) << 16) | k[4] as u32;
        let v = ((k[1] as u32) << 16) | k[0] as u32;
        for i in 0..32 {
            s ^= (((u >> i) & 1) as u128) << (4 * i + 2);
            s ^= (((v >> i) & 1) as u128) << (4 * i + 1);
        }
        let c = RC[r];
        for i in 0..6 {
            s ^= (((c >> i) & 1) as u128) << (4 * i + 3);
        }
        s ^= 1u128 << 127;
        // key update: k7..k0 <- k1>>>2 || k0>>>12 || k7..k2
        let (k0, k1) = (k[0], k[1]);
        for i in 0..6 {
            k[i] = k[i + 2];
        }
        k[7] = k1.rotate_right(2);
        k[6] = k0.rotate_right(12);
    }
    s
}

/// Own model, paper order, bytes.
pub fn encrypt_model(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    encrypt_model_u128(u128::from_be_bytes(*key), u128::from_be_bytes(*block)).to_be_bytes()
}

/// Converts a GIFT-COFB-order block to paper order (bit i of S_j -> b_{4i+j}).
pub fn cofb_to_paper(block: &[u8; 16]) -> [u8; 16] {
    let mut b = 0u128;
    for j in 0..4 {
        let sj = u32::from_be_bytes(block[4 * j..4 * j + 4].try_into().unwrap());
        for i in 0..32 {
            b |= (((sj >> i) & 1) as u128) << (4 * i + j);
        }
    }
    b.to_be_bytes()
}

/// Converts a paper-order block to GIFT-COFB order (inverse of [`cofb_to_paper`]).
pub fn paper_to_cofb(block: &[u8; 16]) -> [u8; 16] {
    let b = u128::from_be_bytes(*block);
    let mut out = [0u8; 16];
    for j in 0..4 {
        let mut sj = 0u32;
        for i in 0..32 {
            sj |= (((b >> (4 * i + j)) & 1) as u32) << i;
        }
        out[4 * j..4 * j + 4].copy_from_slice(&sj.to_be_bytes());
    }
    out
}

/// GIFT-128 encryption in GIFT-COFB byte order (crate + order conversion).
pub fn encrypt_cofb(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    paper_to_cofb(&encrypt(key, &cofb_to_paper(block)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::{hexa, SplitMix64};

    #[test]
    fn round_constants() {
        assert_eq!(&RC[..8], &[0x01, 0x03, 0x07, 0x0f, 0x1f, 0x3e, 0x3d, 0x3b]);
    }

    #[test]
    fn paper_vector() {
        let c: [u8; 16] = hexa("cd0bd738388ad3f668b15a36ceb6ff92");
        assert_eq!(encrypt(&[0; 16], &[0; 16]), c);
        assert_eq!(encrypt_model(&[0; 16], &[0; 16]), c);
        // Further paper-order vectors (GIFT paper / reference implementation)
        let k = hexa("fedcba9876543210fedcba9876543210");
        assert_eq!(
            encrypt_model(&k, &k),
            hexa::<16>("8422241a6dbf5a9346af468409ee0152")
        );
    }

    #[test]
    fn cofb_vectors() {
        assert_eq!(
            encrypt_cofb(&[0; 16], &[0; 16]),
            hexa::<16>("5e8e3a2e1697a77dcc0b89dcd97a64ee")
        );
        let kp: [u8; 16] = core::array::from_fn(|i| i as u8);
        assert_eq!(
            encrypt_cofb(&kp, &kp),
            hexa::<16>("a94af7f9ba181df9b2b00eb7dbfa93df")
        );
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(8);
        for _ in 0..1000 {
            let k = g.bytes();
            let p = g.bytes();
            assert_eq!(encrypt_model(&k, &p), encrypt(&k, &p));
            assert_eq!(cofb_to_paper(&paper_to_cofb(&p)), p);
        }
    }
}
