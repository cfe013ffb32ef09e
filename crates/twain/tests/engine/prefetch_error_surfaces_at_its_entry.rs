//! A damaged value that the prefetcher reads ahead of the cursor is reported when the
//! cursor reaches its entry: every entry before it is yielded with its value, then the
//! error, which names the value file; not earlier, and not never.

use crate::dbutil;

use dbutil::{key, small_opts};
use std::os::unix::fs::FileExt;
use twain::Db;

fn big(i: u64) -> Vec<u8> {
    vec![(i % 251) as u8; 300]
}

#[test]
fn the_error_comes_at_the_damaged_entry() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts()
        .prefetch_threads(2)
        .prefetch_min_read_micros(0)
        .inline_threshold(32)
        .gc_enabled(false);
    let db = Db::open(dir.path(), opts).unwrap();
    for i in 0..200 {
        db.put(key(i), big(i)).unwrap();
    }
    db.flush().unwrap();
    // Which entry holds the bytes at the middle of the first value log: the lazy
    // entries say, once the bytes are flipped.
    let vlog = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vlog"))
        .min()
        .unwrap();
    let len = std::fs::metadata(&vlog).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&vlog).unwrap();
    f.write_all_at(&[0xa5; 8], len / 2).unwrap();
    let damaged = dbutil::unreadable_values(&db);
    assert_eq!(damaged.len(), 1, "one value damaged: {damaged:?}");
    let bad = damaged[0];
    assert!(bad > 20, "the damage lies where the prefetcher runs ahead");

    let before = db.stats().unwrap().prefetch_reads;
    let mut it = db.iter();
    for i in 0..bad {
        let (k, v) = it.next().unwrap().unwrap();
        assert_eq!((k, v), (key(i as u64), big(i as u64)));
    }
    match it.next() {
        Some(Err(twain::Error::Corruption { file, .. })) => assert_eq!(file, vlog),
        other => panic!("want the corruption at entry {bad}, got {other:?}"),
    }
    assert!(it.next().is_none(), "an error ends the iteration");
    assert!(
        db.stats().unwrap().prefetch_reads > before,
        "the prefetcher was reading ahead"
    );
    // A seek starts again past the damage.
    it.seek(key(bad as u64 + 1));
    assert_eq!(it.next().unwrap().unwrap().0, key(bad as u64 + 1));
}
