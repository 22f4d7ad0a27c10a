//! RECTANGLE-80 (Zhang et al., final version 2015: "version 2" S-box and key schedule).
//! Own model from the specification (no crate exists).
//!
//! Conventions (as in the paper): the 64-bit block is a u64 w63..w0; the state is a 4x16 bit
//! matrix whose row j (j = 0..3) is the 16-bit word `(block >> 16*j) & 0xffff`, column i is bit
//! i of every row, and the S-box input for column i is `row3_i row2_i row1_i row0_i` (row 0 =
//! LSB). The 80-bit key is a u128 whose low 80 bits are v79..v0; key row j (j = 0..4) =
//! `(key >> 16*j) & 0xffff`. Round key = key rows 0..3 packed the same way as the block.
//! Vectors checked: paper / CLAASP: (key 0, pt 0) -> 0x0874E8B1E3542D96,
//! (key ff..ff, pt ff..ff) -> 0x0112AE3DAA349945.

/// The RECTANGLE S-box.
pub const SBOX: [u8; 16] = [
    0x6, 0x5, 0xc, 0xa, 0x1, 0xe, 0x7, 0x9, 0xb, 0x0, 0x3, 0xd, 0x8, 0xf, 0x4, 0x2,
];

/// The 25 round constants (5-bit LFSR, `RC[0] = 0x01`).
pub const RC: [u8; 25] = {
    let mut rc = [0u8; 25];
    let mut x = 1u8;
    let mut i = 0;
    while i < 25 {
        rc[i] = x;
        let fb = ((x >> 4) ^ (x >> 2)) & 1;
        x = ((x << 1) & 0x1f) | fb;
        i += 1;
    }
    rc
};

fn sub_columns(rows: &mut [u16], ncols: usize) {
    let mut out = [0u16; 4];
    for i in 0..ncols {
        let mut n = 0u8;
        for (j, r) in rows.iter().enumerate().take(4) {
            n |= (((r >> i) & 1) as u8) << j;
        }
        let o = SBOX[n as usize];
        for (j, w) in out.iter_mut().enumerate() {
            *w |= (((o >> j) & 1) as u16) << i;
        }
    }
    let mask: u16 = if ncols == 16 {
        0xffff
    } else {
        (1u16 << ncols) - 1
    };
    for j in 0..4 {
        rows[j] = (rows[j] & !mask) | out[j];
    }
}

fn pack(rows: &[u16]) -> u64 {
    (0..4).fold(0u64, |a, j| a | (rows[j] as u64) << (16 * j))
}

/// The 26 round keys K0..K25, packed like the block (row j in bits 16j..16j+15).
pub fn round_keys(key: u128) -> [u64; 26] {
    let mut k = [0u16; 5];
    for (j, w) in k.iter_mut().enumerate() {
        *w = (key >> (16 * j)) as u16;
    }
    let mut rk = [0u64; 26];
    for r in 0..26 {
        rk[r] = pack(&k[..4]);
        if r == 25 {
            break;
        }
        sub_columns(&mut k[..4], 4);
        let k0 = k[0];
        k = [
            k[0].rotate_left(8) ^ k[1],
            k[2],
            k[3],
            k[3].rotate_left(12) ^ k[4],
            k0,
        ];
        k[0] ^= RC[r] as u16;
    }
    rk
}

/// RECTANGLE-80 encryption with a precomputed key schedule.
pub fn encrypt_with_round_keys(rk: &[u64; 26], block: u64) -> u64 {
    let mut s = block;
    for r in 0..25 {
        s ^= rk[r];
        let mut rows = [0u16; 4];
        for (j, w) in rows.iter_mut().enumerate() {
            *w = (s >> (16 * j)) as u16;
        }
        sub_columns(&mut rows, 16);
        rows[1] = rows[1].rotate_left(1);
        rows[2] = rows[2].rotate_left(12);
        rows[3] = rows[3].rotate_left(13);
        s = pack(&rows);
    }
    s ^ rk[25]
}

/// RECTANGLE-80 encryption; `key` = low 80 bits.
pub fn encrypt(key: u128, block: u64) -> u64 {
    encrypt_with_round_keys(&round_keys(key), block)
}

/// Same with the key as 10 bytes, big-endian (`key[0]` = v79..v72).
pub fn encrypt_bytes(key: &[u8; 10], block: u64) -> u64 {
    encrypt(key.iter().fold(0u128, |a, &b| (a << 8) | b as u128), block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_constants() {
        assert_eq!(&RC[..8], &[0x01, 0x02, 0x04, 0x09, 0x12, 0x05, 0x0b, 0x16]);
    }

    #[test]
    fn published_vectors() {
        assert_eq!(encrypt(0, 0), 0x0874E8B1E3542D96);
        assert_eq!(encrypt((1u128 << 80) - 1, u64::MAX), 0x0112AE3DAA349945);
        assert_eq!(encrypt_bytes(&[0xff; 10], u64::MAX), 0x0112AE3DAA349945);
    }
}
