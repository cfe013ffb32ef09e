//! The bounds on range deletions, and what a flush writes for them under snapshots:
//! a batch holds at most `MAX_RANGE_DELETIONS`, a memtable is frozen once it holds that
//! many (so what reads and flushes spend on them stays bounded), overlapping deletions
//! read right from every snapshot before and after their flush, and the flush writes a
//! key a tombstone for each live snapshot that needs one, no more.

use crate::dbutil::small_opts;
use twain::{Db, Error, MAX_RANGE_DELETIONS, WriteBatch, WriteOptions};

fn key(i: u32) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

#[test]
fn a_batch_holds_at_most_the_limit_and_a_memtable_freezes_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts().memtable_size(64 << 20)).unwrap();
    let mut b = WriteBatch::new();
    for i in 0..=MAX_RANGE_DELETIONS as u32 {
        b.delete_range(key(i), key(i + 1));
    }
    match db.write(b, &WriteOptions::default()) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("range deletions"), "{msg}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    for i in 0..100 {
        db.put(key(i), "v").unwrap();
    }
    // Nested deletions: each starts one key later than the last and ends at the same key,
    // the shape that would cost a fragment list quadratic memory.
    let snap = db.snapshot();
    let before = db.stats().unwrap().flushes;
    for i in 0..(MAX_RANGE_DELETIONS as u32 + 10) {
        db.delete_range(key(i % 50), key(60)).unwrap();
    }
    // The 64 MiB memtable is far from full: only the count freezes it, and the
    // background flushes it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while db.stats().unwrap().flushes == before && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let stats = db.stats().unwrap();
    assert!(
        stats.flushes > before,
        "the memtable was not frozen at {MAX_RANGE_DELETIONS} range deletions"
    );
    assert!(
        stats.memtable_bytes < 8 << 20,
        "{} bytes of memtables",
        stats.memtable_bytes
    );
    let left: Vec<Vec<u8>> = db.keys::<&[u8], _>(..).map(Result::unwrap).collect();
    let want: Vec<Vec<u8>> = (60..100).map(key).collect();
    assert_eq!(left, want);
    assert_eq!(
        snap.iter().count(),
        100,
        "the snapshot still sees every key"
    );
}

#[test]
fn a_flush_writes_the_tombstones_live_snapshots_need() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..10 {
        db.put(key(i), "old").unwrap();
    }
    db.flush().unwrap();
    db.delete_range(key(0), key(10)).unwrap();
    let between = db.snapshot();
    db.put(key(0), "new").unwrap();
    db.delete_range(key(0), key(10)).unwrap();
    db.flush().unwrap();
    // The snapshot between the deletions needs the first one's tombstones (every key),
    // the latest view the second's where a put came between (key 0): 11.
    assert_eq!(db.stats().unwrap().range_deletion_tombstones, 11);
    let seen: Vec<(Vec<u8>, Vec<u8>)> = between.iter().map(Result::unwrap).collect();
    assert!(seen.is_empty(), "{seen:?}");
    db.compact_range(None, None).unwrap();
    assert_eq!(between.iter().count(), 0);
    assert_eq!(db.iter().count(), 0);
    drop(between);

    // Without a snapshot between them, one tombstone per key.
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..10 {
        db.put(key(i), "old").unwrap();
    }
    db.flush().unwrap();
    db.delete_range(key(0), key(10)).unwrap();
    db.put(key(0), "new").unwrap();
    db.delete_range(key(0), key(10)).unwrap();
    db.flush().unwrap();
    assert_eq!(db.stats().unwrap().range_deletion_tombstones, 10);
    assert_eq!(db.iter().count(), 0);
}
