//! Regression test (found by the random crash test once the background GC worker ran):
//! a record can live in the tree as several copies — the original, whose handle goes
//! stale when GC rewrites its file, and lazy fix-ups. When one copy is dropped, GC leaves
//! the record out of the next epoch; a later drop of another copy must not be counted
//! against that epoch. It was, and the over-count made a file with live records look dead:
//! it was deleted and reads failed with "value handle names missing value file".

use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, Options};

fn options(fs: &MemFs) -> Options {
    Options {
        fs: Arc::new(fs.clone()) as Arc<dyn Fs>,
        memtable_size: 1 << 20,
        value_file_size: 16 << 10,
        inline_threshold: 32,
        l0_compaction_trigger: 100,
        l0_slowdown_trigger: 100,
        l0_stop_trigger: 100,
        gc_enabled: false,
        gc_mode: GcMode::DropRecords,
        gc_threshold: 1.0,
        ..Options::default()
    }
}

fn value(tag: &str, i: u32) -> Vec<u8> {
    format!("{tag}-{i:04}-").repeat(10).into_bytes()
}

fn file_of(db: &Db, number: u64) -> Option<twain::ValueFileStats> {
    db.stats()
        .unwrap()
        .value_files
        .into_iter()
        .find(|v| v.number == number)
}

#[test]
fn a_second_copy_of_a_dropped_record_is_not_counted_against_the_next_epoch() {
    let fs = MemFs::new();
    let db = Db::open("/db", options(&fs)).unwrap();
    // One value file's worth of records, all in the bottom level.
    for i in 0..60u32 {
        db.put(format!("k{i:04}"), value("a", i)).unwrap();
    }
    db.put("roll", vec![0u8; 20 << 10]).unwrap(); // seals the first value file
    db.compact_range(None, None).unwrap();
    let first = db.stats().unwrap().value_files[0].number;
    // Some garbage in it, so that GC rewrites it: epoch 1 holds k0000 with a new handle.
    for i in 40..60u32 {
        db.put(format!("k{i:04}"), value("b", i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
    assert_eq!(file_of(&db, first).unwrap().epoch, 1);
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
    let db = Db::open("/db", options(&fs)).unwrap();
    assert_eq!(db.get("k0001").unwrap(), Some(value("a", 1)));
    let names = fs.file_names(Path::new("/db"));
    assert!(
        names
            .iter()
            .any(|n| n.starts_with(&format!("{first:06}-2."))),
        "{names:?}"
    );
}
