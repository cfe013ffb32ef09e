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
//! a time, so memory stays at the memtable's deletions and one key's versions however
//! large the range.

use super::iter::merged_of;
use crate::iter::{InternalIterator, MergingIterator};
use crate::key::{EntryKind, MAX_SEQNO, ParsedKey, SeqNo, internal_key, lookup_key};
use crate::memtable::{Memtable, RangeTombstone};
use crate::version::Version;
use crate::{Error, Result};
use std::collections::{BTreeSet, VecDeque};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The point tombstones `mem`'s range deletions stand for, given `version` (everything
/// older than `mem`) and the live snapshots' sequences, as a forward-only cursor to merge
/// with the memtable's own entries; `None` if `mem` holds no range deletion. The counter
/// counts the tombstones made.
pub(crate) fn expansion(
    mem: &Arc<Memtable>,
    version: &Version,
    snapshots: &[SeqNo],
) -> Option<(Expansion, Arc<AtomicU64>)> {
    let tombstones = mem.range_tombstones();
    if tombstones.is_empty() {
        return None;
    }
    let made = Arc::new(AtomicU64::new(0));
    let expansion = Expansion {
        source: merged_of(std::iter::once(mem), version, false),
        sweep: Sweep::new(&tombstones, snapshots),
        fragment: None,
        out: VecDeque::new(),
        versions: Vec::new(),
        made: Arc::clone(&made),
    };
    Some((expansion, made))
}

/// The range deletions cut into disjoint fragments, walked in key order: at each boundary
/// the deletions open there are known, and a fragment needs only some of their sequences.
/// A reader sees the newest deletion at or below its sequence; the readers of the flushed
/// table are the live snapshots and anything newer than the memtable, so the sequences
/// that matter are, for each snapshot, the newest at or below it, and the newest of all.
/// (The flush's filter would drop the tombstones of the others.)
struct Sweep {
    /// `(key, opens, sequence)`, sorted.
    events: Vec<(Vec<u8>, bool, SeqNo)>,
    next: usize,
    open: BTreeSet<SeqNo>,
    snapshots: Vec<SeqNo>,
}

/// A fragment: `[start, end)` and the sequences its keys need tombstones at, ascending.
struct Fragment {
    start: Vec<u8>,
    end: Vec<u8>,
    seqs: Vec<SeqNo>,
}

impl Sweep {
    fn new(tombstones: &[RangeTombstone], snapshots: &[SeqNo]) -> Sweep {
        let mut events = Vec::with_capacity(tombstones.len() * 2);
        for t in tombstones.iter().filter(|t| t.start < t.end) {
            events.push((t.start.clone(), true, t.seq));
            events.push((t.end.clone(), false, t.seq));
        }
        events.sort();
        let mut snapshots = snapshots.to_vec();
        snapshots.sort_unstable();
        Sweep {
            events,
            next: 0,
            open: BTreeSet::new(),
            snapshots,
        }
    }

    fn next_fragment(&mut self) -> Option<Fragment> {
        while self.next < self.events.len() {
            let at = self.events[self.next].0.clone();
            while let Some((key, opens, seq)) = self.events.get(self.next)
                && *key == at
            {
                if *opens {
                    self.open.insert(*seq);
                } else {
                    self.open.remove(seq);
                }
                self.next += 1;
            }
            if let Some((end, _, _)) = self.events.get(self.next)
                && let Some(&newest) = self.open.last()
            {
                let mut seqs: Vec<SeqNo> = self
                    .snapshots
                    .iter()
                    .filter(|&&s| s < newest)
                    .filter_map(|&s| self.open.range(..=s).next_back().copied())
                    .collect();
                seqs.push(newest);
                seqs.dedup();
                return Some(Fragment {
                    start: at,
                    end: end.clone(),
                    seqs,
                });
            }
        }
        None
    }
}

/// A forward-only cursor over the tombstones of [`expansion`]; seeking anywhere but the
/// first entry, or stepping back, is not supported.
pub(crate) struct Expansion {
    /// The memtable and every table, merged.
    source: MergingIterator,
    sweep: Sweep,
    /// The fragment being walked; `source` stands in it.
    fragment: Option<Fragment>,
    /// The current key's tombstones, newest first; the front is the cursor's entry.
    out: VecDeque<Vec<u8>>,
    /// Scratch: the current key's versions, newest first: `(sequence, is a put)`.
    versions: Vec<(SeqNo, bool)>,
    made: Arc<AtomicU64>,
}

impl Expansion {
    /// Moves to the next key that needs tombstones, if the front of `out` is used up.
    fn fill(&mut self) -> Result<()> {
        while self.out.is_empty() {
            let Some(fragment) = &self.fragment else {
                match self.sweep.next_fragment() {
                    Some(f) => {
                        self.source.seek(&lookup_key(&f.start, MAX_SEQNO))?;
                        self.fragment = Some(f);
                        continue;
                    }
                    None => break,
                }
            };
            if !self.source.valid()
                || ParsedKey::parse(self.source.key()).user_key >= fragment.end.as_slice()
            {
                self.fragment = None;
                continue;
            }
            let key = ParsedKey::parse(self.source.key()).user_key.to_vec();
            self.versions.clear();
            while self.source.valid() {
                let p = ParsedKey::parse(self.source.key());
                if p.user_key != key.as_slice() {
                    break;
                }
                let put = match p.entry_kind() {
                    Some(EntryKind::Delete) => false,
                    Some(_) => true,
                    None => {
                        return Err(Error::corruption(
                            Path::new("flush"),
                            0,
                            format!("entry of unknown kind {} under a range deletion", p.kind),
                        ));
                    }
                };
                self.versions.push((p.seq, put));
                self.source.next()?;
            }
            // Each deletion, oldest first, needs a tombstone if the newest version below
            // it (an earlier deletion's tombstone included) is a put.
            let mut deleted_at: Option<SeqNo> = None;
            for &t in &fragment.seqs {
                let below = self.versions.iter().find(|(seq, _)| *seq < t);
                let put = match (below, deleted_at) {
                    (Some(&(seq, put)), Some(d)) => put && seq > d,
                    (Some(&(_, put)), None) => put,
                    (None, _) => false,
                };
                if put {
                    self.out
                        .push_front(internal_key(&key, t, EntryKind::Delete as u8));
                    deleted_at = Some(t);
                }
            }
            self.made
                .fetch_add(self.out.len() as u64, Ordering::Relaxed);
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
        if self.sweep.next > 0 {
            return Err(backwards());
        }
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
