//! The user's iterator: merges every source, hides old versions and tombstones, applies
//! the range, and reads separated values. A seekable cursor: `seek`, `seek_for_prev`,
//! `next` and `prev` on one iterator, which keeps its snapshot across seeks.

use super::pinned::Pinned;
use super::prefetch::Prefetcher;
use super::range_view::RangeView;
use super::{DbInner, SuperVersion, read};
use crate::format::handle::ValueHandle;
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{EntryKind, MAX_SEQNO, ParsedKey, SeqNo, internal_key, lookup_key};
use crate::memtable::Memtable;
use crate::version::Version;
use crate::vlog::ScanHints;
use crate::{Error, ReadOptions, Result};
use bytes::Bytes;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// A key-value pair yielded by iterators.
pub type KvPair = (Vec<u8>, Vec<u8>);

/// A key and its value shared, not copied (see [`DbIterator::into_pinned`]).
pub type PinnedPair = (Vec<u8>, Bytes);

/// Iterates over a range of keys at one sequence number, in key order; `.rev()` (or
/// `next_back`) walks from the end. Both ends can be used at once and meet in the middle.
///
/// It is also a cursor: [`seek`](Self::seek) and [`seek_for_prev`](Self::seek_for_prev)
/// move it anywhere in its range, [`prev`](Self::prev) steps back from where `next` (or
/// a seek) left it. Seeks keep the iterator's view of the database: one iterator sees
/// one consistent state however long it lives and however it moves.
///
/// Holds the memtables and files it reads. An error is yielded once and ends the
/// iteration (a seek starts it again). Not thread-safe to share; `Send`.
pub struct DbIterator {
    inner: Arc<DbInner>,
    sv: Arc<SuperVersion>,
    seq: SeqNo,
    /// The time expiry is judged at, read from the clock when the iterator was made: one
    /// moment for the whole view, as one sequence number is.
    now: u64,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    /// The cursor's merged sources, positioned as `dir` says.
    cursor: Option<MergingIterator>,
    dir: Dir,
    /// Walking forward: the user key whose remaining (older) versions to skip.
    skip: Option<Vec<u8>>,
    /// An error the forward walk met stepping its sources past the entry it found (a
    /// damaged block after it): given at the next step, so that the entry, which was
    /// read whole, is yielded first.
    after_found: Option<Error>,
    /// Where the cursor is, in user keys.
    pos: Pos,
    /// The `next_back` end.
    back: Option<MergingIterator>,
    /// The last key yielded from the back.
    back_key: Option<Vec<u8>>,
    done: bool,
    /// Where the forward walk's last SVTable searches ended (the backward walk searches
    /// afresh).
    hints: ScanHints,
    /// The entries read ahead of the cursor and their values' reads, when the database
    /// prefetches. REQUIRES: empty unless `dir` is `Forward` (the cursor's sources are
    /// then after the window's last entry).
    prefetch: Option<Prefetcher>,
    /// The range deletions of the iterator's memtables.
    ranges: RangeView,
    /// Whether table blocks the iterator reads enter the block cache.
    fill_cache: bool,
    /// Whether values found in table blocks share the block ([`Block::pin`]) rather than
    /// being copied out: set for [`Pinned`], whose items keep them as [`Bytes`].
    ///
    /// [`Block::pin`]: crate::format::block::Block::pin
    pin: bool,
    /// Entries found so far, in either direction: every [`STEPS_PER_REPORT`]th tells the
    /// pacing that the foreground reads (`DbInner::iterator_reads`).
    steps: u64,
}

/// Iterator steps per report of reading to the pacing (the first step reports too): a
/// shared counter touched once per scan and once per 256 entries of a long one.
const STEPS_PER_REPORT: u64 = 256;

/// Where the cursor stands between user keys.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pos {
    /// Before the range: `next` yields its first key, `prev` nothing.
    Start,
    /// Past the range: `prev` yields its last key, `next` nothing.
    End,
    /// Just before `k` (after `seek(k)`): `next` yields the first key `>= k`, `prev` the
    /// last key `< k`.
    Before(Vec<u8>),
    /// At `k` (the key last yielded): `next` yields the first key `> k`, `prev` the last
    /// key `< k`.
    At(Vec<u8>),
    /// Just after `k` (after `seek_for_prev(k)`): `prev` yields the last key `<= k`,
    /// `next` the first key `> k`.
    After(Vec<u8>),
}

impl Pos {
    /// Moves to `At(key)`, reusing the buffer of the key held now (one allocation fewer
    /// per step of a scan).
    fn move_to(&mut self, key: &[u8]) {
        match std::mem::replace(self, Pos::Start) {
            Pos::Before(mut k) | Pos::At(mut k) | Pos::After(mut k) => {
                set_key(&mut k, key);
                *self = Pos::At(k);
            }
            Pos::Start | Pos::End => *self = Pos::At(key.to_vec()),
        }
    }
}

/// The user key of internal key `ikey`, in `ikey`'s buffer.
fn user_key_in(mut ikey: Vec<u8>) -> Vec<u8> {
    let len = ParsedKey::parse(&ikey).user_key.len();
    ikey.truncate(len);
    ikey
}

/// Makes `buf` hold `key`, reusing its allocation.
fn set_key(buf: &mut Vec<u8>, key: &[u8]) {
    buf.clear();
    buf.extend_from_slice(key);
}

/// How the cursor's merged sources are positioned relative to `pos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    /// Not positioned: the next step seeks.
    Unset,
    /// At the first entry after `pos` (entries of `skip` aside).
    Forward,
    /// At the last entry before `pos`.
    Backward,
}

/// The newest version of a key visible to the iterator, not a tombstone, value not read.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// The internal key.
    pub ikey: Vec<u8>,
    /// Inline value bytes or an encoded handle, as the key's kind says.
    pub value: Bytes,
}

impl Found {
    /// The user key.
    pub fn user_key(&self) -> &[u8] {
        ParsedKey::parse(&self.ikey).user_key
    }

    /// The user key, in the internal key's own buffer (no copy).
    pub fn into_user_key(self) -> Vec<u8> {
        user_key_in(self.ikey)
    }

    /// Whether the value is in a value file (the entry holds a handle).
    pub fn is_handle(&self) -> bool {
        ParsedKey::parse(&self.ikey).entry_kind() == Some(EntryKind::Handle)
    }

    /// The handle of a handle entry (its expiry time set aside).
    pub fn handle(&self) -> std::result::Result<ValueHandle, ()> {
        let p = ParsedKey::parse(&self.ikey);
        let (_, encoded) = crate::key::split_expiry(p.kind, &self.value).map_err(|_| ())?;
        ValueHandle::decode(encoded).map_err(|_| ())
    }
}

impl std::fmt::Debug for DbIterator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DbIterator")
            .field("seq", &self.seq)
            .field("lower", &self.lower)
            .field("upper", &self.upper)
            .field("pos", &self.pos)
            .finish()
    }
}

/// Every entry of `sv` (memtables and tables) in internal-key order: user key ascending,
/// newest version first.
pub(crate) fn merged_sources(sv: &SuperVersion, fill_cache: bool) -> MergingIterator {
    merged_of(
        std::iter::once(&sv.mem).chain(&sv.imms),
        &sv.version,
        fill_cache,
    )
}

/// Every entry of `mems` (newest first) and of `version`'s tables, in internal-key order.
/// Children: each memtable, each L0 table, one per non-empty deeper level, in that order
/// (`stale::StaleTally` relies on it).
pub(crate) fn merged_of<'a>(
    mems: impl Iterator<Item = &'a Arc<Memtable>>,
    version: &Version,
    fill_cache: bool,
) -> MergingIterator {
    let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
    for m in mems {
        children.push(Box::new(m.iter()));
    }
    let mut levels = version.levels.iter();
    if let Some(l0) = levels.next() {
        for t in l0 {
            children.push(Box::new(t.table.iter(fill_cache)));
        }
    }
    for files in levels {
        if !files.is_empty() {
            children.push(Box::new(LevelIterator::new(files.clone(), fill_cache)));
        }
    }
    MergingIterator::new(children)
}

/// Whether a found put has expired at `now`; a flagged value too short for its expiry
/// time is corruption.
fn expired(p: &ParsedKey<'_>, value: &[u8], now: u64) -> Result<bool> {
    match crate::key::split_expiry(p.kind, value) {
        Ok((expires_at, _)) => Ok(crate::key::is_expired(expires_at, now)),
        Err(_) => Err(Error::corruption(
            Path::new("iterator"),
            0,
            "an expiring entry too short for its expiry time",
        )),
    }
}

/// A found entry that is neither a tombstone nor of a known kind is corruption.
fn check_kind(p: &ParsedKey<'_>) -> Result<()> {
    match p.entry_kind() {
        Some(_) => Ok(()),
        None => Err(Error::corruption(
            Path::new("iterator"),
            0,
            format!("entry of unknown kind {}", p.kind),
        )),
    }
}

impl DbIterator {
    /// REQUIRES: `sv` holds every version visible at `seq`: a pair from
    /// [`DbInner::read_view`], or a registered snapshot's sequence with any later super
    /// version.
    pub(crate) fn new(
        inner: Arc<DbInner>,
        sv: Arc<SuperVersion>,
        seq: SeqNo,
        (lower, upper): (Bound<Vec<u8>>, Bound<Vec<u8>>),
        opts: &ReadOptions,
    ) -> DbIterator {
        let prefetch = if opts.prefetch {
            inner.prefetch.prefetcher(&inner.counters)
        } else {
            None
        };
        DbIterator {
            prefetch,
            ranges: RangeView::of(&sv, seq),
            fill_cache: opts.fill_cache,
            pin: false,
            now: inner.opts.clock.now_millis(),
            inner,
            sv,
            seq,
            lower,
            upper,
            cursor: None,
            dir: Dir::Unset,
            skip: None,
            after_found: None,
            pos: Pos::Start,
            back: None,
            back_key: None,
            done: false,
            hints: ScanHints::default(),
            steps: 0,
        }
    }

    /// Counts a step, and tells the pacing that the foreground reads on the first and
    /// every [`STEPS_PER_REPORT`]th (`pacing::Foreground::Reading`).
    fn note_step(&mut self) {
        if self.steps.is_multiple_of(STEPS_PER_REPORT) {
            self.inner.iterator_reads.fetch_add(1, Ordering::Relaxed);
        }
        self.steps += 1;
    }

    /// Positions the cursor so that `next` yields the first key `>= key` in the range
    /// (and `prev` the last key `< key`). Forgets the `next_back` end.
    pub fn seek(&mut self, key: impl AsRef<[u8]>) {
        let key = key.as_ref();
        let pos = if self.below_lower(key) {
            Pos::Start
        } else {
            Pos::Before(key.to_vec())
        };
        self.reposition(pos);
    }

    /// Positions the cursor so that `prev` yields the last key `<= key` in the range (and
    /// `next` the first key `> key`). Forgets the `next_back` end.
    pub fn seek_for_prev(&mut self, key: impl AsRef<[u8]>) {
        let key = key.as_ref();
        let pos = if self.above_upper(key) {
            Pos::End
        } else {
            Pos::After(key.to_vec())
        };
        self.reposition(pos);
    }

    /// Positions the cursor before the range: `next` yields its first key.
    pub fn seek_to_first(&mut self) {
        self.reposition(Pos::Start);
    }

    /// Positions the cursor past the range: `prev` yields its last key.
    pub fn seek_to_last(&mut self) {
        self.reposition(Pos::End);
    }

    /// Steps the cursor back: the last key before where it stands (after `next` yielded
    /// `k`, that is the key before `k`). `None` at the start of the range; the cursor
    /// stays there, so a `next` then yields the first key.
    pub fn prev(&mut self) -> Option<Result<KvPair>> {
        self.prev_pair().map(|r| r.map(owned))
    }

    /// `prev`, the value as read.
    pub(crate) fn prev_pair(&mut self) -> Option<Result<PinnedPair>> {
        let r = self.prev_found_resumed().and_then(|f| match f {
            Some(f) => self.value_of(f, false).map(Some),
            None => Ok(None),
        });
        self.finish_cursor(r)
    }

    fn reposition(&mut self, pos: Pos) {
        self.pos = pos;
        self.unalign();
        self.back = None;
        self.back_key = None;
        self.done = false;
    }

    fn above_upper(&self, key: &[u8]) -> bool {
        match &self.upper {
            Bound::Included(u) => key > u.as_slice(),
            Bound::Excluded(u) => key >= u.as_slice(),
            Bound::Unbounded => false,
        }
    }

    fn below_lower(&self, key: &[u8]) -> bool {
        match &self.lower {
            Bound::Included(l) => key < l.as_slice(),
            Bound::Excluded(l) => key <= l.as_slice(),
            Bound::Unbounded => false,
        }
    }

    /// Whether the back end may not yield `key`: the cursor has passed it, or stands at
    /// it.
    fn behind_cursor(&self, key: &[u8]) -> bool {
        match &self.pos {
            Pos::Start => false,
            Pos::End => true,
            Pos::Before(k) => key < k.as_slice(),
            Pos::At(k) | Pos::After(k) => key <= k.as_slice(),
        }
    }

    /// Reads the value of a found entry.
    pub(crate) fn value_of(&mut self, f: Found, forward: bool) -> Result<PinnedPair> {
        let Found { ikey, value } = f;
        let value = read::resolve(
            &self.inner,
            &self.sv,
            self.seq,
            self.now,
            Path::new("iterator"),
            &ikey,
            value,
            read::Reader::Scan(forward.then_some(&mut self.hints)),
        )?;
        Ok((user_key_in(ikey), value.unwrap_or_default()))
    }

    /// The database, view and sequence the iterator reads (for lazy values).
    pub(crate) fn view(&self) -> (&Arc<DbInner>, &Arc<SuperVersion>, SeqNo, u64) {
        (&self.inner, &self.sv, self.seq, self.now)
    }

    /// Makes the next step seek its sources from `pos`, forgetting the window read ahead.
    pub(crate) fn unalign(&mut self) {
        self.dir = Dir::Unset;
        // The sources seek afresh, and meet any damage again where it lies.
        self.after_found = None;
        if let Some(p) = self.prefetch.as_mut() {
            p.reset();
        }
    }

    /// Positions the cursor's sources for walking in `dir` from `pos`.
    /// REQUIRES: `pos` is neither `End` (walking forward) nor `Start` (walking back).
    fn align(&mut self, dir: Dir) -> Result<()> {
        if self.dir == dir && self.cursor.is_some() {
            return Ok(());
        }
        self.unalign();
        let mut c = match self.cursor.take() {
            Some(c) => c,
            None => merged_sources(&self.sv, self.fill_cache),
        };
        self.skip = None;
        // A position outside the range walks from the range's nearer end.
        let pos = match &self.pos {
            Pos::Before(k) | Pos::At(k) | Pos::After(k)
                if dir == Dir::Forward && self.below_lower(k) =>
            {
                &Pos::Start
            }
            Pos::Before(k) | Pos::At(k) | Pos::After(k)
                if dir == Dir::Backward && self.above_upper(k) =>
            {
                &Pos::End
            }
            p => p,
        };
        match (dir, pos) {
            (Dir::Forward, Pos::Start) => {
                match &self.lower {
                    Bound::Unbounded => c.seek_to_first()?,
                    Bound::Included(k) | Bound::Excluded(k) => c.seek(&lookup_key(k, MAX_SEQNO))?,
                }
                if let Bound::Excluded(k) = &self.lower {
                    self.skip = Some(k.clone());
                }
            }
            (Dir::Forward, Pos::Before(k)) => c.seek(&lookup_key(k, MAX_SEQNO))?,
            (Dir::Forward, Pos::At(k) | Pos::After(k)) => {
                c.seek(&lookup_key(k, MAX_SEQNO))?;
                self.skip = Some(k.clone());
            }
            (Dir::Backward, Pos::End) => match &self.upper {
                Bound::Unbounded => c.seek_to_last()?,
                // The last internal key of user key `k` is (k, seq 0, kind 0).
                Bound::Included(k) => c.seek_for_prev(&internal_key(k, 0, 0))?,
                Bound::Excluded(k) => c.seek_for_prev(&lookup_key(k, MAX_SEQNO))?,
            },
            (Dir::Backward, Pos::Before(k) | Pos::At(k)) => {
                c.seek_for_prev(&lookup_key(k, MAX_SEQNO))?
            }
            (Dir::Backward, Pos::After(k)) => c.seek_for_prev(&internal_key(k, 0, 0))?,
            _ => {}
        }
        self.cursor = Some(c);
        self.dir = dir;
        Ok(())
    }

    /// The next visible entry after the cursor, its value not read; moves the cursor
    /// there (or to `End`). REQUIRES: no window read ahead (see `unalign`).
    pub(crate) fn next_found(&mut self) -> Result<Option<Found>> {
        if self.pos == Pos::End {
            return Ok(None);
        }
        self.align(Dir::Forward)?;
        let found = self.scan_next()?;
        self.arrive(found.as_ref());
        Ok(found)
    }

    /// Moves the cursor to `found`, or to `End`.
    fn arrive(&mut self, found: Option<&Found>) {
        match found {
            Some(f) => self.pos.move_to(f.user_key()),
            None => {
                self.pos = Pos::End;
                self.dir = Dir::Unset;
            }
        }
    }

    /// The next visible entry from the cursor's sources (aligned forward), without moving
    /// the cursor.
    fn scan_next(&mut self) -> Result<Option<Found>> {
        if let Some(e) = self.after_found.take() {
            return Err(e);
        }
        self.note_step();
        let (Some(mut c), mut skip) = (self.cursor.take(), self.skip.take()) else {
            return Ok(None);
        };
        let mut after_found = None;
        let stop =
            |k: &[u8]| self.above_upper(k) || self.back_key.as_deref().is_some_and(|b| k >= b);
        let found = scan_forward(
            &mut c,
            (self.seq, self.now, self.pin, &self.ranges),
            (&mut skip, &mut after_found),
            &stop,
        );
        self.cursor = Some(c);
        self.skip = skip;
        self.after_found = after_found;
        found
    }

    /// The next pair forward, reading values ahead of the cursor when the database
    /// prefetches.
    pub(crate) fn next_pair(&mut self) -> Result<Option<PinnedPair>> {
        let Some(mut p) = self.prefetch.take() else {
            return match self.next_found()? {
                Some(f) => self.value_of(f, true).map(Some),
                None => Ok(None),
            };
        };
        let r = self.next_pair_ahead(&mut p);
        self.prefetch = Some(p);
        r
    }

    fn next_pair_ahead(&mut self, p: &mut Prefetcher) -> Result<Option<PinnedPair>> {
        if self.pos == Pos::End {
            return Ok(None);
        }
        if self.dir != Dir::Forward || self.cursor.is_none() {
            p.reset();
            self.align(Dir::Forward)?;
        }
        if let Some(depth) = p.step() {
            while p.len() < depth && p.has_room() {
                match self.scan_next() {
                    Ok(Some(f)) => p.push(f, &self.sv, &mut self.hints),
                    Ok(None) => {
                        p.end(None);
                        break;
                    }
                    Err(e) => {
                        p.end(Some(e));
                        break;
                    }
                }
            }
            p.submit();
        }
        let Some((found, value, found_in)) = p.pop() else {
            return match p.take_end() {
                (Some(e), _) => Err(e),
                (None, true) => {
                    self.arrive(None);
                    Ok(None)
                }
                (None, false) => {
                    let found = self.scan_next()?;
                    self.arrive(found.as_ref());
                    match found {
                        Some(f) => self.timed_value_of(f, p).map(Some),
                        None => Ok(None),
                    }
                }
            };
        };
        // The back end may have come closer since the entry was read ahead.
        if self
            .back_key
            .as_deref()
            .is_some_and(|b| found.user_key() >= b)
        {
            p.reset();
            self.arrive(None);
            return Ok(None);
        }
        self.arrive(Some(&found));
        let Some(v) = value else {
            return self.timed_value_of(found, p).map(Some);
        };
        // A stale handle read ahead: fixed up as the cursor's own search would have.
        // (`push` decoded the entry's handle, so its expiry splits off.)
        if let Some((at, file)) = found_in
            && let e = ParsedKey::parse(&found.ikey)
            && let Ok((expires_at, _)) = crate::key::split_expiry(e.kind, &found.value)
        {
            let current = Arc::clone(&self.inner.super_version().version);
            read::fix_if_current(
                &self.inner,
                self.seq,
                (e.user_key, e.seq, expires_at),
                &at,
                &file,
                &current,
            )?;
        }
        Ok(Some((found.into_user_key(), v)))
    }

    /// Reads a value forward, telling the prefetcher how long a separated one took.
    fn timed_value_of(&mut self, f: Found, p: &Prefetcher) -> Result<PinnedPair> {
        if !f.is_handle() {
            return self.value_of(f, true);
        }
        let started = std::time::Instant::now();
        let kv = self.value_of(f, true)?;
        p.observe(started.elapsed());
        Ok(kv)
    }

    /// The visible entry before the cursor, its value not read; moves the cursor there
    /// (or to `Start`).
    pub(crate) fn prev_found(&mut self) -> Result<Option<Found>> {
        if self.pos == Pos::Start {
            return Ok(None);
        }
        self.align(Dir::Backward)?;
        self.note_step();
        let Some(mut c) = self.cursor.take() else {
            return Ok(None);
        };
        let found = scan_backward(
            &mut c,
            (self.seq, self.now, self.pin, &self.ranges),
            &|k| self.below_lower(k),
            &self.upper,
        );
        self.cursor = Some(c);
        match found? {
            Some(f) => {
                self.pos.move_to(f.user_key());
                Ok(Some(f))
            }
            None => {
                self.pos = Pos::Start;
                self.dir = Dir::Unset;
                Ok(None)
            }
        }
    }

    /// The next visible entry from the back end, its value not read.
    pub(crate) fn next_back_found(&mut self) -> Result<Option<Found>> {
        self.note_step();
        let mut c = match self.back.take() {
            Some(c) => c,
            None => {
                let mut c = merged_sources(&self.sv, self.fill_cache);
                match &self.upper {
                    Bound::Unbounded => c.seek_to_last()?,
                    Bound::Included(k) => c.seek_for_prev(&internal_key(k, 0, 0))?,
                    Bound::Excluded(k) => c.seek_for_prev(&lookup_key(k, MAX_SEQNO))?,
                }
                c
            }
        };
        let stop = |k: &[u8]| self.below_lower(k) || self.behind_cursor(k);
        let found = scan_backward(
            &mut c,
            (self.seq, self.now, self.pin, &self.ranges),
            &stop,
            &self.upper,
        );
        self.back = Some(c);
        let found = found?;
        if let Some(f) = &found {
            self.back_key = Some(f.user_key().to_vec());
        }
        Ok(found)
    }

    /// Ends the iteration on an error. (At the end nothing needs remembering: the cursor
    /// stands at `End` and the back end stops at the cursor.)
    pub(crate) fn finish<T>(&mut self, r: Result<Option<T>>) -> Option<Result<T>> {
        match r {
            Ok(x) => x.map(Ok),
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    /// Whether an error ended the iteration.
    pub(crate) fn is_failed(&self) -> bool {
        self.done
    }

    /// `prev_found` for a cursor step, which starts again after an error.
    pub(crate) fn prev_found_resumed(&mut self) -> Result<Option<Found>> {
        self.done = false;
        self.prev_found()
    }

    /// Like `finish`, for a cursor step: an error makes the cursor seek afresh next time.
    pub(crate) fn finish_cursor<T>(&mut self, r: Result<Option<T>>) -> Option<Result<T>> {
        if r.is_err() {
            self.unalign();
            self.cursor = None;
        }
        self.finish(r)
    }
}

/// Walks forward from `c` to the next visible entry that is not a tombstone, skipping
/// older versions of `skip` (and updating it); leaves `c` after the entry. Ends at the
/// first key `stop` says is out of reach. An error stepping past the entry found goes to
/// `after_found`, and the entry is returned.
fn scan_forward(
    c: &mut MergingIterator,
    (seq, now, pin, ranges): (SeqNo, u64, bool, &RangeView),
    (skip, after_found): (&mut Option<Vec<u8>>, &mut Option<Error>),
    stop: &dyn Fn(&[u8]) -> bool,
) -> Result<Option<Found>> {
    while c.valid() {
        let p = ParsedKey::parse(c.key());
        if p.seq > seq || skip.as_deref() == Some(p.user_key) {
            c.next()?;
            continue;
        }
        if stop(p.user_key) {
            return Ok(None);
        }
        match skip {
            Some(k) => set_key(k, p.user_key),
            None => *skip = Some(p.user_key.to_vec()),
        }
        check_kind(&p)?;
        if p.entry_kind() == Some(EntryKind::Delete)
            || expired(&p, c.value(), now)?
            || ranges.hiding(p.user_key, p.seq).is_some()
        {
            c.next()?;
            continue;
        }
        let found = found_at(c, pin);
        if let Err(e) = c.next() {
            *after_found = Some(e);
        }
        return Ok(Some(found));
    }
    Ok(None)
}

/// Walks back from `c` (at the last version of some key) to the previous visible entry
/// at or below `upper` that is not a tombstone; leaves `c` before the entry's key. Ends at
/// the first key `stop` says is out of reach.
fn scan_backward(
    c: &mut MergingIterator,
    (seq, now, pin, ranges): (SeqNo, u64, bool, &RangeView),
    stop: &dyn Fn(&[u8]) -> bool,
    upper: &Bound<Vec<u8>>,
) -> Result<Option<Found>> {
    while c.valid() {
        let user_key = ParsedKey::parse(c.key()).user_key.to_vec();
        if stop(&user_key) {
            return Ok(None);
        }
        // Walking backwards meets a key's versions oldest first: the last visible one
        // seen is the newest.
        let mut newest: Option<Found> = None;
        while c.valid() && ParsedKey::parse(c.key()).user_key == user_key.as_slice() {
            if ParsedKey::parse(c.key()).seq <= seq {
                newest = Some(found_at(c, pin));
            }
            c.prev()?;
        }
        let above = match upper {
            Bound::Included(u) => user_key > *u,
            Bound::Excluded(u) => user_key >= *u,
            Bound::Unbounded => false,
        };
        let Some(f) = newest.filter(|_| !above) else {
            continue;
        };
        let p = ParsedKey::parse(&f.ikey);
        check_kind(&p)?;
        if p.entry_kind() == Some(EntryKind::Delete)
            || expired(&p, &f.value, now)?
            || ranges.hiding(p.user_key, p.seq).is_some()
        {
            continue;
        }
        return Ok(Some(f));
    }
    Ok(None)
}

impl Iterator for DbIterator {
    type Item = Result<KvPair>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_pair();
        self.finish_cursor(r).map(|r| r.map(owned))
    }
}

impl DoubleEndedIterator for DbIterator {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.next_back_pair().map(|r| r.map(owned))
    }
}

impl DbIterator {
    /// `next_back`, the value as read.
    pub(crate) fn next_back_pair(&mut self) -> Option<Result<PinnedPair>> {
        if self.done {
            return None;
        }
        let r = self.next_back_found().and_then(|f| match f {
            Some(f) => self.value_of(f, false).map(Some),
            None => Ok(None),
        });
        self.finish(r)
    }

    /// This iterator's cursor and range, yielding values shared with the table blocks and
    /// read buffers they were found in instead of copied (see [`Pinned`]).
    pub fn into_pinned(mut self) -> Pinned {
        self.unalign();
        self.pin = true;
        Pinned(self)
    }
}

/// The pair with its value in a `Vec` of its own ([`read::into_vec`]).
fn owned((key, value): PinnedPair) -> KvPair {
    (key, read::into_vec(value))
}

/// The entry `c` stands at; with `pin`, its value shares a table's block.
fn found_at(c: &MergingIterator, pin: bool) -> Found {
    Found {
        ikey: c.key().to_vec(),
        value: if pin {
            c.value_bytes()
        } else {
            Bytes::copy_from_slice(c.value())
        },
    }
}
