//! Independent reference implementations used as test oracles for the cipher library.
//! (Full documentation: see the end of this header once all modules are in.)

pub mod prng;

pub mod aes128;
pub mod ascon;
pub mod chacha20;
pub mod clyde128;
pub mod des;
pub mod gift128;
pub mod gimli;
pub mod photon256;
pub mod present80;
pub mod pyjamask128;
pub mod rectangle80;
pub mod serpent;
pub mod skinny128;
pub mod spongent160;
pub use skinny128::{skinny128_256, skinny128_384};
pub mod xoodoo;
