//! C generation from verified Usuba0 IR (being written).
pub mod target;
pub use target::{instances_per_call, Arch};

use std::fmt;

/// A combination the chosen target cannot express (a user-facing message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError(pub String);

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CodegenError {}
