//! `Db` is shared between threads: writers and readers at once, group commit, and flushes
//! and manual compactions running alongside writers. Every acknowledged write is readable
//! afterwards with its last value, and readers never see a value that was not written.

use crate::dbutil;

use dbutil::{Model, Rng, assert_pairs_eq, collect, model_range, small_opts};
use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use twain::{Db, DbIterator, Error, Options, Snapshot, WriteBatch, WriteOptions};

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    const fn send<T: Send>() {}
    send_sync::<Db>();
    send_sync::<Arc<Db>>();
    send_sync::<Snapshot>();
    send_sync::<Error>();
    send::<DbIterator>();
};

fn opts() -> Options {
    small_opts().compaction_threads(2)
}

fn wkey(writer: u64, i: u64) -> Vec<u8> {
    format!("w{writer}-{i:04}").into_bytes()
}

/// A value naming its key and version, padded to one of several sizes (inline and
/// separated).
fn wvalue(key: &[u8], version: u64) -> Vec<u8> {
    let mut v = format!("{}|{version:08}|", String::from_utf8_lossy(key)).into_bytes();
    let pad = [0usize, 20, 150, 700, 2500][(version % 5) as usize];
    v.resize(v.len() + pad, b'.');
    v
}

/// The version a value claims, after checking it belongs to `key`.
fn version_of(key: &[u8], v: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(v);
    let mut parts = text.split('|');
    assert_eq!(
        parts.next().unwrap().as_bytes(),
        key,
        "value of another key: {text:.40}"
    );
    let version = parts.next().unwrap().parse().unwrap();
    assert_eq!(v, wvalue(key, version), "damaged value");
    version
}

#[test]
fn writers_and_readers_at_once_end_with_every_last_value() {
    const WRITERS: u64 = 3;
    const KEYS: u64 = 300;
    const ROUNDS: u64 = 6;
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(dir.path(), opts()).unwrap());
    let done = Arc::new(AtomicBool::new(false));

    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || {
                let mut model = Model::new();
                let mut rng = Rng::new(w);
                for round in 0..ROUNDS {
                    for i in 0..KEYS {
                        let k = wkey(w, i);
                        let version = round * KEYS + i + 1;
                        if rng.percent(10) {
                            db.delete(&k).unwrap();
                            model.remove(&k);
                        } else if rng.percent(10) {
                            // A batch touching this key and the next one.
                            let k2 = wkey(w, (i + 1) % KEYS);
                            let (v1, v2) = (wvalue(&k, version), wvalue(&k2, version));
                            let mut b = WriteBatch::new();
                            b.put(&k, &v1).put(&k2, &v2);
                            db.write(b, &WriteOptions::default()).unwrap();
                            model.insert(k, v1);
                            model.insert(k2, v2);
                        } else {
                            let v = wvalue(&k, version);
                            db.put(&k, &v).unwrap();
                            model.insert(k, v);
                        }
                    }
                }
                model
            })
        })
        .collect();

    let readers: Vec<_> = (0..2u64)
        .map(|r| {
            let db = Arc::clone(&db);
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut rng = Rng::new(100 + r);
                let mut found = 0u64;
                let mut reads = 0u64;
                while !done.load(Ordering::Acquire) || reads < 200 {
                    let w = rng.below(WRITERS);
                    let k = wkey(w, rng.below(KEYS));
                    // Only what a read returns is checked here, not that reads are
                    // monotonic: see read_visibility_race.rs for that.
                    if let Some(v) = db.get(&k).unwrap() {
                        let ver = version_of(&k, &v);
                        assert!(ver <= ROUNDS * KEYS, "version {ver} was never written");
                        found += 1;
                    }
                    if reads.is_multiple_of(50) {
                        let lo = wkey(w, rng.below(KEYS));
                        let mut n = 0;
                        for kv in db.range(lo.clone()..) {
                            let (k, v) = kv.unwrap();
                            assert!(k >= lo);
                            version_of(&k, &v);
                            n += 1;
                            if n == 40 {
                                break;
                            }
                        }
                    }
                    reads += 1;
                }
                (reads, found)
            })
        })
        .collect();

    let mut model = Model::new();
    for w in writers {
        model.extend(w.join().unwrap());
    }
    done.store(true, Ordering::Release);
    for r in readers {
        let (reads, found) = r.join().unwrap();
        assert!(reads >= 200 && found > 0, "{reads} reads, {found} found");
    }

    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(db.iter()), &all, "after the writers");
    for (k, v) in &model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }
    let s = db.stats().unwrap();
    assert!(s.flushes > 0, "the workload should have flushed");
    // Deleted keys stay deleted.
    for w in 0..WRITERS {
        for i in 0..KEYS {
            let k = wkey(w, i);
            if !model.contains_key(&k) {
                assert_eq!(db.get(&k).unwrap(), None);
            }
        }
    }
}

#[test]
fn group_commit_groups_concurrent_writers() {
    const THREADS: u64 = 8;
    const WRITES: u64 = 100;
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(dir.path(), opts()).unwrap());
    let before = db.stats().unwrap();
    let barrier = Arc::new(std::sync::Barrier::new(THREADS as usize));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let db = Arc::clone(&db);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                for i in 0..WRITES {
                    let k = wkey(t, i);
                    db.put_opt(&k, wvalue(&k, i), &WriteOptions::synced())
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let s = db.stats().unwrap();
    let ops = s.user_ops - before.user_ops;
    let groups = s.write_groups - before.write_groups;
    assert_eq!(ops, THREADS * WRITES);
    assert!(
        groups < ops,
        "group commit never grouped: {groups} groups for {ops} writes"
    );
    assert!(s.synced_groups - before.synced_groups <= groups);
    assert!(s.synced_groups > before.synced_groups);
    for t in 0..THREADS {
        for i in 0..WRITES {
            let k = wkey(t, i);
            assert_eq!(db.get(&k).unwrap().unwrap(), wvalue(&k, i));
        }
    }
}

#[test]
fn flushes_and_manual_compactions_run_alongside_writers() {
    const WRITERS: u64 = 2;
    const KEYS: u64 = 400;
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(dir.path(), opts()).unwrap());
    let stop = Arc::new(AtomicBool::new(false));

    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || {
                let mut model = Model::new();
                let mut rng = Rng::new(7 + w);
                for round in 0..5 {
                    for i in 0..KEYS {
                        let k = wkey(w, i);
                        if rng.percent(15) {
                            db.delete(&k).unwrap();
                            model.remove(&k);
                        } else {
                            let v = wvalue(&k, round * KEYS + i);
                            db.put(&k, &v).unwrap();
                            model.insert(k, v);
                        }
                    }
                }
                model
            })
        })
        .collect();
    let flusher = {
        let (db, stop) = (Arc::clone(&db), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Acquire) || n < 3 {
                db.flush().unwrap();
                n += 1;
            }
            n
        })
    };
    let compactor = {
        let (db, stop) = (Arc::clone(&db), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Acquire) || n < 3 {
                if n.is_multiple_of(2) {
                    db.compact_range(None, None).unwrap();
                } else {
                    let lo = wkey(n % WRITERS, 100);
                    let hi = wkey(n % WRITERS, 300);
                    db.compact_range(Some(&lo), Some(&hi)).unwrap();
                }
                n += 1;
            }
            n
        })
    };

    let mut model = Model::new();
    for w in writers {
        model.extend(w.join().unwrap());
    }
    stop.store(true, Ordering::Release);
    assert!(flusher.join().unwrap() >= 3);
    assert!(compactor.join().unwrap() >= 3);

    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(db.iter()), &all, "after concurrent maintenance");
    db.compact_range(None, None).unwrap();
    assert_pairs_eq(&collect(db.iter()), &all, "after a final compaction");
    let s = db.stats().unwrap();
    assert!(s.compactions > 0);
    drop(db);
    let db = Db::open(dir.path(), opts()).unwrap();
    assert_pairs_eq(&collect(db.iter()), &all, "after reopen");
}

/// Snapshots are registered before flushes and compactions pick what to drop, so unlike
/// plain reads (read_visibility_race.rs) a snapshot taken while a writer overwrites a key
/// and flushes run keeps returning one and the same value.
#[test]
fn snapshots_taken_during_flushes_stay_stable() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(dir.path(), opts()).unwrap());
    db.put("c", 0u64.to_be_bytes()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, stop) = (Arc::clone(&db), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut i = 1u64;
            while !stop.load(Ordering::Acquire) {
                db.put("c", i.to_be_bytes()).unwrap();
                i += 1;
            }
        })
    };
    let flusher = {
        let (db, stop) = (Arc::clone(&db), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Acquire) {
                db.flush().unwrap();
                std::thread::yield_now();
            }
        })
    };
    let read = |s: &Snapshot| u64::from_be_bytes(s.get("c").unwrap().unwrap().try_into().unwrap());
    let mut held: Vec<(Snapshot, u64)> = Vec::new();
    let mut last = 0;
    let start = Instant::now();
    // At least 400 ms, and until two flushes ran meanwhile: on a loaded machine the
    // flusher may not get a turn at first.
    while start.elapsed() < Duration::from_millis(400) || db.stats().unwrap().flushes < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no flush ran alongside the snapshots"
        );
        let s = db.snapshot();
        let v = read(&s);
        assert!(
            v >= last,
            "a newer snapshot saw an older value: {v} < {last}"
        );
        last = v;
        held.push((s, v));
        if held.len() > 20 {
            held.remove(0);
        }
        for (s, v) in &held {
            assert_eq!(read(s), *v, "a snapshot's value changed");
            let scanned: Vec<_> = s.prefix("c").map(|r| r.unwrap()).collect();
            assert_eq!(scanned.len(), 1);
            assert_eq!(scanned[0].1, v.to_be_bytes());
        }
    }
    stop.store(true, Ordering::Release);
    writer.join().unwrap();
    flusher.join().unwrap();
    assert!(db.stats().unwrap().flushes > 0);
}
