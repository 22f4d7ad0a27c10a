//! The plan of a vsliced bit permutation (`Op::Shuffle`) inside a word: the terms that
//! `codegen::ops`'s shuffle helper ORs together. Planned here, below `codegen`, so that
//! [`super::Target::emitted_cost`] counts the instructions the helper emits (`bench limits`)
//! and `codegen` only spells the terms.

use crate::ir::mask;
use std::collections::BTreeMap;

/// Groups a bit permutation of an m-bit word by displacement: LSB-numbered source mask per
/// left-shift amount (negative = right shift). `perm[j]` is the source of result bit j, MSB
/// first.
pub fn groups(m: u32, perm: &[u32]) -> BTreeMap<i32, u64> {
    let mut g: BTreeMap<i32, u64> = BTreeMap::new();
    for (j, &src) in perm.iter().enumerate() {
        let pd = (m - 1 - j as u32) as i32;
        let ps = (m - 1 - src) as i32;
        *g.entry(pd - ps).or_insert(0) |= 1u64 << ps;
    }
    g
}

/// The `pshufb` control (16 bytes, repeated per 128-bit lane) that moves whole bytes of
/// `w`-bit words as the bit map `src` does (`src[j]` = source bit of result bit j, MSB first),
/// or `None` where some bit changes its place in its byte or a result byte takes bits from two
/// bytes. `codegen` emits such a permutation or rotation as one byte shuffle.
pub fn byte_shuffle(w: u32, src: &[u32]) -> Option<[u8; 16]> {
    let nb = (w / 8) as usize;
    let mut byte_src = vec![None::<u32>; nb];
    for (j, &sj) in src.iter().enumerate() {
        let pd = w - 1 - j as u32; // LSB-numbered positions
        let ps = w - 1 - sj;
        if pd % 8 != ps % 8 {
            return None;
        }
        let slot = &mut byte_src[(pd / 8) as usize];
        match slot {
            None => *slot = Some(ps / 8),
            Some(b) if *b == ps / 8 => {}
            Some(_) => return None,
        }
    }
    let mut ctrl = [0u8; 16];
    for (i, c) in ctrl.iter_mut().enumerate() {
        let lane = i / nb;
        *c = (lane * nb) as u8 + byte_src[i % nb].unwrap() as u8;
    }
    Some(ctrl)
}

/// One term of the helper's OR, on a `w`-bit SIMD word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// The bits `msk` moved by `d` (left if positive; 0: in place): an AND, and a shift
    /// unless `d` is 0.
    Masked { d: i32, msk: u64 },
    /// The bits moved by `d` that a shift of `lanes`-bit lanes keeps exactly (`lanes` = `w`:
    /// the word's own shift; 16 or 32 inside wider words on x86): the shift alone.
    Exact { d: i32, lanes: u32 },
    /// The bits `msk` (those moving left by `d` and right by m - `d`) rotated left by `d`: an
    /// AND and a rotation, one byte shuffle when `d` is whole bytes of a word of 16 bits or more.
    Rot { d: i32, msk: u64 },
    /// Rotations by `d` and by `d` + 8k (not whole bytes themselves) as one: the bits `msk` of
    /// rotation `d` ORed with each partner's bits byte-shuffled by p - `d` ((p, bits of
    /// rotation p) in `partners`), the union rotated by `d`.
    Merged {
        d: i32,
        msk: u64,
        partners: Vec<(i32, u64)>,
    },
}

/// The lane width `l` (dividing `w`) whose shift by `d` (left if positive) keeps exactly the
/// bits `msk` of a `w`-bit word: there the shift needs no AND. The word's own width first,
/// then, with `lane_shifts` (x86 SIMD), the narrower lanes whose shifts x86 has (16 and 32
/// bits); `None` where no lane fits.
pub fn exact_shift_lanes(w: u32, d: i32, msk: u64, lane_shifts: bool) -> Option<u32> {
    let k = d.unsigned_abs();
    let exact = |l: u32| {
        if k == 0 || k >= l || !w.is_multiple_of(l) {
            return false;
        }
        let lane = if d > 0 {
            mask(l - k)
        } else {
            mask(l) & !mask(k)
        };
        (0..w / l).fold(0u64, |acc, i| acc | lane << (i * l)) == msk
    };
    if exact(w) {
        return Some(w);
    }
    if !lane_shifts {
        return None;
    }
    [32, 16].into_iter().find(|&l| l < w && exact(l))
}

/// The terms of the permutation `perm` of `m`-bit words held in `w`-bit SIMD lanes (`m` < `w`
/// only for words of 2..7 bits in 8-bit lanes). `x86`: 16/32-bit lane shifts exist and
/// rotations a whole number of bytes apart may share one; `slow_rot`: a rotation costs two
/// shifts and an OR (not AVX-512's 32/64-bit rotations), which is when sharing pays.
pub fn plan(w: u32, m: u32, perm: &[u32], x86: bool, slow_rot: bool) -> Vec<Term> {
    let groups = groups(m, perm);
    // Bits moving left by d and bits moving right by m - d are one rotation left by d of their
    // union: an AND and a rotation (one byte shuffle for whole bytes, one instruction where the
    // target rotates) instead of two ANDs, two shifts and an OR.
    let rotated =
        |d: i32| m == w && d > 0 && groups.contains_key(&d) && groups.contains_key(&(d - m as i32));
    // The bits of rotation d: those moving left by d and those moving right by m - d.
    let both = |d: i32| groups[&d] | groups[&(d - m as i32)];
    // Rotations by d and d + 8k (not whole bytes themselves) are one: rotl(a, d) | rotl(b, d +
    // 8k) = rotl(a | byte_shuffle_8k(b), d), a byte shuffle and an OR instead of two shifts
    // and an OR (AES's ShiftRows on a 16-bit plane: rotations by 4 and 12; 14 instructions ->
    // 12). `merged[d]`: the partners of the smallest d of such a class.
    let mut merged: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    if slow_rot && x86 && w >= 16 {
        let rots: Vec<i32> = groups
            .keys()
            .copied()
            .filter(|&d| rotated(d) && d % 8 != 0)
            .collect();
        for &d in &rots {
            if let Some(&base) = rots.iter().find(|&&b| b < d && (d - b) % 8 == 0) {
                merged.entry(base).or_default().push(d);
            }
        }
    }
    let partner = |d: i32| merged.values().flatten().any(|&x| x == d);
    let mut terms = Vec::new();
    for (&d, &msk) in &groups {
        if d < 0 && rotated(d + m as i32) {
            continue; // in its partner's rotation
        }
        if partner(d) {
            continue; // in its class's rotation
        }
        terms.push(if let Some(ds) = merged.get(&d) {
            Term::Merged {
                d,
                msk: both(d),
                partners: ds.iter().map(|&p| (p, both(p))).collect(),
            }
        } else if rotated(d) {
            Term::Rot { d, msk: both(d) }
        } else if let Some(lanes) = exact_shift_lanes(w, d, msk, x86).filter(|_| m == w) {
            // The shift alone keeps exactly these bits (`(x & 0xFFFF0000) >> 16`, GIFT's
            // half-word rotations in 16-bit lanes): no AND.
            Term::Exact { d, lanes }
        } else {
            Term::Masked { d, msk }
        });
    }
    terms
}

/// Instructions the helper spends on `terms` on `w`-bit words (`native_rot`: a rotation is
/// one instruction, else two shifts and an OR); the constants are not counted (loaded once).
pub fn insns(terms: &[Term], w: u32, native_rot: bool) -> u32 {
    let rot = if native_rot { 1 } else { 3 };
    let term = |t: &Term| match t {
        Term::Masked { d: 0, .. } | Term::Exact { .. } => 1,
        Term::Masked { .. } => 2,
        Term::Rot { d, .. } if d % 8 == 0 && w >= 16 => 2,
        Term::Rot { .. } => 1 + rot,
        Term::Merged { partners, .. } => 1 + rot + 3 * partners.len() as u32,
    };
    terms.iter().map(term).sum::<u32>() + (terms.len() as u32).saturating_sub(1)
}
