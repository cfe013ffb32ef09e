//! The picker's unit tests.

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
    l0_batch: 0,
    min_overlap: false,
};

/// Static sizing, tables picked by overlap.
const MIN: LevelShape = LevelShape {
    min_overlap: true,
    ..SHAPE
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
    let task = pick_range(&s, &SHAPE, 0, b"a", b"z", &HashSet::new()).unwrap();
    assert_eq!((task.output_level, task.lower.len()), (3, 1));
    // Nothing below: the next level with static sizing, the base (here the last level)
    // with dynamic sizing.
    let top = state7(vec![t(0, 1, "a", "c", 10)]);
    let output = |shape: &LevelShape| {
        pick_range(&top, shape, 0, b"a", b"z", &HashSet::new())
            .unwrap()
            .output_level
    };
    assert_eq!(output(&SHAPE), 1);
    assert_eq!(output(&DYNAMIC), 6);
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
    let task = pick_range(&s, &SHAPE, 1, b"e", b"z", &HashSet::new()).unwrap();
    assert_eq!(task.inputs[0].number, 2);
    assert_eq!(task.lower[0].number, 3);
    assert_eq!(pick_range(&s, &SHAPE, 3, b"a", b"z", &HashSet::new()), None);
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

#[test]
fn min_overlap_takes_the_table_that_rewrites_least_below() {
    // L1 is over its target (1,000). Table 1 overlaps 3,000 bytes of L2 for 600 of its
    // own (5 per byte), table 2 overlaps 600 for 500 (1.2 per byte), table 3 overlaps
    // 1,200 for 400 (3 per byte).
    let s = state(vec![
        t(1, 1, "a", "c", 600),
        t(1, 2, "d", "f", 500),
        t(1, 3, "g", "i", 400),
        t(2, 10, "a", "a", 1_000),
        t(2, 11, "b", "c", 2_000),
        t(2, 12, "e", "e", 600),
        t(2, 13, "g", "i", 1_200),
    ]);
    let task = pick(&s, &MIN, &HashSet::new()).unwrap();
    assert_eq!(task.inputs[0].number, 2);
    let lower: Vec<u64> = task.lower.iter().map(|t| t.number).collect();
    assert_eq!(lower, [12]);
    // With 12 busy, table 2 cannot go: the next least, table 3, does.
    let task = pick(&s, &MIN, &HashSet::from([12])).unwrap();
    assert_eq!(task.inputs[0].number, 3);
    // Round-robin ignores overlap: it starts at the first table.
    assert_eq!(
        pick(&s, &SHAPE, &HashSet::new()).unwrap().inputs[0].number,
        1
    );
}

#[test]
fn min_overlap_moves_a_table_with_nothing_below_first() {
    let s = state(vec![
        t(1, 1, "a", "c", 700),
        t(1, 2, "x", "z", 700),
        t(2, 10, "a", "c", 100),
    ]);
    let task = pick(&s, &MIN, &HashSet::new()).unwrap();
    assert_eq!(task.inputs[0].number, 2);
    assert!(task.trivial_move);
}

#[test]
fn dynamic_base_takes_at_least_one_l0_compaction() {
    const BATCHED: LevelShape = LevelShape {
        l0_batch: 5_000,
        ..DYNAMIC
    };
    // 120,000 bytes at the bottom: the plain rule makes L3 (120) the base, far less than
    // the 5,000 bytes one L0 compaction brings. The base targets 5,000 instead, with the
    // fewest equal steps of at most 10 below it: 24 = 4.9^2, so L4 is the base and L5
    // targets 120,000 / 4.9.
    let s = state7(vec![t(6, 1, "a", "z", 120_000)]);
    let targets = BATCHED.targets(&s);
    assert_eq!(targets.base, 4);
    assert_eq!(targets.bytes[..4], [0, 0, 0, 0]);
    assert_eq!(targets.bytes[6], 120_000);
    assert!(
        (24_400..=24_500).contains(&targets.bytes[5]),
        "{:?}",
        targets.bytes
    );
    assert!(
        (4_999..=5_000).contains(&targets.bytes[4]),
        "{:?}",
        targets.bytes
    );
    // Less data than one L0 compaction: L0 goes straight to the last level.
    let small = state7(vec![t(6, 1, "a", "z", 4_000)]);
    assert_eq!(BATCHED.targets(&small).base, 6);
    // A batch under the plain base changes nothing.
    const SMALL_BATCH: LevelShape = LevelShape {
        l0_batch: 100,
        ..DYNAMIC
    };
    assert_eq!(SMALL_BATCH.targets(&s), DYNAMIC.targets(&s));
    // So much data that equal steps of at most 10 need every level: L1 is the base.
    let big = state7(vec![t(6, 1, "a", "z", 5_000_000_000)]);
    let targets = BATCHED.targets(&big);
    assert_eq!(targets.base, 1);
    assert!(targets.bytes[1] >= 5_000, "{:?}", targets.bytes);
}

#[test]
fn a_move_into_where_medium_pairs_merge_is_a_merge_while_transient_files_live() {
    let placement = Placement {
        medium_threshold: 64,
        inline_threshold: 1024,
        merge_level: 0,
    };
    // One L0 table with nothing below is moved to L1.
    let mut s = state(vec![t(0, 1, "c", "d", 10)]);
    let shape = LevelShape {
        l0_trigger: 1,
        ..SHAPE
    };
    let task = pick(&s, &shape, &HashSet::new()).unwrap();
    assert!(task.trivial_move);
    // No transient file: moved as it is.
    assert!(!move_skips_a_merge(&s, &task, &placement));
    // A transient file lives: L1 is the last level holding the keys, where they merge.
    s.apply(&VersionEdit {
        added_value_files: vec![crate::format::manifest::ValueFileRecord {
            number: 9,
            epoch: ValueFileOrigin::Transient.birth_epoch(),
            total_bytes: 100,
            separated_bytes: 100,
            separated_count: 1,
        }],
        value_file_origins: vec![(9, ValueFileOrigin::Transient)],
        ..VersionEdit::default()
    })
    .unwrap();
    assert!(move_skips_a_merge(&s, &task, &placement));
    // A deeper level holding the keys: L1 does not merge (merge level 0 is the last).
    s.apply(&VersionEdit {
        added_tables: vec![t(3, 5, "a", "z", 10)],
        ..VersionEdit::default()
    })
    .unwrap();
    assert!(!move_skips_a_merge(&s, &task, &placement));
    // Unless the merge level says L1 merges.
    let from_l1 = Placement {
        merge_level: 1,
        ..placement
    };
    assert!(move_skips_a_merge(&s, &task, &from_l1));
}
