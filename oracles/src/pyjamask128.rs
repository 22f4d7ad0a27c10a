//! Pyjamask-128 block cipher (Goudarzi et al., NIST LWC round 2). Own model written from the
//! Pyjamask specification (no crate exists), checked against the specification's test vector
//! (key 00112233..eeff, plaintext "Pyjamask-128:):)" -> 48f139a109bdd9c0726e8261f8d68e7d).
//!
//! Conventions (spec): the state is 4 rows x 32 columns; row i is the 32-bit big-endian word
//! `block[4i..4i+4]`, column j is bit (31 - j) of each row (column 0 = MSB). The S-box input
//! of column j is `row0_j row1_j row2_j row3_j` with row 0 as the most significant bit. The
//! key is loaded the same way.

/// The 4-bit S-box S4.
pub const SBOX: [u8; 16] = [2, 13, 3, 9, 7, 11, 10, 6, 14, 0, 15, 4, 8, 5, 1, 12];

const fn bits_to_word(a: [u8; 32]) -> u32 {
    let mut w = 0u32;
    let mut i = 0;
    while i < 32 {
        w |= (a[i] as u32) << (31 - i);
        i += 1;
    }
    w
}

/// First rows of the circulant matrices M0..M3 (MixRows), element 0 = MSB.
pub const MIX_ROWS: [u32; 4] = [
    bits_to_word([
        1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0,
        1, 0,
    ]),
    bits_to_word([
        0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0,
        1, 1,
    ]),
    bits_to_word([
        0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0,
        1, 1,
    ]),
    bits_to_word([
        0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0,
        0, 1,
    ]),
];

/// First row of the key-schedule circulant matrix Mk.
pub const MIX_KEY: u32 = bits_to_word([
    1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0,
]);

/// y = cir(a) * x over GF(2), vectors indexed MSB-first: y_i = sum_j a_{(j-i) mod 32} x_j.
pub fn circulant_mul(a: u32, x: u32) -> u32 {
    let mut y = 0u32;
    for k in 0..32 {
        if (a >> (31 - k)) & 1 == 1 {
            y ^= x.rotate_left(k);
        }
    }
    y
}

fn load(b: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|i| u32::from_be_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

/// The 15 round keys (4 row words each).
pub fn round_keys(key: &[u8; 16]) -> [[u32; 4]; 15] {
    let mut k = load(key);
    let mut rk = [[0u32; 4]; 15];
    rk[0] = k;
    for r in 0..14u32 {
        // MixColumns: each column multiplied by cir([0,1,1,1])
        let t = k[0] ^ k[1] ^ k[2] ^ k[3];
        k = [k[0] ^ t, k[1] ^ t, k[2] ^ t, k[3] ^ t];
        // MixAndRotateRows
        k[0] = circulant_mul(MIX_KEY, k[0]);
        k[1] = k[1].rotate_right(8);
        k[2] = k[2].rotate_right(15);
        k[3] = k[3].rotate_right(18);
        // AddConstant 0x243f6a8 || r
        k[0] ^= 0x0000_0080 ^ r;
        k[1] ^= 0x0000_6a00;
        k[2] ^= 0x003f_0000;
        k[3] ^= 0x2400_0000;
        rk[r as usize + 1] = k;
    }
    rk
}

fn sub_bytes(s: [u32; 4]) -> [u32; 4] {
    let mut o = [0u32; 4];
    for j in 0..32 {
        let mut n = 0u8;
        for i in 0..4 {
            n |= (((s[i] >> j) & 1) as u8) << (3 - i);
        }
        let v = SBOX[n as usize];
        for i in 0..4 {
            o[i] |= (((v >> (3 - i)) & 1) as u32) << j;
        }
    }
    o
}

/// Pyjamask-128 encryption on row words.
pub fn encrypt_words(rk: &[[u32; 4]; 15], block: [u32; 4]) -> [u32; 4] {
    let mut s = block;
    for r in 0..14 {
        for i in 0..4 {
            s[i] ^= rk[r][i];
        }
        s = sub_bytes(s);
        for i in 0..4 {
            s[i] = circulant_mul(MIX_ROWS[i], s[i]);
        }
    }
    for i in 0..4 {
        s[i] ^= rk[14][i];
    }
    s
}

/// Pyjamask-128 encryption (bytes, spec order).
pub fn encrypt(key: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let s = encrypt_words(&round_keys(key), load(block));
    let mut out = [0u8; 16];
    for i in 0..4 {
        out[4 * i..4 * i + 4].copy_from_slice(&s[i].to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::hexa;

    #[test]
    fn spec_vector() {
        let k = hexa("00112233445566778899aabbccddeeff");
        let p: [u8; 16] = *b"Pyjamask-128:):)";
        assert_eq!(
            encrypt(&k, &p),
            hexa::<16>("48f139a109bdd9c0726e8261f8d68e7d")
        );
    }
}
