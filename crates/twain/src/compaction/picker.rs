//! Picking a compaction: a pure function of the version state, the options and the set of
//! tables already being compacted.

use crate::format::manifest::{TableRecord, VersionEdit};
use crate::key::{compare_internal, user_key};
use crate::version::VersionState;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

/// The shape of the level tree a picker aims for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelShape {
    /// L0 file count that triggers a compaction.
    pub l0_trigger: usize,
    /// Target size of L1 (static sizing), or the most the base level may target (dynamic).
    pub l1_target: u64,
    /// Growth factor per level.
    pub ratio: u64,
    /// Whether targets are derived from the biggest level down (`LevelSizing::Dynamic`).
    pub dynamic: bool,
}

/// What a shape asks of one version: the level L0 compacts into and each level's target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelTargets {
    /// The level L0 compacts into when every level above it is empty: 1 with static
    /// sizing; with dynamic sizing the highest level that has a target.
    pub base: usize,
    /// Target bytes per level (index 0, L0, has none: 0). Levels above `base` target 0:
    /// whatever they hold goes down.
    pub bytes: Vec<u64>,
}

impl LevelShape {
    /// The target size of level `level` (>= 1) under static sizing.
    pub fn target(&self, level: usize) -> u64 {
        let mut t = self.l1_target;
        for _ in 1..level {
            t = t.saturating_mul(self.ratio);
        }
        t
    }

    /// The base level and every level's target for `state`.
    ///
    /// Static sizing: L1 targets `l1_target`, each deeper level `ratio` times more.
    ///
    /// Dynamic sizing (RocksDB's `level_compaction_dynamic_level_bytes`, our own code): the
    /// biggest level below L0 (normally the last) sets the last level's target; each level
    /// above targets `ratio` times less, up to the first whose target is at most
    /// `l1_target`: the base. Its target lies in `(l1_target / ratio, l1_target]` once the
    /// tree is bigger than `l1_target`; a smaller tree has the last level as its base, so
    /// L0 goes straight down to it. Levels stay empty until the data needs them, and about
    /// `1 - 1 / ratio` of the data sits in the last level whatever the database's size.
    pub fn targets(&self, state: &VersionState) -> LevelTargets {
        let last = state.levels.len().saturating_sub(1).max(1);
        let mut bytes = vec![0u64; last + 1];
        if !self.dynamic {
            for (level, b) in bytes.iter_mut().enumerate().skip(1) {
                *b = self.target(level);
            }
            return LevelTargets { base: 1, bytes };
        }
        let biggest = (1..=last).map(|l| state.level_bytes(l)).max().unwrap_or(0);
        let ratio = self.ratio.max(2);
        let (mut base, mut t) = (last, biggest.max(1));
        bytes[last] = t;
        while base > 1 && t > self.l1_target {
            t /= ratio;
            base -= 1;
            bytes[base] = t.max(1);
        }
        LevelTargets { base, bytes }
    }
}

impl LevelTargets {
    /// The level L0 compacts into: the base, or the first level above it still holding
    /// tables (so no older version ever ends up above a newer one).
    pub fn l0_output(&self, state: &VersionState) -> usize {
        (1..self.base)
            .find(|&l| !state.levels.get(l).is_none_or(|f| f.is_empty()))
            .unwrap_or(self.base)
    }

    /// The level `level` compacts into.
    pub fn output_of(&self, state: &VersionState, level: usize) -> usize {
        match level {
            0 => self.l0_output(state),
            _ => level + 1,
        }
    }
}

/// One compaction to run: merge `inputs` (from `level`) with the overlapping `lower`
/// tables (from `output_level`) into new tables in `output_level` — normally `level + 1`;
/// the bottom level compacts into itself (with no `lower` tables) to drop what only a
/// released snapshot still needed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionTask {
    /// The level compacted from.
    pub level: usize,
    /// The level written to.
    pub output_level: usize,
    /// Its tables taking part.
    pub inputs: Vec<TableRecord>,
    /// The overlapping tables of `level + 1`.
    pub lower: Vec<TableRecord>,
    /// Whether the single input can simply be moved down (no overlap below).
    pub trivial_move: bool,
    /// Why it was picked (for statistics and logs).
    pub reason: &'static str,
}

impl CompactionTask {
    /// Every input table's number.
    pub fn input_numbers(&self) -> impl Iterator<Item = u64> + '_ {
        self.inputs.iter().chain(&self.lower).map(|t| t.number)
    }

    /// The bytes of every input table.
    pub fn input_bytes(&self) -> u64 {
        self.inputs
            .iter()
            .chain(&self.lower)
            .map(|t| t.file_size)
            .sum()
    }

    /// The smallest and largest user keys covered by all inputs.
    pub fn user_key_range(&self) -> (Vec<u8>, Vec<u8>) {
        let (lo, hi) = key_range(self.inputs.iter().chain(&self.lower));
        (lo.to_vec(), hi.to_vec())
    }

    /// The edit that installs `outputs` in place of the inputs.
    pub fn edit(&self, outputs: Vec<TableRecord>) -> VersionEdit {
        let mut e = VersionEdit::default();
        for t in self.inputs.iter() {
            e.deleted_tables.push((self.level, t.number));
        }
        for t in self.lower.iter() {
            e.deleted_tables.push((self.output_level, t.number));
        }
        e.added_tables = outputs;
        // An in-place rewrite moves nothing down: the level's round-robin stays put.
        if self.level > 0
            && self.output_level != self.level
            && let Some(last) = self
                .inputs
                .iter()
                .map(|t| &t.largest)
                .max_by(|a, b| compare_internal(a, b))
        {
            e.compact_pointers.push((self.level, last.clone()));
        }
        e
    }
}

fn key_range<'a>(tables: impl Iterator<Item = &'a TableRecord>) -> (&'a [u8], &'a [u8]) {
    let mut lo: Option<&[u8]> = None;
    let mut hi: Option<&[u8]> = None;
    for t in tables {
        let s = user_key(&t.smallest);
        let l = user_key(&t.largest);
        lo = Some(lo.map_or(s, |x| x.min(s)));
        hi = Some(hi.map_or(l, |x| x.max(l)));
    }
    (lo.unwrap_or_default(), hi.unwrap_or_default())
}

fn overlapping(state: &VersionState, level: usize, lo: &[u8], hi: &[u8]) -> Vec<TableRecord> {
    state
        .levels
        .get(level)
        .map(|files| {
            files
                .iter()
                .filter(|t| user_key(&t.largest) >= lo && user_key(&t.smallest) <= hi)
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// Each level's compaction score: L0 by file count, deeper levels by size over target; a
/// level above the base (dynamic sizing) that still holds tables scores at least 1 (by
/// its size over the least a base may target), so it drains. The last level has none.
pub fn level_scores(state: &VersionState, shape: &LevelShape) -> Vec<f64> {
    scores_with(state, shape, &shape.targets(state))
}

/// [`level_scores`] with the shape's `targets` for `state` already worked out.
fn scores_with(state: &VersionState, shape: &LevelShape, targets: &LevelTargets) -> Vec<f64> {
    let last = state.levels.len().saturating_sub(1);
    (0..last)
        .map(|level| {
            let size = state.level_bytes(level) as f64;
            if level == 0 {
                state.levels[0].len() as f64 / shape.l0_trigger as f64
            } else if level < targets.base {
                match size > 0.0 {
                    true => (size / (shape.l1_target / shape.ratio.max(2)).max(1) as f64).max(1.0),
                    false => 0.0,
                }
            } else {
                size / targets.bytes[level].max(1) as f64
            }
        })
        .collect()
}

/// Picks the most urgent compaction whose tables are all free, if any level needs one.
pub fn pick(
    state: &VersionState,
    shape: &LevelShape,
    busy: &HashSet<u64>,
) -> Option<CompactionTask> {
    let targets = shape.targets(state);
    let scores = scores_with(state, shape, &targets);
    let mut order: Vec<usize> = (0..scores.len()).filter(|&l| scores[l] >= 1.0).collect();
    order.sort_by(|&a, &b| scores[b].partial_cmp(&scores[a]).unwrap_or(Ordering::Equal));
    order
        .into_iter()
        .find_map(|level| pick_level(state, &targets, level, busy, "size"))
}

/// Picks a compaction of `level` regardless of its score: the tables of `level` that
/// overlap `[lo, hi]` (all of them for L0) and what they overlap in the next level that
/// holds tables (empty levels between are skipped: nothing there can be newer or older
/// than the inputs), or the next level if none below holds any. Used by manual
/// compaction.
pub fn pick_range(
    state: &VersionState,
    level: usize,
    lo: &[u8],
    hi: &[u8],
    busy: &HashSet<u64>,
) -> Option<CompactionTask> {
    let inputs = overlapping(state, level, lo, hi);
    if inputs.is_empty() || level + 1 >= state.levels.len() {
        return None;
    }
    let inputs = if level == 0 {
        state.levels[0].clone()
    } else {
        inputs
    };
    let output = (level + 1..state.levels.len())
        .find(|&l| !state.levels[l].is_empty())
        .unwrap_or(level + 1);
    finish(state, level, output, inputs, busy, "manual")
}

/// Picks a compaction of the bottom level `level` into itself: its tables overlapping
/// `[lo, hi]`. Used by manual compaction to drop versions and tombstones that no snapshot
/// needs any more.
pub fn pick_bottom(
    state: &VersionState,
    level: usize,
    lo: &[u8],
    hi: &[u8],
    busy: &HashSet<u64>,
) -> Option<CompactionTask> {
    let inputs = overlapping(state, level, lo, hi);
    if inputs.is_empty() || inputs.iter().any(|t| busy.contains(&t.number)) {
        return None;
    }
    Some(CompactionTask {
        level,
        output_level: level,
        inputs,
        lower: Vec::new(),
        trivial_move: false,
        reason: "manual bottom",
    })
}

/// Picks a garbage compaction, if any: the highest table set whose versions may shadow
/// older versions of the same keys in deeper levels (or, in L0, in each other). Size
/// compactions merge such ranges only when a level outgrows its target, so without this
/// pick, cold tables keep shadowed versions, and the value files holding them, forever: no
/// drop record is ever written for them. Compacting the set into the next level drops the
/// versions it shadows there and records their drops, which value GC then collects.
///
/// L0 goes down whole (its tables overlap each other); in deeper levels the first table
/// overlapping any deeper level goes, with its overlap in the next level. Every pick
/// removes an overlap between levels, so repeated picks on a quiet tree end (with no
/// table above another), and the tables go down in key order, level by level: no range
/// starves. The bottom level is never picked: nothing lies below it. Rate limits belong to
/// the caller (`db::background`): the pick itself is pure.
pub fn pick_garbage(
    state: &VersionState,
    shape: &LevelShape,
    busy: &HashSet<u64>,
) -> Option<CompactionTask> {
    let last = state.levels.len().checked_sub(1)?;
    let targets = shape.targets(state);
    let shadows_deeper = |level: usize, lo: &[u8], hi: &[u8]| {
        (level + 1..=last).any(|l| !overlapping(state, l, lo, hi).is_empty())
    };
    for level in 0..last {
        let files = &state.levels[level];
        if level == 0 {
            if files.is_empty() {
                continue;
            }
            let (lo, hi) = key_range(files.iter());
            if (files.len() > 1 || shadows_deeper(0, lo, hi))
                && let Some(task) = finish(
                    state,
                    0,
                    targets.l0_output(state),
                    files.clone(),
                    busy,
                    GARBAGE,
                )
            {
                return Some(task);
            }
            continue;
        }
        let found = files.iter().find_map(|t| {
            let (lo, hi) = (user_key(&t.smallest), user_key(&t.largest));
            match shadows_deeper(level, lo, hi) {
                true => finish(state, level, level + 1, vec![t.clone()], busy, GARBAGE),
                false => None,
            }
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The reason of garbage compactions.
pub const GARBAGE: &str = "garbage";

/// Picks a compaction that drops expired puts: the highest table in `expired` (the tables
/// whose earliest expiry time has passed, by their properties) that is not busy, rewritten
/// (never moved: a move drops nothing) into the next level with what it overlaps there, or
/// into itself at the bottom level; all of L0 if it is in L0. A compaction drops every put
/// expired at its time (`compaction::filter`), so its outputs hold none and the same
/// tables are not picked again: repeated picks end.
pub fn pick_expired(
    state: &VersionState,
    shape: &LevelShape,
    expired: &HashSet<u64>,
    busy: &HashSet<u64>,
) -> Option<CompactionTask> {
    let last = state.levels.len().checked_sub(1)?;
    let targets = shape.targets(state);
    for (level, files) in state.levels.iter().enumerate() {
        for t in files.iter().filter(|t| expired.contains(&t.number)) {
            let task = if level == last {
                (!busy.contains(&t.number)).then(|| CompactionTask {
                    level,
                    output_level: level,
                    inputs: vec![t.clone()],
                    lower: Vec::new(),
                    trivial_move: false,
                    reason: EXPIRED,
                })
            } else if level == 0 {
                let output = targets.l0_output(state);
                finish(state, 0, output, files.clone(), busy, EXPIRED)
            } else {
                finish(state, level, level + 1, vec![t.clone()], busy, EXPIRED)
            };
            if let Some(mut task) = task {
                task.trivial_move = false;
                return Some(task);
            }
        }
    }
    None
}

/// The reason of compactions that drop expired puts.
pub const EXPIRED: &str = "expired";

/// Picks a refresh compaction: of `stale` (table number → stale handles, the tables worth
/// one), the table below L0 with the most that is not busy, rewritten in place at its
/// level (never moved: a move refreshes nothing), so that the compaction re-points its
/// stale handles (`compaction::refresh`). In place keeps the level's order: the output
/// covers no more than the input's key range. L0 is never picked (its order is by age).
/// The caller keeps a table it refreshed out of `stale` until something changed, so
/// repeated picks end.
pub fn pick_refresh(
    state: &VersionState,
    stale: &HashMap<u64, u64>,
    busy: &HashSet<u64>,
) -> Option<CompactionTask> {
    let (level, table, _) = state
        .levels
        .iter()
        .enumerate()
        .skip(1)
        .flat_map(|(level, files)| files.iter().map(move |t| (level, t)))
        .filter(|(_, t)| !busy.contains(&t.number))
        .filter_map(|(level, t)| Some((level, t, *stale.get(&t.number)?)))
        .max_by_key(|&(level, t, n)| (n, level, std::cmp::Reverse(t.number)))?;
    Some(CompactionTask {
        level,
        output_level: level,
        inputs: vec![table.clone()],
        lower: Vec::new(),
        trivial_move: false,
        reason: REFRESH,
    })
}

/// The reason of compactions that refresh stale handles.
pub const REFRESH: &str = "refresh";

fn pick_level(
    state: &VersionState,
    targets: &LevelTargets,
    level: usize,
    busy: &HashSet<u64>,
    reason: &'static str,
) -> Option<CompactionTask> {
    let files = state.levels.get(level)?;
    if files.is_empty() {
        return None;
    }
    let output = targets.output_of(state, level);
    if level == 0 {
        // L0 files overlap each other: compact them all together, one job at a time.
        return finish(state, 0, output, files.clone(), busy, reason);
    }
    // Round-robin through the level, starting after the compaction pointer.
    let start = match &state.compact_pointers.get(level).cloned().flatten() {
        Some(p) => files.partition_point(|t| compare_internal(&t.largest, p) != Ordering::Greater),
        None => 0,
    };
    (0..files.len())
        .map(|i| &files[(start + i) % files.len()])
        .find_map(|t| finish(state, level, output, vec![t.clone()], busy, reason))
}

/// The task merging `inputs` of `level` into `output_level` (deeper; every level between
/// holds no table) with what they overlap there, unless a table taking part is busy.
fn finish(
    state: &VersionState,
    level: usize,
    output_level: usize,
    inputs: Vec<TableRecord>,
    busy: &HashSet<u64>,
    reason: &'static str,
) -> Option<CompactionTask> {
    let (lo, hi) = key_range(inputs.iter());
    let lower = overlapping(state, output_level, lo, hi);
    if inputs
        .iter()
        .chain(&lower)
        .any(|t| busy.contains(&t.number))
    {
        return None;
    }
    let trivial_move = inputs.len() == 1 && lower.is_empty();
    Some(CompactionTask {
        level,
        output_level,
        inputs,
        lower,
        trivial_move,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::t;
    use super::*;
    use crate::key::internal_key;

    fn state(tables: Vec<TableRecord>) -> VersionState {
        state_of(4, tables)
    }

    fn state_of(levels: usize, tables: Vec<TableRecord>) -> VersionState {
        let mut s = VersionState::empty(levels);
        s.apply(&VersionEdit {
            added_tables: tables,
            ..VersionEdit::default()
        })
        .unwrap();
        s
    }

    const SHAPE: LevelShape = LevelShape {
        l0_trigger: 2,
        l1_target: 1000,
        ratio: 10,
        dynamic: false,
    };

    const DYNAMIC: LevelShape = LevelShape {
        dynamic: true,
        ..SHAPE
    };

    fn state7(tables: Vec<TableRecord>) -> VersionState {
        state_of(7, tables)
    }

    #[test]
    fn dynamic_targets_follow_the_biggest_level() {
        // An empty tree: the last level is the base.
        let empty = state7(vec![]);
        assert_eq!(DYNAMIC.targets(&empty).base, 6);
        // 10,000 bytes at the bottom: L5 targets 1,000 (at most l1_target): the base.
        let s = state7(vec![t(6, 1, "a", "z", 10_000)]);
        let targets = DYNAMIC.targets(&s);
        assert_eq!(targets.base, 5);
        assert_eq!(targets.bytes, vec![0, 0, 0, 0, 0, 1_000, 10_000]);
        // 120,000 bytes: L4 would target 1,200, over l1_target; L3's 120 is the base.
        let s = state7(vec![t(6, 1, "a", "z", 120_000)]);
        let targets = DYNAMIC.targets(&s);
        assert_eq!(targets.base, 3);
        assert_eq!(targets.bytes[3..], [120, 1_200, 12_000, 120_000]);
        // Static sizing ignores the data.
        assert_eq!(SHAPE.targets(&s).base, 1);
        assert_eq!(SHAPE.targets(&s).bytes[1..4], [1_000, 10_000, 100_000]);
    }

    #[test]
    fn dynamic_l0_goes_to_the_base_unless_a_level_above_holds_tables() {
        let s = state7(vec![
            t(0, 1, "a", "c", 10),
            t(0, 2, "b", "f", 10),
            t(6, 3, "a", "z", 10_000),
        ]);
        let task = pick(&s, &DYNAMIC, &HashSet::new()).unwrap();
        assert_eq!((task.level, task.output_level), (0, 5));
        assert!(task.lower.is_empty());
        // The bottom level alone (a fresh tree): L0 straight into it, with its overlap.
        let fresh = state7(vec![t(0, 1, "a", "c", 10), t(0, 2, "b", "f", 10)]);
        let task = pick(&fresh, &DYNAMIC, &HashSet::new()).unwrap();
        assert_eq!(task.output_level, 6);
        // A table left above the base (say, from static sizing): L0 goes into its level,
        // never past it, and that level drains first.
        let mut mixed = s.clone();
        mixed
            .apply(&VersionEdit {
                added_tables: vec![t(2, 4, "x", "y", 5)],
                ..VersionEdit::default()
            })
            .unwrap();
        let targets = DYNAMIC.targets(&mixed);
        assert_eq!(targets.l0_output(&mixed), 2);
        let scores = level_scores(&mixed, &DYNAMIC);
        assert!(
            scores[2] >= 1.0,
            "a level above the base drains: {scores:?}"
        );
        // Garbage and expiry picks follow the same rule.
        let garbage = pick_garbage(&s, &DYNAMIC, &HashSet::new()).unwrap();
        assert_eq!((garbage.level, garbage.output_level), (0, 5));
        let expired = pick_expired(&s, &DYNAMIC, &HashSet::from([1]), &HashSet::new()).unwrap();
        assert_eq!(expired.output_level, 5);
    }

    #[test]
    fn dynamic_levels_below_the_base_compact_by_their_targets() {
        let s = state7(vec![t(5, 1, "a", "m", 1_500), t(6, 2, "a", "z", 10_000)]);
        // L5 holds 1,500 against its 1,000 target.
        let task = pick(&s, &DYNAMIC, &HashSet::new()).unwrap();
        assert_eq!((task.level, task.output_level), (5, 6));
        assert_eq!(task.lower.len(), 1);
        let under = state7(vec![t(5, 1, "a", "m", 900), t(6, 2, "a", "z", 10_000)]);
        assert_eq!(pick(&under, &DYNAMIC, &HashSet::new()), None);
    }

    #[test]
    fn manual_picks_skip_empty_levels() {
        let s = state7(vec![t(0, 1, "a", "c", 10), t(3, 2, "b", "d", 10)]);
        let task = pick_range(&s, 0, b"a", b"z", &HashSet::new()).unwrap();
        assert_eq!((task.output_level, task.lower.len()), (3, 1));
        // Nothing below: the next level.
        let top = state7(vec![t(0, 1, "a", "c", 10)]);
        assert_eq!(
            pick_range(&top, 0, b"a", b"z", &HashSet::new())
                .unwrap()
                .output_level,
            1
        );
    }

    #[test]
    fn nothing_to_do_below_the_triggers() {
        let s = state(vec![t(0, 1, "a", "c", 10), t(1, 2, "a", "z", 500)]);
        assert_eq!(pick(&s, &SHAPE, &HashSet::new()), None);
    }

    #[test]
    fn l0_takes_all_files_and_the_overlap_below() {
        let s = state(vec![
            t(0, 1, "a", "c", 10),
            t(0, 2, "b", "f", 10),
            t(1, 3, "a", "b", 10),
            t(1, 4, "e", "g", 10),
            t(1, 5, "x", "z", 10),
        ]);
        let task = pick(&s, &SHAPE, &HashSet::new()).unwrap();
        assert_eq!(task.level, 0);
        assert_eq!(task.inputs.len(), 2);
        let lower: Vec<u64> = task.lower.iter().map(|t| t.number).collect();
        assert_eq!(lower, vec![3, 4]);
        assert!(!task.trivial_move);
        // The same compaction is not picked twice.
        let busy: HashSet<u64> = task.input_numbers().collect();
        assert_eq!(pick(&s, &SHAPE, &busy), None);
    }

    #[test]
    fn oversized_level_moves_round_robin_and_trivially() {
        let mut s = state(vec![t(1, 1, "a", "c", 800), t(1, 2, "d", "f", 800)]);
        let task = pick(&s, &SHAPE, &HashSet::new()).unwrap();
        assert_eq!((task.level, task.inputs[0].number), (1, 1));
        assert!(task.trivial_move);
        s.apply(&task.edit(vec![TableRecord {
            level: task.output_level,
            ..task.inputs[0].clone()
        }]))
        .unwrap();
        assert_eq!(s.levels[2].len(), 1);
        // Now L1 holds 800 bytes: under target.
        assert_eq!(pick(&s, &SHAPE, &HashSet::new()), None);
        s.apply(&VersionEdit {
            added_tables: vec![t(1, 9, "a", "b", 900)],
            ..VersionEdit::default()
        })
        .unwrap();
        // The pointer sits after "c": the next pick is the table after it ("d".."f"),
        // and with that one busy the pick wraps around to the table holding "a".
        let next = pick(&s, &SHAPE, &HashSet::new()).unwrap();
        assert_eq!(next.inputs[0].number, 2);
        let wrapped = pick(&s, &SHAPE, &HashSet::from([2])).unwrap();
        assert_eq!(wrapped.inputs[0].number, 9);
    }

    #[test]
    fn garbage_pick_pushes_shadowing_tables_down_until_no_overlap_is_left() {
        // Cold tables: below every size trigger, L0 and L1 shadow the bottom level.
        let mut s = state(vec![
            t(0, 10, "a", "m", 10),
            t(1, 11, "n", "p", 10),
            t(1, 12, "x", "z", 10),
            t(3, 1, "a", "f", 10),
            t(3, 2, "g", "p", 10),
        ]);
        assert_eq!(pick(&s, &SHAPE, &HashSet::new()), None);
        let mut steps = 0;
        while let Some(task) = pick_garbage(&s, &SHAPE, &HashSet::new()) {
            assert_eq!(task.reason, GARBAGE);
            assert_ne!(task.level, 3, "the bottom level is never picked");
            let mut outputs = Vec::new();
            for (i, input) in task.inputs.iter().chain(&task.lower).enumerate() {
                outputs.push(TableRecord {
                    level: task.output_level,
                    number: 100 + steps * 10 + i as u64,
                    ..input.clone()
                });
            }
            // Merged inputs: one output spanning them (the test only tracks ranges).
            let (lo, hi) = task.user_key_range();
            outputs.truncate(1);
            outputs[0].smallest = internal_key(&lo, 1, 1);
            outputs[0].largest = internal_key(&hi, 1, 1);
            s.apply(&task.edit(outputs)).unwrap();
            steps += 1;
            assert!(steps < 20, "garbage picks must end");
        }
        // No table lies above another: nothing can shadow anything.
        for level in 0..3 {
            for t in &s.levels[level] {
                let (lo, hi) = (user_key(&t.smallest), user_key(&t.largest));
                assert!((level + 1..4).all(|l| overlapping(&s, l, lo, hi).is_empty()));
            }
        }
        // Table 12 ("x".."z") overlaps nothing below: it stays where it is.
        assert!(s.levels[1].iter().any(|t| t.number == 12));
    }

    #[test]
    fn expired_picks_rewrite_the_table_never_move_it() {
        let mut s = state(vec![
            t(1, 1, "a", "c", 100),
            t(2, 2, "d", "f", 100),
            t(3, 6, "e", "g", 100),
            t(3, 3, "x", "z", 100),
        ]);
        let none = HashSet::new();
        assert_eq!(pick_expired(&s, &SHAPE, &none, &none), None);
        // In L1 with nothing below to overlap: rewritten into L2, not moved.
        let task = pick_expired(&s, &SHAPE, &HashSet::from([1]), &none).unwrap();
        assert_eq!(
            (task.level, task.output_level, task.trivial_move),
            (1, 2, false)
        );
        assert_eq!(task.reason, EXPIRED);
        // With its overlap below.
        let task = pick_expired(&s, &SHAPE, &HashSet::from([2]), &none).unwrap();
        assert_eq!(
            task.lower.iter().map(|t| t.number).collect::<Vec<_>>(),
            vec![6]
        );
        // At the bottom level: into itself.
        let task = pick_expired(&s, &SHAPE, &HashSet::from([3]), &none).unwrap();
        assert_eq!((task.level, task.output_level), (3, 3));
        assert_eq!(
            pick_expired(&s, &SHAPE, &HashSet::from([3]), &HashSet::from([3])),
            None
        );
        // L0 goes whole.
        s.apply(&VersionEdit {
            added_tables: vec![t(0, 4, "a", "b", 100), t(0, 5, "b", "c", 100)],
            ..VersionEdit::default()
        })
        .unwrap();
        let task = pick_expired(&s, &SHAPE, &HashSet::from([5]), &none).unwrap();
        assert_eq!((task.level, task.inputs.len()), (0, 2));
    }

    #[test]
    fn refresh_picks_the_stalest_table_below_l0_in_place() {
        let s = state(vec![
            t(0, 1, "a", "z", 100),
            t(1, 2, "a", "c", 100),
            t(3, 3, "a", "m", 100),
            t(3, 4, "n", "z", 100),
        ]);
        let none = HashSet::new();
        assert_eq!(pick_refresh(&s, &HashMap::new(), &none), None);
        // L0 is never rewritten in place, however stale.
        assert_eq!(pick_refresh(&s, &HashMap::from([(1, 500)]), &none), None);
        let stale = HashMap::from([(1, 500), (2, 10), (3, 40), (4, 30)]);
        let task = pick_refresh(&s, &stale, &none).unwrap();
        assert_eq!(
            (task.level, task.output_level, task.trivial_move),
            (3, 3, false)
        );
        assert_eq!(
            task.inputs.iter().map(|t| t.number).collect::<Vec<_>>(),
            vec![3]
        );
        assert!(task.lower.is_empty());
        assert_eq!(task.reason, REFRESH);
        // A busy table is passed over; tables the state no longer holds count for nothing.
        let task = pick_refresh(&s, &stale, &HashSet::from([3])).unwrap();
        assert_eq!(task.inputs[0].number, 4);
        assert_eq!(pick_refresh(&s, &HashMap::from([(9, 99)]), &none), None);
        let task = pick_refresh(&s, &HashMap::from([(2, 1)]), &none).unwrap();
        assert_eq!((task.level, task.output_level), (1, 1));
    }

    #[test]
    fn garbage_pick_skips_busy_tables_and_lone_tables() {
        let s = state(vec![t(1, 1, "a", "c", 10), t(2, 2, "a", "b", 10)]);
        assert_eq!(pick_garbage(&s, &SHAPE, &HashSet::from([2])), None);
        assert!(pick_garbage(&s, &SHAPE, &HashSet::new()).is_some());
        let lone = state(vec![t(0, 1, "a", "c", 10), t(3, 2, "d", "f", 10)]);
        assert_eq!(pick_garbage(&lone, &SHAPE, &HashSet::new()), None);
    }

    #[test]
    fn manual_range_picks_overlapping_tables() {
        let s = state(vec![
            t(1, 1, "a", "c", 1),
            t(1, 2, "d", "f", 1),
            t(2, 3, "e", "e", 1),
        ]);
        let task = pick_range(&s, 1, b"e", b"z", &HashSet::new()).unwrap();
        assert_eq!(task.inputs[0].number, 2);
        assert_eq!(task.lower[0].number, 3);
        assert_eq!(pick_range(&s, 3, b"a", b"z", &HashSet::new()), None);
        let bottom = pick_bottom(&s, 2, b"a", b"z", &HashSet::new()).unwrap();
        assert_eq!((bottom.level, bottom.output_level), (2, 2));
        let mut after = s.clone();
        after
            .apply(&bottom.edit(vec![TableRecord {
                number: 9,
                ..bottom.inputs[0].clone()
            }]))
            .unwrap();
        assert_eq!(after.levels[2][0].number, 9);
    }
}
