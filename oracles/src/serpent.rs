//! Serpent-128 (Anderson, Biham, Knudsen). Encryption via the RustCrypto `serpent` crate;
//! the key schedule and a bitslice-mode cipher are an own model of the Serpent specification
//! ("bitslice" description), validated against the crate on random inputs and against the
//! NESSIE vector.
//!
//! Byte order (NESSIE / crate convention): the 16-byte block is four 32-bit words loaded
//! little-endian, `X0 = block[0..4]`, ..., `X3 = block[12..16]`; the key likewise (words
//! little-endian, k[0..4] first), padded to 256 bits by a single 1 bit above the key.
//! Note: the original AES-submission test vectors print blocks as 128-bit big hex numbers,
//! i.e. byte-reversed relative to this (NESSIE) byte order.

use serpent::cipher::{Array, BlockCipherEncrypt, KeyInit};

/// The eight Serpent S-boxes (spec, bitslice convention: bit i of the nibble = word Xi).
pub const SBOXES: [[u8; 16]; 8] = [
    [3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12],
    [15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4],
    [8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2],
    [0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14],
    [1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13],
    [15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1],
    [7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0],
    [1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6],
];

const PHI: u32 = 0x9e37_79b9;

/// Serpent-128 encryption (crate `serpent`), NESSIE byte order.
pub fn encrypt(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let c = serpent::Serpent::new_from_slice(key).expect("16-byte key");
    let mut b = Array::from(*block);
    c.encrypt_block(&mut b);
    b.into()
}

/// Applies S-box `s` bitslice-wise to four words (bit j of Xi is bit i of nibble j).
pub fn sbox_bitslice(s: usize, x: [u32; 4]) -> [u32; 4] {
    let mut y = [0u32; 4];
    for j in 0..32 {
        let mut n = 0u8;
        for i in 0..4 {
            n |= (((x[i] >> j) & 1) as u8) << i;
        }
        let o = SBOXES[s][n as usize];
        for i in 0..4 {
            y[i] |= (((o >> i) & 1) as u32) << j;
        }
    }
    y
}

/// The 33 round subkeys K0..K32 in bitslice form (four words each, same convention as the
/// block words), for a 128-bit key in NESSIE byte order.
pub fn round_keys(key: &[u8; 16]) -> [[u32; 4]; 33] {
    let mut w = [0u32; 140]; // w[0..8] = prekey w_{-8..-1}
    for i in 0..4 {
        w[i] = u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().unwrap());
    }
    w[4] = 1; // padding: a single 1 bit just above the 128 key bits
    for i in 0..132 {
        let j = i + 8;
        w[j] = (w[j - 8] ^ w[j - 5] ^ w[j - 3] ^ w[j - 1] ^ PHI ^ i as u32).rotate_left(11);
    }
    let mut k = [[0u32; 4]; 33];
    for r in 0..33 {
        let s = (3 + 8 - (r % 8)) % 8; // S_{(3 - r) mod 8}
        k[r] = sbox_bitslice(
            s,
            [w[8 + 4 * r], w[9 + 4 * r], w[10 + 4 * r], w[11 + 4 * r]],
        );
    }
    k
}

/// Serpent linear transformation (bitslice description).
pub fn linear(x: [u32; 4]) -> [u32; 4] {
    let [mut x0, mut x1, mut x2, mut x3] = x;
    x0 = x0.rotate_left(13);
    x2 = x2.rotate_left(3);
    x1 ^= x0 ^ x2;
    x3 ^= x2 ^ (x0 << 3);
    x1 = x1.rotate_left(1);
    x3 = x3.rotate_left(7);
    x0 ^= x1 ^ x3;
    x2 ^= x3 ^ (x1 << 7);
    x0 = x0.rotate_left(5);
    x2 = x2.rotate_left(22);
    [x0, x1, x2, x3]
}

/// Own model: bitslice Serpent encryption on words (X0..X3) with explicit subkeys.
pub fn encrypt_words(rk: &[[u32; 4]; 33], block: [u32; 4]) -> [u32; 4] {
    let mut x = block;
    for r in 0..32 {
        for i in 0..4 {
            x[i] ^= rk[r][i];
        }
        x = sbox_bitslice(r % 8, x);
        if r < 31 {
            x = linear(x);
        } else {
            for i in 0..4 {
                x[i] ^= rk[32][i];
            }
        }
    }
    x
}

/// Own model of [`encrypt`] (bytes, NESSIE order).
pub fn encrypt_model(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let mut x = [0u32; 4];
    for i in 0..4 {
        x[i] = u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
    }
    let y = encrypt_words(&round_keys(key), x);
    let mut out = [0u8; 16];
    for i in 0..4 {
        out[4 * i..4 * i + 4].copy_from_slice(&y[i].to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::{hexa, SplitMix64};

    #[test]
    fn nessie_zero() {
        let c: [u8; 16] = hexa("3620b17ae6a993d09618b8768266bae9");
        assert_eq!(encrypt(&[0; 16], &[0; 16]), c);
        assert_eq!(encrypt_model(&[0; 16], &[0; 16]), c);
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(3);
        for _ in 0..1000 {
            let k = g.bytes();
            let p = g.bytes();
            assert_eq!(encrypt_model(&k, &p), encrypt(&k, &p));
        }
    }
}
