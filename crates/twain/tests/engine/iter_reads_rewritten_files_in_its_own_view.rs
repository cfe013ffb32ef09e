//! An iterator reads a stale handle (its file rewritten by value GC since the handle was
//! made) in the epoch of its own view, not in a newer epoch GC made after the iterator
//! started: a compaction may drop the entry the iterator still sees (iterators are not
//! registered snapshots) and GC then leave its record out of the newer epoch. The kill
//! loop found this as "a live entry is missing from the rewritten value file".

use twain::Db;
use twain::fs::MemFs;

use crate::gcutil;
use gcutil::{file_of, first_file_collected_once, manual_gc_options, value};

#[test]
fn an_iterator_searches_the_epoch_its_view_holds() {
    let fs = MemFs::new();
    let opts = manual_gc_options(&fs).prefetch_threads(0);
    let db = Db::open("/db", opts).unwrap();
    // The tables hold handles to epoch 0 of the first file, which is at epoch 1.
    let first = first_file_collected_once(&db);
    let mut it = db.range("k0005".."k0006");
    // Overwritten and compacted: the old version, which the iterator still sees, is
    // dropped, and GC leaves its record out of epoch 2.
    db.put("k0005", value("c", 5)).unwrap();
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
    assert_eq!(file_of(&db, first).unwrap().epoch, 2, "GC did not rewrite");
    let (k, v) = it.next().expect("an entry").unwrap();
    assert_eq!((k.as_slice(), v), (b"k0005".as_slice(), value("a", 5)));
    assert!(it.next().is_none());
    assert_eq!(db.get("k0005").unwrap(), Some(value("c", 5)));
}
