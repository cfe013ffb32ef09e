//! Helpers shared by the table tests: build a table file with `RealFs`, open it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use twain::cache::BlockCache;
use twain::format::handle::ValueHandle;
use twain::fs::{Fs, RealFs};
use twain::key::{EntryKind, internal_key};
use twain::table::{Table, TableBuilder, TableOptions, TableSummary};

/// An internal key and its value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// An inline entry.
pub fn inline(user: &[u8], seq: u64, value: &[u8]) -> Entry {
    (
        internal_key(user, seq, EntryKind::Inline as u8),
        value.to_vec(),
    )
}

/// A tombstone.
pub fn tombstone(user: &[u8], seq: u64) -> Entry {
    (internal_key(user, seq, EntryKind::Delete as u8), Vec::new())
}

/// An entry holding a value handle.
pub fn handle(user: &[u8], seq: u64, h: ValueHandle) -> Entry {
    (internal_key(user, seq, EntryKind::Handle as u8), h.encode())
}

/// Writes `entries` (sorted, distinct) as a table at `path`.
pub fn write_table(path: &Path, entries: &[Entry], opts: &TableOptions) -> TableSummary {
    let file = RealFs::new().create(path).unwrap();
    let mut b = TableBuilder::new(file, path.to_path_buf(), opts);
    for (k, v) in entries {
        b.add(k, v).unwrap();
    }
    b.finish().unwrap()
}

/// Opens the table at `path` as table `number` with its own cache of `cache_bytes`.
pub fn open_table(path: &Path, number: u64, cache: Arc<BlockCache>) -> twain::Result<Arc<Table>> {
    let fs = RealFs::new();
    let file = fs.open_read(path).unwrap();
    let size = fs.file_size(path).unwrap();
    Table::open(number, path.to_path_buf(), file, size, cache).map(Arc::new)
}

/// A temporary directory holding one table built from `entries`.
pub struct TempTable {
    /// Keeps the directory alive.
    pub dir: tempfile::TempDir,
    /// The table file.
    pub path: PathBuf,
    /// What the builder returned.
    pub summary: TableSummary,
}

impl TempTable {
    /// Builds the table.
    pub fn new(entries: &[Entry], opts: &TableOptions) -> TempTable {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.sst");
        let summary = write_table(&path, entries, opts);
        TempTable { dir, path, summary }
    }

    /// Opens it with a fresh 1 MiB cache.
    pub fn open(&self) -> Arc<Table> {
        open_table(&self.path, 1, Arc::new(BlockCache::new(1 << 20))).unwrap()
    }
}
