//! PRESENT-80 (Bogdanov et al., CHES 2007). Via crate `cryptography-rs` (`Present80`) plus an
//! own model from the CHES 2007 paper; both checked against the paper's four vectors and
//! compared on random inputs.
//!
//! Conventions: the 80-bit key is the paper's k79..k0 as a big-endian byte string
//! (`key[0]` holds k79..k72), or as a `u128` whose low 80 bits are k79..k0; the block is a u64
//! with the paper's bit i = bit i of the integer (big-endian when serialised).

/// The PRESENT S-box.
pub const SBOX: [u8; 16] = [
    0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2,
];

/// Converts a 10-byte big-endian key to the u128 form.
pub fn key_to_u128(key: &[u8; 10]) -> u128 {
    key.iter().fold(0u128, |a, &b| (a << 8) | b as u128)
}

/// PRESENT-80 encryption (crate `cryptography-rs`).
pub fn encrypt(key: &[u8; 10], block: u64) -> u64 {
    let c = cryptography::Present80::new(key);
    u64::from_be_bytes(c.encrypt_block(&block.to_be_bytes()))
}

/// The 32 round keys K1..K32 (own model of the key schedule); key = low 80 bits.
pub fn round_keys(key: u128) -> [u64; 32] {
    let mask: u128 = (1u128 << 80) - 1;
    let mut k = key & mask;
    let mut rk = [0u64; 32];
    for i in 1..=32u128 {
        rk[(i - 1) as usize] = (k >> 16) as u64;
        k = ((k << 61) | (k >> 19)) & mask;
        let top = SBOX[(k >> 76) as usize] as u128;
        k = (k & !(0xfu128 << 76)) | (top << 76);
        k ^= i << 15;
    }
    rk
}

/// Own model of PRESENT-80 encryption; key = low 80 bits of `key`.
pub fn encrypt_model(key: u128, block: u64) -> u64 {
    let rk = round_keys(key);
    let mut s = block;
    for r in 0..31 {
        s ^= rk[r];
        let mut t = 0u64;
        for n in 0..16 {
            t |= (SBOX[((s >> (4 * n)) & 0xf) as usize] as u64) << (4 * n);
        }
        let mut p = 0u64;
        for i in 0..64 {
            let dst = if i == 63 { 63 } else { (16 * i) % 63 };
            p |= ((t >> i) & 1) << dst;
        }
        s = p;
    }
    s ^ rk[31]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn ches2007_vectors() {
        let ones = [0xffu8; 10];
        let v: [([u8; 10], u64, u64); 4] = [
            ([0; 10], 0, 0x5579c1387b228445),
            ([0; 10], u64::MAX, 0xa112ffc72f68417b),
            (ones, 0, 0xe72c46c0f5945049),
            (ones, u64::MAX, 0x3333dcd3213210d2),
        ];
        for (k, p, c) in v {
            assert_eq!(encrypt(&k, p), c);
            assert_eq!(encrypt_model(key_to_u128(&k), p), c);
        }
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(7);
        for _ in 0..1000 {
            let k: [u8; 10] = g.bytes();
            let p = g.next_u64();
            assert_eq!(encrypt_model(key_to_u128(&k), p), encrypt(&k, p));
        }
    }
}
