//! A compaction re-points the stale handles it rewrites (value GC moved their records into
//! a new epoch of the file): its output names the new epoch, the counter counts them, and a
//! scan afterwards searches no SVTable. Both for a manual compaction and for an automatic
//! one, and the count survives a reopen. Before, scans count the stale handles they meet
//! apart from point reads.

use crate::dbutil;
use crate::gcutil;

use dbutil::{BACKGROUND_DEADLINE, table_handle_epochs, wait_until};
use gcutil::{first_file_collected_once, manual_gc_options, value};
use twain::Db;
use twain::fs::MemFs;

/// Handles into value file `number`: (stale ones at an epoch below `epoch`, all).
fn handles_into(db: &Db, fs: &MemFs, number: u64, epoch: u32) -> (usize, usize) {
    let all: Vec<_> = table_handle_epochs(db, fs, "/db")
        .into_iter()
        .filter(|h| h.2 == number)
        .collect();
    (all.iter().filter(|h| h.3 < epoch).count(), all.len())
}

/// Every key `first_file_collected_once` wrote, read back in one forward scan.
fn scan_reads_back(db: &Db) {
    let got: Vec<_> = db
        .range("k".."l")
        .map(|r| r.unwrap())
        .filter(|(k, _)| k.len() == 5)
        .collect();
    assert_eq!(got.len(), 60);
    for (i, (k, v)) in got.iter().enumerate() {
        let i = i as u32;
        assert_eq!(k, format!("k{i:04}").as_bytes());
        let tag = if i >= 40 { "b" } else { "a" };
        assert_eq!(v, &value(tag, i), "k{i:04}");
    }
}

#[test]
fn a_manual_compaction_repoints_every_stale_handle() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    let first = first_file_collected_once(&db);
    let (stale, all) = handles_into(&db, &fs, first, 1);
    assert!(stale >= 40 && stale == all, "{stale} of {all} stale");
    let before = db.stats().unwrap();

    db.compact_range(None, None).unwrap();
    let after = db.stats().unwrap();
    assert_eq!(
        handles_into(&db, &fs, first, 1),
        (0, all),
        "a stale handle left"
    );
    assert!(
        table_handle_epochs(&db, &fs, "/db")
            .iter()
            .filter(|h| h.2 == first)
            .all(|h| h.3 == 1)
    );
    assert_eq!(
        after.compaction_handle_refreshes - before.compaction_handle_refreshes,
        stale as u64
    );
    assert_eq!(after.totals.compaction_handle_refreshes, stale as u64);

    // A full scan meets no stale handle: no SVTable search, no fix-up.
    scan_reads_back(&db);
    let scanned = db.stats().unwrap();
    assert_eq!(scanned.svtable_searches, after.svtable_searches);
    assert_eq!(scanned.scan_svtable_searches, after.scan_svtable_searches);
    assert_eq!(scanned.handle_fixups, after.handle_fixups);
    let json = scanned.to_json();
    assert!(json.contains("\"compaction_handle_refreshes\":"), "{json}");
    assert!(json.contains("\"total_compaction_handle_refreshes\":"));
    assert!(json.contains("\"scan_svtable_searches\":"));

    // The count persists in the manifest.
    drop(db);
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    let reopened = db.stats().unwrap();
    assert_eq!(reopened.totals.compaction_handle_refreshes, stale as u64);
    assert_eq!(reopened.compaction_handle_refreshes, 0);
    scan_reads_back(&db);
}

#[test]
fn an_automatic_compaction_repoints_the_stale_handles_of_its_inputs() {
    let fs = MemFs::new();
    let opts = manual_gc_options(&fs).l0_compaction_trigger(2);
    let db = Db::open("/db", opts).unwrap();
    let first = first_file_collected_once(&db);
    let (stale, all) = handles_into(&db, &fs, first, 1);
    assert!(stale >= 40 && stale == all, "{stale} of {all} stale");
    // Two flushed tables over the same keys make L0 reach its trigger, and the
    // background compacts them with the table holding the stale handles.
    let compactions = db.stats().unwrap().compactions;
    db.put("k0000a", b"x").unwrap();
    db.flush().unwrap();
    db.put("k0059a", b"y").unwrap();
    db.flush().unwrap();
    assert!(wait_until(BACKGROUND_DEADLINE, || {
        let s = db.stats().unwrap();
        s.compactions > compactions && s.levels[0].files == 0
    }));
    let after = db.stats().unwrap();
    assert_eq!(handles_into(&db, &fs, first, 1).0, 0, "a stale handle left");
    assert!(after.compaction_handle_refreshes >= stale as u64);
    scan_reads_back(&db);
    let rescanned = db.stats().unwrap();
    assert_eq!(rescanned.svtable_searches, after.svtable_searches);
    assert_eq!(rescanned.scan_svtable_searches, after.scan_svtable_searches);
}

#[test]
fn scans_count_the_stale_handles_they_meet_apart_from_point_reads() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    first_file_collected_once(&db);
    let before = db.stats().unwrap();
    assert_eq!(db.get("k0003").unwrap(), Some(value("a", 3)));
    let got = db.stats().unwrap();
    assert_eq!(got.svtable_searches, before.svtable_searches + 1);
    assert_eq!(got.scan_svtable_searches, before.scan_svtable_searches);
    // Forward, backward and through lazy entries: each stale handle met once.
    let n = db.range("k0010".."k0020").count();
    assert_eq!(n, 10);
    assert_eq!(db.range("k0020".."k0030").rev().count(), 10);
    let lazy: Vec<_> = db
        .entries("k0030".."k0035")
        .map(|e| e.unwrap().value().unwrap())
        .collect();
    assert_eq!(lazy, (30..35).map(|i| value("a", i)).collect::<Vec<_>>());
    let scanned = db.stats().unwrap();
    assert_eq!(
        scanned.scan_svtable_searches,
        got.scan_svtable_searches + 25
    );
    assert_eq!(scanned.svtable_searches, got.svtable_searches + 25);
    assert!(
        scanned.to_text().contains("(25 by scans)"),
        "{}",
        scanned.to_text()
    );
}
