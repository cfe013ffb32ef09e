//! A scan over handles that value GC made stale has its prefetcher resolve them ahead of
//! the cursor: the SVTable search is made while reading ahead, the record is read in
//! parallel with its neighbours, each value once, and the handle is fixed up as the
//! cursor's own search would fix it, so that the next scan searches nothing. Without
//! prefetch threads nothing is resolved ahead and the scan yields the same pairs.

use crate::gcutil::{Model, manual_gc_options, with_stale_handles};
use twain::Db;
use twain::fs::MemFs;

fn scanned(db: &Db) -> Vec<(Vec<u8>, Vec<u8>)> {
    db.iter().map(|r| r.unwrap()).collect()
}

fn pairs(model: &Model) -> Vec<(Vec<u8>, Vec<u8>)> {
    model.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

#[test]
fn stale_handles_are_searched_and_read_ahead_then_fixed_up() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs).prefetch_threads(2)).unwrap();
    let (db, model) = with_stale_handles(db);
    let before = db.stats().unwrap();
    assert_eq!(scanned(&db), pairs(&model));
    let after = db.stats().unwrap();
    let ahead = after.prefetch_stale_reads - before.prefetch_stale_reads;
    let searches = after.scan_svtable_searches - before.scan_svtable_searches;
    // Every value is separated and read once, however it was found.
    assert_eq!(after.value_reads - before.value_reads, model.len() as u64);
    assert!(
        ahead > searches / 2,
        "{ahead} of {searches} stale handles resolved ahead of the cursor"
    );
    assert!(ahead <= searches, "each resolved ahead was searched once");
    assert_eq!(after.handle_fixups - before.handle_fixups, searches);
    // The fix-ups stand in the memtable: the next scan meets no stale handle.
    assert_eq!(scanned(&db), pairs(&model));
    let again = db.stats().unwrap();
    assert_eq!(again.scan_svtable_searches, after.scan_svtable_searches);
    assert_eq!(again.prefetch_stale_reads, after.prefetch_stale_reads);
    db.close().unwrap();
}

#[test]
fn without_prefetch_threads_the_cursor_resolves_every_stale_handle() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs).prefetch_threads(0)).unwrap();
    let (db, model) = with_stale_handles(db);
    let before = db.stats().unwrap();
    assert_eq!(scanned(&db), pairs(&model));
    let after = db.stats().unwrap();
    assert!(after.scan_svtable_searches > before.scan_svtable_searches);
    assert_eq!(after.prefetch_stale_reads, 0);
    db.close().unwrap();
}
