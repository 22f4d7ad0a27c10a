//! Gimli permutation (Bernstein et al., CHES 2017), 24 rounds. Via crate `gimli-permutation`
//! plus an own model from the specification, compared on random inputs.
//!
//! State: 12 u32 words, `state[4*i + j]` = row i, column j (the spec's s_{i,j}); when
//! serialised to bytes (Gimli-Hash/Cipher), each word little-endian, word 0 first.

/// Gimli (crate `gimli-permutation`).
pub fn permute(state: [u32; 12]) -> [u32; 12] {
    let mut s = state;
    gimli_permutation::gimli(&mut s);
    s
}

/// Own model of Gimli from the specification's pseudo-code.
pub fn permute_model(state: [u32; 12]) -> [u32; 12] {
    let mut s = state;
    for r in (1..=24u32).rev() {
        for j in 0..4 {
            let x = s[j].rotate_left(24);
            let y = s[4 + j].rotate_left(9);
            let z = s[8 + j];
            s[8 + j] = x ^ (z << 1) ^ ((y & z) << 2);
            s[4 + j] = y ^ x ^ ((x | z) << 1);
            s[j] = z ^ y ^ ((x & y) << 3);
        }
        if r % 4 == 0 {
            s.swap(0, 1);
            s.swap(2, 3);
        } else if r % 4 == 2 {
            s.swap(0, 2);
            s.swap(1, 3);
        }
        if r % 4 == 0 {
            s[0] ^= 0x9e37_7900 ^ r;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    pub(crate) fn spec_input() -> [u32; 12] {
        let mut s = [0u32; 12];
        for (i, w) in s.iter_mut().enumerate() {
            let i = i as u32;
            *w = i
                .wrapping_mul(i)
                .wrapping_mul(i)
                .wrapping_add(i.wrapping_mul(0x9e37_79b9));
        }
        s
    }

    #[test]
    fn spec_vector() {
        let expect = [
            0xba11c85a, 0x91bad119, 0x380ce880, 0xd24c2c68, 0x3eceffea, 0x277a921c, 0x4f73a0bd,
            0xda5a9cd8, 0x84b673f0, 0x34e52ff7, 0x9e2bef49, 0xf41bb8d6,
        ];
        assert_eq!(permute(spec_input()), expect);
        assert_eq!(permute_model(spec_input()), expect);
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(5);
        for _ in 0..1000 {
            let s = g.words32::<12>();
            assert_eq!(permute_model(s), permute(s));
        }
    }
}
