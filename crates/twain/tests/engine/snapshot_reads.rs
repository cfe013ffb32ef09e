//! A snapshot's `get`, `iter`, `range` and `prefix` see the database as it was when the
//! snapshot was taken, through later overwrites, deletes, flushes and compactions; while
//! it lives, compaction keeps the versions it sees, and once it is dropped compaction
//! reclaims them.

use crate::dbutil;

use dbutil::{
    Model, Rng, assert_layered, assert_pairs_eq, collect, collect_rev, key, layered_db,
    model_prefix, model_range, small_opts, value,
};
use std::ops::Bound;
use twain::{Db, Snapshot, Stats};

const N: u64 = 1200;

fn churn(db: &Db, model: &mut Model, rng: &mut Rng, tag: u64) {
    for i in (tag % 3..N + 100).step_by(3) {
        let k = key(i);
        if rng.percent(35) {
            db.delete(&k).unwrap();
            model.remove(&k);
        } else {
            let v = value(&k, tag * 10_000_000 + i, rng.next_u64());
            db.put(&k, &v).unwrap();
            model.insert(k, v);
        }
    }
    db.flush().unwrap();
    for i in (0..N).step_by(17) {
        let k = key(i);
        db.delete(&k).unwrap();
        model.remove(&k);
    }
    db.compact_range(None, None).unwrap();
    for i in (1..N).step_by(13) {
        let k = key(i);
        let v = value(&k, tag * 20_000_000 + i, rng.next_u64());
        db.put(&k, &v).unwrap();
        model.insert(k, v);
    }
}

/// Checks every read of `snap` against `model`.
fn check_snapshot(snap: &Snapshot, model: &Model, what: &str) {
    let all = model_range(model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(snap.iter()), &all, &format!("{what}: iter"));
    let mut back = collect_rev(snap.iter());
    back.reverse();
    assert_pairs_eq(&back, &all, &format!("{what}: iter().rev()"));
    let (lo, hi) = (key(150), key(700));
    assert_pairs_eq(
        &collect(snap.range(lo.clone()..=hi.clone())),
        &model_range(
            model,
            &Bound::Included(lo.clone()),
            &Bound::Included(hi.clone()),
        ),
        &format!("{what}: range"),
    );
    assert_pairs_eq(
        &collect(snap.range((Bound::Excluded(lo.clone()), Bound::Unbounded))),
        &model_range(model, &Bound::Excluded(lo.clone()), &Bound::Unbounded),
        &format!("{what}: range with excluded start"),
    );
    for p in [&b"k00"[..], b"k011", b"a\xff", b""] {
        assert_pairs_eq(
            &collect(snap.prefix(p)),
            &model_prefix(model, p),
            &format!("{what}: prefix {p:?}"),
        );
    }
    for i in (0..N + 100).step_by(7) {
        let k = key(i);
        assert_eq!(
            snap.get(&k).unwrap(),
            model.get(&k).cloned(),
            "{what}: get {i}"
        );
    }
    for &k in dbutil::SPECIAL_KEYS {
        assert_eq!(
            snap.get(k).unwrap(),
            model.get(k).cloned(),
            "{what}: get {k:?}"
        );
    }
}

#[test]
fn snapshots_see_their_moment_through_overwrites_deletes_flushes_and_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let (db, mut model) = layered_db(dir.path(), N, 41);
    assert_layered(&db);
    let mut rng = Rng::new(42);

    let s1 = db.snapshot();
    let m1 = model.clone();
    churn(&db, &mut model, &mut rng, 1);
    let s2 = db.snapshot();
    let m2 = model.clone();
    assert!(s2.sequence() > s1.sequence());
    churn(&db, &mut model, &mut rng, 2);
    assert_ne!(m1, m2);
    assert_ne!(m2, model);

    check_snapshot(&s1, &m1, "first snapshot");
    check_snapshot(&s2, &m2, "second snapshot");
    let now = db.snapshot();
    check_snapshot(&now, &model, "fresh snapshot");
    assert_pairs_eq(
        &collect(db.iter()),
        &model_range(&model, &Bound::Unbounded, &Bound::Unbounded),
        "db.iter()",
    );

    // Dropping the newer snapshot does not disturb the older one.
    drop(s2);
    db.compact_range(None, None).unwrap();
    check_snapshot(&s1, &m1, "first snapshot after the second was dropped");
}

#[test]
fn a_snapshot_keeps_a_deleted_key_through_compaction_to_the_bottom() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    let big = vec![7u8; 1000];
    db.put("gone", &big).unwrap();
    db.put("small", "s1").unwrap();
    db.put("over", &big).unwrap();
    db.compact_range(None, None).unwrap();
    let snap = db.snapshot();
    db.delete("gone").unwrap();
    db.delete("small").unwrap();
    db.put("over", "new").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get("gone").unwrap(), None);
    assert_eq!(db.get("small").unwrap(), None);
    assert_eq!(db.get("over").unwrap().unwrap(), b"new");
    assert_eq!(snap.get("gone").unwrap().unwrap(), big);
    assert_eq!(snap.get("small").unwrap().unwrap(), b"s1");
    assert_eq!(snap.get("over").unwrap().unwrap(), big);
    let keys: Vec<Vec<u8>> = collect(snap.iter()).into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        keys,
        vec![b"gone".to_vec(), b"over".to_vec(), b"small".to_vec()]
    );
}

#[test]
fn two_snapshots_at_one_sequence_protect_it_until_both_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    db.put("k", vec![1u8; 300]).unwrap();
    let a = db.snapshot();
    let b = db.snapshot();
    assert_eq!(a.sequence(), b.sequence());
    db.put("k", vec![2u8; 300]).unwrap();
    drop(a);
    db.compact_range(None, None).unwrap();
    assert_eq!(b.get("k").unwrap().unwrap(), vec![1u8; 300]);
    assert_eq!(db.get("k").unwrap().unwrap(), vec![2u8; 300]);
}

fn total_entries(s: &Stats) -> u64 {
    s.levels.iter().map(|l| l.entries).sum()
}

const KEYS: u64 = 500;

/// Writes `KEYS` separated values tagged `tag`, then flushes.
fn write_all(db: &Db, tag: u8) {
    for i in 0..KEYS {
        db.put(key(i), vec![tag; 200]).unwrap();
    }
    db.flush().unwrap();
}

#[test]
fn a_live_snapshot_keeps_old_versions_through_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    write_all(&db, 1);
    let snap = db.snapshot();
    write_all(&db, 2);
    let drops_before = db.stats().unwrap().drop_records;
    db.compact_range(None, None).unwrap();
    let s = db.stats().unwrap();
    assert_eq!(
        total_entries(&s),
        2 * KEYS,
        "both versions of every key are kept"
    );
    assert_eq!(
        s.drop_records, drops_before,
        "nothing the snapshot sees is dropped"
    );
    for i in (0..KEYS).step_by(37) {
        assert_eq!(snap.get(key(i)).unwrap().unwrap(), vec![1u8; 200]);
        assert_eq!(db.get(key(i)).unwrap().unwrap(), vec![2u8; 200]);
    }
}

#[test]
fn after_the_snapshot_is_dropped_compaction_reclaims_old_versions() {
    let dir = tempfile::tempdir().unwrap();
    // Background GC off: it could collect the value files whose drops this test reads.
    let opts = small_opts().gc_enabled(false);
    let db = Db::open(dir.path(), opts).unwrap();
    write_all(&db, 1);
    let snap = db.snapshot();
    write_all(&db, 2);
    assert_eq!(total_entries(&db.stats().unwrap()), 2 * KEYS);
    drop(snap);
    let drops_before = db.stats().unwrap().drop_records;
    db.compact_range(None, None).unwrap();
    let s = db.stats().unwrap();
    assert_eq!(total_entries(&s), KEYS, "only the newest versions remain");
    assert_eq!(
        s.drop_records - drops_before,
        KEYS,
        "one drop record per old value"
    );
    let dropped: u64 = s.value_files.iter().map(|f| f.dropped_bytes).sum();
    assert!(dropped > 0);
    for i in (0..KEYS).step_by(37) {
        assert_eq!(db.get(key(i)).unwrap().unwrap(), vec![2u8; 200]);
    }
}

/// The versions a snapshot kept while it lived sit in the bottom level once a manual
/// compaction ran; after the snapshot is dropped, another manual compaction should
/// rewrite them away (compact.rs: "A manual compaction rewrites, so tombstones and old
/// versions go away").
#[test]

fn versions_kept_in_the_bottom_level_are_reclaimed_after_the_snapshot_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    write_all(&db, 1);
    let snap = db.snapshot();
    write_all(&db, 2);
    db.delete(key(0)).unwrap();
    db.compact_range(None, None).unwrap();
    // key 0 keeps its tombstone (newer than the snapshot) and the version the snapshot
    // sees; its second value is shadowed by the tombstone in the same stripe.
    assert_eq!(total_entries(&db.stats().unwrap()), 2 * KEYS);
    assert_eq!(snap.get(key(0)).unwrap().unwrap(), vec![1u8; 200]);
    drop(snap);
    let drops_before = db.stats().unwrap().drop_records;
    db.compact_range(None, None).unwrap();
    let s = db.stats().unwrap();
    assert_eq!(
        total_entries(&s),
        KEYS - 1,
        "old versions and the tombstone should be gone; levels: {:?}",
        s.levels
    );
    assert_eq!(s.drop_records - drops_before, KEYS);
}

#[test]
fn a_snapshot_is_shareable_across_threads_while_writes_go_on() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Snapshot>();

    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..300 {
        db.put(key(i), format!("v0-{i}")).unwrap();
    }
    let snap = db.snapshot();
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            for _ in 0..5 {
                let all = collect(snap.iter());
                assert_eq!(all.len(), 300);
                for (i, (k, v)) in all.iter().enumerate() {
                    assert_eq!(k, &key(i as u64));
                    assert_eq!(v, format!("v0-{i}").as_bytes());
                }
            }
        });
        for round in 1..4 {
            for i in 0..300 {
                if i % 5 == 0 {
                    db.delete(key(i)).unwrap();
                } else {
                    db.put(key(i), vec![round as u8; 100 + i as usize]).unwrap();
                }
            }
            db.flush().unwrap();
        }
        reader.join().unwrap();
    });
    assert_eq!(snap.get(key(5)).unwrap().unwrap(), b"v0-5");
    assert_eq!(db.get(key(5)).unwrap(), None);
}

/// Many snapshots split one key's history into many stripes; flushes and compactions
/// keep exactly the version each live snapshot sees, and drop the rest once snapshots go.
#[test]
fn many_snapshots_each_keep_their_own_version() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    let mut snaps: Vec<(Snapshot, Option<Vec<u8>>)> = Vec::new();
    for i in 0..150u64 {
        let current = if i % 7 == 3 {
            db.delete("k").unwrap();
            None
        } else {
            // Several writes between snapshots: the older ones in a stripe are dropped.
            for j in 0..(i % 3) {
                db.put("k", format!("hidden-{i}-{j}")).unwrap();
            }
            let v = if i % 2 == 0 {
                format!("v{i}").into_bytes()
            } else {
                vec![i as u8; 100 + i as usize]
            };
            db.put("k", &v).unwrap();
            Some(v)
        };
        db.put(key(i), "neighbour").unwrap();
        if i % 4 == 0 {
            snaps.push((db.snapshot(), current));
        }
        if i % 20 == 19 {
            db.flush().unwrap();
        }
    }
    let check = |snaps: &[(Snapshot, Option<Vec<u8>>)], when: &str| {
        for (n, (s, want)) in snaps.iter().enumerate() {
            assert_eq!(&s.get("k").unwrap(), want, "{when}: snapshot {n}");
            let seen: Vec<_> = collect(s.prefix("k"))
                .into_iter()
                .filter(|(k, _)| k == b"k")
                .map(|(_, v)| v)
                .collect();
            assert_eq!(
                seen,
                want.iter().cloned().collect::<Vec<_>>(),
                "{when}: {n}"
            );
        }
    };
    check(&snaps, "before compaction");
    db.compact_range(None, None).unwrap();
    check(&snaps, "after compaction");
    let live_before = total_entries(&db.stats().unwrap());

    // Drop every other snapshot; a newer write to the key makes the next compaction
    // rewrite the table that holds its history.
    let kept: Vec<_> = snaps
        .into_iter()
        .enumerate()
        .filter_map(|(n, s)| (n % 2 == 0).then_some(s))
        .collect();
    db.put("k", "newest").unwrap();
    db.compact_range(None, None).unwrap();
    check(&kept, "after dropping half the snapshots");
    let live_after = total_entries(&db.stats().unwrap());
    assert!(
        live_after < live_before,
        "no versions reclaimed: {live_before} -> {live_after}"
    );
    drop(kept);
    db.put("k", "final").unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get("k").unwrap().unwrap(), b"final");
    // Only the newest version of each key remains.
    assert_eq!(total_entries(&db.stats().unwrap()), 151);
}
