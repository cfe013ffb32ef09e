//! Handle fix-ups in the active memtable pin the value-file epoch they point into, so that
//! readers of that memtable can still resolve them. When GC retires that epoch, the old
//! file stays on disk until the memtable is flushed — which, in a phase of reads alone,
//! would be never: space grew with every GC run during a read-only benchmark phase. GC now
//! freezes a memtable that pins what it retired, and the flush releases the old file.

use std::path::Path;
use std::time::{Duration, Instant};
use twain::Db;
use twain::fs::MemFs;

use crate::gcutil;
use gcutil::{file_of, first_file_collected_once, manual_gc_options, value};

fn epoch_of(db: &Db, number: u64) -> u32 {
    file_of(db, number).expect("value file still live").epoch
}

#[test]
fn gc_releases_an_epoch_pinned_by_fixups_without_further_writes() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    let first = first_file_collected_once(&db);
    // More garbage in epoch 1 (dropped by GC's garbage compactions); the flush empties
    // the memtable. No compaction runs before the reads: it would re-point the stale
    // handles (`compaction::refresh`), leaving nothing to fix.
    for i in 20..40u32 {
        db.put(format!("k{i:04}"), value("c", i)).unwrap();
    }
    db.flush().unwrap();
    // Reads fix stale handles (the tables still point at epoch 0): the active memtable now
    // holds fix-ups into epoch 1 and pins it.
    let fixups = db.stats().unwrap().handle_fixups;
    for i in 0..10u32 {
        assert_eq!(db.get(format!("k{i:04}")).unwrap(), Some(value("a", i)));
    }
    assert!(db.stats().unwrap().handle_fixups >= fixups + 10);
    let epoch1 = format!("{first:06}-1.svt");
    assert!(fs.file_names(Path::new("/db")).contains(&epoch1));
    // GC retires epoch 1; no write follows.
    db.gc().unwrap();
    assert_eq!(epoch_of(&db, first), 2);
    let deadline = Instant::now() + Duration::from_secs(60);
    while fs.file_names(Path::new("/db")).contains(&epoch1) {
        assert!(
            Instant::now() < deadline,
            "the retired epoch is still on disk: {:?}",
            fs.file_names(Path::new("/db"))
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // Every value is still readable, fixed handles included.
    for i in 0..60u32 {
        let tag = match i {
            0..20 => "a",
            20..40 => "c",
            _ => "b",
        };
        assert_eq!(db.get(format!("k{i:04}")).unwrap(), Some(value(tag, i)));
    }
    drop(db);
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    assert_eq!(db.get("k0005").unwrap(), Some(value("a", 5)));
}
