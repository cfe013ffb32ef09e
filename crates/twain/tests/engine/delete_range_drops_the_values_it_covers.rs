//! What a range deletion costs and frees: the flush writes one tombstone per key it
//! deleted (none for keys already deleted or outside it, no table at all when it deleted
//! nothing), compaction then drops the deleted versions and records their separated
//! values' drops, so the live data falls at once and value GC takes the space back. Bad
//! bounds are refused with nothing written.

use crate::dbutil::small_opts;
use twain::{Db, Error, MAX_KEY_SIZE, WriteBatch, WriteOptions};

fn key(i: u32) -> Vec<u8> {
    format!("k{i:04}").into_bytes()
}

fn entries(db: &Db) -> u64 {
    db.stats().unwrap().levels.iter().map(|l| l.entries).sum()
}

/// Bytes of the value files on disk: their length less the holes punched in them.
fn value_bytes_on_disk(db: &Db) -> u64 {
    let stats = db.stats().unwrap();
    stats
        .value_files
        .iter()
        .map(|f| f.total_bytes - f.punched_bytes)
        .sum()
}

#[test]
fn the_flush_writes_a_tombstone_per_deleted_key_and_compaction_drops_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts().value_file_size(64 << 10).gc_enabled(false);
    let db = Db::open(dir.path(), opts).unwrap();
    for i in 0..400 {
        db.put(key(i), vec![7u8; 1000]).unwrap();
    }
    // Ten keys are already deleted: the range deletion writes no tombstone for them.
    for i in 100..110 {
        db.delete(key(i)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let before = db.stats().unwrap();
    let on_disk_before = value_bytes_on_disk(&db);
    assert_eq!(entries(&db), 390);

    db.delete_range(key(100), key(300)).unwrap();
    db.flush().unwrap();
    // 190 tombstones: 200 keys in the range, 10 of them already gone.
    assert_eq!(entries(&db), 390 + 190);
    let counted = db.stats().unwrap();
    assert_eq!(counted.range_deletions, 1);
    assert_eq!(counted.range_deletion_tombstones, 190);
    db.compact_range(None, None).unwrap();
    assert_eq!(
        entries(&db),
        200,
        "compaction drops the deleted versions and tombstones"
    );
    let after = db.stats().unwrap();
    assert_eq!(
        after.totals.drop_records - before.totals.drop_records,
        190,
        "one drop per separated value the range deleted"
    );
    assert_eq!(after.live_keys, 200);
    assert_eq!(before.live_bytes, 390 * 1005);
    assert_eq!(
        after.live_bytes,
        200 * 1005,
        "5-byte keys and 1000-byte values"
    );
    // Value GC takes the space back (here by punching holes in the value files).
    db.gc().unwrap();
    let on_disk_after = value_bytes_on_disk(&db);
    assert!(
        on_disk_after * 10 < on_disk_before * 6,
        "value files held {on_disk_before} bytes, now {on_disk_after}"
    );
    assert_eq!(db.keys::<&[u8], _>(..).count(), 200);
}

#[test]
fn a_range_deletion_that_deletes_nothing_leaves_no_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    db.put("a", "1").unwrap();
    db.flush().unwrap();
    let tables = |db: &Db| -> usize { db.stats().unwrap().levels.iter().map(|l| l.files).sum() };
    assert_eq!(tables(&db), 1);
    db.delete_range("b", "z").unwrap();
    db.flush().unwrap();
    assert_eq!(tables(&db), 1, "no tombstone, so no table");
    assert_eq!(db.get("a").unwrap(), Some(b"1".to_vec()));
    drop(db);
    // Nor does a reopen replay it: the flush moved the log's flushed point past it.
    let db = Db::open(dir.path(), small_opts()).unwrap();
    assert_eq!(db.stats().unwrap().memtable_entries, 0);
    assert_eq!(db.get("a").unwrap(), Some(b"1".to_vec()));
}

#[test]
fn bad_bounds_are_refused_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    db.put("m", "1").unwrap();
    let refused = |r: twain::Result<()>, why: &str| match r {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains(why), "{msg}"),
        other => panic!("expected a refusal ({why}), got {other:?}"),
    };
    refused(db.delete_range("z", "a"), "start is after its end");
    let long = vec![b'x'; MAX_KEY_SIZE + 1];
    refused(db.delete_range("a", &long), "exceeds the limit");
    refused(db.delete_range(&long, &long), "exceeds the limit");
    // A batch with a bad range deletion writes none of its operations.
    let mut b = WriteBatch::new();
    b.put("n", "2").delete_range("q", "p");
    refused(
        db.write(b, &WriteOptions::default()),
        "start is after its end",
    );
    assert_eq!(db.get("n").unwrap(), None);
    assert_eq!(db.get("m").unwrap(), Some(b"1".to_vec()));
    // The empty range is allowed and deletes nothing.
    db.delete_range("m", "m").unwrap();
    assert_eq!(db.get("m").unwrap(), Some(b"1".to_vec()));
}
