//! The pure state a version describes, and how version edits change it.
//!
//! Recovery and the running engine apply edits through [`VersionState::apply`] alike.

use crate::format::manifest::{DropDelta, TableRecord, ValueFileRecord, VersionEdit};
use crate::key::{SeqNo, compare_internal, user_key};
use crate::vlog::LogPosition;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// What the key store knows about one value file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ValueFileState {
    /// Size and separated bytes, recorded once the file is wholly older than the flushed
    /// point; `None` while it is still part of the log being replayed on open.
    pub sealed: Option<ValueFileRecord>,
    /// Separated entries dropped by flushes and compactions.
    pub dropped_count: u64,
    /// Their bytes.
    pub dropped_bytes: u64,
}

impl ValueFileState {
    /// Whether the file is sealed and nothing in it is referenced any more.
    pub fn is_dead(&self) -> bool {
        self.sealed
            .is_some_and(|s| self.dropped_count >= s.separated_count)
    }

    /// Fraction of separated bytes still referenced (1.0 if none were separated).
    pub fn valid_rate(&self) -> f64 {
        match self.sealed {
            Some(s) if s.separated_bytes > 0 => {
                s.separated_bytes.saturating_sub(self.dropped_bytes) as f64
                    / s.separated_bytes as f64
            }
            _ => 1.0,
        }
    }
}

/// The files and counters of one version of the database, without open resources.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VersionState {
    /// Tables per level. L0 newest first (by file number, i.e. flush order); deeper levels
    /// sorted by smallest key and non-overlapping.
    pub levels: Vec<Vec<TableRecord>>,
    /// Every value file the engine knows: sealed ones from the manifest and the log files
    /// after the flushed point.
    pub value_files: BTreeMap<u64, ValueFileState>,
    /// Everything in the value log before this position is in SSTables.
    pub flushed_point: LogPosition,
    /// The next file number to hand out.
    pub next_file_number: u64,
    /// The largest sequence number known durable: every sequence up to it is in SSTables
    /// or in the log after the flushed point, so recovery must find it again.
    pub last_sequence: SeqNo,
    /// The largest sequence number at or before the flushed point (`None` in manifests
    /// written before it was recorded).
    pub flushed_sequence: Option<SeqNo>,
    /// Per level, where the next compaction starts.
    pub compact_pointers: Vec<Option<Vec<u8>>>,
    /// The cumulative counters `(id, value)` of the latest edit that carried them (`None`
    /// in manifests written before they were recorded: the counters start from zero).
    pub counters: Option<Vec<(u64, u64)>>,
}

impl VersionState {
    /// An empty database with `num_levels` levels.
    pub fn empty(num_levels: usize) -> VersionState {
        VersionState {
            levels: vec![Vec::new(); num_levels],
            compact_pointers: vec![None; num_levels],
            next_file_number: 1,
            flushed_sequence: Some(0),
            ..VersionState::default()
        }
    }

    /// Applies an edit, checking that it makes sense against this state.
    pub fn apply(&mut self, edit: &VersionEdit) -> Result<(), String> {
        if let Some(n) = edit.next_file_number {
            self.next_file_number = self.next_file_number.max(n);
        }
        if let Some(s) = edit.last_sequence {
            self.last_sequence = self.last_sequence.max(s);
        }
        if let Some((file, offset)) = edit.flushed_point {
            let p = LogPosition { file, offset };
            if p < self.flushed_point {
                return Err(format!(
                    "flushed point moves backwards from {:?} to {p:?}",
                    self.flushed_point
                ));
            }
            self.flushed_point = p;
        }
        if let Some(s) = edit.flushed_sequence {
            self.flushed_sequence = Some(self.flushed_sequence.unwrap_or(0).max(s));
        }
        if let Some(c) = &edit.counters {
            self.counters = Some(c.clone());
        }
        for &(level, number) in &edit.deleted_tables {
            let files = self.level_mut(level)?;
            let pos = files
                .iter()
                .position(|t| t.number == number)
                .ok_or_else(|| format!("edit deletes table {number}, which is not in L{level}"))?;
            files.remove(pos);
        }
        for t in &edit.added_tables {
            if self.levels.iter().flatten().any(|e| e.number == t.number) {
                return Err(format!("edit adds table {} twice", t.number));
            }
            if compare_internal(&t.smallest, &t.largest) == Ordering::Greater {
                return Err(format!("table {} has smallest key after largest", t.number));
            }
            self.level_mut(t.level)?.push(t.clone());
        }
        if !edit.added_tables.is_empty() {
            self.sort_levels()?;
        }
        for v in &edit.added_value_files {
            let f = self.value_files.entry(v.number).or_default();
            if f.sealed.is_some_and(|s| s.epoch != v.epoch) {
                // A new epoch (a GC rewrite) starts with only the drops its edit carries.
                f.dropped_count = 0;
                f.dropped_bytes = 0;
            }
            f.sealed = Some(*v);
        }
        for &DropDelta {
            number,
            epoch,
            count,
            bytes,
        } in &edit.value_file_drops
        {
            let f = self.value_files.entry(number).or_default();
            // Drops counted against an epoch the file has left behind were settled when it
            // was rewritten (the rewrite skipped or carried them over).
            if f.sealed.is_none_or(|s| s.epoch == epoch) {
                let (Some(c), Some(b)) = (
                    f.dropped_count.checked_add(count),
                    f.dropped_bytes.checked_add(bytes),
                ) else {
                    return Err(format!("drop counts of value file {number} overflow"));
                };
                f.dropped_count = c;
                f.dropped_bytes = b;
            }
        }
        for n in &edit.deleted_value_files {
            self.value_files.remove(n);
        }
        for (level, key) in &edit.compact_pointers {
            let slot = self
                .compact_pointers
                .get_mut(*level)
                .ok_or_else(|| format!("compact pointer for missing level {level}"))?;
            *slot = Some(key.clone());
        }
        Ok(())
    }

    fn level_mut(&mut self, level: usize) -> Result<&mut Vec<TableRecord>, String> {
        self.levels
            .get_mut(level)
            .ok_or_else(|| format!("level {level} does not exist"))
    }

    fn sort_levels(&mut self) -> Result<(), String> {
        for (level, files) in self.levels.iter_mut().enumerate() {
            if level == 0 {
                // Newest flush first. Flushes take numbers in order; sequence ranges cannot
                // order L0, since a table may hold old sequences re-inserted with new
                // handles (value GC's fix-ups), which must shadow the stale originals.
                files.sort_by_key(|t| std::cmp::Reverse(t.number));
                continue;
            }
            files.sort_by(|a, b| compare_internal(&a.smallest, &b.smallest));
            for pair in files.windows(2) {
                if let [a, b] = pair
                    && user_key(&a.largest) >= user_key(&b.smallest)
                {
                    return Err(format!(
                        "tables {} and {} overlap in L{level}",
                        a.number, b.number
                    ));
                }
            }
        }
        Ok(())
    }

    /// An edit that recreates this state from nothing: what a new manifest starts with.
    /// Log files that are not sealed and have no drops are not recorded (recovery finds
    /// them in the directory).
    pub fn snapshot(&self) -> VersionEdit {
        let mut e = VersionEdit {
            next_file_number: Some(self.next_file_number),
            last_sequence: Some(self.last_sequence),
            flushed_point: Some((self.flushed_point.file, self.flushed_point.offset)),
            flushed_sequence: self.flushed_sequence,
            added_tables: self.levels.iter().flatten().cloned().collect(),
            counters: self.counters.clone(),
            ..VersionEdit::default()
        };
        for (&number, f) in &self.value_files {
            if let Some(s) = f.sealed {
                e.added_value_files.push(s);
            }
            if f.dropped_count > 0 {
                e.value_file_drops.push(DropDelta {
                    number,
                    epoch: f.sealed.map_or(0, |s| s.epoch),
                    count: f.dropped_count,
                    bytes: f.dropped_bytes,
                });
            }
        }
        for (level, p) in self.compact_pointers.iter().enumerate() {
            if let Some(k) = p {
                e.compact_pointers.push((level, k.clone()));
            }
        }
        e
    }

    /// Total bytes of the tables of a level.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.levels
            .get(level)
            .map(|l| {
                l.iter()
                    .fold(0u64, |sum, t| sum.saturating_add(t.file_size))
            })
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::internal_key;

    fn table(level: usize, number: u64, lo: &str, hi: &str, seq: u64) -> TableRecord {
        TableRecord {
            level,
            number,
            file_size: 100,
            smallest: internal_key(lo.as_bytes(), seq, 1),
            largest: internal_key(hi.as_bytes(), seq, 1),
            smallest_seq: seq,
            largest_seq: seq,
        }
    }

    #[test]
    fn snapshot_recreates_the_state() {
        let mut s = VersionState::empty(4);
        let mut e = VersionEdit {
            flushed_point: Some((3, 500)),
            added_tables: vec![table(0, 5, "a", "m", 10), table(1, 6, "n", "z", 4)],
            ..VersionEdit::default()
        };
        e.added_value_files.push(ValueFileRecord {
            number: 2,
            epoch: 0,
            total_bytes: 1000,
            separated_bytes: 800,
            separated_count: 8,
        });
        e.value_file_drops.push(DropDelta {
            number: 2,
            epoch: 0,
            count: 3,
            bytes: 300,
        });
        e.counters = Some(vec![(1, 4096), (3, 8192)]);
        s.apply(&e).unwrap();
        let mut again = VersionState::empty(4);
        again.apply(&s.snapshot()).unwrap();
        assert_eq!(again, s);
        assert!((s.value_files[&2].valid_rate() - 0.625).abs() < 1e-9);
    }

    #[test]
    fn bad_edits_are_rejected() {
        let mut s = VersionState::empty(3);
        let del = VersionEdit {
            deleted_tables: vec![(1, 9)],
            ..VersionEdit::default()
        };
        assert!(s.apply(&del).is_err());
        let overlap = VersionEdit {
            added_tables: vec![table(1, 1, "a", "k", 1), table(1, 2, "j", "z", 1)],
            ..VersionEdit::default()
        };
        assert!(s.clone().apply(&overlap).is_err());
        let backwards = VersionEdit {
            flushed_point: Some((0, 0)),
            ..VersionEdit::default()
        };
        s.apply(&VersionEdit {
            flushed_point: Some((4, 10)),
            ..VersionEdit::default()
        })
        .unwrap();
        assert!(s.apply(&backwards).is_err());
    }

    #[test]
    fn drop_counts_that_overflow_are_an_error() {
        let mut s = VersionState::empty(3);
        let drops = |count| VersionEdit {
            value_file_drops: vec![DropDelta {
                number: 4,
                epoch: 0,
                count,
                bytes: u64::MAX / 2 + 1,
            }],
            ..VersionEdit::default()
        };
        s.apply(&drops(1)).unwrap();
        let err = s.apply(&drops(1)).unwrap_err();
        assert!(err.contains("overflow"), "{err}");
    }

    #[test]
    fn drops_of_a_left_behind_epoch_are_ignored() {
        let mut s = VersionState::empty(3);
        let seal = |epoch| VersionEdit {
            added_value_files: vec![ValueFileRecord {
                number: 4,
                epoch,
                total_bytes: 100,
                separated_bytes: 80,
                separated_count: 8,
            }],
            ..VersionEdit::default()
        };
        let drop = |epoch| VersionEdit {
            value_file_drops: vec![DropDelta {
                number: 4,
                epoch,
                count: 2,
                bytes: 20,
            }],
            ..VersionEdit::default()
        };
        s.apply(&seal(0)).unwrap();
        s.apply(&drop(0)).unwrap();
        assert_eq!(s.value_files[&4].dropped_count, 2);
        // The rewrite to epoch 1 starts from the drops its own edit carries over.
        s.apply(&seal(1)).unwrap();
        assert_eq!(s.value_files[&4].dropped_count, 0);
        s.apply(&drop(0)).unwrap();
        assert_eq!(s.value_files[&4].dropped_count, 0);
        s.apply(&drop(1)).unwrap();
        assert_eq!(s.value_files[&4].dropped_count, 2);
    }

    #[test]
    fn l0_is_newest_first_and_drops_accumulate_before_sealing() {
        let mut s = VersionState::empty(3);
        s.apply(&VersionEdit {
            added_tables: vec![table(0, 2, "a", "b", 5), table(0, 1, "a", "b", 9)],
            value_file_drops: vec![DropDelta {
                number: 7,
                epoch: 0,
                count: 1,
                bytes: 50,
            }],
            ..VersionEdit::default()
        })
        .unwrap();
        assert_eq!(s.levels[0][0].number, 2);
        assert_eq!(s.value_files[&7].sealed, None);
        assert!(!s.value_files[&7].is_dead());
        s.apply(&VersionEdit {
            added_value_files: vec![ValueFileRecord {
                number: 7,
                epoch: 0,
                total_bytes: 90,
                separated_bytes: 50,
                separated_count: 1,
            }],
            ..VersionEdit::default()
        })
        .unwrap();
        assert!(s.value_files[&7].is_dead());
    }
}
