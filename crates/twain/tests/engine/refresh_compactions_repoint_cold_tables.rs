//! A cold table that no compaction reaches keeps the handles value GC left stale until a
//! refresh compaction rewrites it in place (`db::stale`): the live-data pass counts them
//! (`Stats::stale_handles`), the background picks the table once background GC is on,
//! and afterwards reads and scans search no SVTable; the count persists. With background GC
//! off nothing is rewritten behind the user's back.

use crate::dbutil;
use crate::gcutil;

use dbutil::{BACKGROUND_DEADLINE, table_handle_epochs, wait_until};
use gcutil::{file_of, first_file_collected_once, manual_gc_options, value};
use std::time::Duration;
use twain::Db;
use twain::fs::MemFs;

/// Handles into value file `number` naming an epoch older than its current one.
fn stale_into(db: &Db, fs: &MemFs, number: u64) -> usize {
    let Some(epoch) = file_of(db, number).map(|f| f.epoch) else {
        return 0;
    };
    table_handle_epochs(db, fs, "/db")
        .into_iter()
        .filter(|h| h.2 == number && h.3 < epoch)
        .count()
}

#[test]
fn the_background_refreshes_a_cold_table_and_reads_stop_searching() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    let first = first_file_collected_once(&db);
    assert!(stale_into(&db, &fs, first) >= 40);
    db.refresh_live_bytes().unwrap();
    let counted = db.stats().unwrap();
    assert!(counted.stale_handles >= 40, "{}", counted.to_text());
    assert!(counted.to_json().contains("\"stale_handles\":"));
    // Background GC off: the table stays as it is.
    std::thread::sleep(Duration::from_millis(1500));
    let idle = db.stats().unwrap();
    assert_eq!(idle.refresh_compactions, 0);
    assert!(stale_into(&db, &fs, first) >= 40);
    let bottom = idle.levels.len() - 1;
    let tables = idle.levels[bottom].files;
    drop(db);

    let db = Db::open("/db", manual_gc_options(&fs).gc_enabled(true)).unwrap();
    assert!(
        wait_until(BACKGROUND_DEADLINE, || {
            db.stats().unwrap().refresh_compactions >= 1 && stale_into(&db, &fs, first) == 0
        }),
        "{}",
        db.stats().unwrap().to_text()
    );
    let after = db.stats().unwrap();
    // Rewritten in place: the bottom level keeps its tables, nothing moved up or down.
    assert_eq!(after.levels[bottom].files, tables);
    assert!(after.compaction_handle_refreshes >= 40);
    let before_reads = db.stats().unwrap();
    for i in 0..60u32 {
        let tag = if i >= 40 { "b" } else { "a" };
        assert_eq!(
            db.get(format!("k{i:04}")).unwrap(),
            Some(value(tag, i)),
            "k{i:04}"
        );
    }
    let n = db.range("k".."l").filter(|r| r.is_ok()).count();
    assert!(n >= 60);
    let read = db.stats().unwrap();
    // Background GC may rewrite a file again meanwhile; reads search only if it did.
    if stale_into(&db, &fs, first) == 0 {
        assert_eq!(read.svtable_searches, before_reads.svtable_searches);
        assert_eq!(read.handle_fixups, before_reads.handle_fixups);
    }
    db.refresh_live_bytes().unwrap();
    let recounted = db.stats().unwrap();
    assert!(
        recounted.stale_handles < counted.stale_handles,
        "{}",
        recounted.to_text()
    );
    assert!(recounted.to_text().contains("refresh compaction"));
    assert!(
        recounted
            .to_json()
            .contains("\"total_refresh_compactions\":")
    );
    let refreshed = recounted.refresh_compactions;
    assert_eq!(recounted.totals.refresh_compactions, refreshed);

    // The count persists in the manifest.
    drop(db);
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    let reopened = db.stats().unwrap();
    assert_eq!(reopened.totals.refresh_compactions, refreshed);
    assert_eq!(reopened.refresh_compactions, 0);
}
