//! [`Db`]: the public face of the engine. It delegates: opening and recovery to `open`,
//! writes to `write`, point reads to `read`, iteration to `iter`, background work to
//! `background`, `flush`, `compact` and `value_gc`.

mod background;
mod checkpoint;
mod coalesce;
mod compact;
mod copy;
mod delete_range;
mod entries;
mod expiry;
mod find_many;
mod flush;
mod group_gc;
mod iter;
pub(crate) mod listing;
pub(crate) mod multi_get;
mod offload;
mod open;
mod pacing;
mod parts;
mod pinned;
mod prefetch;
mod priority;
mod punch;
mod range_expand;
mod range_view;
pub(crate) mod read;
mod relocate;
mod snapshot;
mod space;
mod stale;
pub(crate) mod value_gc;
pub(crate) mod write;

pub use expiry::KeyExpiry;

pub(crate) use crate::compaction::part::finish_table;
pub use checkpoint::CheckpointInfo;
pub use copy::{COPY_MARKER, CopyInfo};
pub use entries::{Entries, Entry, Keys};
pub use iter::{DbIterator, KvPair, PinnedPair};
pub use pinned::Pinned;
pub use snapshot::Snapshot;

use crate::cache::BlockCache;
use crate::event_log::event;
use crate::fs::{FileLock, Fs};
use crate::key::SeqNo;
use crate::memtable::Memtable;
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::stats::{Counters, Stats};
use crate::version::{Version, VersionSet};
use crate::{Error, Result, WriteBatch};
use arc_swap::ArcSwap;
use std::collections::BTreeMap;
use std::ops::{Bound, RangeBounds};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// What a reader needs, published as one immutable snapshot: the memtables and the
/// version. Holding one keeps its memtables and files alive.
#[derive(Debug)]
pub(crate) struct SuperVersion {
    /// The active memtable.
    pub mem: Arc<Memtable>,
    /// Frozen memtables, newest first.
    pub imms: Vec<Arc<Memtable>>,
    /// The current version.
    pub version: Arc<Version>,
}

/// Locks a mutex, recovering the guard if another thread panicked while holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shared state behind a [`Db`] handle. Thread-safe.
///
/// Lock order (never taken in the other direction): `write_state` -> `versions` ->
/// `sv_lock`; `bg.state` is taken alone or after `versions`; the locks of `live_cache` and
/// `gc_tallies` are leaves (taken alone or last).
pub(crate) struct DbInner {
    pub dir: PathBuf,
    pub opts: Options,
    pub fs: Arc<dyn Fs>,
    pub cache: Arc<BlockCache>,
    pub versions: Mutex<VersionSet>,
    pub super_version: ArcSwap<SuperVersion>,
    pub sv_lock: Mutex<()>,
    pub write: write::WritePath,
    /// Sequence numbers up to this one are fully applied and visible to readers.
    pub visible_seq: AtomicU64,
    /// Live snapshots: sequence -> count.
    pub snapshots: Mutex<BTreeMap<SeqNo, usize>>,
    pub bg: background::Background,
    /// Set after a failed write or sync: the database refuses writes until reopened.
    pub bg_error: Mutex<Option<String>>,
    pub has_bg_error: AtomicBool,
    pub counters: Arc<Counters>,
    /// Drop sets of the live value files; its mutex is the drop lock.
    pub drop_index: crate::vlog::DropIndex,
    /// Held by the value GC run in progress (one at a time).
    pub gc_lock: Mutex<()>,
    /// Set when the database closes: ends a GC run's waits for `gc_bytes_per_sec`.
    pub gc_closing: Arc<crate::gc::Closing>,
    /// Complete GCs (`Db::gc`) in progress: a paced background run does not rest while a
    /// user waits for its lock (`pacing::RunPace`).
    pub manual_gcs: AtomicU64,
    /// The value log's durability: sealed files awaiting their sync, the spare file, and
    /// syncs in file order off the writer's path.
    pub log_sync: crate::vlog::LogSync,
    /// Value files GC set aside (damaged where a live record may lie).
    pub gc_set_aside: crate::gc::SetAsideList,
    /// Hash layout: what the reserved pool knows of the garbage on disk
    /// (`group_gc::PoolState`).
    pub hash_pool: group_gc::PoolState,
    /// What the engine tells its operator (`event_log`).
    pub events: crate::event_log::EventLog,
    /// Punches waiting for readers, and whether the file system can punch holes.
    pub gc_punch: punch::PunchState,
    /// The lock on the directory; `None` when opened read-only.
    pub lock: Option<Arc<dyn FileLock>>,
    /// Why the database was opened read-only, if it was.
    pub read_only: Option<String>,
    /// The database's identity (`format::identity`); `None` only for a read-only open of
    /// a database that never had one.
    pub identity: Option<String>,
    /// Directory entries that are not the engine's files (never read nor removed).
    pub unexpected: Vec<PathBuf>,
    /// The newest live-data pass (`Stats::live_bytes`), made in the background.
    pub live_cache: space::LiveCache,
    /// Handles value GC runs made stale since that pass, for refresh compactions.
    pub gc_tallies: stale::GcTallies,
    /// Manual compactions running: while nonzero, reads make no handle fix-ups, so that
    /// placement can merge any record into the tree (`compaction::place`). Changed under the
    /// write lock.
    pub fixups_paused: AtomicU64,
    /// Manual compactions started since open (changed under the write lock with
    /// `fixups_paused`): a fix-up whose checks straddle one's start is not made.
    pub manual_compactions: AtomicU64,
    /// The threads that read values ahead of iterators.
    pub prefetch: prefetch::PrefetchPool,
    /// Compaction parts offloaded to a worker (Co-KV).
    pub offload: offload::OffloadState,
    /// vlog GC mode: the value of `Counters::log_bytes` at which user writes wait for GC
    /// to make room under the space budget (`background::set_log_room`); `u64::MAX`, no
    /// limit, in the other modes and until the first live-data pass.
    pub log_limit: AtomicU64,
    /// Reads of user iterators, counted once per scan and once per 256 entries
    /// (`DbIterator`); with `Counters::gets` it tells the pacing a reading foreground
    /// from a quiet one (`pacing::Foreground`). Not a statistic.
    pub iterator_reads: AtomicU64,
}

impl DbInner {
    /// Publishes a new super version built from the current one; returns the version
    /// generation it is published at (`space::LiveCache::generation`).
    /// REQUIRES: the caller holds `versions` if it changes the version, so versions are
    /// published in the order they were installed.
    pub fn update_super_version(&self, f: impl FnOnce(&SuperVersion) -> SuperVersion) -> u64 {
        self.publish(f, true)
    }

    /// Publishes `version`, which differs from the current one by an empty value file
    /// only (the log thread's spare): no live data changed, so the cached live-data pass
    /// stays current and the background makes no new pass over every table for it.
    /// REQUIRES: as [`update_super_version`](Self::update_super_version).
    pub fn publish_empty_file(&self, version: Arc<crate::version::Version>) {
        self.publish(
            |sv| SuperVersion {
                mem: Arc::clone(&sv.mem),
                imms: sv.imms.clone(),
                version,
            },
            false,
        );
    }

    fn publish(&self, f: impl FnOnce(&SuperVersion) -> SuperVersion, data_changed: bool) -> u64 {
        let _g = lock(&self.sv_lock);
        let cur = self.super_version.load_full();
        let new = f(&cur);
        if data_changed && !Arc::ptr_eq(&cur.version, &new.version) {
            self.live_cache.version_changed();
        }
        self.super_version.store(Arc::new(new));
        self.live_cache.generation()
    }

    /// The current super version.
    pub fn super_version(&self) -> Arc<SuperVersion> {
        self.super_version.load_full()
    }

    /// A consistent read view for a reader that is not a registered snapshot: a super
    /// version and a sequence number such that the super version's memtables and files
    /// hold every version visible at that sequence.
    ///
    /// The sequence is read between two loads of the super version, retrying until both
    /// loads agree. Flushes and compactions drop versions that no *registered* snapshot
    /// can see, but they publish a new super version when they do; so does every memtable
    /// switch and value-file roll (the writer registers a value file before any entry
    /// pointing into it becomes visible).
    pub fn read_view(&self) -> (Arc<SuperVersion>, SeqNo) {
        loop {
            let sv = self.super_version.load_full();
            let seq = self.visible_seq.load(Ordering::Acquire);
            if Arc::ptr_eq(&sv, &*self.super_version.load()) {
                return (sv, seq);
            }
        }
    }

    /// Records a failure that makes the database read-only, and returns the error to
    /// report for it.
    pub fn set_bg_error(&self, err: Error) -> Error {
        self.set_bg_error_message(format!("{err}; reopen to recover"));
        err
    }

    /// Makes the database read-only for the reason `msg` (kept if one was recorded before).
    pub fn set_bg_error_message(&self, msg: String) {
        let mut g = lock(&self.bg_error);
        if g.is_none() {
            event!(self.events, Error, "the database is read-only: {msg}");
            *g = Some(msg);
        }
        self.has_bg_error.store(true, Ordering::Release);
        drop(g);
        self.bg.notify_all();
    }

    /// Fails if the directory's `LOCK` is no longer the file this database locked (see
    /// [`crate::version::check_lock`]); `Ok` for a database opened read-only.
    pub fn check_lock(&self) -> Result<()> {
        match &self.lock {
            Some(l) => crate::version::check_lock(l.as_ref(), &self.dir),
            None => Ok(()),
        }
    }

    /// Fails if the database is in its read-only error state.
    pub fn check_bg_error(&self) -> Result<()> {
        if self.has_bg_error.load(Ordering::Acquire) {
            let msg = lock(&self.bg_error).clone().unwrap_or_default();
            return Err(Error::ReadOnly(msg));
        }
        Ok(())
    }

    /// Sequence numbers of the live snapshots.
    pub fn snapshot_seqs(&self) -> Vec<SeqNo> {
        lock(&self.snapshots).keys().copied().collect()
    }
}

/// An open twain database. `Send + Sync`: share it between threads (e.g. in an `Arc`).
/// Dropping it closes the database: background work stops and the value log is synced.
pub struct Db {
    inner: Arc<DbInner>,
}

#[cfg(test)]
impl Db {
    /// The engine's state, for unit tests of the modules `db` drives.
    pub(crate) fn inner(&self) -> &DbInner {
        &self.inner
    }
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db").field("dir", &self.inner.dir).finish()
    }
}

impl Db {
    /// Opens (or, with `create_if_missing`, creates) the database in directory `path`,
    /// recovering whatever the last run left: the manifest's version, then the value log
    /// replayed from the flushed point.
    ///
    /// If the file system refuses to open the `LOCK` file for writing (a read-only mount,
    /// or no write permission), the database opens read-only as with
    /// [`open_read_only`](Self::open_read_only), and [`read_only`](Self::read_only) says
    /// why.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for an option out of its range, or for a directory
    /// holding a copy that did not finish ([`Db::copy_into`]); [`Error::NotFound`]
    /// without a database and `create_if_missing` off; [`Error::AlreadyExists`] with one
    /// and `error_if_exists` on; [`Error::Locked`] while another handle or process has it
    /// open; [`Error::Corruption`] naming the file and offset if the manifest, a table or
    /// the value log is damaged (a torn tail of the log is not damage: it is truncated);
    /// [`Error::Io`] if the directory cannot be read or written.
    pub fn open(path: impl AsRef<Path>, opts: Options) -> Result<Db> {
        copy::refuse_unfinished_copy(opts.fs.as_ref(), path.as_ref())?;
        let inner = open::open(path.as_ref(), opts, false)?;
        Ok(Db { inner })
    }

    /// Opens the existing database in directory `path` for reading only, without writing a
    /// byte: no `LOCK` is taken or created, a torn tail of the value log is ignored in
    /// memory instead of truncated, no manifest, log file or drop file is written or
    /// removed, and no background thread runs. Reads and iterators see the recovered
    /// state; every write (and `flush`, `compact_range`, `gc`, `sync`) fails with
    /// [`Error::ReadOnly`].
    ///
    /// It takes no lock, so it works while another process has the database open. It then
    /// sees the state of the moment it opened (what that writer had handed to the
    /// operating system), never later writes: reopen to see them. If the writer deletes a
    /// file the open just read about (a flush, compaction or GC finishing), the open
    /// starts over, up to five times. Files the writer deletes
    /// after the open (compacted tables, collected value files) stay readable once opened,
    /// but one deleted before this handle first read it fails that read with
    /// `Error::Io`; reopen then.
    pub fn open_read_only(path: impl AsRef<Path>, opts: Options) -> Result<Db> {
        copy::refuse_unfinished_copy(opts.fs.as_ref(), path.as_ref())?;
        let inner = open::open_read_only(path.as_ref(), opts)?;
        Ok(Db { inner })
    }

    /// Why the database is read-only from its open (`Db::open_read_only`, or a file
    /// system that refused writes); `None` for a writable open. A failure later in a
    /// writable database shows in [`health`](Self::health), not here.
    pub fn read_only(&self) -> Option<&str> {
        self.inner.read_only.as_deref()
    }

    /// The database's identity (the `IDENTITY` file: a random id made by the first
    /// writable open), which a compaction worker checks before it takes a part. `None`
    /// only for a read-only open of a database no writable open has given one.
    pub fn identity(&self) -> Option<&str> {
        self.inner.identity.as_deref()
    }

    /// Entries of the directory that are not the engine's files: unknown names, and
    /// entries named like the engine's files that are not regular files (a directory
    /// named `000300.sst`). Open neither reads nor removes them; `twain check` lists them.
    pub fn unexpected_entries(&self) -> &[PathBuf] {
        &self.inner.unexpected
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.inner.dir
    }

    /// The options it was opened with.
    pub fn options(&self) -> &Options {
        &self.inner.opts
    }

    /// Sets `key` to `value` (not synced: see [`put_opt`](Self::put_opt)).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a key over 64 KiB, a value over 64 MiB or a batch
    /// over its limit ([`MAX_KEY_SIZE`](crate::MAX_KEY_SIZE), ...), with nothing written;
    /// [`Error::ReadOnly`] on a read-only open or after a failure (see
    /// [`health`](Self::health)); [`Error::Io`] if the write or its sync fails, after
    /// which the database is read-only until reopened (a failed fsync is never retried).
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = twain::Db::open(dir.path(), twain::Options::default())?;
    /// db.put("k", "v")?;
    /// db.put_opt("k", "w", &twain::WriteOptions::synced())?; // durable on return
    /// assert!(db.put(vec![0u8; 70_000], "too long a key").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn put(&self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        self.put_opt(key, value, &WriteOptions::default())
    }

    /// Sets `key` to `value` with write options.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a key over 64 KiB, a value over 64 MiB or a batch
    /// over its limit ([`MAX_KEY_SIZE`](crate::MAX_KEY_SIZE), ...), with nothing written;
    /// [`Error::ReadOnly`] on a read-only open or after a failure (see
    /// [`health`](Self::health)); [`Error::Io`] if the write or its sync fails, after
    /// which the database is read-only until reopened (a failed fsync is never retried).
    pub fn put_opt(
        &self,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        opts: &WriteOptions,
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value);
        self.write(b, opts)
    }

    /// Deletes `key` (not synced).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a key over 64 KiB, a value over 64 MiB or a batch
    /// over its limit ([`MAX_KEY_SIZE`](crate::MAX_KEY_SIZE), ...), with nothing written;
    /// [`Error::ReadOnly`] on a read-only open or after a failure (see
    /// [`health`](Self::health)); [`Error::Io`] if the write or its sync fails, after
    /// which the database is read-only until reopened (a failed fsync is never retried).
    pub fn delete(&self, key: impl AsRef<[u8]>) -> Result<()> {
        self.delete_opt(key, &WriteOptions::default())
    }

    /// Deletes `key` with write options.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a key over 64 KiB, a value over 64 MiB or a batch
    /// over its limit ([`MAX_KEY_SIZE`](crate::MAX_KEY_SIZE), ...), with nothing written;
    /// [`Error::ReadOnly`] on a read-only open or after a failure (see
    /// [`health`](Self::health)); [`Error::Io`] if the write or its sync fails, after
    /// which the database is read-only until reopened (a failed fsync is never retried).
    pub fn delete_opt(&self, key: impl AsRef<[u8]>, opts: &WriteOptions) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key);
        self.write(b, opts)
    }

    /// Applies a batch atomically. With `opts.sync`, returns only after the batch (and
    /// everything written before it) is durable.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a key over 64 KiB, a value over 64 MiB or a batch
    /// over its limit ([`MAX_KEY_SIZE`](crate::MAX_KEY_SIZE), ...), with nothing written;
    /// [`Error::ReadOnly`] on a read-only open or after a failure (see
    /// [`health`](Self::health)); [`Error::Io`] if the write or its sync fails, after
    /// which the database is read-only until reopened (a failed fsync is never retried).
    pub fn write(&self, batch: WriteBatch, opts: &WriteOptions) -> Result<()> {
        write::write(&self.inner, batch, opts.sync)
    }

    /// Makes every write so far durable.
    ///
    /// # Errors
    ///
    /// [`Error::ReadOnly`] on a read-only open or after a failure; [`Error::Io`] if the
    /// fsync fails, after which the database is read-only until reopened.
    pub fn sync(&self) -> Result<()> {
        write::sync_log(&self.inner)
    }

    /// `Ok` while the database accepts writes; `Error::ReadOnly` naming the cause once a
    /// failure (a failed fsync, a failed flush, compaction or value GC, a `LOCK` file
    /// removed or replaced under it) has made it read-only until reopened, or when it was
    /// opened read-only. Background work fails asynchronously: this is how a caller learns
    /// of it without attempting a write.
    pub fn health(&self) -> Result<()> {
        self.inner.check_bg_error()
    }

    /// The newest value of `key`, or `None`.
    ///
    /// # Errors
    ///
    /// [`Error::Corruption`] naming the file and offset if a table block or the value is
    /// damaged, [`Error::Io`] if a read fails.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = twain::Db::open(dir.path(), twain::Options::default())?;
    /// db.put("k", "v")?;
    /// assert_eq!(db.get("k")?, Some(b"v".to_vec()));
    /// assert_eq!(db.get("missing")?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.get_opt(key, &ReadOptions::default())
    }

    /// The newest value of `key`, or `None`, read with `opts` (see [`ReadOptions`]).
    ///
    /// # Errors
    ///
    /// As [`Db::get`].
    pub fn get_opt(&self, key: impl AsRef<[u8]>, opts: &ReadOptions) -> Result<Option<Vec<u8>>> {
        let key = key.as_ref();
        let (sv, seq) = self.inner.read_view();
        Ok(read::get_in(&self.inner, &sv, key, seq, opts, false)?.map(read::into_vec))
    }

    /// The newest value of `key`, or `None`, shared rather than copied: an inline value
    /// shares the table block it lies in (from the block cache, or read for this call), a
    /// separated value the buffer it was read into; a memtable's value is copied once.
    /// The [`Bytes`](bytes::Bytes) keep what they share alive while held.
    ///
    /// # Errors
    ///
    /// As [`Db::get`].
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = twain::Db::open(dir.path(), twain::Options::default())?;
    /// db.put("k", vec![7u8; 100_000])?;
    /// db.flush()?;
    /// let value: twain::Bytes = db.get_pinned("k")?.unwrap();
    /// assert_eq!(value.len(), 100_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_pinned(&self, key: impl AsRef<[u8]>) -> Result<Option<bytes::Bytes>> {
        self.get_pinned_opt(key, &ReadOptions::default())
    }

    /// As [`Db::get_pinned`], read with `opts` (see [`ReadOptions`]).
    ///
    /// # Errors
    ///
    /// As [`Db::get`].
    pub fn get_pinned_opt(
        &self,
        key: impl AsRef<[u8]>,
        opts: &ReadOptions,
    ) -> Result<Option<bytes::Bytes>> {
        let (sv, seq) = self.inner.read_view();
        read::get_in(&self.inner, &sv, key.as_ref(), seq, opts, true)
    }

    /// The values of `keys`, in order, all read at one view (as `get` of each would see
    /// the database at one instant). Separated values in one value file are read together:
    /// in file order, with values that lie close together in one positional read.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let db = twain::Db::open(dir.path(), twain::Options::default())?;
    /// db.put("a", "1")?;
    /// db.put("c", "3")?;
    /// let values = db.multi_get(&["a", "b", "c"])?;
    /// assert_eq!(values, vec![Some(b"1".to_vec()), None, Some(b"3".to_vec())]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As a `get` of any of the keys: `Corruption` naming the file and offset of a damaged
    /// entry, `Io` when a read fails. Nothing is returned for the other keys then.
    pub fn multi_get<K: AsRef<[u8]>>(&self, keys: &[K]) -> Result<Vec<Option<Vec<u8>>>> {
        let keys: Vec<&[u8]> = keys.iter().map(AsRef::as_ref).collect();
        let (sv, view) = self.inner.read_view();
        multi_get::multi_get(&self.inner, &sv, view, &keys)
    }

    /// A consistent read view: reads and iterators through it see the database as it is
    /// now. Compaction keeps every version the snapshot can see until it is dropped.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::new(Arc::clone(&self.inner))
    }

    /// Iterates over every key in order (use `.rev()` for reverse order).
    pub fn iter(&self) -> DbIterator {
        self.range::<&[u8], _>(..)
    }

    /// Iterates over the keys in `range`, e.g. `db.range("a".."m")`.
    pub fn range<K: AsRef<[u8]>, R: RangeBounds<K>>(&self, range: R) -> DbIterator {
        self.range_opt(range, &ReadOptions::default())
    }

    /// Iterates over the keys in `range`, reading with `opts` (see [`ReadOptions`]).
    pub fn range_opt<K: AsRef<[u8]>, R: RangeBounds<K>>(
        &self,
        range: R,
        opts: &ReadOptions,
    ) -> DbIterator {
        let bounds = bounds(&range);
        let (sv, seq) = self.inner.read_view();
        DbIterator::new(Arc::clone(&self.inner), sv, seq, bounds, opts)
    }

    /// Iterates over the pairs in `range` with values shared, not copied (see [`Pinned`]);
    /// `db.range(r).into_pinned()`.
    pub fn range_pinned<K: AsRef<[u8]>, R: RangeBounds<K>>(&self, range: R) -> Pinned {
        self.range(range).into_pinned()
    }

    /// Iterates over the keys in `range` without reading any value file (see
    /// [`Keys`]); `db.range(r).into_keys()`.
    pub fn keys<K: AsRef<[u8]>, R: RangeBounds<K>>(&self, range: R) -> Keys {
        self.range(range).into_keys()
    }

    /// Iterates over the entries in `range`, reading a separated value only when asked
    /// (see [`Entry::value`]); `db.range(r).into_entries()`.
    pub fn entries<K: AsRef<[u8]>, R: RangeBounds<K>>(&self, range: R) -> Entries {
        self.range(range).into_entries()
    }

    /// Iterates over the keys starting with `prefix`.
    pub fn prefix(&self, prefix: impl AsRef<[u8]>) -> DbIterator {
        self.prefix_opt(prefix, &ReadOptions::default())
    }

    /// Iterates over the keys starting with `prefix`, reading with `opts` (see
    /// [`ReadOptions`]).
    pub fn prefix_opt(&self, prefix: impl AsRef<[u8]>, opts: &ReadOptions) -> DbIterator {
        let bounds = prefix_bounds(prefix.as_ref());
        let (sv, seq) = self.inner.read_view();
        DbIterator::new(Arc::clone(&self.inner), sv, seq, bounds, opts)
    }

    /// Flushes the memtable to an SSTable and waits until every frozen memtable is
    /// flushed.
    ///
    /// # Errors
    ///
    /// [`Error::ReadOnly`] on a read-only open or after a failure; [`Error::Io`] if the
    /// flush fails (the database is then read-only until reopened).
    pub fn flush(&self) -> Result<()> {
        flush::flush_all(&self.inner)
    }

    /// Makes an openable copy of the database in the directory `to` (created; it must not
    /// hold anything), while writes go on: the memtable is flushed, then tables and sealed
    /// value files are hard-linked (copied where the file system cannot link, or always
    /// with `link` false) and the rest copied. The copy holds exactly the writes up to
    /// [`CheckpointInfo::sequence`]: every write acknowledged before the call. It gets its
    /// own identity and is an independent database: either may be written, compacted,
    /// garbage-collected or deleted without changing the other (value GC never punches
    /// holes in a file that has another name; it rewrites it). A checkpoint cut short (by
    /// a crash or an error) has no `CURRENT` and does not open: remove the directory.
    ///
    /// # Errors
    /// [`Error::ReadOnly`] on a read-only open; [`Error::InvalidArgument`] if `to` is the
    /// database's directory or is not empty; I/O errors of the flush or the copy.
    pub fn checkpoint(&self, to: impl AsRef<Path>, link: bool) -> Result<CheckpointInfo> {
        checkpoint::checkpoint(&self.inner, to.as_ref(), link)
    }

    /// Backs the database up into `dir`, incrementally: see [`crate::backup`].
    pub fn backup(&self, dir: impl AsRef<Path>) -> Result<crate::backup::BackupInfo> {
        crate::backup::create(self, dir.as_ref())
    }

    /// Compacts every level's tables that overlap `[begin, end]` (unbounded if `None`)
    /// down to the deepest level that holds data (L1 at least), after flushing the
    /// memtable. The bottom level's tables in the range are rewritten too, so old
    /// versions and tombstones that no snapshot needs are gone afterwards.
    ///
    /// It ends with a fresh live-data figure in [`stats`](Self::stats) (see
    /// [`refresh_live_bytes`](Self::refresh_live_bytes)).
    ///
    /// # Errors
    ///
    /// [`Error::ReadOnly`] on a read-only open or after a failure; [`Error::Corruption`]
    /// if an input table is damaged; [`Error::Io`] if a read or write fails (the database
    /// is then read-only until reopened).
    pub fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        compact::compact_range(&self.inner, begin, end)?;
        // A failed pass is cached and reported by `stats`; the compaction itself worked.
        let _ = space::refresh(&self.inner);
        Ok(())
    }

    /// A snapshot of the statistics. Cheap: it reads no table (the live-data figure comes
    /// from the last pass the background made, see [`Stats::live_bytes`]).
    pub fn stats(&self) -> Result<Stats> {
        read::stats(&self.inner)
    }

    /// Makes the pass behind [`Stats::live_bytes`] now, over the current state, and returns
    /// the live bytes: key + value bytes of the newest version of every key that is not
    /// deleted. [`stats`](Self::stats) then reports this figure until a newer pass. The
    /// cost is a read of every table's keys (no value is read, the block cache is not
    /// filled). Works on a database opened read-only too. Fails if a table cannot be read
    /// (then `Stats::live_bytes_error` says why too).
    pub fn refresh_live_bytes(&self) -> Result<u64> {
        space::refresh(&self.inner).map(|live| live.bytes)
    }

    /// A complete value GC (see [`Db::gc_report`]); returns the number of value files
    /// collected.
    pub fn gc(&self) -> Result<u64> {
        self.gc_report().map(|r| r.collected)
    }

    /// A complete value GC: flushes, compacts what garbage compaction finds (tables that
    /// shadow older versions), seals the active value file when it holds enough garbage,
    /// and collects every file at least a tenth dead (or under `gc_threshold` if that is
    /// higher) until a round gains nothing. Reports per value file left why it stays, and
    /// ends with a fresh live-data figure in [`stats`](Self::stats).
    pub fn gc_report(&self) -> Result<crate::gc::GcReport> {
        self.inner.check_bg_error()?;
        // A failure may have left the manifest or a synced file in doubt: like a failed
        // flush or compaction, it makes the database read-only until reopened. Corruption
        // does not: GC sets a damaged file aside and goes on.
        let report = value_gc::complete(&self.inner).map_err(|e| match e.is_corruption() {
            true => e,
            false => self.inner.set_bg_error(e),
        })?;
        // A failed pass is cached and reported by `stats`; the collection itself worked.
        let _ = space::refresh(&self.inner);
        Ok(report)
    }

    /// The value files value GC has set aside since the database was opened: damaged
    /// where a live record may lie. GC leaves them alone; reads of their intact records
    /// work, a read of a damaged one fails with `Error::Corruption`. Not persisted: after a
    /// reopen, GC finds the damage again when it next picks the file.
    pub fn gc_set_aside(&self) -> Vec<crate::gc::SetAsideFile> {
        let version = std::sync::Arc::clone(&self.inner.super_version().version);
        self.inner
            .gc_set_aside
            .list(|n| version.value_files.get(&n).map(|f| f.epoch()))
    }

    /// Closes the database, reporting any error of the final log sync. Dropping the
    /// handle does the same and ignores errors. A database opened read-only closes
    /// without writing.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the final sync of the value log fails: writes acknowledged without
    /// `sync` may then be lost.
    pub fn close(self) -> Result<()> {
        let closed = background::shutdown(&self.inner);
        // The files this database deleted are freed on the file system's own thread
        // (`fs::closer`): their space is free once close returns.
        self.inner.fs.settle();
        match self.inner.read_only {
            Some(_) => Ok(()),
            None => closed,
        }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = background::shutdown(&self.inner);
        self.inner.fs.settle();
    }
}

/// Converts user range bounds into owned byte bounds.
pub(crate) fn bounds<K: AsRef<[u8]>, R: RangeBounds<K>>(r: &R) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let conv = |b: Bound<&K>| match b {
        Bound::Included(k) => Bound::Included(k.as_ref().to_vec()),
        Bound::Excluded(k) => Bound::Excluded(k.as_ref().to_vec()),
        Bound::Unbounded => Bound::Unbounded,
    };
    (conv(r.start_bound()), conv(r.end_bound()))
}

/// The range of keys starting with `prefix`.
pub(crate) fn prefix_bounds(prefix: &[u8]) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return (Bound::Included(prefix.to_vec()), Bound::Excluded(end));
        }
    }
    (Bound::Included(prefix.to_vec()), Bound::Unbounded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_bounds_increment_the_last_byte() {
        assert_eq!(
            prefix_bounds(b"ab"),
            (
                Bound::Included(b"ab".to_vec()),
                Bound::Excluded(b"ac".to_vec())
            )
        );
        assert_eq!(
            prefix_bounds(b"a\xff"),
            (
                Bound::Included(b"a\xff".to_vec()),
                Bound::Excluded(b"b".to_vec())
            )
        );
        assert_eq!(
            prefix_bounds(b"\xff"),
            (Bound::Included(b"\xff".to_vec()), Bound::Unbounded)
        );
    }
}
