//! twain: an embeddable, persistent, ordered key-value store for SSDs — an LSM-tree with
//! key-value separation.
//!
//! See `docs/` for the architecture and the on-disk formats.
//!
//! ```
//! use twain::{Db, Options, WriteBatch, WriteOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let db = Db::open(dir.path(), Options::default())?;
//! db.put("apple", "red")?;
//! let mut batch = WriteBatch::new();
//! batch.put("banana", "yellow").delete("apple");
//! db.write(batch, &WriteOptions::synced())?; // durable when it returns
//! assert_eq!(db.get("banana")?, Some(b"yellow".to_vec()));
//!
//! let snapshot = db.snapshot();
//! db.put("cherry", "dark red")?;
//! assert_eq!(snapshot.get("cherry")?, None);
//! let keys: Vec<Vec<u8>> = db.range("a".."c").rev().map(|kv| kv.map(|(k, _)| k)).collect::<Result<_, _>>()?;
//! assert_eq!(keys, vec![b"banana".to_vec()]);
//! db.flush()?;
//! db.compact_range(None, None)?;
//! assert_eq!(db.stats()?.levels.iter().map(|l| l.files).sum::<usize>(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The public surface
//!
//! The API is what this page lists: the types re-exported at the crate root ([`Db`],
//! [`Options`], [`WriteOptions`], [`ReadOptions`], [`WriteBatch`], [`Snapshot`], the
//! iterators, [`Stats`], [`Error`], ...) and the modules [`backup`], [`check`](mod@check),
//! [`fs`] and [`repair`](mod@repair), for the operator's tools and for a file system of
//! one's own. The engine's other modules (formats, tables, the value log, compaction, GC,
//! ...) are public only so that twain's own CLI, benchmarks, fuzzers and tests can reach
//! them: they are hidden from these docs and not covered by semantic versioning. Runnable
//! examples are in `crates/twain/examples`.
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

/// The README's Rust code blocks, compiled by `cargo test` as doc tests (issue 16, item 5):
/// the "Use it as a library" snippet must keep compiling against the API it shows. It opens
/// a fixed path, so it is compiled, not run (`no_run`); the crate docs above run the same
/// calls in a temporary directory.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

pub mod backup;
mod batch;
#[doc(hidden)]
pub mod cache;
pub mod check;
mod clock;
#[doc(hidden)]
pub mod compaction;
mod db;
#[doc(hidden)]
pub mod dump;
mod error;
mod event_log;
#[doc(hidden)]
pub mod format;
pub mod fs;
#[doc(hidden)]
pub mod gc;
mod hash_layout;
#[doc(hidden)]
pub mod iter;
#[doc(hidden)]
pub mod key;
mod memtable;
mod options;
mod placement;
pub mod repair;
mod seq_set;
mod stats;
#[doc(hidden)]
pub mod table;
#[doc(hidden)]
pub mod version;
#[doc(hidden)]
pub mod vlog;

pub use batch::{BatchOp, WriteBatch};
pub use bytes::Bytes;
pub use clock::{Clock, ManualClock, SystemClock};
pub use db::{
    COPY_MARKER, CheckpointInfo, CopyInfo, Db, DbIterator, Entries, Entry, KeyExpiry, Keys, KvPair,
    Pinned, PinnedPair, Snapshot,
};
pub use error::{Error, Result};
pub use format::compression::Compression;
pub use gc::{FileVerdict, GcReport, StayReason};
pub use memtable::MAX_RANGE_DELETIONS;
pub use options::{
    CompactionPriority, GC_THRESHOLD_RANGE, GcEvent, GcListener, GcMode, LevelSizing,
    MAX_BATCH_SIZE, MAX_KEY_SIZE, MAX_VALUE_SIZE, OPTION_RANGES, OptionRange, Options, ReadOptions,
    SPACE_AMP_TARGET_RANGE, ValueLayout, WriteOptions, parse_size,
};
pub use repair::{RepairReport, repair};
pub use stats::{
    DiskUsage, HashLayoutStats, LevelStats, SpaceTarget, Stats, Totals, ValueFileStats,
};
