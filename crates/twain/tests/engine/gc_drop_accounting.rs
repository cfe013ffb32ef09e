//! Regression test (found by the random crash test once the background GC worker ran):
//! a record can live in the tree as several copies — the original, whose handle goes
//! stale when GC rewrites its file, and lazy fix-ups. When one copy is dropped, GC leaves
//! the record out of the next epoch; a later drop of another copy must not be counted
//! against that epoch. It was, and the over-count made a file with live records look dead:
//! it was deleted and reads failed with "value handle names missing value file".

use std::path::Path;
use twain::Db;
use twain::fs::MemFs;

use crate::gcutil;
use gcutil::{file_of, first_file_collected_once, manual_gc_options, value};

#[test]
fn a_second_copy_of_a_dropped_record_is_not_counted_against_the_next_epoch() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    let first = first_file_collected_once(&db);
    // Reading k0000 fixes its stale handle: a second copy of the record, in the memtable.
    assert_eq!(db.get("k0000").unwrap(), Some(value("a", 0)));
    assert!(db.stats().unwrap().handle_fixups >= 1);
    // Overwriting it in the same memtable drops the fix-up copy at flush: counted once.
    db.put("k0000", value("c", 0)).unwrap();
    db.flush().unwrap();
    // GC leaves the record out of epoch 2.
    db.gc().unwrap();
    let epoch2 = file_of(&db, first).unwrap();
    assert_eq!((epoch2.epoch, epoch2.dropped_bytes), (2, 0));
    // Compaction now drops the original copy (stale handle into epoch 0): the record is
    // not in epoch 2, so nothing may be counted against it.
    db.compact_range(None, None).unwrap();
    let after = file_of(&db, first).expect("the value file still holds live records");
    assert_eq!(
        after.dropped_bytes, 0,
        "a dropped record counted twice: {after:?}"
    );
    for i in 1..60u32 {
        let want = if i >= 40 {
            value("b", i)
        } else {
            value("a", i)
        };
        assert_eq!(db.get(format!("k{i:04}")).unwrap(), Some(want));
    }
    drop(db);
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    assert_eq!(db.get("k0001").unwrap(), Some(value("a", 1)));
    let names = fs.file_names(Path::new("/db"));
    assert!(
        names
            .iter()
            .any(|n| n.starts_with(&format!("{first:06}-2."))),
        "{names:?}"
    );
}
