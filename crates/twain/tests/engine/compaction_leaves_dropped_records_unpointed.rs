//! A compaction never re-points a stale handle at a record that is dropped: the record's
//! other copy (a read's fix-up) was dropped when a newer write shadowed it, and a
//! compaction that keeps the stale original (the newer write is not in its merge) must
//! leave it as it came. A handle at the file's current epoch would be read in place, where
//! the dropped record's bytes may be punched out.

use crate::dbutil;
use crate::gcutil;

use dbutil::table_handle_epochs;
use gcutil::{file_of, first_file_collected_once, manual_gc_options, value};
use twain::Db;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};

#[test]
fn a_stale_handle_whose_record_is_dropped_is_not_repointed() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    let first = first_file_collected_once(&db);
    // The read fixes k0001's handle: a copy at epoch 1 in the memtable. Overwriting the
    // key in the same memtable drops that copy at flush, and with it the record in epoch 1.
    assert_eq!(db.get("k0001").unwrap(), Some(value("a", 1)));
    db.put("k0001", value("new", 1)).unwrap();
    db.flush().unwrap();
    let dropped = file_of(&db, first).unwrap();
    assert_eq!(dropped.epoch, 1);
    assert!(dropped.dropped_bytes > 0, "{dropped:?}");
    let stale_before: Vec<_> = table_handle_epochs(&db, &fs, "/db")
        .into_iter()
        .filter(|h| h.2 == first && h.3 == 0)
        .collect();
    assert!(stale_before.iter().any(|h| h.0 == b"k0001"));

    // A manual compaction of a range that leaves out k0001's new version (in L0) merges
    // the bottom table holding the stale original into itself: the original is the
    // newest version there, kept.
    let before = db.stats().unwrap();
    db.compact_range(Some(b"k0002"), Some(b"k0010")).unwrap();
    let after = db.stats().unwrap();
    let handles: Vec<_> = table_handle_epochs(&db, &fs, "/db")
        .into_iter()
        .filter(|h| h.2 == first)
        .collect();
    let k1: Vec<_> = handles.iter().filter(|h| h.0 == b"k0001").collect();
    assert_eq!(k1.len(), 1, "{k1:?}");
    assert_eq!(k1[0].3, 0, "k0001 re-pointed at its dropped record");
    assert!(
        handles.iter().all(|h| h.0 == b"k0001" || h.3 == 1),
        "{handles:?}"
    );
    assert_eq!(
        after.compaction_handle_refreshes - before.compaction_handle_refreshes,
        stale_before.len() as u64 - 1
    );

    // Reads see the new value; once everything is merged the original goes.
    assert_eq!(db.get("k0001").unwrap(), Some(value("new", 1)));
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get("k0001").unwrap(), Some(value("new", 1)));
    assert_eq!(db.get("k0002").unwrap(), Some(value("a", 2)));
    db.close().unwrap();
    let fs: std::sync::Arc<dyn Fs> = std::sync::Arc::new(fs);
    let report = check(
        std::path::Path::new("/db"),
        &CheckOptions {
            fs,
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.is_ok(), "{report:?}");
}
