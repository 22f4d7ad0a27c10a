//! BLAKE2s (RFC 7693). `compress` is an own model of the compression function F (§3.2);
//! `hash` is unkeyed BLAKE2s built on it (§3.3, any digest length 1..=32). Both are checked
//! against RFC 7693 Appendix B ("abc" → 508c5e8c...) and the RustCrypto crate `blake2`
//! (`Blake2s256`, `blake2_crate_hash`) on random messages.
//!
//! Words: h, m are little-endian words of the bytes (§2.4); `t` is the 64-bit byte counter
//! (`t[0]` low word); `f[0]` = 0xFFFFFFFF on the last block, `f[1]` = 0 (sequential mode).

/// The initialisation vector (the SHA-256 IV, §2.6).
pub const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];

/// The message schedule SIGMA (§2.7).
pub const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

#[allow(clippy::too_many_arguments)]
fn g(v: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize, x: u32, y: u32) {
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
    v[d] = (v[d] ^ v[a]).rotate_right(16);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(12);
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
    v[d] = (v[d] ^ v[a]).rotate_right(8);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(7);
}

/// The compression function F (§3.2) with the flags as words: `v[14] ^= f[0]`, `v[15] ^= f[1]`.
pub fn compress(h: &[u32; 8], m: &[u32; 16], t: [u32; 2], f: [u32; 2]) -> [u32; 8] {
    let mut v = [0u32; 16];
    v[..8].copy_from_slice(h);
    v[8..].copy_from_slice(&IV);
    v[12] ^= t[0];
    v[13] ^= t[1];
    v[14] ^= f[0];
    v[15] ^= f[1];
    for s in &SIGMA {
        g(&mut v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
        g(&mut v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
        g(&mut v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
        g(&mut v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
        g(&mut v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
        g(&mut v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
        g(&mut v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
        g(&mut v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    core::array::from_fn(|i| h[i] ^ v[i] ^ v[i + 8])
}

/// A compression function F(h, m, t, f) -> h'.
pub type CompressFn<'a> = dyn FnMut(&[u32; 8], &[u32; 16], [u32; 2], [u32; 2]) -> [u32; 8] + 'a;

/// Unkeyed BLAKE2s of `data` with an `outlen`-byte digest (1..=32), through `compress_fn`
/// (so a compiled compression function can be dropped in).
pub fn hash_with(data: &[u8], outlen: usize, compress_fn: &mut CompressFn) -> Vec<u8> {
    assert!((1..=32).contains(&outlen));
    let mut h = IV;
    h[0] ^= 0x0101_0000 ^ outlen as u32;
    let nblocks = data.len().div_ceil(64).max(1);
    for b in 0..nblocks {
        let chunk = &data[(64 * b).min(data.len())..(64 * b + 64).min(data.len())];
        let mut block = [0u8; 64];
        block[..chunk.len()].copy_from_slice(chunk);
        let m: [u32; 16] = core::array::from_fn(|i| {
            u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap())
        });
        let last = b + 1 == nblocks;
        let t = (64 * b + chunk.len()) as u64;
        h = compress_fn(
            &h,
            &m,
            [t as u32, (t >> 32) as u32],
            [if last { 0xFFFF_FFFF } else { 0 }, 0],
        );
    }
    h.iter()
        .flat_map(|w| w.to_le_bytes())
        .take(outlen)
        .collect()
}

/// Unkeyed BLAKE2s with the model's compression function.
pub fn hash(data: &[u8], outlen: usize) -> Vec<u8> {
    hash_with(data, outlen, &mut |h, m, t, f| compress(h, m, t, f))
}

/// BLAKE2s-256 by the crate `blake2` (the independent oracle the model is checked against).
pub fn blake2_crate_hash(data: &[u8]) -> [u8; 32] {
    use blake2::Digest;
    blake2::Blake2s256::digest(data).into()
}
