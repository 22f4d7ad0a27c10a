//! A tiny seeded PRNG (SplitMix64) for random-input tests. Not cryptographic.

/// SplitMix64 generator (Steele, Lea, Flood 2014).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Creates a generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// Next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Next 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    /// Fills a byte slice.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
    /// A random byte array.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        self.fill(&mut a);
        a
    }
    /// A random u32 array.
    pub fn words32<const N: usize>(&mut self) -> [u32; N] {
        let mut a = [0u32; N];
        for w in a.iter_mut() {
            *w = self.next_u32();
        }
        a
    }
    /// A random u64 array.
    pub fn words64<const N: usize>(&mut self) -> [u64; N] {
        let mut a = [0u64; N];
        for w in a.iter_mut() {
            *w = self.next_u64();
        }
        a
    }
}

/// Parses a hex string (whitespace ignored) into bytes. Panics on bad input.
pub fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    assert!(digits.len().is_multiple_of(2), "odd hex length");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// Parses a hex string into a fixed-size array. Panics on length mismatch.
pub fn hexa<const N: usize>(s: &str) -> [u8; N] {
    hex(s).try_into().expect("hex length mismatch")
}
