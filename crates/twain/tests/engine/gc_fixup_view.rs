//! A lazy fix-up re-inserts `key@seq` with its new handle only while that entry is still
//! the key's newest version. A reader that saw the entry at an older view (a snapshot,
//! or a get that raced with a write) must not fix it when a newer write exists; a reader
//! whose view is still the newest fixes it without searching the key store again.

use twain::Db;
use twain::fs::MemFs;

use crate::gcutil;
use gcutil::{first_file_collected_once, manual_gc_options, value};

#[test]
fn a_snapshot_read_of_an_overwritten_key_does_not_fix_its_handle() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    first_file_collected_once(&db);
    // k0001's handle in the tree is stale (epoch 0; the file is at epoch 1).
    let snap = db.snapshot();
    db.put("k0001", value("new", 1)).unwrap();
    let before = db.stats().unwrap();
    assert_eq!(snap.get("k0001").unwrap(), Some(value("a", 1)));
    let after = db.stats().unwrap();
    assert_eq!(after.svtable_searches, before.svtable_searches + 1);
    assert_eq!(
        after.handle_fixups, before.handle_fixups,
        "a fix-up for an overwritten entry"
    );
    assert_eq!(db.get("k0001").unwrap(), Some(value("new", 1)));
    db.flush().unwrap();
    assert_eq!(db.get("k0001").unwrap(), Some(value("new", 1)));
    assert_eq!(snap.get("k0001").unwrap(), Some(value("a", 1)));
}

#[test]
fn a_read_at_the_newest_view_fixes_the_handle_once() {
    let fs = MemFs::new();
    let db = Db::open("/db", manual_gc_options(&fs)).unwrap();
    first_file_collected_once(&db);
    let before = db.stats().unwrap();
    // Through a snapshot of the newest view and through a plain get: one search, one
    // fix-up; the second read finds the fixed handle.
    let snap = db.snapshot();
    assert_eq!(snap.get("k0002").unwrap(), Some(value("a", 2)));
    assert_eq!(db.get("k0002").unwrap(), Some(value("a", 2)));
    let after = db.stats().unwrap();
    assert_eq!(after.svtable_searches, before.svtable_searches + 1);
    assert_eq!(after.handle_fixups, before.handle_fixups + 1);
    // An iterator at the newest view fixes what it reads, too.
    let n = db.range("k0003".."k0006").count();
    assert_eq!(n, 3);
    let iterated = db.stats().unwrap();
    assert_eq!(iterated.handle_fixups, after.handle_fixups + 3);
    db.flush().unwrap();
    assert_eq!(db.get("k0004").unwrap(), Some(value("a", 4)));
    assert_eq!(
        db.stats().unwrap().svtable_searches,
        iterated.svtable_searches
    );
}
