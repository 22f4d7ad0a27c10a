//! Concrete (monomorphic) types and type resolution.

use crate::ir::Slicing;
use std::fmt;

/// A concrete source type: `nat`, or words of `bits` bits arranged in `shape`
/// (array dims outermost first, then the vector count: `u16x4[3]` → shape `[3, 4]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Nat,
    Words {
        dir: Slicing,
        bits: u32,
        shape: Vec<usize>,
    },
}

impl Ty {
    pub fn n_words(&self) -> usize {
        match self {
            Ty::Nat => 0,
            Ty::Words { shape, .. } => shape.iter().product(),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Nat => f.write_str("nat"),
            Ty::Words { dir, bits, shape } => {
                write!(f, "u<{}>{}", dir, bits)?;
                for d in shape {
                    write!(f, "[{}]", d)?;
                }
                Ok(())
            }
        }
    }
}
