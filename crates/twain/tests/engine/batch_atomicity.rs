//! A `WriteBatch` applies in order and atomically: a later operation on the same key wins
//! (in the memtable, after flush, compaction and reopen), a reader never sees part of a
//! batch, and a batch that fails validation applies nothing.

use crate::dbutil;

use dbutil::{collect, small_opts};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use twain::{Db, Error, MAX_KEY_SIZE, WriteBatch, WriteOptions};

fn big(tag: u8) -> Vec<u8> {
    vec![tag; 300]
}

/// Builds batches where several operations hit the same key, with inline and separated
/// values, and returns the expected final value of each key.
fn same_key_batches(db: &Db) -> Vec<(&'static str, Option<Vec<u8>>)> {
    let mut b = WriteBatch::new();
    b.put("a", "1").put("a", "2");
    b.put("b", big(1)).put("b", "small");
    b.put("c", "small").put("c", big(2));
    b.put("d", big(3)).delete("d");
    b.delete("e").put("e", big(4));
    b.put("f", "x").delete("f").put("f", "y").delete("f");
    b.put("g", big(5)).put("g", big(6)).put("g", big(7));
    db.write(b, &WriteOptions::default()).unwrap();
    vec![
        ("a", Some(b"2".to_vec())),
        ("b", Some(b"small".to_vec())),
        ("c", Some(big(2))),
        ("d", None),
        ("e", Some(big(4))),
        ("f", None),
        ("g", Some(big(7))),
    ]
}

fn check(db: &Db, want: &[(&str, Option<Vec<u8>>)], when: &str) {
    for (k, v) in want {
        assert_eq!(&db.get(k).unwrap(), v, "{when}: get {k}");
    }
    let live: Vec<(Vec<u8>, Vec<u8>)> = want
        .iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.as_bytes().to_vec(), v)))
        .collect();
    assert_eq!(collect(db.iter()), live, "{when}: iter");
    let mut back: Vec<_> = db.iter().rev().map(|r| r.unwrap()).collect();
    back.reverse();
    assert_eq!(back, live, "{when}: iter().rev()");
}

#[test]
fn the_last_operation_on_a_key_wins_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let want;
    {
        let db = Db::open(dir.path(), small_opts()).unwrap();
        // Older versions in a lower level, so that the batch has something to shadow.
        for k in ["a", "b", "c", "d", "e", "f", "g"] {
            db.put(k, big(9)).unwrap();
        }
        db.compact_range(None, None).unwrap();
        want = same_key_batches(&db);
        check(&db, &want, "memtable");
    }
    // Replayed from the value log.
    let db = Db::open(dir.path(), small_opts()).unwrap();
    check(&db, &want, "after reopen (log replay)");
    db.flush().unwrap();
    check(&db, &want, "after flush");
    db.compact_range(None, None).unwrap();
    check(&db, &want, "after compaction");
    drop(db);
    let db = Db::open(dir.path(), small_opts()).unwrap();
    check(&db, &want, "after compaction and reopen");
}

/// A token moves between keys by batches (delete the holder, put the new holder) while
/// balances move between accounts; readers, each reading through one snapshot, must see
/// exactly one holder and an unchanged total.
#[test]
fn readers_never_see_part_of_a_batch() {
    const HOLDERS: u64 = 8;
    const ACCOUNTS: u64 = 10;
    const TOTAL: u64 = 1000 * ACCOUNTS;
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(dir.path(), small_opts()).unwrap());
    let holder = |i: u64| format!("tok{i}");
    let account = |i: u64| format!("acct{i:02}");
    // Balances are padded so that some are separated and some inline.
    let encode = |n: u64, pad: usize| {
        let mut v = n.to_string().into_bytes();
        v.push(b'|');
        v.resize(v.len() + pad, b'.');
        v
    };
    let decode = |v: &[u8]| -> u64 {
        let end = v.iter().position(|&b| b == b'|').unwrap();
        std::str::from_utf8(&v[..end]).unwrap().parse().unwrap()
    };
    let mut b = WriteBatch::new();
    b.put(holder(0), "token");
    for a in 0..ACCOUNTS {
        b.put(account(a), encode(1000, 0));
    }
    db.write(b, &WriteOptions::default()).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (db, stop) = (Arc::clone(&db), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut checks = 0u64;
                while !stop.load(Ordering::Acquire) || checks < 50 {
                    let snap = db.snapshot();
                    let holders: Vec<_> = snap.prefix("tok").map(|r| r.unwrap()).collect();
                    assert_eq!(holders.len(), 1, "token holders: {holders:?}");
                    let total: u64 = snap.prefix("acct").map(|r| decode(&r.unwrap().1)).sum();
                    assert_eq!(total, TOTAL, "accounts out of balance");
                    // Point reads through the same snapshot agree with its scan.
                    let by_get = (0..HOLDERS)
                        .filter(|&i| snap.get(holder(i)).unwrap().is_some())
                        .count();
                    assert_eq!(by_get, 1);
                    checks += 1;
                }
                checks
            })
        })
        .collect();

    let mut at = 0u64;
    let mut balances = vec![1000u64; ACCOUNTS as usize];
    for step in 0..3000u64 {
        let next = (at + 1 + step % 3) % HOLDERS;
        let (from, to) = (
            (step % ACCOUNTS) as usize,
            ((step * 7 + 3) % ACCOUNTS) as usize,
        );
        let amount = (step % 13).min(balances[from]);
        balances[from] -= amount;
        balances[to] += amount;
        let mut b = WriteBatch::new();
        b.delete(holder(at))
            .put(holder(next), vec![b't'; (step % 200) as usize]);
        let pad = |n: u64| (n as usize * 37) % 400;
        b.put(account(from as u64), encode(balances[from], pad(step)));
        b.put(account(to as u64), encode(balances[to], pad(step + 1)));
        db.write(b, &WriteOptions::default()).unwrap();
        at = next;
    }
    stop.store(true, Ordering::Release);
    for r in readers {
        assert!(r.join().unwrap() >= 50);
    }
    let s = db.stats().unwrap();
    assert!(s.flushes > 0, "the test should cross memtable switches");
    assert_eq!(
        db.get(holder(at)).unwrap().unwrap().len(),
        (2999 % 200) as usize
    );
}

#[test]
fn a_batch_with_an_invalid_operation_applies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    db.put("keep", "old").unwrap();
    let mut b = WriteBatch::new();
    b.put("new", "v").delete("keep");
    b.put(vec![b'x'; MAX_KEY_SIZE + 1], "too long");
    b.put("after", big(1));
    let before = db.stats().unwrap();
    let err = db.write(b, &WriteOptions::synced()).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert_eq!(db.get("keep").unwrap().unwrap(), b"old");
    assert_eq!(db.get("new").unwrap(), None);
    assert_eq!(db.get("after").unwrap(), None);
    assert_eq!(db.stats().unwrap().user_ops, before.user_ops);
    // The database still accepts writes.
    db.put("new", "v").unwrap();
    drop(db);
    let db = Db::open(dir.path(), small_opts()).unwrap();
    assert_eq!(
        collect(db.iter()),
        vec![
            (b"keep".to_vec(), b"old".to_vec()),
            (b"new".to_vec(), b"v".to_vec())
        ]
    );
}

#[test]
fn a_batch_larger_than_the_memtable_applies_whole() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    let n = 3000u64;
    let mut b = WriteBatch::new();
    for i in 0..n {
        b.put(
            format!("big{i:05}"),
            vec![(i % 251) as u8; (i % 3 * 100) as usize],
        );
    }
    assert!(b.payload_bytes() > opts.memtable_size);
    {
        let db = Db::open(dir.path(), opts.clone()).unwrap();
        db.write(b.clone(), &WriteOptions::default()).unwrap();
        assert_eq!(db.iter().count() as u64, n);
    }
    let db = Db::open(dir.path(), opts).unwrap();
    let all = collect(db.iter());
    assert_eq!(all.len() as u64, n);
    for (i, (k, v)) in all.iter().enumerate() {
        assert_eq!(k, format!("big{i:05}").as_bytes());
        assert_eq!(v, &vec![(i % 251) as u8; i % 3 * 100]);
    }
    // A cleared batch is empty and reusable.
    b.clear();
    assert!(b.is_empty());
    b.put("big00000", "again");
    db.write(b, &WriteOptions::default()).unwrap();
    assert_eq!(db.get("big00000").unwrap().unwrap(), b"again");
}
