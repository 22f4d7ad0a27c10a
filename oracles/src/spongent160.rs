//! Spongent-pi\[160\] permutation (Bogdanov et al., CHES 2011; as used by Elephant-Dumbo):
//! 160-bit state, 80 rounds. Own model written from the specification (no crate).
//!
//! Conventions (Elephant reference): the 20-byte state is a little-endian bit string, bit i =
//! bit (i % 8) of byte i / 8. Each round: XOR the 7-bit LFSR counter (initial 0x75) into bits
//! 0..6 and its bit-reversal into bits 159..153; S-box on each nibble (bits 4k..4k+3);
//! pLayer moves bit j to j*40 mod 159 (bit 159 fixed). Checked against the Elephant reference
//! vector: permute(00 01 .. 13) = 7c800edf9a560df7cc19f1a2262c7d73267bf77b.

/// The Spongent S-box.
pub const SBOX: [u8; 16] = [
    0xe, 0xd, 0xb, 0x0, 0x2, 0x1, 0x4, 0xf, 0x7, 0xa, 0x8, 0x5, 0x9, 0xc, 0x3, 0x6,
];

/// Spongent-pi\[160\].
pub fn permute(state: &[u8; 20]) -> [u8; 20] {
    let mut s = *state;
    let mut lfsr: u8 = 0x75;
    for _ in 0..80 {
        s[0] ^= lfsr;
        s[19] ^= lfsr.reverse_bits(); // 7-bit counter reversed into bits 159..153
        for b in s.iter_mut() {
            *b = SBOX[(*b & 0xf) as usize] | (SBOX[(*b >> 4) as usize] << 4);
        }
        let mut p = [0u8; 20];
        for j in 0..160usize {
            let bit = (s[j / 8] >> (j % 8)) & 1;
            let dst = if j == 159 { 159 } else { (j * 40) % 159 };
            p[dst / 8] |= bit << (dst % 8);
        }
        s = p;
        lfsr = ((lfsr << 1) | (((lfsr >> 6) ^ (lfsr >> 5)) & 1)) & 0x7f;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::hexa;

    #[test]
    fn elephant_reference_vector() {
        let input: [u8; 20] = core::array::from_fn(|i| i as u8);
        assert_eq!(
            permute(&input),
            hexa::<20>("7c800edf9a560df7cc19f1a2262c7d73267bf77b")
        );
    }
}
