//! Subterranean 2.0 round function and blank rounds (Daemen, Massolino, Mehrdad, Rotella).
//! Own model written from the Subterranean 2.0 specification (no crate).
//!
//! **Not checked against a published vector**: the reference vectors are XOF/AEAD KATs,
//! which need the full duplex mode; no KAT was wired up here. Treat as unverified. The
//! round follows the spec text: R = pi . theta . iota . chi on the 257-bit state s_0..s_256
//! (indices mod 257):
//! * chi:   s_i <- s_i ^ (!s_{i+1} & s_{i+2})
//! * iota:  s_0 <- s_0 ^ 1
//! * theta: s_i <- s_i ^ s_{i+3} ^ s_{i+8}
//! * pi:    s_i <- s_{12 i}
//!
//! A *blank round* is the duplex call with the empty input: one round R, then injection of
//! the padded empty string (a single 1 bit at injection position 0, i.e. s_{12^0} = s_1 ^= 1).
//!
//! Packed representation ([`State`]): 33 bytes, bit i of the state = bit (i % 8) of byte
//! i / 8 (little-endian bit order; bit 256 = bit 0 of byte 32; the other bits of byte 32
//! must be 0).

/// Packed 257-bit state.
pub type State = [u8; 33];

/// Number of state bits.
pub const N: usize = 257;

/// Unpacks to one bit per element.
pub fn unpack(s: &State) -> [u8; N] {
    core::array::from_fn(|i| (s[i / 8] >> (i % 8)) & 1)
}

/// Packs one-bit-per-element to [`State`].
pub fn pack(b: &[u8; N]) -> State {
    let mut s = [0u8; 33];
    for i in 0..N {
        s[i / 8] |= (b[i] & 1) << (i % 8);
    }
    s
}

/// One round R on a one-bit-per-element state.
pub fn round_bits(s: &[u8; N]) -> [u8; N] {
    let chi: [u8; N] = core::array::from_fn(|i| s[i] ^ ((s[(i + 1) % N] ^ 1) & s[(i + 2) % N]));
    let mut a = chi;
    a[0] ^= 1;
    let theta: [u8; N] = core::array::from_fn(|i| a[i] ^ a[(i + 3) % N] ^ a[(i + 8) % N]);
    core::array::from_fn(|i| theta[(12 * i) % N])
}

/// One round R on the packed state.
pub fn round(s: &State) -> State {
    pack(&round_bits(&unpack(s)))
}

/// `n` blank rounds (duplex with empty input): each is R followed by s_1 ^= 1.
pub fn blank_rounds(s: &State, n: usize) -> State {
    let mut b = unpack(s);
    for _ in 0..n {
        b = round_bits(&b);
        b[1] ^= 1;
    }
    pack(&b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn pack_roundtrip_and_round_smoke() {
        let mut g = SplitMix64::new(11);
        for _ in 0..100 {
            let mut s: State = g.bytes();
            s[32] &= 1;
            assert_eq!(pack(&unpack(&s)), s);
            // rounds keep the padding bits of byte 32 clear
            assert_eq!(round(&s)[32] & !1, 0);
        }
        // the round is a permutation: distinct inputs give distinct outputs (spot check)
        let a = round(&[0u8; 33]);
        let mut one = [0u8; 33];
        one[0] = 1;
        assert_ne!(a, round(&one));
    }
}
