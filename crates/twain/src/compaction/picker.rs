//! Picking a compaction: a pure function of the version state, the options and the set of
//! tables already being compacted.

use crate::format::manifest::{TableRecord, ValueFileOrigin, VersionEdit};
use crate::key::{compare_internal, user_key};
use crate::placement::Placement;
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
    /// The bytes one L0 compaction brings down (`l0_compaction_trigger` memtables): with
    /// dynamic sizing the least the base level targets (0: no floor).
    pub l0_batch: u64,
    /// Whether a size compaction takes the table of least overlap below for its size
    /// (`CompactionPriority::MinOverlap`) rather than the next one round-robin.
    pub min_overlap: bool,
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
    /// A base target below `l0_batch` is raised to it, with the steps below it shortened
    /// to match (`stretched`).
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
        if base < last && bytes[base] < self.l0_batch {
            base = self.stretched(&mut bytes, biggest);
        }
        LevelTargets { base, bytes }
    }

    /// Dynamic targets whose base would take less than one L0 compaction brings
    /// (`l0_batch`), which would make every L0 compaction rewrite the base several times
    /// over: the base targets `l0_batch` instead, with the fewest levels between it and the
    /// last (`biggest` bytes) that keep every step at most `ratio`, the steps equal. Returns
    /// the base; `bytes` holds the targets (levels above the base: 0).
    fn stretched(&self, bytes: &mut [u64], biggest: u64) -> usize {
        let last = bytes.len() - 1;
        bytes.iter_mut().for_each(|b| *b = 0);
        bytes[last] = biggest.max(1);
        let span = biggest as f64 / self.l0_batch.max(1) as f64;
        if span <= 1.0 {
            // Less data than one L0 compaction: L0 goes straight to the last level.
            return last;
        }
        let ratio = self.ratio.max(2) as f64;
        let mut steps = 1;
        while steps < last - 1 && span.powf(1.0 / steps as f64) > ratio {
            steps += 1;
        }
        let step = span.powf(1.0 / steps as f64);
        let mut t = biggest as f64;
        for level in (last - steps..last).rev() {
            t /= step;
            bytes[level] = (t as u64).max(1);
        }
        last - steps
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

/// Whether moving `task`'s table down as it is would skip a merge placement asks for: the
/// version holds a transient value file (medium pairs' values, freed only when every
/// handle into it has been merged inline), and the output level is where `placement`
/// merges medium pairs, so a moved table would sit there with its handles unmerged and no
/// compaction due to merge them. Such a move is run as a merge instead (`db::compact`).
pub fn move_skips_a_merge(
    state: &VersionState,
    task: &CompactionTask,
    placement: &Placement,
) -> bool {
    let transient = state
        .value_files
        .values()
        .any(|f| f.origin == ValueFileOrigin::Transient);
    if !task.trivial_move || !transient {
        return false;
    }
    let (lo, hi) = key_range(task.inputs.iter());
    let deeper_holds = (task.output_level + 1..state.levels.len())
        .any(|l| !overlapping(state, l, lo, hi).is_empty());
    placement.merges_at(task.output_level, !deeper_holds)
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
        .find_map(|level| pick_level(state, shape, &targets, level, busy))
}

/// Picks a compaction of `level` regardless of its score: the tables of `level` that
/// overlap `[lo, hi]` (all of them for L0) and what they overlap in the next level that
/// holds tables (empty levels between are skipped: nothing there can be newer or older
/// than the inputs), or, if none below holds any, the level `shape` sends data to next
/// (the base, for dynamic sizing; never above `level + 1`). Used by manual compaction.
pub fn pick_range(
    state: &VersionState,
    shape: &LevelShape,
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
        .unwrap_or_else(|| shape.targets(state).base.max(level + 1));
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
    shape: &LevelShape,
    targets: &LevelTargets,
    level: usize,
    busy: &HashSet<u64>,
) -> Option<CompactionTask> {
    const REASON: &str = "size";
    let files = state.levels.get(level)?;
    if files.is_empty() {
        return None;
    }
    let output = targets.output_of(state, level);
    if level == 0 {
        // L0 files overlap each other: compact them all together, one job at a time.
        return finish(state, 0, output, files.clone(), busy, REASON);
    }
    // Round-robin through the level, starting after the compaction pointer.
    let start = match &state.compact_pointers.get(level).cloned().flatten() {
        Some(p) => files.partition_point(|t| compare_internal(&t.largest, p) != Ordering::Greater),
        None => 0,
    };
    let mut order: Vec<usize> = (0..files.len())
        .map(|i| (start + i) % files.len())
        .collect();
    if shape.min_overlap {
        let below = state.levels.get(output).map_or(&[][..], |l| &l[..]);
        let overlap = overlap_bytes(files, below);
        // Least overlap per byte first (cross-multiplied, no rounding); the sort is
        // stable, so ties keep the round-robin order.
        order.sort_by(|&a, &b| {
            let (fa, fb) = (
                files[a].file_size.max(1) as u128,
                files[b].file_size.max(1) as u128,
            );
            (overlap[a] as u128 * fb).cmp(&(overlap[b] as u128 * fa))
        });
    }
    order
        .into_iter()
        .find_map(|i| finish(state, level, output, vec![files[i].clone()], busy, REASON))
}

/// For each table of `files` (one level below L0: sorted, not overlapping), the bytes of
/// the tables of `below` (the same) whose user key ranges overlap its own.
fn overlap_bytes(files: &[TableRecord], below: &[TableRecord]) -> Vec<u64> {
    files
        .iter()
        .map(|t| {
            let (lo, hi) = (user_key(&t.smallest), user_key(&t.largest));
            let first = below.partition_point(|b| user_key(&b.largest) < lo);
            below[first..]
                .iter()
                .take_while(|b| user_key(&b.smallest) <= hi)
                .map(|b| b.file_size)
                .sum()
        })
        .collect()
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
#[path = "picker_tests.rs"]
mod tests;
