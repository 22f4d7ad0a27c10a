//! Clyde-128 tweakable block cipher (Spook, NIST LWC round 2). Own model written from the
//! Spook specification (no crate exists).
//!
//! **Not checked against a published vector**: no standalone Clyde-128 test vector was found
//! (the Spook KATs cover the full AEAD, which also needs Shadow-512 and the mode). Treat this
//! model as unverified; the facts it relies on are listed below so they can be re-checked.
//!
//! Conventions (Spook reference): block, key and tweak are 16 bytes each, loaded as four
//! 32-bit **little-endian** words x0..x3 (`x0 = block[0..4]`). The S-box acts bitsliced on
//! the columns (x0,x1,x2,x3); the L-box on the pairs (x0,x1) and (x2,x3); rotations are
//! right rotations. 6 steps of 2 rounds; round constant W(r) is the 4-bit LFSR value
//! (1000, 0100, 0010, 0001, 1100, 0110, 0011, 1101, 1010, 0101, 1110, 0111) whose bits are
//! XORed into bit 0 of x0..x3. Tweakey TK(s) = K ^ delta^(s mod 3)(T) with, on tweak words
//! (t0,t1,t2,t3): delta^0 = (t0,t1,t2,t3), delta^1 = (t0^t2, t1^t3, t0, t1),
//! delta^2 = (t2, t3, t0^t2, t1^t3).

fn load(b: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

/// Bitsliced Clyde S-box on four words.
pub fn sbox(x: [u32; 4]) -> [u32; 4] {
    let y1 = (x[0] & x[1]) ^ x[2];
    let y0 = (x[3] & x[0]) ^ x[1];
    let y3 = (y1 & x[3]) ^ x[0];
    let y2 = (y0 & y1) ^ x[3];
    [y0, y1, y2, y3]
}

/// Clyde L-box on a pair of words.
pub fn lbox(x: u32, y: u32) -> (u32, u32) {
    let mut a = x ^ x.rotate_right(12);
    let mut b = y ^ y.rotate_right(12);
    a ^= a.rotate_right(3);
    b ^= b.rotate_right(3);
    a ^= x.rotate_right(17);
    b ^= y.rotate_right(17);
    let c = a ^ a.rotate_right(31);
    let d = b ^ b.rotate_right(31);
    a ^= d.rotate_right(26);
    b ^= c.rotate_right(25);
    a ^= c.rotate_right(15);
    b ^= d.rotate_right(15);
    (a, b)
}

/// The 12 round constants as 4-bit values (bit 3 -> x0, ..., bit 0 -> x3).
pub const RC: [u8; 12] = {
    let mut w = [0u8; 12];
    let mut x = 8u8;
    let mut i = 0;
    while i < 12 {
        w[i] = x;
        x = (x >> 1) ^ if x & 1 == 1 { 0xc } else { 0 };
        i += 1;
    }
    w
};

/// Clyde-128 encryption on words.
pub fn encrypt_words(key: [u32; 4], tweak: [u32; 4], block: [u32; 4]) -> [u32; 4] {
    let t = tweak;
    let d = [
        t,
        [t[0] ^ t[2], t[1] ^ t[3], t[0], t[1]],
        [t[2], t[3], t[0] ^ t[2], t[1] ^ t[3]],
    ];
    let tk = |s: usize| -> [u32; 4] { core::array::from_fn(|i| key[i] ^ d[s % 3][i]) };
    let mut x = block;
    let k0 = tk(0);
    for i in 0..4 {
        x[i] ^= k0[i];
    }
    for s in 0..6 {
        for rho in 0..2 {
            let r = 2 * s + rho;
            x = sbox(x);
            let (a, b) = lbox(x[0], x[1]);
            let (c, e) = lbox(x[2], x[3]);
            x = [a, b, c, e];
            for i in 0..4 {
                x[i] ^= ((RC[r] >> (3 - i)) & 1) as u32;
            }
        }
        let k = tk(s + 1);
        for i in 0..4 {
            x[i] ^= k[i];
        }
    }
    x
}

/// Clyde-128 encryption, bytes (little-endian words).
pub fn encrypt(key: &[u8; 16], tweak: &[u8; 16], block: &[u8; 16]) -> [u8; 16] {
    let y = encrypt_words(load(key), load(tweak), load(block));
    let mut out = [0u8; 16];
    for i in 0..4 {
        out[4 * i..4 * i + 4].copy_from_slice(&y[i].to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_constants_lfsr() {
        assert_eq!(RC, [8, 4, 2, 1, 0xc, 6, 3, 0xd, 0xa, 5, 0xe, 7]);
    }

    #[test]
    fn sbox_is_a_permutation() {
        let mut seen = [false; 16];
        for v in 0..16u32 {
            let x = [v & 1, (v >> 1) & 1, (v >> 2) & 1, (v >> 3) & 1];
            let y = sbox(x);
            seen[(y[0] | y[1] << 1 | y[2] << 2 | y[3] << 3) as usize] = true;
        }
        assert!(seen.iter().all(|&b| b));
    }
}
