//! Expiring writes and the reads that see expiry times (`Db::put_with_expiry`,
//! `Db::get_with_expiry`, `Db::expiry`). Expiry itself is judged wherever a read resolves
//! an entry (`read::resolve`, the iterator's walk) and in compaction (`compaction::filter`).

use super::Db;
use super::read::{self, Reader};
use crate::key::{EntryKind, ParsedKey, is_expired, split_expiry};
use crate::{Error, ReadOptions, Result, WriteBatch, WriteOptions};

/// Whether a key exists and when it expires: the answer of [`Db::expiry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyExpiry {
    /// No such key, or it has expired.
    Missing,
    /// The key exists and never expires.
    Never,
    /// The key exists and expires at this time (milliseconds since the Unix epoch).
    At(u64),
}

impl Db {
    /// Sets `key` to `value` until `expires_at`, in milliseconds since the Unix epoch by
    /// the database's clock ([`Options::clock`](crate::Options::clock)); see
    /// [`WriteBatch::put_with_expiry`]. A later plain `put` of the key writes a pair that
    /// never expires.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let clock = twain::ManualClock::new(1_000);
    /// let opts = twain::Options::default().clock(std::sync::Arc::new(clock.clone()));
    /// let db = twain::Db::open(dir.path(), opts)?;
    /// db.put_with_expiry("session", "abc", 31_000)?;
    /// assert_eq!(db.expiry("session")?, twain::KeyExpiry::At(31_000));
    /// clock.advance(30_000);
    /// assert_eq!(db.get("session")?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`put_opt`](Self::put_opt).
    pub fn put_with_expiry(
        &self,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        expires_at: u64,
    ) -> Result<()> {
        self.put_with_expiry_opt(key, value, expires_at, &WriteOptions::default())
    }

    /// [`put_with_expiry`](Self::put_with_expiry) with write options.
    ///
    /// # Errors
    ///
    /// As [`put_opt`](Self::put_opt).
    pub fn put_with_expiry_opt(
        &self,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        expires_at: u64,
        opts: &WriteOptions,
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put_with_expiry(key, value, expires_at);
        self.write(b, opts)
    }

    /// The value of `key` and its expiry time (`None` for a pair that never expires), or
    /// `None` if the key is missing or expired. Reads the value as [`get`](Self::get) does.
    ///
    /// # Errors
    ///
    /// As [`get`](Self::get).
    pub fn get_with_expiry(&self, key: impl AsRef<[u8]>) -> Result<Option<(Vec<u8>, Option<u64>)>> {
        let key = key.as_ref();
        let (sv, seq) = self.inner.read_view();
        crate::stats::Counters::add(&self.inner.counters.gets, 1);
        let now = self.inner.opts.clock.now_millis();
        let fill_cache = ReadOptions::default().fill_cache;
        let Some(found) = read::find(&sv, key, seq, fill_cache, false)? else {
            return Ok(None);
        };
        let expires_at = expiry_of(found.source, &found.ikey, &found.value)?;
        let value = read::resolve(
            &self.inner,
            &sv,
            seq,
            now,
            found.source,
            &found.ikey,
            found.value,
            Reader::Get,
        )?;
        Ok(value.map(|v| (read::into_vec(v), expires_at)))
    }

    /// Whether `key` exists and when it expires, without reading a separated value.
    ///
    /// # Errors
    ///
    /// [`Error::Corruption`] for a damaged entry, [`Error::Io`] if a table read fails.
    pub fn expiry(&self, key: impl AsRef<[u8]>) -> Result<KeyExpiry> {
        let (sv, seq) = self.inner.read_view();
        expiry_in(&self.inner, &sv, seq, key.as_ref())
    }

    /// Whether `key` has a value (it exists and has not expired), without reading a
    /// separated value: a table lookup at most, like [`expiry`](Self::expiry).
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let db = twain::Db::open(dir.path(), twain::Options::default())?;
    /// db.put("k", vec![0u8; 100_000])?;
    /// assert!(db.contains_key("k")?);
    /// assert!(!db.contains_key("other")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`expiry`](Self::expiry).
    pub fn contains_key(&self, key: impl AsRef<[u8]>) -> Result<bool> {
        Ok(self.expiry(key)? != KeyExpiry::Missing)
    }

    /// The time expiry is judged by: the database's clock, in milliseconds since the Unix
    /// epoch.
    pub fn now_millis(&self) -> u64 {
        self.inner.opts.clock.now_millis()
    }
}

/// [`Db::expiry`] of `key` at `seq` in `sv` (REQUIRES: as `read::get_in`).
pub(crate) fn expiry_in(
    inner: &super::DbInner,
    sv: &super::SuperVersion,
    seq: crate::key::SeqNo,
    key: &[u8],
) -> Result<KeyExpiry> {
    let now = inner.opts.clock.now_millis();
    let Some(found) = read::find(sv, key, seq, true, false)? else {
        return Ok(KeyExpiry::Missing);
    };
    if ParsedKey::parse(&found.ikey).entry_kind() == Some(EntryKind::Delete) {
        return Ok(KeyExpiry::Missing);
    }
    Ok(match expiry_of(found.source, &found.ikey, &found.value)? {
        None => KeyExpiry::Never,
        at @ Some(t) if !is_expired(at, now) => KeyExpiry::At(t),
        Some(_) => KeyExpiry::Missing,
    })
}

/// The expiry time of a found entry; a flagged value too short for it is corruption.
fn expiry_of(source: &std::path::Path, ikey: &[u8], value: &[u8]) -> Result<Option<u64>> {
    let p = ParsedKey::parse(ikey);
    split_expiry(p.kind, value).map(|(at, _)| at).map_err(|_| {
        Error::corruption(source, 0, "an expiring entry too short for its expiry time")
    })
}
