//! Expiring puts, read through every read path with a clock the test moves: `get`,
//! `multi_get`, iterators both ways, key-only iteration, lazy entries, snapshots and
//! `expiry`. An expired put hides the key's older versions (it acts as a delete), in the
//! memtable, in tables and after a reopen; a later plain put never expires.

use std::sync::Arc;
use twain::{Db, KeyExpiry, ManualClock, Options, WriteBatch};

const T0: u64 = 1_900_000_000_000;

fn options(clock: &ManualClock) -> Options {
    Options::default()
        .clock(Arc::new(clock.clone()))
        // Small and large values: inline in the tables and separated in the log.
        .inline_threshold(64)
        .medium_threshold(64)
}

fn keys(db: &Db) -> Vec<Vec<u8>> {
    db.keys::<&[u8], _>(..).map(Result::unwrap).collect()
}

fn check_at_each_stage(db: &Db, clock: &ManualClock) {
    let big = vec![7u8; 500];
    // Before the expiry every path sees the values.
    clock.set(T0 + 999);
    assert_eq!(db.get("small").unwrap(), Some(b"s".to_vec()));
    assert_eq!(db.get("big").unwrap(), Some(big.clone()));
    assert_eq!(db.expiry("small").unwrap(), KeyExpiry::At(T0 + 1_000));
    assert_eq!(db.expiry("big").unwrap(), KeyExpiry::At(T0 + 2_000));
    assert_eq!(db.expiry("plain").unwrap(), KeyExpiry::Never);
    assert_eq!(
        db.get_with_expiry("big").unwrap(),
        Some((big.clone(), Some(T0 + 2_000)))
    );
    assert_eq!(
        keys(db),
        vec![b"big".to_vec(), b"plain".to_vec(), b"small".to_vec()]
    );
    // From the expiry time on, the key is gone, older versions included.
    clock.set(T0 + 1_000);
    assert_eq!(db.get("small").unwrap(), None);
    assert_eq!(db.expiry("small").unwrap(), KeyExpiry::Missing);
    assert_eq!(db.get_with_expiry("small").unwrap(), None);
    assert_eq!(
        db.multi_get(&[&b"small"[..], b"big", b"plain"]).unwrap(),
        vec![None, Some(big.clone()), Some(b"p".to_vec())]
    );
    clock.set(T0 + 2_000);
    assert_eq!(db.get("big").unwrap(), None);
    assert_eq!(
        db.multi_get(&[&b"small"[..], b"big", b"plain"]).unwrap(),
        vec![None, None, Some(b"p".to_vec())]
    );
    let forward: Vec<_> = db.iter().map(Result::unwrap).collect();
    let backward: Vec<_> = db.iter().rev().map(Result::unwrap).collect();
    assert_eq!(forward, vec![(b"plain".to_vec(), b"p".to_vec())]);
    assert_eq!(backward, forward);
    assert_eq!(keys(db), vec![b"plain".to_vec()]);
    let entries: Vec<_> = db.entries::<&[u8], _>(..).map(Result::unwrap).collect();
    assert_eq!(entries.len(), 1);
    // A snapshot is judged by the clock too: expiry is time, not a version.
    let snap = db.snapshot();
    assert_eq!(snap.get("big").unwrap(), None);
}

#[test]
fn expired_puts_vanish_from_every_read_path_in_memtables_tables_and_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open(dir.path(), options(&clock)).unwrap();
    // Older versions that the expiring puts must hide.
    db.put("small", "old").unwrap();
    db.put("big", vec![1u8; 500]).unwrap();
    db.flush().unwrap();
    let mut b = WriteBatch::new();
    b.put_with_expiry("small", "s", T0 + 1_000)
        .put_with_expiry("big", vec![7u8; 500], T0 + 2_000)
        .put("plain", "p");
    db.write(b, &Default::default()).unwrap();
    check_at_each_stage(&db, &clock);
    // In a table (flushed before the expiry: a flush drops what has expired).
    clock.set(T0);
    db.flush().unwrap();
    check_at_each_stage(&db, &clock);
    // Replayed from the log after a reopen (the flushed point is before them).
    drop(db);
    clock.set(T0);
    let dir2 = tempfile::tempdir().unwrap();
    let db = Db::open(dir2.path(), options(&clock)).unwrap();
    db.put("small", "old").unwrap();
    db.put_with_expiry("small", "s", T0 + 1_000).unwrap();
    db.put_with_expiry("big", vec![7u8; 500], T0 + 2_000)
        .unwrap();
    db.put("plain", "p").unwrap();
    drop(db);
    let db = Db::open(dir2.path(), options(&clock)).unwrap();
    check_at_each_stage(&db, &clock);
}

#[test]
fn a_plain_put_clears_the_expiry_and_a_past_time_acts_as_a_delete() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open(dir.path(), options(&clock)).unwrap();
    db.put_with_expiry("k", "1", T0 + 10).unwrap();
    db.put("k", "2").unwrap();
    clock.advance(100);
    assert_eq!(db.get("k").unwrap(), Some(b"2".to_vec()));
    assert_eq!(db.expiry("k").unwrap(), KeyExpiry::Never);
    db.put("gone", "x").unwrap();
    db.put_with_expiry("gone", "y", T0).unwrap();
    assert_eq!(db.get("gone").unwrap(), None);
    assert_eq!(db.expiry("absent").unwrap(), KeyExpiry::Missing);
}

#[test]
fn an_iterator_judges_expiry_at_the_moment_it_was_made() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open(dir.path(), options(&clock)).unwrap();
    for i in 0..10u8 {
        db.put_with_expiry([b'k', i], vec![i; 300], T0 + 5).unwrap();
    }
    let mut it = db.iter();
    let first = it.next().unwrap().unwrap();
    clock.advance(10);
    // The values it yields later are still whole: one moment for the whole view.
    let rest: Vec<_> = it.map(Result::unwrap).collect();
    assert_eq!(rest.len(), 9);
    assert_eq!(first.1, vec![0u8; 300]);
    assert!(rest.iter().all(|(k, v)| v == &vec![k[1]; 300]));
    assert_eq!(db.iter().count(), 0);
}
