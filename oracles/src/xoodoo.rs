//! Xoodoo\[12\] permutation (Daemen et al.). Via crate `xoodyak` (`Xoodoo::permute`), plus an
//! own model from the Xoodoo specification, compared on random inputs.
//!
//! State: 12 u32 lanes, `state[4*y + x]` = plane y, lane x (the spec's `A_y[x]`); byte
//! serialisation = each lane little-endian, lane 0 first (what `xoodyak` uses internally).

/// Round constants C_{-11} .. C_0.
pub const RC: [u32; 12] = [
    0x058, 0x038, 0x3c0, 0x0d0, 0x120, 0x014, 0x060, 0x02c, 0x380, 0x0f0, 0x1a0, 0x012,
];

fn to_bytes(s: &[u32; 12]) -> [u8; 48] {
    let mut b = [0u8; 48];
    for i in 0..12 {
        b[4 * i..4 * i + 4].copy_from_slice(&s[i].to_le_bytes());
    }
    b
}

fn from_bytes(b: &[u8; 48]) -> [u32; 12] {
    let mut s = [0u32; 12];
    for i in 0..12 {
        s[i] = u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    }
    s
}

/// Xoodoo\[12\] (crate `xoodyak`).
pub fn permute12(state: [u32; 12]) -> [u32; 12] {
    let mut x = xoodyak::Xoodoo::from_bytes(to_bytes(&state));
    x.permute();
    let mut out = [0u8; 48];
    x.bytes(&mut out);
    from_bytes(&out)
}

/// Own model of one Xoodoo round with constant `c`.
pub fn round_model(a: [u32; 12], c: u32) -> [u32; 12] {
    let mut a = a;
    // theta
    let mut p = [0u32; 4];
    for x in 0..4 {
        p[x] = a[x] ^ a[4 + x] ^ a[8 + x];
    }
    let mut e = [0u32; 4];
    for x in 0..4 {
        let q = p[(x + 3) % 4];
        e[x] = q.rotate_left(5) ^ q.rotate_left(14);
    }
    for y in 0..3 {
        for x in 0..4 {
            a[4 * y + x] ^= e[x];
        }
    }
    // rho-west
    let a1 = [a[4], a[5], a[6], a[7]];
    for x in 0..4 {
        a[4 + x] = a1[(x + 3) % 4];
        a[8 + x] = a[8 + x].rotate_left(11);
    }
    // iota
    a[0] ^= c;
    // chi
    let b = a;
    for x in 0..4 {
        a[x] ^= !b[4 + x] & b[8 + x];
        a[4 + x] ^= !b[8 + x] & b[x];
        a[8 + x] ^= !b[x] & b[4 + x];
    }
    // rho-east
    let a2 = [a[8], a[9], a[10], a[11]];
    for x in 0..4 {
        a[4 + x] = a[4 + x].rotate_left(1);
        a[8 + x] = a2[(x + 2) % 4].rotate_left(8);
    }
    a
}

/// Own model of Xoodoo\[12\].
pub fn permute12_model(state: [u32; 12]) -> [u32; 12] {
    RC.iter().fold(state, |s, &c| round_model(s, c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::SplitMix64;

    #[test]
    fn zero_vector() {
        let expect = [
            0x89d5d88d, 0xa963fcbf, 0x1b232d19, 0xffa5a014, 0x36b18106, 0xafc7c1fe, 0xaee57cbe,
            0xa77540bd, 0x2e86e870, 0xfef5b7c9, 0x8b4fadf2, 0x5e4f4062,
        ];
        assert_eq!(permute12([0; 12]), expect);
        assert_eq!(permute12_model([0; 12]), expect);
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(6);
        for _ in 0..1000 {
            let s = g.words32::<12>();
            assert_eq!(permute12_model(s), permute12(s));
        }
    }
}
