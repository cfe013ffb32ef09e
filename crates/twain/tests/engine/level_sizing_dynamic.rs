//! Dynamic level sizing (`LevelSizing::Dynamic`): the biggest level sets the targets, L0
//! compacts past the empty levels above the base, and a database sized the other way
//! drains into the new shape when reopened, keeping every value.

use crate::dbutil;

use dbutil::{Model, Rng, collect, small_opts, value, wait_for_quiet};
use twain::check::{CheckOptions, check};
use twain::{CompactionPriority, Db, LevelSizing, Options};

fn key(i: u64) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

fn opts(sizing: LevelSizing) -> Options {
    small_opts()
        .level_sizing(sizing)
        .l1_target_size(64 << 10)
        .level_size_ratio(4)
        .num_levels(6)
        .l0_compaction_trigger(1)
}

/// Random overwrites of 6,000 keys, mostly inline so that the key store grows.
fn load(db: &Db, model: &mut Model, seed: u64) {
    let mut rng = Rng::new(seed);
    for n in 0..15_000u64 {
        let i = rng.below(6_000);
        let v = value(
            &key(i),
            seed * 100_000 + n,
            if i.is_multiple_of(10) { 6 } else { 3 },
        );
        db.put(key(i), &v).unwrap();
        model.insert(key(i), v);
    }
    db.flush().unwrap();
}

fn assert_all(db: &Db, model: &Model) {
    let got = collect(db.iter());
    assert_eq!(got.len(), model.len());
    for ((k, v), (mk, mv)) in got.iter().zip(model) {
        assert_eq!((k, v), (mk, mv));
    }
}

/// Levels 1 .. base: the ones with no target that still hold tables.
fn tables_above_the_base(db: &Db) -> Vec<usize> {
    let s = db.stats().unwrap();
    let last = s.levels.len() - 1;
    let base = (1..=last)
        .find(|&l| s.levels[l].target_bytes > 0)
        .unwrap_or(last);
    (1..base).filter(|&l| s.levels[l].files > 0).collect()
}

#[test]
fn dynamic_sizing_fills_the_last_level_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts(LevelSizing::Dynamic)).unwrap();
    let mut model = Model::new();
    load(&db, &mut model, 1);
    assert!(wait_for_quiet(&db), "compactions did not settle");
    let s = db.stats().unwrap();
    let sizes: Vec<u64> = s.levels.iter().map(|l| l.bytes).collect();
    let last = s.levels.len() - 1;
    // The data is bigger than the base may target: the tree has a base above the last
    // level, the last level holds the most, and nothing sits above the base.
    assert!(s.levels[last].bytes > 64 << 10, "levels: {sizes:?}");
    assert!(
        (1..last).any(|l| s.levels[l].target_bytes > 0),
        "no base above the last level: {sizes:?}"
    );
    assert_eq!(tables_above_the_base(&db), Vec::<usize>::new(), "{sizes:?}");
    let biggest = *sizes[1..].iter().max().unwrap();
    assert_eq!(s.levels[last].bytes, biggest, "levels: {sizes:?}");
    // L1 never held a table: L0 went straight to the base.
    assert_eq!(s.levels[1].files, 0, "levels: {sizes:?}");
    assert_all(&db, &model);
}

#[test]
fn switching_sizing_drains_into_the_new_shape_and_keeps_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = Model::new();
    let db = Db::open(dir.path(), opts(LevelSizing::Static)).unwrap();
    load(&db, &mut model, 2);
    assert!(wait_for_quiet(&db));
    let s = db.stats().unwrap();
    assert!(
        s.levels[1].files + s.levels[2].files > 0,
        "static sizing fills L1 and L2 first"
    );
    drop(db);

    let db = Db::open(dir.path(), opts(LevelSizing::Dynamic)).unwrap();
    load(&db, &mut model, 3);
    assert!(
        wait_for_quiet(&db),
        "the levels above the base did not drain"
    );
    assert_eq!(tables_above_the_base(&db), Vec::<usize>::new());
    assert_all(&db, &model);
    drop(db);

    // And back: static sizing compacts whatever it finds by its own targets.
    let db = Db::open(dir.path(), opts(LevelSizing::Static)).unwrap();
    load(&db, &mut model, 4);
    assert!(wait_for_quiet(&db));
    assert_all(&db, &model);
    db.compact_range(None, None).unwrap();
    assert_all(&db, &model);
    drop(db);
    let report = check(dir.path(), &CheckOptions::default()).unwrap();
    assert!(report.is_ok(), "{report:?}");
}

#[test]
fn manual_compaction_skips_empty_levels() {
    let dir = tempfile::tempdir().unwrap();
    // Background GC off: its refresh compactions would count in the bytes measured below.
    let db = Db::open(dir.path(), opts(LevelSizing::Dynamic).gc_enabled(false)).unwrap();
    let mut model = Model::new();
    load(&db, &mut model, 5);
    // The automatic compactions the load set off finish first: only the manual
    // compaction's bytes are counted below.
    assert!(wait_for_quiet(&db));
    let before = db.stats().unwrap().compaction_bytes_written;
    db.compact_range(None, None).unwrap();
    let s = db.stats().unwrap();
    let last = s.levels.len() - 1;
    // Everything ends in the last level, written once by the merge into it and once by
    // the bottom level's compaction into itself, not once per empty level on the way.
    let occupied: Vec<usize> = (0..=last).filter(|&l| s.levels[l].files > 0).collect();
    assert_eq!(occupied, vec![last]);
    let written = s.compaction_bytes_written - before;
    assert!(
        written <= 3 * s.levels[last].bytes,
        "{written} bytes written for {} in the last level",
        s.levels[last].bytes
    );
    assert_all(&db, &model);
}

#[test]
fn level_sizing_is_set_by_name_and_refuses_other_names() {
    let mut o = Options::default();
    assert_eq!(o.level_sizing, LevelSizing::Dynamic);
    o.set("level_sizing", "static").unwrap();
    assert_eq!(o.level_sizing, LevelSizing::Static);
    assert_eq!(o.level_sizing.as_str(), "static");
    o.set("level_sizing", "dynamic").unwrap();
    assert_eq!(o.level_sizing.as_str(), "dynamic");
    let err = o.set("level_sizing", "sideways").unwrap_err();
    assert!(
        matches!(&err, twain::Error::InvalidArgument(m) if m.contains("level_sizing")),
        "{err}"
    );
    assert_eq!(
        o.level_sizing,
        LevelSizing::Dynamic,
        "a refused value changes nothing"
    );
}

#[test]
fn compaction_priority_is_set_by_name_and_refuses_other_names() {
    let mut o = Options::default();
    assert_eq!(o.compaction_priority, CompactionPriority::MinOverlap);
    o.set("compaction_priority", "round-robin").unwrap();
    assert_eq!(o.compaction_priority, CompactionPriority::RoundRobin);
    assert_eq!(o.compaction_priority.as_str(), "round-robin");
    o.set("compaction_priority", "min-overlap").unwrap();
    assert_eq!(o.compaction_priority.as_str(), "min-overlap");
    let err = o.set("compaction_priority", "newest").unwrap_err();
    assert!(
        matches!(&err, twain::Error::InvalidArgument(m) if m.contains("compaction_priority")),
        "{err}"
    );
    assert_eq!(o.compaction_priority, CompactionPriority::MinOverlap);
}

/// With one L0 compaction bringing more than `l1_target_size`, the base targets at least
/// what it brings, the steps below it stay within the ratio, and the levels hold every
/// value under either compaction priority.
#[test]
fn the_base_takes_at_least_one_l0_compaction() {
    for priority in [
        CompactionPriority::MinOverlap,
        CompactionPriority::RoundRobin,
    ] {
        let dir = tempfile::tempdir().unwrap();
        // L0 compacts four 8 KiB memtables at a time: 32 KiB, four times the base the
        // plain rule would give (at most 8 KiB). The data (about 250 KiB) is eight such
        // batches: two equal steps of about 2.8 below the base.
        let o = opts(LevelSizing::Dynamic)
            .memtable_size(8 << 10)
            .l1_target_size(8 << 10)
            .l0_compaction_trigger(4)
            .compaction_priority(priority);
        let db = Db::open(dir.path(), o).unwrap();
        let mut model = Model::new();
        for seed in 10..13 {
            load(&db, &mut model, seed);
        }
        assert!(wait_for_quiet(&db), "compactions did not settle");
        let s = db.stats().unwrap();
        let last = s.levels.len() - 1;
        let sizes: Vec<(u64, u64)> = s.levels.iter().map(|l| (l.bytes, l.target_bytes)).collect();
        let base = (1..=last)
            .find(|&l| s.levels[l].target_bytes > 0)
            .unwrap_or(last);
        assert!(base < last, "the data outgrew one L0 compaction: {sizes:?}");
        assert!(
            s.levels[base].target_bytes >= 4 * (8 << 10) - 1,
            "{priority:?}: {sizes:?}"
        );
        // Every step below the base is at most the ratio (4).
        for l in base..last {
            assert!(
                s.levels[l + 1].target_bytes <= 4 * s.levels[l].target_bytes + 1,
                "{priority:?}: {sizes:?}"
            );
        }
        assert_all(&db, &model);
    }
}
