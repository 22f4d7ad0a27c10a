//! DES (FIPS 46-3) via the RustCrypto `des` crate. Key and block are big-endian byte strings
//! as in FIPS 46 (bit 1 = MSB of byte 0); key parity bits are ignored.

use des::cipher::{Array, BlockCipherEncrypt, KeyInit};

/// DES encryption of one 8-byte block.
pub fn encrypt(key: &[u8; 8], block: &[u8; 8]) -> [u8; 8] {
    let c = des::Des::new(&Array::from(*key));
    let mut b = Array::from(*block);
    c.encrypt_block(&mut b);
    b.into()
}

/// Same as [`encrypt`] on u64 values (big-endian: bit 1 of FIPS 46 = bit 63).
pub fn encrypt_u64(key: u64, block: u64) -> u64 {
    u64::from_be_bytes(encrypt(&key.to_be_bytes(), &block.to_be_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::hexa;
    #[test]
    fn classic_vector() {
        assert_eq!(
            encrypt(&hexa("133457799BBCDFF1"), &hexa("0123456789ABCDEF")),
            hexa::<8>("85e813540f0ab405")
        );
        assert_eq!(
            encrypt_u64(0x133457799BBCDFF1, 0x0123456789ABCDEF),
            0x85e813540f0ab405
        );
    }
}
