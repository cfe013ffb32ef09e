//! twain: an embeddable, persistent, ordered key-value store for SSDs — an LSM-tree with
//! key-value separation.
//!
//! See `docs/` for the architecture and the on-disk formats.
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod cache;
mod error;
pub mod format;
pub mod fs;
pub mod iter;
pub mod key;
pub mod table;

pub use error::{Error, Result};
