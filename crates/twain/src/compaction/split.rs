//! Splitting a compaction into key-range parts (Co-KV's sub-compactions): a pure function
//! of the task, the most parts wanted and the smallest part worth a thread.
//!
//! **Where it cuts.** Only at the smallest user key of an input table, so every version of
//! a user key falls into one part (the drop filter decides per user key) and, in the
//! output level, parts follow the tables they rewrite. Candidates are the tables of both
//! levels; L0's tables overlap each other, and their first keys still split the range.
//!
//! **How it weighs.** The candidates cut the task's key range into segments. A table's
//! bytes count evenly over the segments its key range overlaps (exact for the lower
//! level, whose tables are disjoint; an estimate for L0, whose tables may each span many
//! segments). Parts then take consecutive segments, each cut at the boundary nearest an
//! equal share of the whole, and there are no more parts than `min_part_bytes` fits into
//! the whole.

use super::picker::CompactionTask;
use crate::format::manifest::TableRecord;
use crate::key::user_key;

/// One part's user-key range: from `start` (inclusive; `None`: the task's first key) to
/// `end` (exclusive; `None`: past the task's last key).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartRange {
    /// First user key of the part, if bounded.
    pub start: Option<Vec<u8>>,
    /// First user key past the part, if bounded.
    pub end: Option<Vec<u8>>,
}

impl PartRange {
    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.start.as_deref().is_none_or(|s| key >= s)
            && self.end.as_deref().is_none_or(|e| key < e)
    }

    /// Whether `key` lies past the range's end.
    pub fn is_past(&self, key: &[u8]) -> bool {
        self.end.as_deref().is_some_and(|e| key >= e)
    }
}

/// The parts of `task`: at most `max_parts` (at least one, covering every key), in key
/// order, disjoint and adjacent. A trivial move is one part.
pub fn split(task: &CompactionTask, max_parts: usize, min_part_bytes: u64) -> Vec<PartRange> {
    if max_parts <= 1 || task.trivial_move {
        return vec![PartRange::default()];
    }
    let tables: Vec<&TableRecord> = task.inputs.iter().chain(&task.lower).collect();
    let mut cuts: Vec<&[u8]> = tables.iter().map(|t| user_key(&t.smallest)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    // The first candidate starts the whole range: no cut there.
    if cuts.len() < 2 {
        return vec![PartRange::default()];
    }
    let cuts = &cuts[1..];
    // Segment i runs from cuts[i - 1] (the range's start for i = 0) to cuts[i].
    let mut weight = vec![0u64; cuts.len() + 1];
    for t in &tables {
        let lo = user_key(&t.smallest);
        let hi = user_key(&t.largest);
        // The first segment holding `lo`, and the last one whose start is at most `hi`.
        let first = cuts.partition_point(|c| *c <= lo);
        let last = cuts.partition_point(|c| *c <= hi);
        let n = (last - first + 1) as u64;
        for w in &mut weight[first..=last] {
            *w += t.file_size / n;
        }
    }
    let total: u64 = weight.iter().sum();
    let parts = (max_parts as u64)
        .min(total / min_part_bytes.max(1))
        .clamp(1, weight.len() as u64);
    if parts < 2 {
        return vec![PartRange::default()];
    }
    let mut ranges = Vec::new();
    let mut start: Option<Vec<u8>> = None;
    let (mut acc, mut at_last_cut) = (0u64, 0u64);
    for (i, w) in weight.iter().enumerate().take(cuts.len()) {
        acc += w;
        let wanted = total * (ranges.len() as u64 + 1) / parts;
        // Cut at the boundary nearest the share: here, unless the end of the next
        // segment is nearer; never leaving a part with no weight.
        let nearest = acc + weight[i + 1] / 2 >= wanted;
        if nearest && acc > at_last_cut && (ranges.len() as u64) < parts - 1 {
            at_last_cut = acc;
            let end = cuts[i].to_vec();
            ranges.push(PartRange {
                start: start.take(),
                end: Some(end.clone()),
            });
            start = Some(end);
        }
    }
    ranges.push(PartRange { start, end: None });
    ranges
}

#[cfg(test)]
mod tests {
    use super::super::tests::t;
    use super::*;

    fn task(inputs: Vec<TableRecord>, lower: Vec<TableRecord>) -> CompactionTask {
        CompactionTask {
            level: 0,
            output_level: 1,
            inputs,
            lower,
            trivial_move: false,
            reason: "test",
        }
    }

    fn ends(parts: &[PartRange]) -> Vec<Option<&str>> {
        parts
            .iter()
            .map(|p| p.end.as_deref().map(|e| std::str::from_utf8(e).unwrap()))
            .collect()
    }

    #[test]
    fn one_part_when_asked_for_one_or_nothing_to_cut() {
        let tk = task(vec![t(0, 1, "a", "z", 100)], vec![t(1, 2, "a", "z", 100)]);
        assert_eq!(split(&tk, 1, 1), vec![PartRange::default()]);
        assert_eq!(split(&tk, 4, 1), vec![PartRange::default()]);
    }

    #[test]
    fn cuts_at_lower_table_boundaries_into_equal_shares() {
        let lower = vec![
            t(1, 2, "a", "c", 100),
            t(1, 3, "d", "f", 100),
            t(1, 4, "g", "i", 100),
            t(1, 5, "j", "l", 100),
        ];
        let tk = task(vec![t(0, 1, "b", "k", 40)], lower);
        let parts = split(&tk, 2, 1);
        assert_eq!(ends(&parts), vec![Some("g"), None]);
        assert_eq!(parts[0].start, None);
        assert_eq!(parts[1].start.as_deref(), Some(&b"g"[..]));
        let parts = split(&tk, 4, 1);
        assert_eq!(ends(&parts), vec![Some("d"), Some("g"), Some("j"), None]);
        // Adjacent and disjoint: each part starts where the one before it ends.
        for w in parts.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
    }

    #[test]
    fn never_more_parts_than_segments_or_than_min_bytes_allow() {
        let lower = vec![t(1, 2, "a", "c", 100), t(1, 3, "d", "f", 100)];
        let tk = task(vec![t(0, 1, "a", "f", 10)], lower);
        assert_eq!(split(&tk, 8, 1).len(), 2);
        // 210 bytes with at least 150 per part: one part.
        assert_eq!(split(&tk, 8, 150).len(), 1);
    }

    #[test]
    fn cuts_at_the_boundary_nearest_the_share() {
        // One lower table over everything, a small L0 table at its upper end: the only
        // cut leaves 1093 and 1415 bytes, nearer halves than no cut at all.
        let tk = task(
            vec![t(0, 1, "k11", "k19", 322)],
            vec![t(1, 2, "k01", "k39", 2187)],
        );
        assert_eq!(ends(&split(&tk, 2, 1)), vec![Some("k11"), None]);
    }

    #[test]
    fn l0_tables_without_a_lower_level_split_at_their_first_keys() {
        let inputs = vec![t(0, 1, "a", "f", 100), t(0, 2, "m", "r", 100)];
        let tk = task(inputs, Vec::new());
        let parts = split(&tk, 2, 1);
        assert_eq!(ends(&parts), vec![Some("m"), None]);
        assert!(parts[0].contains(b"l") && !parts[0].contains(b"m"));
        assert!(parts[1].contains(b"m") && parts[0].is_past(b"m"));
    }

    #[test]
    fn trivial_moves_are_never_split() {
        let mut tk = task(
            vec![t(0, 1, "a", "f", 100), t(0, 2, "m", "r", 100)],
            Vec::new(),
        );
        tk.trivial_move = true;
        assert_eq!(split(&tk, 4, 1).len(), 1);
    }
}
