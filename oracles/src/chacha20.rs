//! ChaCha20 (RFC 8439). `block` and `xor_stream` use the RustCrypto `chacha20` crate (IETF
//! variant: 32-bit block counter, 96-bit nonce). `permute`/`permute_add` are an own model of
//! the 20-round core, checked against the crate's block function and RFC 8439 §2.3.2.
//!
//! State layout (RFC 8439 §2.3): words 0..3 = "expand 32-byte k", 4..11 = key (little-endian
//! words), 12 = block counter, 13..15 = nonce (little-endian words). Serialisation of the
//! output block: each word little-endian, word 0 first.

use chacha20::cipher::{Array, KeyIvInit, StreamCipher, StreamCipherSeek};

/// The four constant words "expand 32-byte k".
pub const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The initial 16-word state for (key, counter, nonce).
pub fn init_state(key: &[u8; 32], counter: u32, nonce: &[u8; 12]) -> [u32; 16] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&SIGMA);
    for i in 0..8 {
        s[4 + i] = u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().unwrap());
    }
    s[12] = counter;
    for i in 0..3 {
        s[13 + i] = u32::from_le_bytes(nonce[4 * i..4 * i + 4].try_into().unwrap());
    }
    s
}

fn qr(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    s[a] = s[a].wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_left(16);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_left(12);
    s[a] = s[a].wrapping_add(s[b]);
    s[d] = (s[d] ^ s[a]).rotate_left(8);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_left(7);
}

/// The 20 rounds (10 column+diagonal double rounds) WITHOUT the final feed-forward addition.
pub fn permute(state: &[u32; 16]) -> [u32; 16] {
    let mut s = *state;
    for _ in 0..10 {
        qr(&mut s, 0, 4, 8, 12);
        qr(&mut s, 1, 5, 9, 13);
        qr(&mut s, 2, 6, 10, 14);
        qr(&mut s, 3, 7, 11, 15);
        qr(&mut s, 0, 5, 10, 15);
        qr(&mut s, 1, 6, 11, 12);
        qr(&mut s, 2, 7, 8, 13);
        qr(&mut s, 3, 4, 9, 14);
    }
    s
}

/// The ChaCha20 block function on words: `permute(state) + state` (word-wise, mod 2^32).
pub fn permute_add(state: &[u32; 16]) -> [u32; 16] {
    let p = permute(state);
    let mut out = [0u32; 16];
    for i in 0..16 {
        out[i] = p[i].wrapping_add(state[i]);
    }
    out
}

/// RFC 8439 block function: 64 bytes of keystream for block `counter` (crate `chacha20`).
pub fn block(key: &[u8; 32], counter: u32, nonce: &[u8; 12]) -> [u8; 64] {
    let mut c = chacha20::ChaCha20::new(&Array::from(*key), &Array::from(*nonce));
    c.seek(counter as u64 * 64);
    let mut out = [0u8; 64];
    c.apply_keystream(&mut out);
    out
}

/// RFC 8439 encryption/decryption: XOR `data` with the keystream starting at block `counter`.
pub fn xor_stream(key: &[u8; 32], nonce: &[u8; 12], counter: u32, data: &[u8]) -> Vec<u8> {
    let mut c = chacha20::ChaCha20::new(&Array::from(*key), &Array::from(*nonce));
    c.seek(counter as u64 * 64);
    let mut out = data.to_vec();
    c.apply_keystream(&mut out);
    out
}

/// Serialises 16 words little-endian (the RFC 8439 block byte order).
pub fn words_to_bytes(w: &[u32; 16]) -> [u8; 64] {
    let mut out = [0u8; 64];
    for i in 0..16 {
        out[4 * i..4 * i + 4].copy_from_slice(&w[i].to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::{hex, hexa, SplitMix64};

    fn rfc_key() -> [u8; 32] {
        let mut k = [0u8; 32];
        for (i, b) in k.iter_mut().enumerate() {
            *b = i as u8;
        }
        k
    }

    #[test]
    fn rfc8439_2_3_2() {
        let nonce = hexa("000000090000004a00000000");
        let expect = hex(
            "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e\
             d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
        );
        assert_eq!(block(&rfc_key(), 1, &nonce).to_vec(), expect);
        let st = init_state(&rfc_key(), 1, &nonce);
        assert_eq!(words_to_bytes(&permute_add(&st)).to_vec(), expect);
        // RFC 8439 §2.3.2 state after 20 rounds (before the addition)
        let after: [u32; 16] = [
            0x837778ab, 0xe238d763, 0xa67ae21e, 0x5950bb2f, 0xc4f2d0c7, 0xfc62bb2f, 0x8fa018fc,
            0x3f5ec7b7, 0x335271c2, 0xf29489f3, 0xeabda8fc, 0x82e46ebd, 0xd19c12b4, 0xb04e16de,
            0x9e83d0cb, 0x4e3c50a2,
        ];
        assert_eq!(permute(&st), after);
    }

    #[test]
    fn rfc8439_2_4_2_encryption() {
        let nonce = hexa("000000000000004a00000000");
        let pt = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
        let ct = xor_stream(&rfc_key(), &nonce, 1, pt);
        assert_eq!(ct[..16].to_vec(), hex("6e2e359a2568f98041ba0728dd0d6981"));
        assert_eq!(ct[ct.len() - 2..].to_vec(), hex("874d"));
    }

    #[test]
    fn model_vs_crate_random() {
        let mut g = SplitMix64::new(2);
        for _ in 0..1000 {
            let k = g.bytes();
            let n = g.bytes();
            let ctr = g.next_u32();
            assert_eq!(
                words_to_bytes(&permute_add(&init_state(&k, ctr, &n))),
                block(&k, ctr, &n)
            );
        }
    }
}
