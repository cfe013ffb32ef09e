//! Regression test for issue 19, finding 7: one damaged byte in a dead record of a value
//! file made value GC fail, which made the database read-only. GC needs no dead record: it
//! skips the damaged one, counts it and collects the file; writes go on, before and after a
//! reopen. Both GC modes.

use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::MemFs;
use twain::{Db, GcMode};

use crate::gcutil;
use gcutil::{
    assert_keys_read_back, damage_value, file_of, manual_gc_options, sealed_file_with_drops, value,
    value_file_path,
};

const DIR: &str = "/db";

fn dead_record_damage_is_skipped(mode: GcMode) {
    let fs = MemFs::new();
    let opts = manual_gc_options(&fs).gc_mode(mode);
    let db = Db::open(DIR, opts.clone()).unwrap();
    let first = sealed_file_with_drops(&db, 10..20);
    // k0012's first version was overwritten and compacted away: its record is dead.
    damage_value(&fs, &value_file_path(DIR, first, 0), &value("a", 12));

    assert_eq!(db.gc().unwrap(), 1, "the damaged file was not collected");
    match mode {
        GcMode::DropRecords => assert_eq!(file_of(&db, first).unwrap().epoch, 1),
        GcMode::LsmLookup | GcMode::Vlog => assert!(file_of(&db, first).is_none()),
    }
    let stats = db.stats().unwrap();
    assert_eq!(stats.gc_corrupt_dead_records, 1);
    assert_eq!(stats.gc_files_set_aside, 0);
    assert!(stats.to_json().contains("\"gc_corrupt_dead_records\":1"));
    assert!(db.gc_set_aside().is_empty());
    db.health().unwrap();
    db.put("after", value("c", 1)).unwrap();
    assert_keys_read_back(&db, 10..20, None);
    db.close().unwrap();

    let report = check(
        DIR.as_ref(),
        &CheckOptions {
            fs: Arc::new(fs.clone()),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.set_aside.is_empty(), "{}", report.to_text());

    let db = Db::open(DIR, opts).unwrap();
    db.health().unwrap();
    db.put("after reopen", value("c", 2)).unwrap();
    assert_eq!(db.get("after").unwrap(), Some(value("c", 1)));
    assert_keys_read_back(&db, 10..20, None);
    db.close().unwrap();
}

#[test]
fn drop_records_mode_skips_a_damaged_dead_record() {
    dead_record_damage_is_skipped(GcMode::DropRecords);
}

#[test]
fn lsm_lookup_mode_skips_a_damaged_dead_record() {
    dead_record_damage_is_skipped(GcMode::LsmLookup);
}

/// In an SVTable, GC in drop-records mode does not even read a dropped record.
#[test]
fn a_damaged_dead_record_of_an_svtable_is_left_behind() {
    let fs = MemFs::new();
    let db = Db::open(DIR, manual_gc_options(&fs)).unwrap();
    let first = gcutil::first_file_collected_once(&db);
    for i in 0..10u32 {
        db.put(format!("k{i:04}"), value("c", i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    damage_value(&fs, &value_file_path(DIR, first, 1), &value("a", 5));
    assert_eq!(db.gc().unwrap(), 1);
    assert_eq!(file_of(&db, first).unwrap().epoch, 2);
    assert!(db.gc_set_aside().is_empty());
    db.health().unwrap();
    for i in 0..60u32 {
        let tag = match i {
            0..10 => "c",
            40..60 => "b",
            _ => "a",
        };
        assert_eq!(db.get(format!("k{i:04}")).unwrap(), Some(value(tag, i)));
    }
}
