//! `Db::delete_range` hides the keys of its range from every read at once (get,
//! multi_get, iterators both ways, keys, prefix, snapshots taken after it), while the
//! deletion is only in the memtable, after the flush that turns it into tombstones, after
//! compaction and after a reopen (the log replays it); snapshots taken before it still see
//! the keys through all of that; keys written after it, in the same batch or later, stay.

use crate::dbutil::small_opts;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, WriteBatch, WriteOptions};

fn key(i: u32) -> Vec<u8> {
    format!("k{i:03}").into_bytes()
}

/// Small values stay inline, large ones are separated: both kinds are deleted.
fn value(i: u32) -> Vec<u8> {
    vec![b'a' + (i % 26) as u8; if i.is_multiple_of(2) { 10 } else { 300 }]
}

fn all(db: &Db) -> Vec<Vec<u8>> {
    db.keys::<&[u8], _>(..).map(|k| k.unwrap()).collect()
}

/// Reads of every kind agree that exactly `want` (in order) are in the database.
fn reads_agree(db: &Db, want: &[u32], when: &str) {
    let want_keys: Vec<Vec<u8>> = want.iter().map(|&i| key(i)).collect();
    assert_eq!(all(db), want_keys, "{when}: keys");
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(|r| r.unwrap()).collect();
    let want_pairs: Vec<_> = want.iter().map(|&i| (key(i), value(i))).collect();
    assert_eq!(pairs, want_pairs, "{when}: iter");
    let mut back: Vec<_> = db.iter().rev().map(|r| r.unwrap()).collect();
    back.reverse();
    assert_eq!(back, want_pairs, "{when}: iter backwards");
    let probe: Vec<Vec<u8>> = (0..100).map(key).collect();
    let got = db.multi_get(&probe).unwrap();
    for i in 0..100u32 {
        let expect = want.contains(&i).then(|| value(i));
        assert_eq!(db.get(key(i)).unwrap(), expect, "{when}: get {i}");
        assert_eq!(got[i as usize], expect, "{when}: multi_get {i}");
        assert_eq!(db.get_pinned(key(i)).unwrap().map(|b| b.to_vec()), expect);
    }
    let in_prefix: Vec<Vec<u8>> = db.prefix("k02").map(|r| r.unwrap().0).collect();
    let want_prefix: Vec<Vec<u8>> = want
        .iter()
        .filter(|&&i| (20..30).contains(&i))
        .map(|&i| key(i))
        .collect();
    assert_eq!(in_prefix, want_prefix, "{when}: prefix");
    // A cursor that seeks into the range lands after it.
    let mut it = db.iter();
    it.seek(key(20));
    let first = it.next().map(|r| r.unwrap().0);
    let want_first = want.iter().find(|&&i| i >= 20).map(|&i| key(i));
    assert_eq!(first, want_first, "{when}: seek");
}

#[test]
fn keys_in_the_range_are_gone_for_every_read_through_flush_compaction_and_reopen() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = std::path::Path::new("/db");
    let opts = || small_opts().fs(Arc::clone(&fs));
    let db = Db::open(dir, opts()).unwrap();
    // Half the keys reach the tables, half stay in the memtable.
    for i in 0..50 {
        db.put(key(i), value(i)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    for i in 50..100 {
        db.put(key(i), value(i)).unwrap();
    }
    let before = db.snapshot();
    // Two overlapping ranges across the table and memtable keys, and an empty one.
    db.delete_range(key(20), key(40)).unwrap();
    db.delete_range(key(35), key(60)).unwrap();
    db.delete_range(key(70), key(70)).unwrap();
    let want: Vec<u32> = (0..100).filter(|i| !(20..60).contains(i)).collect();
    let everything: Vec<u32> = (0..100).collect();
    reads_agree(&db, &want, "in the memtable");
    let snap_keys: Vec<Vec<u8>> = before.iter().map(|r| r.unwrap().0).collect();
    assert_eq!(
        snap_keys.len(),
        100,
        "the snapshot taken before still sees every key"
    );
    assert_eq!(before.get(key(30)).unwrap(), Some(value(30)));

    db.flush().unwrap();
    reads_agree(&db, &want, "after the flush");
    assert_eq!(before.get(key(30)).unwrap(), Some(value(30)));
    db.compact_range(None, None).unwrap();
    reads_agree(&db, &want, "after compaction");
    let snap_pairs: Vec<(Vec<u8>, Vec<u8>)> = before.iter().map(|r| r.unwrap()).collect();
    let all_pairs: Vec<_> = everything.iter().map(|&i| (key(i), value(i))).collect();
    assert_eq!(snap_pairs, all_pairs, "the snapshot after compaction");
    drop(before);
    db.compact_range(None, None).unwrap();
    reads_agree(&db, &want, "after compaction without the snapshot");

    // A range deletion still in the log when the database closes is replayed.
    db.delete_range(key(0), key(10)).unwrap();
    drop(db);
    let db = Db::open(dir, opts()).unwrap();
    let want: Vec<u32> = want.into_iter().filter(|&i| i >= 10).collect();
    reads_agree(&db, &want, "after a reopen");
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    reads_agree(&db, &want, "after a reopen and compaction");
}

#[test]
fn only_keys_written_before_the_deletion_are_deleted() {
    let db_dir = tempfile::tempdir().unwrap();
    let db = Db::open(db_dir.path(), small_opts()).unwrap();
    for i in 0..10 {
        db.put(key(i), value(i)).unwrap();
    }
    // In one batch: a put before the range deletion goes, a put after it stays.
    let mut b = WriteBatch::new();
    b.put(key(50), value(50))
        .delete_range(key(0), key(60))
        .put(key(3), value(3));
    db.write(b, &WriteOptions::default()).unwrap();
    db.put(key(7), value(7)).unwrap();
    reads_agree(&db, &[3, 7], "in the memtable");
    let after = db.snapshot();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    reads_agree(&db, &[3, 7], "after flush and compaction");
    let seen: Vec<Vec<u8>> = after.iter().map(|r| r.unwrap().0).collect();
    assert_eq!(seen, vec![key(3), key(7)]);
}
