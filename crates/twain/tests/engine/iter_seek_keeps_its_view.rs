//! An iterator's seeks keep its view: writes, deletes, flushes, compactions and value GC
//! after the iterator was made are invisible however it seeks and steps afterwards.

use crate::dbutil;

use dbutil::{collect, key, small_opts, value};
use twain::Db;

#[test]
fn seeks_after_writes_flushes_and_compactions_see_the_old_state() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts().gc_enabled(false)).unwrap();
    for i in 0..400 {
        db.put(key(i), value(&key(i), 1, 7)).unwrap();
    }
    db.flush().unwrap();
    let want = collect(db.iter());
    let mut it = db.iter();
    assert_eq!(it.next().unwrap().unwrap(), want[0]);

    for i in 0..400 {
        if i % 3 == 0 {
            db.delete(key(i)).unwrap();
        } else {
            db.put(key(i), value(&key(i), 2, 6)).unwrap();
        }
    }
    db.put(b"k00100a", b"new").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();

    it.seek(key(100));
    assert_eq!(it.next().unwrap().unwrap(), want[100]);
    assert_eq!(
        it.next().unwrap().unwrap(),
        want[101],
        "the new key is not seen"
    );
    assert_eq!(it.prev().unwrap().unwrap(), want[100]);
    it.seek_for_prev(key(250));
    assert_eq!(it.prev().unwrap().unwrap(), want[250]);
    assert_eq!(it.prev().unwrap().unwrap(), want[249]);
    it.seek_to_last();
    assert_eq!(it.prev().unwrap().unwrap(), want[399]);
    it.seek_to_first();
    let all: Vec<_> = it.map(|r| r.unwrap()).collect();
    assert_eq!(all, want);
}
