//! twain: an embeddable, persistent, ordered key-value store for SSDs — an LSM-tree with
//! key-value separation.
//!
//! See `docs/` for the architecture and the on-disk formats.
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod batch;
pub mod cache;
pub mod compaction;
mod db;
pub mod dump;
mod error;
pub mod format;
pub mod fs;
pub mod iter;
pub mod key;
pub mod memtable;
mod options;
mod stats;
pub mod table;
pub mod version;
pub mod vlog;

pub use batch::{BatchOp, WriteBatch};
pub use db::{Db, DbIterator, KvPair, Snapshot};
pub use error::{Error, Result};
pub use options::{
    MAX_BATCH_SIZE, MAX_KEY_SIZE, MAX_VALUE_SIZE, Options, WriteOptions, parse_size,
};
pub use stats::{DiskUsage, LevelStats, Stats, ValueFileStats};
