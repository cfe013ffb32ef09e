//! SSTables: immutable sorted files of internal entries, written once by flush, compaction
//! or value GC, then read by point lookups and iterators.
//!
//! - [`TableBuilder`] writes a table from entries in internal-key order;
//! - [`Table`] opens one, keeps its index, filter and properties in memory, and serves
//!   [`Table::get`] and [`Table::iter`] through the shared [`BlockCache`](crate::cache::BlockCache);
//! - `dump` prints a table for humans.
//!
//! The bytes are encoded by `format::{block, bloom, table}` and specified in
//! `docs/format/sstable.md`.

mod builder;
mod dump;
mod iter;
mod reader;

pub use crate::format::table::TableProperties;
pub use builder::TableBuilder;
pub use dump::dump;
pub use iter::TableIter;
pub use reader::Table;

use crate::format::block::DEFAULT_RESTART_INTERVAL;

/// How a table is laid out. Only the writer needs these: a reader learns everything from the
/// file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOptions {
    /// Target size of a data block's contents in bytes: a block is closed once it reaches
    /// this size. Default 4096.
    pub block_size: usize,
    /// Entries between restart points of a data block. Default 16.
    pub restart_interval: usize,
    /// Bloom filter bits per user key; 0 writes no filter. Default 10 (about 1% false
    /// positives).
    pub bloom_bits_per_key: u32,
    /// How data blocks are compressed (index, filter and properties blocks never are).
    /// Default none.
    pub compression: crate::format::compression::Compression,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            block_size: 4096,
            restart_interval: DEFAULT_RESTART_INTERVAL,
            bloom_bits_per_key: 10,
            compression: Default::default(),
        }
    }
}

/// What [`TableBuilder::finish`] wrote: enough for the manifest to describe the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    /// The file's size in bytes.
    pub file_size: u64,
    /// The smallest internal key in the table.
    pub smallest: Vec<u8>,
    /// The largest internal key in the table.
    pub largest: Vec<u8>,
    /// The table's properties, as written in it.
    pub properties: TableProperties,
}
