//! Regression test for issue 19, finding 7, as the probe met it: the background GC thread
//! meets a damaged value file and, before the fix, made every open of the database
//! read-only (`MISCONF` in the server) while reads worked. Now corruption met by GC never
//! turns into a read-only state: a dead damaged record is skipped, a file damaged where a
//! live record lies is set aside, and writes go on either way.

use std::time::{Duration, Instant};
use twain::fs::MemFs;
use twain::{Db, Stats};

use crate::gcutil;
use gcutil::{
    assert_keys_read_back, damage_value, manual_gc_options, sealed_file_with_drops, value,
    value_file_path,
};

const DIR: &str = "/db";

/// Builds the database with GC off, damages `damaged`'s first version, reopens it with the
/// background GC thread on and waits until `done` says GC got to the file.
fn background_gc_meets_damage(damaged: u32, done: impl Fn(&Db, &Stats) -> bool) -> Db {
    let fs = MemFs::new();
    let db = Db::open(DIR, manual_gc_options(&fs)).unwrap();
    let first = sealed_file_with_drops(&db, 10..20);
    db.close().unwrap();
    damage_value(&fs, &value_file_path(DIR, first, 0), &value("a", damaged));
    let db = Db::open(DIR, manual_gc_options(&fs).gc_enabled(true)).unwrap();
    // A bound on waiting for the GC thread (it wakes at least once a second), not a
    // performance assertion.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(&db, &db.stats().unwrap()) {
        assert!(Instant::now() < deadline, "background GC never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    db
}

fn writes_keep_working(db: &Db) {
    db.health().unwrap();
    for i in 0..200u32 {
        db.put(format!("new{i:04}"), value("n", i)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.health().unwrap();
    assert_eq!(db.get("new0199").unwrap(), Some(value("n", 199)));
}

#[test]
fn background_gc_skips_a_damaged_dead_record_and_writes_go_on() {
    let db = background_gc_meets_damage(15, |_, s| s.gc_runs > 0);
    assert_eq!(db.stats().unwrap().gc_corrupt_dead_records, 1);
    assert!(db.gc_set_aside().is_empty());
    writes_keep_working(&db);
    assert_keys_read_back(&db, 10..20, None);
}

#[test]
fn background_gc_sets_aside_a_file_with_a_damaged_live_record_and_writes_go_on() {
    let db = background_gc_meets_damage(30, |db, _| !db.gc_set_aside().is_empty());
    assert!(db.get("k0030").unwrap_err().is_corruption());
    writes_keep_working(&db);
    assert_keys_read_back(&db, 10..20, Some(30));
    db.close().unwrap();
}
