//! Range deletion (`Db::delete_range`): a range tombstone in the log and the memtable
//! (`memtable::range_del`), judged by every read (`range_view`), turned into point
//! tombstones by the flush (`range_expand`).

use super::Db;
use crate::{Result, WriteBatch, WriteOptions};

impl Db {
    /// Deletes every key from `start` (included) to `end` (excluded), not synced.
    ///
    /// The write costs what a delete costs, however many keys the range holds, and reads
    /// stop seeing the keys at once. The flush that writes the memtable out writes one
    /// tombstone for each key the range deleted, and compaction then drops the deleted
    /// versions, recording their separated values' drops for value GC like any delete's.
    /// Snapshots taken before still see the keys. Keys written afterwards are not deleted.
    /// An empty range (`start == end`) deletes nothing.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = twain::Db::open(dir.path(), twain::Options::default())?;
    /// for k in ["user:1", "user:2", "user:3", "video:1"] {
    ///     db.put(k, "x")?;
    /// }
    /// db.delete_range("user:", "user;")?; // ';' follows ':'
    /// let left: Vec<_> = db.iter().collect::<Result<_, _>>()?;
    /// assert_eq!(left, [(b"video:1".to_vec(), b"x".to_vec())]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) if `start > end` or either
    /// key is over 64 KiB ([`MAX_KEY_SIZE`](crate::MAX_KEY_SIZE)), with nothing written;
    /// [`Error::ReadOnly`](crate::Error::ReadOnly) on a read-only open or after a failure;
    /// [`Error::Io`](crate::Error::Io) if the write or its sync fails, after which the
    /// database is read-only until reopened.
    pub fn delete_range(&self, start: impl AsRef<[u8]>, end: impl AsRef<[u8]>) -> Result<()> {
        self.delete_range_opt(start, end, &WriteOptions::default())
    }

    /// [`delete_range`](Self::delete_range) with write options.
    ///
    /// # Errors
    ///
    /// As [`delete_range`](Self::delete_range).
    pub fn delete_range_opt(
        &self,
        start: impl AsRef<[u8]>,
        end: impl AsRef<[u8]>,
        opts: &WriteOptions,
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range(start, end);
        self.write(b, opts)
    }
}
