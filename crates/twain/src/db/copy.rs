//! [`Db::copy_into`]: a logical copy of a database into a new one opened with other
//! options. It is how a database changes what is fixed at its creation (the value
//! layout, `hash_groups`), and how every pair is placed under new thresholds in one pass.
//!
//! 1. `to` must be new or empty (not the database's own directory). An empty marker file,
//!    [`COPY_MARKER`], is written and synced into it first.
//! 2. The new database is opened there with the caller's options.
//! 3. One view of the source (an iterator's: one sequence number, one reading of the
//!    clock) is walked in key order, and every pair it sees is written into the new
//!    database with its expiry time, in batches of at most [`BATCH_BYTES`]. Deleted keys,
//!    range deletions and pairs expired at that moment are not in the view and are not
//!    copied. Sequence numbers, snapshots and statistics are not carried over: the new
//!    database's history starts with the copy.
//! 4. The new database is flushed and closed, then the marker is removed and the
//!    directory synced.
//!
//! A copy cut short (an error, a crash) leaves the marker: [`Db::open`] and
//! [`Db::open_read_only`] refuse a directory that holds it, so a partial copy is never
//! taken for a whole one. Remove the directory and copy again.

use super::{Db, checkpoint, open};
use crate::error::IoContext;
use crate::fs::Fs;
use crate::{Error, Options, Result, WriteBatch, WriteOptions};
use std::path::Path;

/// The file that marks a copy not finished yet.
pub const COPY_MARKER: &str = "COPY-INCOMPLETE";

/// Bytes of keys and values per batch written into the copy.
const BATCH_BYTES: usize = 4 << 20;

/// What [`Db::copy_into`] copied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopyInfo {
    /// Pairs copied.
    pub pairs: u64,
    /// Those of them with an expiry time.
    pub expiring: u64,
    /// Bytes of their keys.
    pub key_bytes: u64,
    /// Bytes of their values.
    pub value_bytes: u64,
}

/// Refuses a directory that holds an unfinished copy.
pub(crate) fn refuse_unfinished_copy(fs: &dyn Fs, dir: &Path) -> Result<()> {
    let marker = dir.join(COPY_MARKER);
    if fs.exists(&marker).ctx("stat", &marker)? {
        return Err(Error::InvalidArgument(format!(
            "{} holds a copy that did not finish ({COPY_MARKER} is there): remove the \
             directory and copy again",
            dir.display()
        )));
    }
    Ok(())
}

impl Db {
    /// Copies every pair this database holds into a new database in the directory `to`
    /// (created; it must not hold anything), opened with `opts`: the way to change what a
    /// database keeps from its creation, such as [`Options::value_layout`], or to place
    /// every pair under new thresholds at once. The copy reads one consistent view, as an
    /// iterator does, while writes go on; each pair keeps its expiry time; what is
    /// deleted or expired in that view is left out. Sequence numbers, snapshots and
    /// statistics start afresh in the copy. The new database is flushed and closed when
    /// this returns: open it with the same options.
    ///
    /// A copy cut short by an error or a crash leaves a marker file in `to`
    /// ([`COPY_MARKER`]), and opening that directory fails until it is removed.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = twain::Db::open(dir.path().join("log"), twain::Options::default())?;
    /// db.put("k", vec![7u8; 4096])?;
    /// let hash = twain::Options::default().value_layout(twain::ValueLayout::Hash);
    /// let info = db.copy_into(dir.path().join("hash"), hash.clone())?;
    /// assert_eq!(info.pairs, 1);
    /// let copy = twain::Db::open(dir.path().join("hash"), hash)?;
    /// assert_eq!(copy.get("k")?, Some(vec![7u8; 4096]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `to` is this database's directory or is not empty,
    /// or for options the new database refuses; the errors of reading this database
    /// (corruption names its file and offset) and of writing the new one.
    pub fn copy_into(&self, to: impl AsRef<Path>, opts: Options) -> Result<CopyInfo> {
        let to = to.as_ref();
        let fs = std::sync::Arc::clone(&opts.fs);
        checkpoint::prepare_dir(fs.as_ref(), &self.inner.dir, to, "copy")?;
        let marker = to.join(COPY_MARKER);
        fs.create(&marker)
            .and_then(|mut f| f.sync_data())
            .ctx("create", &marker)?;
        fs.sync_dir(to).ctx("sync directory", to)?;
        let copy = Db {
            inner: open::open(to, opts, false)?,
        };
        let info = copy_pairs(self, &copy)?;
        copy.flush()?;
        copy.close()?;
        fs.remove_file(&marker).ctx("remove", &marker)?;
        fs.sync_dir(to).ctx("sync directory", to)?;
        Ok(info)
    }
}

/// Writes every pair of `from`'s view into `to`.
fn copy_pairs(from: &Db, to: &Db) -> Result<CopyInfo> {
    let mut info = CopyInfo::default();
    let mut batch = WriteBatch::new();
    let mut bytes = 0;
    let opts = WriteOptions::default();
    for entry in from.entries::<&[u8], _>(..) {
        let entry = entry?;
        let value = entry.value()?;
        let key = entry.key();
        match entry.expires_at()? {
            Some(at) => {
                batch.put_with_expiry(key, &value, at);
                info.expiring += 1;
            }
            None => {
                batch.put(key, &value);
            }
        }
        info.pairs += 1;
        info.key_bytes += key.len() as u64;
        info.value_bytes += value.len() as u64;
        bytes += key.len() + value.len();
        if bytes >= BATCH_BYTES {
            to.write(std::mem::take(&mut batch), &opts)?;
            bytes = 0;
        }
    }
    if !batch.is_empty() {
        to.write(batch, &opts)?;
    }
    Ok(info)
}
