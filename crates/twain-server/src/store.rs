//! [`Store`]: the database as commands see it — the engine, the striped key locks that
//! make read-modify-write commands atomic, and the durability of writes.
//! Thread-safe; shared by every connection.

use crate::config::SyncMode;
use crate::locks::{KeyGuard, KeyLocks};
use std::sync::atomic::{AtomicBool, Ordering};
use twain::{Db, WriteBatch, WriteOptions};

/// The engine and what commands need around it. Thread-safe.
#[derive(Debug)]
pub struct Store {
    db: Db,
    locks: KeyLocks,
    write_options: WriteOptions,
    /// Set by every write, cleared by [`Store::sync_if_dirty`].
    dirty: AtomicBool,
}

impl Store {
    /// Wraps an open database; writes are synced before they return when `sync` is
    /// [`SyncMode::Always`].
    pub fn new(db: Db, sync: SyncMode) -> Store {
        Store {
            db,
            locks: KeyLocks::default(),
            write_options: WriteOptions::default().sync(sync == SyncMode::Always),
            dirty: AtomicBool::new(false),
        }
    }

    /// The engine, for reads and statistics.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// The newest value of `key`.
    pub fn get(&self, key: &[u8]) -> twain::Result<Option<Vec<u8>>> {
        self.db.get(key)
    }

    /// Locks the stripes of `keys` (see [`KeyLocks::lock`]).
    pub fn lock<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) -> KeyGuard<'_> {
        self.locks.lock(keys)
    }

    /// Locks every stripe: no other write runs until the guard drops.
    pub fn lock_all(&self) -> KeyGuard<'_> {
        self.locks.lock_all()
    }

    /// Applies `batch` atomically, synced first in [`SyncMode::Always`].
    /// REQUIRES: `_held` holds the stripes of every key in `batch`.
    pub fn write(&self, _held: &KeyGuard<'_>, batch: WriteBatch) -> twain::Result<()> {
        let result = self.db.write(batch, &self.write_options);
        // A refused write (a read-only or failed database) leaves nothing to sync.
        if result.is_ok() {
            self.dirty.store(true, Ordering::Release);
        }
        result
    }

    /// Syncs the value log if anything was written since the last call; returns whether
    /// it synced.
    pub fn sync_if_dirty(&self) -> twain::Result<bool> {
        if !self.dirty.swap(false, Ordering::AcqRel) {
            return Ok(false);
        }
        self.db.sync().map(|()| true)
    }

    /// Gives the database back, to flush and close it.
    pub fn into_db(self) -> Db {
        self.db
    }
}
