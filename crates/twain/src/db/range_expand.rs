//! At a flush: a memtable's range deletions become point tombstones.
//!
//! Tables hold no ranges. The flush of the memtable a range deletion `[start, end)@t` went
//! to writes a tombstone `k@t` for every key `k` in the range whose newest version below
//! `t` is a put, in the tables below or in the memtable itself. The tombstones then do what
//! any tombstone does: hide older versions from reads at `t` or later, and let compaction
//! drop those versions, recording the drops of their separated values for value GC. A key
//! already deleted below `t`, or only written after `t`, gets none.
//!
//! Everything older than the memtable is in the tables: memtables flush oldest first, and
//! nothing with a sequence below the memtable's is written to a newer one (handle fix-ups
//! and relocations skip a version a range deletion hides, as they skip one a tombstone
//! hides: `read::newest_entry`). The tombstones come out in internal-key order, one key at
//! a time, so memory stays at one key's versions however large the range.

use super::iter::merged_of;
use crate::iter::{InternalIterator, MergingIterator};
use crate::key::{EntryKind, MAX_SEQNO, ParsedKey, SeqNo, internal_key, lookup_key};
use crate::memtable::{Fragments, Memtable};
use crate::stats::Counters;
use crate::version::Version;
use crate::{Error, Result};
use std::collections::VecDeque;
use std::sync::Arc;

/// The point tombstones `mem`'s range deletions stand for, given `version` (everything
/// older than `mem`), as a forward-only cursor to merge with the memtable's own entries;
/// `None` if `mem` holds no range deletion.
pub(crate) fn expansion(
    mem: &Arc<Memtable>,
    version: &Version,
    counters: &Arc<Counters>,
) -> Option<Expansion> {
    let fragments = mem.range_deletions()?;
    Some(Expansion {
        counters: Arc::clone(counters),
        source: merged_of(std::iter::once(mem), version, false),
        fragments,
        fragment: 0,
        seeked: false,
        out: VecDeque::new(),
        versions: Vec::new(),
        done: false,
    })
}

/// A forward-only cursor over the tombstones of [`expansion`]; seeking anywhere but the
/// first entry, or stepping back, is not supported.
pub(crate) struct Expansion {
    /// The memtable and every table, merged.
    source: MergingIterator,
    fragments: Arc<Fragments>,
    /// The fragment being walked.
    fragment: usize,
    /// Whether `source` was positioned at the fragment's start.
    seeked: bool,
    /// The current key's tombstones, newest first; the front is the cursor's entry.
    out: VecDeque<Vec<u8>>,
    /// Scratch: the current key's versions, newest first: `(sequence, is a put)`.
    versions: Vec<(SeqNo, bool)>,
    done: bool,
    /// Counts the tombstones made (`range_deletion_tombstones`).
    counters: Arc<Counters>,
}

impl Expansion {
    /// Moves to the next key that needs tombstones, if the front of `out` is used up.
    fn fill(&mut self) -> Result<()> {
        let fragments = Arc::clone(&self.fragments);
        while self.out.is_empty() && !self.done {
            let Some((start, end, seqs)) = fragments.get(self.fragment) else {
                self.done = true;
                break;
            };
            if !self.seeked {
                self.source.seek(&lookup_key(start, MAX_SEQNO))?;
                self.seeked = true;
            }
            let key = match self.source.valid() {
                true => ParsedKey::parse(self.source.key()).user_key.to_vec(),
                false => Vec::new(),
            };
            if !self.source.valid() || key.as_slice() >= end {
                self.fragment += 1;
                self.seeked = false;
                continue;
            }
            self.versions.clear();
            while self.source.valid() {
                let p = ParsedKey::parse(self.source.key());
                if p.user_key != key.as_slice() {
                    break;
                }
                self.versions
                    .push((p.seq, p.entry_kind() != Some(EntryKind::Delete)));
                self.source.next()?;
            }
            // Each deletion, oldest first, needs a tombstone if the newest version below
            // it (an earlier deletion's tombstone included) is a put.
            let mut deleted_at: Option<SeqNo> = None;
            for &t in seqs {
                let below = self.versions.iter().find(|(seq, _)| *seq < t);
                let put = match (below, deleted_at) {
                    (Some(&(seq, put)), Some(d)) => put && seq > d,
                    (Some(&(_, put)), None) => put,
                    (None, _) => false,
                };
                if put {
                    Counters::add(&self.counters.range_deletion_tombstones, 1);
                    self.out
                        .push_front(internal_key(&key, t, EntryKind::Delete as u8));
                    deleted_at = Some(t);
                }
            }
        }
        Ok(())
    }
}

fn backwards() -> Error {
    Error::NotSupported("a range-deletion expansion only walks forward from its start")
}

impl InternalIterator for Expansion {
    fn valid(&self) -> bool {
        !self.out.is_empty()
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.fragment = 0;
        self.seeked = false;
        self.done = false;
        self.out.clear();
        self.fill()
    }

    fn seek_to_last(&mut self) -> Result<()> {
        Err(backwards())
    }

    fn seek(&mut self, _target: &[u8]) -> Result<()> {
        Err(backwards())
    }

    fn seek_for_prev(&mut self, _target: &[u8]) -> Result<()> {
        Err(backwards())
    }

    fn next(&mut self) -> Result<()> {
        self.out.pop_front();
        self.fill()
    }

    fn prev(&mut self) -> Result<()> {
        Err(backwards())
    }

    fn key(&self) -> &[u8] {
        self.out.front().map_or(&[], |k| k.as_slice())
    }

    fn value(&self) -> &[u8] {
        &[]
    }
}
