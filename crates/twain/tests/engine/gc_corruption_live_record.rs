//! Issue 19, finding 7: damage in a live record of a value file. Value GC sets the file
//! aside (reported with the file, offset and key) instead of failing: the database stays
//! writable, intact records read fine, the damaged one reads as `Corruption` naming the
//! file and offset, and `twain check` lists the file. After a reopen, GC finds the damage
//! again and sets the file aside again. Both GC modes.

use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::MemFs;
use twain::{Db, Error, GcMode};

use crate::gcutil;
use gcutil::{
    assert_keys_read_back, damage_value, file_of, manual_gc_options, sealed_file_with_drops, value,
    value_file_path,
};

const DIR: &str = "/db";

/// The state after GC met the damaged file: set aside, everything else working.
fn assert_set_aside(db: &Db, first: u64, path: &Path, entry_at: u64) {
    let aside = db.gc_set_aside();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(aside[0].number, first);
    assert_eq!(aside[0].file, path);
    assert_eq!(aside[0].offset, entry_at);
    assert_eq!(aside[0].key.as_deref(), Some(&b"k0030"[..]));
    assert!(aside[0].to_string().contains("k0030"), "{}", aside[0]);
    assert_eq!(
        file_of(db, first).unwrap().epoch,
        0,
        "the file was collected"
    );
    assert_eq!(db.stats().unwrap().gc_files_set_aside, 1);
    db.health().unwrap();
    match db.get("k0030") {
        Err(Error::Corruption { file, offset, .. }) => {
            assert_eq!(file, path);
            assert_eq!(offset, entry_at);
        }
        other => panic!("read of the damaged record: {other:?}"),
    }
    assert_keys_read_back(db, 10..20, Some(30));
    // GC leaves the file alone from now on.
    assert_eq!(db.gc().unwrap(), 0);
    assert_eq!(db.gc_set_aside().len(), 1);
    db.health().unwrap();
}

fn live_record_damage_sets_the_file_aside(mode: GcMode) {
    let fs = MemFs::new();
    let opts = manual_gc_options(&fs).gc_mode(mode);
    let db = Db::open(DIR, opts.clone()).unwrap();
    let first = sealed_file_with_drops(&db, 10..20);
    let path = value_file_path(DIR, first, 0);
    // k0030 was never overwritten: its record is live. Its entry starts 8 bytes before the
    // value (kind, two one-byte lengths, the 5-byte key).
    let entry_at = damage_value(&fs, &path, &value("a", 30)) - 8;

    assert_eq!(db.gc().unwrap(), 0);
    assert_set_aside(&db, first, &path, entry_at);
    db.put("after", value("c", 1)).unwrap();
    db.flush().unwrap();
    assert_eq!(db.get("after").unwrap(), Some(value("c", 1)));
    db.close().unwrap();

    let report = check(
        DIR.as_ref(),
        &CheckOptions {
            fs: Arc::new(fs.clone()),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert_eq!(report.set_aside.len(), 1, "{}", report.to_text());
    assert_eq!(report.set_aside[0].file, path);
    assert_eq!(report.set_aside[0].offset, Some(entry_at));
    assert!(
        report.to_text().contains("set-aside"),
        "{}",
        report.to_text()
    );

    let db = Db::open(DIR, opts).unwrap();
    db.health().unwrap();
    db.put("after reopen", value("c", 2)).unwrap();
    assert_eq!(db.get("after").unwrap(), Some(value("c", 1)));
    assert!(db.gc_set_aside().is_empty(), "the list is not persisted");
    assert_eq!(db.gc().unwrap(), 0);
    assert_set_aside(&db, first, &path, entry_at);
    db.close().unwrap();
}

#[test]
fn drop_records_mode_sets_aside_a_file_with_a_damaged_live_record() {
    live_record_damage_sets_the_file_aside(GcMode::DropRecords);
}

#[test]
fn lsm_lookup_mode_sets_aside_a_file_with_a_damaged_live_record() {
    live_record_damage_sets_the_file_aside(GcMode::LsmLookup);
}
