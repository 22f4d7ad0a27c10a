//! C generation from verified Usuba0 IR (being written).
pub mod target;
pub use target::{instances_per_call, Arch};
