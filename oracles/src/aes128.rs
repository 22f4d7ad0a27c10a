//! AES-128 (FIPS-197). Encryption via the RustCrypto `aes` crate; key expansion is an own
//! model of FIPS-197 §5.2, validated against FIPS-197 Appendix A.1 and, through
//! [`encrypt_with_round_keys`] (own model of the cipher), against the crate on random inputs.

use aes::cipher::{Array, BlockCipherEncrypt, KeyInit};

/// The AES S-box (FIPS-197 Fig. 7).
pub const SBOX: [u8; 256] = {
    // Computed at compile time from the definition: multiplicative inverse in GF(2^8)
    // followed by the affine map b ^ rotl(b,1..4) ^ 0x63.
    let mut s = [0u8; 256];
    let mut x = 0usize;
    while x < 256 {
        // inverse by exponentiation: x^254
        let mut inv: u8 = 1;
        let mut base = x as u8;
        let mut e = 254u32;
        while e > 0 {
            if e & 1 == 1 {
                inv = gmul(inv, base);
            }
            base = gmul(base, base);
            e >>= 1;
        }
        if x == 0 {
            inv = 0;
        }
        let b = inv;
        s[x] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        x += 1;
    }
    s
};

/// Multiplication in GF(2^8) modulo x^8+x^4+x^3+x+1.
pub const fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 == 1 {
            p ^= a;
        }
        let hi = a & 0x80;
        a <<= 1;
        if hi != 0 {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    p
}

/// AES-128 encryption of one block (crate `aes`). Bytes as in FIPS-197 (`in[0]` first).
pub fn encrypt(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let c = aes::Aes128::new(&Array::from(*key));
    let mut b = Array::from(*block);
    c.encrypt_block(&mut b);
    b.into()
}

/// The 11 round keys (FIPS-197 key expansion, own model). `rk[r]` is w[4r..4r+4] as 16 bytes,
/// in the same byte order as the state/input (`rk[0] == key`).
pub fn expand_key(key: &[u8; 16]) -> [[u8; 16]; 11] {
    let mut w = [[0u8; 4]; 44];
    for i in 0..4 {
        w[i].copy_from_slice(&key[4 * i..4 * i + 4]);
    }
    let mut rcon = 1u8;
    for i in 4..44 {
        let mut t = w[i - 1];
        if i % 4 == 0 {
            t = [
                SBOX[t[1] as usize] ^ rcon,
                SBOX[t[2] as usize],
                SBOX[t[3] as usize],
                SBOX[t[0] as usize],
            ];
            rcon = gmul(rcon, 2);
        }
        for j in 0..4 {
            w[i][j] = w[i - 4][j] ^ t[j];
        }
    }
    let mut rk = [[0u8; 16]; 11];
    for r in 0..11 {
        for c in 0..4 {
            rk[r][4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
        }
    }
    rk
}

/// Own model of AES-128 encryption from explicit round keys (byte i of the block is state
/// row i%4, column i/4, as in FIPS-197).
pub fn encrypt_with_round_keys(rk: &[[u8; 16]; 11], block: &[u8; 16]) -> [u8; 16] {
    let mut s = *block;
    for i in 0..16 {
        s[i] ^= rk[0][i];
    }
    for r in 1..11 {
        for b in s.iter_mut() {
            *b = SBOX[*b as usize];
        }
        // ShiftRows: row i rotated left by i (byte index = row + 4*col)
        let t = s;
        for c in 0..4 {
            for row in 0..4 {
                s[row + 4 * c] = t[row + 4 * ((c + row) % 4)];
            }
        }
        if r != 10 {
            for c in 0..4 {
                let a = [s[4 * c], s[4 * c + 1], s[4 * c + 2], s[4 * c + 3]];
                for row in 0..4 {
                    s[4 * c + row] = gmul(a[row], 2)
                        ^ gmul(a[(row + 1) % 4], 3)
                        ^ a[(row + 2) % 4]
                        ^ a[(row + 3) % 4];
                }
            }
        }
        for i in 0..16 {
            s[i] ^= rk[r][i];
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::{hexa, SplitMix64};

    #[test]
    fn fips197_c1() {
        let k = hexa("000102030405060708090a0b0c0d0e0f");
        let p = hexa("00112233445566778899aabbccddeeff");
        let c: [u8; 16] = hexa("69c4e0d86a7b0430d8cdb78070b4c55a");
        assert_eq!(encrypt(&k, &p), c);
        assert_eq!(encrypt_with_round_keys(&expand_key(&k), &p), c);
    }

    #[test]
    fn fips197_a1_key_expansion() {
        let rk = expand_key(&hexa("2b7e151628aed2a6abf7158809cf4f3c"));
        assert_eq!(rk[1], hexa::<16>("a0fafe1788542cb123a339392a6c7605"));
        assert_eq!(rk[10], hexa::<16>("d014f9a8c9ee2589e13f0cc8b6630ca6"));
        // FIPS-197 Appendix B example
        let p = hexa("3243f6a8885a308d313198a2e0370734");
        assert_eq!(
            encrypt(&hexa("2b7e151628aed2a6abf7158809cf4f3c"), &p),
            hexa::<16>("3925841d02dc09fbdc118597196a0b32")
        );
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(1);
        for _ in 0..1000 {
            let k = g.bytes();
            let p = g.bytes();
            assert_eq!(
                encrypt_with_round_keys(&expand_key(&k), &p),
                encrypt(&k, &p)
            );
        }
    }
}
