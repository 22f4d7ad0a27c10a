//! A fast, non-cryptographic hasher for the compiler's internal tables (names, atom ids).
//! The multiply-rotate scheme of the Firefox/rustc "Fx" hash with a final avalanche: a few
//! cycles per word, against SipHash's tens. Inputs are the user's own program, so flooding
//! resistance buys nothing.

use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 56));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // The multiply only carries upwards, so the low bits (the table's bucket index) would
        // ignore the high bytes of each word: keys differing there ("t_v_1234"/"t_v_1235")
        // would all collide. A final avalanche (MurmurHash3's fmix64) spreads every bit.
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub type FxHashSet<K> = std::collections::HashSet<K, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_work_and_hashes_spread() {
        let mut m: FxHashMap<String, usize> = FxHashMap::default();
        for i in 0..10_000 {
            m.insert(format!("x__{}__b{}", i / 16, i % 16), i);
        }
        assert_eq!(m.len(), 10_000);
        assert_eq!(m["x__3__b5"], 3 * 16 + 5);
        // distinct short keys give distinct hashes
        let h = |s: &str| {
            let mut x = FxHasher::default();
            x.write(s.as_bytes());
            x.finish()
        };
        assert_ne!(h("a"), h("b"));
        assert_ne!(h("ab"), h("ab\0"));
        // names differing only in a word's high byte must differ in the low (bucket) bits
        let low: std::collections::HashSet<u64> = (0..1000)
            .map(|i| h(&format!("t_v_{:04}", i)) & 0xfff)
            .collect();
        assert!(
            low.len() > 700,
            "low bits collide: {} distinct of 1000",
            low.len()
        );
    }
}
