//! The pure state a version describes, and how version edits change it.
//!
//! Recovery and the running engine apply edits through [`VersionState::apply`] alike.

use crate::format::manifest::{
    DropDelta, PunchDelta, TableRecord, ValueFileOrigin, ValueFileRecord, VersionEdit,
};
use crate::key::{SeqNo, compare_internal, user_key};
use crate::vlog::LogPosition;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The share of a value log's bytes that must be other than separated entries for them
/// to count as inline entries (garbage once the log is sealed) rather than framing.
pub const INLINE_SHARE: f64 = 0.1;

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
    /// Dropped entries of the current epoch inside punched runs: no longer on disk.
    pub punched_count: u64,
    /// Their bytes.
    pub punched_record_bytes: u64,
    /// Bytes of the current epoch freed by punching holes (whole blocks).
    pub punched_bytes: u64,
    /// Who wrote the file: the value log, or placement (a flush's transient file of medium
    /// values, a compaction's re-placed values).
    pub origin: ValueFileOrigin,
    /// The group of a hash-layout segment (origin [`ValueFileOrigin::Hash`]); 0 otherwise.
    pub group: u32,
    /// Whether a hash-layout segment is one of its group's cold segments.
    pub cold: bool,
}

impl ValueFileState {
    /// What a sealed hash-layout segment is to its group; `None` for other value files.
    pub fn hash_role(&self) -> Option<crate::hash_layout::Role> {
        let s = self
            .sealed
            .filter(|_| self.origin == ValueFileOrigin::Hash)?;
        Some(crate::hash_layout::Role::of(s.epoch, self.cold))
    }

    /// Whether the file is sealed and nothing in it is referenced any more.
    pub fn is_dead(&self) -> bool {
        // A hash segment's tombstones matter to its group's GC even when it holds no
        // record; only that GC deletes it.
        self.origin != ValueFileOrigin::Hash
            && self
                .sealed
                .is_some_and(|s| self.dropped_count >= s.separated_count)
    }

    /// Fraction of the separated bytes still in the file that are referenced (1.0 if
    /// none are): dropped entries inside punched runs count as gone, so a file whose
    /// garbage was punched is not picked again for the same garbage.
    pub fn valid_rate(&self) -> f64 {
        match self.sealed {
            Some(s) => {
                let on_disk = s.separated_bytes.saturating_sub(self.punched_record_bytes);
                if on_disk == 0 {
                    return 1.0;
                }
                s.separated_bytes.saturating_sub(self.dropped_bytes) as f64 / on_disk as f64
            }
            _ => 1.0,
        }
    }

    /// Fraction of the file's bytes on disk (its length less the blocks punched out) that a
    /// rewrite would keep: everything but the dropped records still on disk and, in a
    /// value log (epoch 0), its inline entries, which are in tables once the log is sealed.
    /// So a log of mostly inline entries is collectable even with every separated entry
    /// live. A log's bytes other than separated entries are taken as inline entries only
    /// when they are at least [`INLINE_SHARE`] of it; less is framing, and a log of live
    /// separated entries is never worth rewriting (nor, in lsm-lookup mode, relocating over
    /// and over). An SVTable's index and footer count as live: a rewrite writes them again.
    /// 1.0 for a file still part of the log, or with nothing on disk.
    pub fn live_fraction(&self) -> f64 {
        let Some(s) = self.sealed else {
            return 1.0;
        };
        let on_disk = s.total_bytes.saturating_sub(self.punched_bytes);
        if on_disk == 0 {
            return 1.0;
        }
        let mut dead = self.unpunched_dropped_bytes();
        let other = s.total_bytes.saturating_sub(s.separated_bytes);
        if s.epoch == 0 && other as f64 >= s.total_bytes as f64 * INLINE_SHARE {
            dead += other;
        }
        1.0 - dead.min(on_disk) as f64 / on_disk as f64
    }

    /// Dropped bytes still on disk (not inside punched runs).
    pub fn unpunched_dropped_bytes(&self) -> u64 {
        self.dropped_bytes.saturating_sub(self.punched_record_bytes)
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
    /// Per value file, the punched runs `[start, end)` of its current epoch, in file order,
    /// adjacent ones merged (counts in [`ValueFileState`]). Scanners skip them.
    pub punched: BTreeMap<u64, Vec<(u64, u64)>>,
    /// Whether flushes and compactions ever left drops of log records unrecorded (value GC
    /// in vlog mode): drop counts then understate garbage, and the other modes, which
    /// trust them, cannot take the database over (see `db::open`).
    pub drops_untracked: bool,
    /// The hash layout's number of groups, if the database uses it (`hash_layout`).
    pub hash_groups: Option<u32>,
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
        self.drops_untracked |= edit.drops_untracked;
        if let Some(groups) = edit.hash_groups {
            if self.hash_groups.is_some_and(|g| g != groups) {
                return Err(format!(
                    "edit changes the hash layout from {:?} to {groups} groups",
                    self.hash_groups
                ));
            }
            self.hash_groups = Some(groups);
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
                // A new epoch (a GC rewrite) starts with only the drops its edit carries,
                // and with no punched runs.
                f.dropped_count = 0;
                f.dropped_bytes = 0;
                f.punched_count = 0;
                f.punched_record_bytes = 0;
                f.punched_bytes = 0;
                self.punched.remove(&v.number);
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
        for p in &edit.value_file_punches {
            self.apply_punch(p)?;
        }
        for &(number, origin) in &edit.value_file_origins {
            match self.value_files.get_mut(&number) {
                Some(f) if f.sealed.is_some_and(|s| s.epoch >= origin.birth_epoch()) => {
                    f.origin = origin;
                }
                _ => {
                    return Err(format!(
                        "edit gives an origin to value file {number}, which it does not add"
                    ));
                }
            }
        }
        for &(number, group) in &edit.hash_segments {
            let groups = self.hash_groups.ok_or_else(|| {
                format!("edit adds hash segment {number} to a database without the hash layout")
            })?;
            match self.value_files.get_mut(&number) {
                Some(f) if f.sealed.is_some() && group < groups => {
                    f.origin = ValueFileOrigin::Hash;
                    f.group = group;
                }
                _ => {
                    return Err(format!(
                        "edit makes value file {number} a segment of group {group} of {groups}, \
                         which it does not add"
                    ));
                }
            }
        }
        for &number in &edit.hash_cold_segments {
            match self.value_files.get_mut(&number) {
                Some(f) if f.origin == ValueFileOrigin::Hash => f.cold = true,
                _ => {
                    return Err(format!(
                        "edit makes value file {number} a cold segment, which is no hash segment"
                    ));
                }
            }
        }
        for n in &edit.deleted_value_files {
            self.value_files.remove(n);
            self.punched.remove(n);
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

    /// Adds the punched runs of `p` to its file, if the file is at that epoch.
    fn apply_punch(&mut self, p: &PunchDelta) -> Result<(), String> {
        let Some(f) = self.value_files.get_mut(&p.number) else {
            return Err(format!(
                "edit punches value file {}, which is unknown",
                p.number
            ));
        };
        if f.sealed.is_none_or(|s| s.epoch != p.epoch) {
            // Runs of an epoch the file has left behind went with that epoch.
            return Ok(());
        }
        let runs = self.punched.entry(p.number).or_default();
        runs.extend_from_slice(&p.runs);
        *runs = merge_runs(std::mem::take(runs))
            .ok_or_else(|| format!("punched runs of value file {} overlap", p.number))?;
        let (Some(c), Some(b), Some(pb)) = (
            f.punched_count.checked_add(p.records),
            f.punched_record_bytes.checked_add(p.record_bytes),
            f.punched_bytes.checked_add(p.punched_bytes),
        ) else {
            return Err(format!("punch counts of value file {} overflow", p.number));
        };
        (f.punched_count, f.punched_record_bytes, f.punched_bytes) = (c, b, pb);
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
            drops_untracked: self.drops_untracked,
            hash_groups: self.hash_groups,
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
            match f.origin {
                ValueFileOrigin::Log => {}
                ValueFileOrigin::Hash => {
                    e.hash_segments.push((number, f.group));
                    if f.cold {
                        e.hash_cold_segments.push(number);
                    }
                }
                origin => e.value_file_origins.push((number, origin)),
            }
            if let (Some(s), Some(runs)) = (f.sealed, self.punched.get(&number)) {
                e.value_file_punches.push(PunchDelta {
                    number,
                    epoch: s.epoch,
                    runs: runs.clone(),
                    records: f.punched_count,
                    record_bytes: f.punched_record_bytes,
                    punched_bytes: f.punched_bytes,
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

    /// Hash layout: where each group's records that its GC merged live, by group: the
    /// main segment first (if the group has one), then its cold segments, newest first
    /// (`hash_layout::Role`). A handle naming a segment merged away finds its record in
    /// one of them, by key and sequence.
    pub fn hash_chains(&self) -> BTreeMap<u32, Vec<u64>> {
        use crate::hash_layout::Role;
        let mut parts: Vec<(u32, bool, std::cmp::Reverse<u64>)> = self
            .value_files
            .iter()
            .filter_map(|(&n, f)| match f.hash_role()? {
                Role::Main => Some((f.group, false, std::cmp::Reverse(n))),
                Role::Cold => Some((f.group, true, std::cmp::Reverse(n))),
                Role::Log => None,
            })
            .collect();
        parts.sort_unstable();
        let mut chains: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        for (group, _, n) in parts {
            chains.entry(group).or_default().push(n.0);
        }
        chains
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

/// `runs` sorted, with touching runs merged; `None` if two overlap.
pub(crate) fn merge_runs(mut runs: Vec<(u64, u64)>) -> Option<Vec<(u64, u64)>> {
    runs.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
    for (start, end) in runs {
        match out.last_mut() {
            Some(last) if start < last.1 => return None,
            Some(last) if start == last.1 => last.1 = end,
            _ => out.push((start, end)),
        }
    }
    Some(out)
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

    fn sealed(number: u64, epoch: u32) -> VersionEdit {
        VersionEdit {
            added_value_files: vec![ValueFileRecord {
                number,
                epoch,
                total_bytes: 100_000,
                separated_bytes: 90_000,
                separated_count: 90,
            }],
            value_file_drops: vec![DropDelta {
                number,
                epoch,
                count: 50,
                bytes: 50_000,
            }],
            ..VersionEdit::default()
        }
    }

    fn punch(number: u64, epoch: u32, runs: Vec<(u64, u64)>, records: u64) -> VersionEdit {
        VersionEdit {
            value_file_punches: vec![PunchDelta {
                number,
                epoch,
                runs,
                records,
                record_bytes: records * 1000,
                punched_bytes: records * 900,
            }],
            ..VersionEdit::default()
        }
    }

    #[test]
    fn punched_runs_merge_survive_snapshots_and_go_with_their_epoch() {
        let mut s = VersionState::empty(3);
        s.apply(&sealed(4, 0)).unwrap();
        s.apply(&punch(4, 0, vec![(100, 20_100)], 20)).unwrap();
        s.apply(&punch(4, 0, vec![(20_100, 30_100), (50_000, 60_000)], 20))
            .unwrap();
        assert_eq!(s.punched[&4], vec![(100, 30_100), (50_000, 60_000)]);
        assert_eq!(s.value_files[&4].punched_count, 40);
        let mut again = VersionState::empty(3);
        again.apply(&s.snapshot()).unwrap();
        assert_eq!(again, s);
        // Overlapping runs are corruption; runs of a left-behind epoch are ignored.
        assert!(s.clone().apply(&punch(4, 0, vec![(0, 200)], 1)).is_err());
        s.apply(&sealed(4, 1)).unwrap();
        assert!(!s.punched.contains_key(&4));
        assert_eq!(s.value_files[&4].punched_record_bytes, 0);
        s.apply(&punch(4, 0, vec![(0, 200)], 1)).unwrap();
        assert!(!s.punched.contains_key(&4));
        s.apply(&VersionEdit {
            deleted_value_files: vec![4],
            ..VersionEdit::default()
        })
        .unwrap();
        assert!(s.punched.is_empty());
    }

    #[test]
    fn a_punched_file_is_not_picked_again_for_the_same_garbage() {
        let mut s = VersionState::empty(3);
        s.apply(&sealed(4, 0)).unwrap();
        let none = std::collections::HashSet::new();
        // 40 of 90 KB live: picked at a threshold of 0.5.
        assert!(s.value_files[&4].valid_rate() < 0.5);
        assert_eq!(crate::gc::pick(&s, 0.5, &none), Some(4));
        // 45 of the 50 dead KB punched: 40 live of 45 on disk.
        s.apply(&punch(4, 0, vec![(100, 45_100)], 45)).unwrap();
        assert!(s.value_files[&4].valid_rate() > 0.85);
        assert_eq!(s.value_files[&4].unpunched_dropped_bytes(), 5000);
        assert_eq!(crate::gc::pick(&s, 0.5, &none), None);
        // New garbage makes it a candidate again.
        s.apply(&VersionEdit {
            value_file_drops: vec![DropDelta {
                number: 4,
                epoch: 0,
                count: 35,
                bytes: 35_000,
            }],
            ..VersionEdit::default()
        })
        .unwrap();
        assert_eq!(crate::gc::pick(&s, 0.5, &none), Some(4));
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
