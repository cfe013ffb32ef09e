//! The user's iterator: merges every source, hides old versions and tombstones, applies
//! the range, and reads separated values.

use super::{DbInner, SuperVersion, read};
use crate::Result;
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{EntryKind, MAX_SEQNO, ParsedKey, SeqNo, internal_key, lookup_key};
use crate::vlog::ScanHints;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

/// A key-value pair yielded by iterators.
pub type KvPair = (Vec<u8>, Vec<u8>);

/// Iterates over a range of keys at one sequence number, in key order; `.rev()` (or
/// `next_back`) walks from the end. Both ends can be used at once and meet in the middle.
///
/// Holds the memtables and files it reads, so it sees one consistent state however long it
/// lives. An error is yielded once and ends the iteration. Not thread-safe to share;
/// `Send`.
pub struct DbIterator {
    inner: Arc<DbInner>,
    sv: Arc<SuperVersion>,
    seq: SeqNo,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    front: Option<MergingIterator>,
    back: Option<MergingIterator>,
    /// The last key yielded from the front (also: the key whose older versions to skip).
    front_key: Option<Vec<u8>>,
    /// The last key yielded from the back.
    back_key: Option<Vec<u8>>,
    done: bool,
    /// Where the forward walk's last SVTable searches ended (the backward walk searches
    /// afresh).
    hints: ScanHints,
}

impl std::fmt::Debug for DbIterator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DbIterator")
            .field("seq", &self.seq)
            .field("lower", &self.lower)
            .field("upper", &self.upper)
            .finish()
    }
}

/// Every entry of `sv` (memtables and tables) in internal-key order: user key ascending,
/// newest version first.
pub(crate) fn merged_sources(sv: &SuperVersion, fill_cache: bool) -> MergingIterator {
    let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
    for m in std::iter::once(&sv.mem).chain(&sv.imms) {
        children.push(Box::new(m.iter()));
    }
    let mut levels = sv.version.levels.iter();
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

impl DbIterator {
    /// REQUIRES: `sv` holds every version visible at `seq`: a pair from
    /// [`DbInner::read_view`], or a registered snapshot's sequence with any later super
    /// version.
    pub(crate) fn new(
        inner: Arc<DbInner>,
        sv: Arc<SuperVersion>,
        seq: SeqNo,
        (lower, upper): (Bound<Vec<u8>>, Bound<Vec<u8>>),
    ) -> DbIterator {
        DbIterator {
            inner,
            sv,
            seq,
            lower,
            upper,
            front: None,
            back: None,
            front_key: None,
            back_key: None,
            done: false,
            hints: ScanHints::default(),
        }
    }

    fn sources(&self) -> MergingIterator {
        merged_sources(&self.sv, true)
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

    fn value_of(&mut self, ikey: &[u8], value: Vec<u8>, forward: bool) -> Result<Option<Vec<u8>>> {
        read::resolve(
            &self.inner,
            &self.sv,
            self.seq,
            Path::new("iterator"),
            ikey,
            value,
            forward.then_some(&mut self.hints),
        )
    }

    fn step_front(&mut self) -> Result<Option<KvPair>> {
        let mut cursor = match self.front.take() {
            Some(c) => c,
            None => {
                let mut c = self.sources();
                match &self.lower {
                    Bound::Unbounded => c.seek_to_first()?,
                    Bound::Included(k) | Bound::Excluded(k) => c.seek(&lookup_key(k, MAX_SEQNO))?,
                }
                if let Bound::Excluded(k) = &self.lower {
                    self.front_key = Some(k.clone());
                }
                c
            }
        };
        let out = self.scan_front(&mut cursor);
        self.front = Some(cursor);
        out
    }

    fn scan_front(&mut self, c: &mut MergingIterator) -> Result<Option<KvPair>> {
        while c.valid() {
            let p = ParsedKey::parse(c.key());
            if p.seq > self.seq || self.front_key.as_deref() == Some(p.user_key) {
                c.next()?;
                continue;
            }
            if self.above_upper(p.user_key)
                || self.back_key.as_deref().is_some_and(|b| p.user_key >= b)
            {
                return Ok(None);
            }
            self.front_key = Some(p.user_key.to_vec());
            if p.entry_kind() == Some(EntryKind::Delete) {
                c.next()?;
                continue;
            }
            let ikey = c.key().to_vec();
            let value = self.value_of(&ikey, c.value().to_vec(), true)?;
            c.next()?;
            if let Some(v) = value {
                return Ok(Some((ParsedKey::parse(&ikey).user_key.to_vec(), v)));
            }
        }
        Ok(None)
    }

    fn step_back(&mut self) -> Result<Option<KvPair>> {
        let mut cursor = match self.back.take() {
            Some(c) => c,
            None => {
                let mut c = self.sources();
                match &self.upper {
                    Bound::Unbounded => c.seek_to_last()?,
                    // The last internal key of user key `k` is (k, seq 0, kind 0).
                    Bound::Included(k) => c.seek_for_prev(&internal_key(k, 0, 0))?,
                    Bound::Excluded(k) => c.seek_for_prev(&lookup_key(k, MAX_SEQNO))?,
                }
                c
            }
        };
        let out = self.scan_back(&mut cursor);
        self.back = Some(cursor);
        out
    }

    fn scan_back(&mut self, c: &mut MergingIterator) -> Result<Option<KvPair>> {
        while c.valid() {
            let user_key = ParsedKey::parse(c.key()).user_key.to_vec();
            if self.below_lower(&user_key)
                || self
                    .front_key
                    .as_deref()
                    .is_some_and(|f| user_key.as_slice() <= f)
            {
                return Ok(None);
            }
            // Walking backwards meets a key's versions oldest first: the last visible one
            // seen is the newest.
            let mut newest: Option<(Vec<u8>, Vec<u8>)> = None;
            while c.valid() && ParsedKey::parse(c.key()).user_key == user_key.as_slice() {
                if ParsedKey::parse(c.key()).seq <= self.seq {
                    newest = Some((c.key().to_vec(), c.value().to_vec()));
                }
                c.prev()?;
            }
            if self.above_upper(&user_key) {
                continue;
            }
            let Some((ikey, value)) = newest else {
                continue;
            };
            self.back_key = Some(user_key.clone());
            if let Some(v) = self.value_of(&ikey, value, false)? {
                return Ok(Some((user_key, v)));
            }
        }
        Ok(None)
    }

    fn finish(&mut self, r: Result<Option<KvPair>>) -> Option<Result<KvPair>> {
        match r {
            Ok(Some(kv)) => Some(Ok(kv)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl Iterator for DbIterator {
    type Item = Result<KvPair>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.step_front();
        self.finish(r)
    }
}

impl DoubleEndedIterator for DbIterator {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.step_back();
        self.finish(r)
    }
}
