//! PHOTON-256 permutation (Guo, Peyrin, Poschmann, CRYPTO 2011; as used by PHOTON-Beetle):
//! 8x8 state of 4-bit cells, 12 rounds. Own model written from the specification (no crate).
//!
//! Conventions (PHOTON-Beetle reference): the 32-byte state maps to cells row by row, cell
//! (r, c) = nibble number i = 8r + c, where nibble i is the **low** nibble of byte i/2 when i
//! is even and the high nibble when i is odd. Checked against the PHOTON-Beetle reference
//! vector: permute(00 01 .. 1f) = 255e270d37e90d76 bca8385365baae7d 4acc71338f265b0c
//! 1b52093f4d48eef9.

/// PRESENT S-box (PHOTON SubCells).
pub const SBOX: [u8; 16] = [
    0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2,
];
/// Round constants RC(k).
pub const RC: [u8; 12] = [1, 3, 7, 14, 13, 11, 6, 12, 9, 2, 5, 10];
/// Internal constants IC_d(i) for d = 8.
pub const IC: [u8; 8] = [0, 1, 3, 7, 15, 14, 12, 8];
/// Last row of the serial matrix A (A^8 = MixColumnSerial).
pub const Z: [u8; 8] = [2, 4, 2, 11, 2, 8, 5, 6];

/// GF(2^4) multiplication modulo x^4 + x + 1.
pub fn gf16_mul(a: u8, b: u8) -> u8 {
    let (mut a, mut b, mut p) = (a, b, 0u8);
    while b != 0 {
        if b & 1 == 1 {
            p ^= a;
        }
        a <<= 1;
        if a & 0x10 != 0 {
            a ^= 0x13;
        }
        b >>= 1;
    }
    p & 0xf
}

/// The permutation on the 8x8 cell matrix `s[row][col]`.
pub fn permute_cells(s: [[u8; 8]; 8]) -> [[u8; 8]; 8] {
    let mut s = s;
    for rc in RC {
        for (i, row) in s.iter_mut().enumerate() {
            row[0] ^= rc ^ IC[i];
        }
        for row in s.iter_mut() {
            for c in row.iter_mut() {
                *c = SBOX[*c as usize];
            }
        }
        for (i, row) in s.iter_mut().enumerate() {
            row.rotate_left(i);
        }
        for c in 0..8 {
            let mut col: [u8; 8] = core::array::from_fn(|r| s[r][c]);
            for _ in 0..8 {
                let last = (0..8).fold(0u8, |acc, j| acc ^ gf16_mul(Z[j], col[j]));
                col.rotate_left(1);
                col[7] = last;
            }
            for r in 0..8 {
                s[r][c] = col[r];
            }
        }
    }
    s
}

/// PHOTON-256 on the 32-byte state (PHOTON-Beetle nibble order).
pub fn permute(state: &[u8; 32]) -> [u8; 32] {
    let mut cells = [[0u8; 8]; 8];
    for i in 0..64 {
        cells[i / 8][i % 8] = (state[i / 2] >> (4 * (i & 1))) & 0xf;
    }
    let cells = permute_cells(cells);
    let mut out = [0u8; 32];
    for i in 0..64 {
        out[i / 2] |= cells[i / 8][i % 8] << (4 * (i & 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::hexa;

    #[test]
    fn beetle_reference_vector() {
        let input: [u8; 32] = core::array::from_fn(|i| i as u8);
        let expect: [u8; 32] =
            hexa("255e270d37e90d76bca8385365baae7d4acc71338f265b0c1b52093f4d48eef9");
        assert_eq!(permute(&input), expect);
    }
}
