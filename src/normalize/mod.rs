//! Normalisation: the checked program to Usuba0 IR.
pub mod sbox;
