//! An iterator sees the database as it was when the iterator was created, however the
//! database changes while it lives (writes, deletes, memtable switches, flushes,
//! compactions), and the files it reads stay readable until it is dropped; reads created
//! later see the new data.

use crate::dbutil;

use dbutil::{
    BACKGROUND_DEADLINE, Model, Rng, assert_layered, assert_pairs_eq, collect, key, layered_db,
    model_prefix, model_range, small_opts, value, wait_until,
};
use std::collections::BTreeSet;
use std::ops::Bound;
use std::path::Path;
use twain::{Db, KvPair};

const N: u64 = 1500;

/// Rewrites most of the database: overwrites, deletes, new keys, several memtable
/// switches, a flush and a full compaction.
fn churn(db: &Db, model: &mut Model, rng: &mut Rng) {
    for round in 0..3u64 {
        for i in (round..N + 300).step_by(2) {
            let k = key(i);
            if rng.percent(30) {
                db.delete(&k).unwrap();
                model.remove(&k);
            } else {
                let v = value(&k, 1_000_000 + round * N + i, rng.next_u64());
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
        }
        db.flush().unwrap();
    }
    db.delete(b"").unwrap();
    model.remove(&b""[..]);
    db.compact_range(None, None).unwrap();
    for i in 0..50 {
        let k = key(i * 3);
        let v = value(&k, 2_000_000 + i, rng.next_u64());
        db.put(&k, &v).unwrap();
        model.insert(k, v);
    }
}

fn sst_files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".sst"))
        .collect()
}

#[test]
fn iterators_keep_their_view_through_writes_flushes_and_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 31);
    assert_layered(&db);
    let before = model.clone();
    let (lo, hi) = (key(200), key(1200));

    let mut full = db.iter();
    let mut reverse = db.iter();
    let ranged = db.range(lo.clone()..hi.clone());
    let prefixed = db.prefix(b"k01");
    let mut both_ends = db.iter();
    // Consume a little of some before the churn.
    let full_head: Vec<KvPair> = full.by_ref().take(25).map(|r| r.unwrap()).collect();
    let rev_head: Vec<KvPair> = reverse
        .by_ref()
        .rev()
        .take(25)
        .map(|r| r.unwrap())
        .collect();
    let both_head = both_ends.next().unwrap().unwrap();
    let both_tail = both_ends.next_back().unwrap().unwrap();
    // An iterator that has not been advanced at all is already pinned too.
    let untouched = db.range(lo.clone()..=hi.clone());

    let mut model = model;
    churn(&db, &mut model, &mut Rng::new(32));
    assert_ne!(model, before, "the churn changed nothing");

    let all_before = model_range(&before, &Bound::Unbounded, &Bound::Unbounded);

    let mut got = full_head;
    got.extend(collect(full));
    assert_pairs_eq(&got, &all_before, "forward iterator across the churn");

    let mut got = rev_head;
    got.extend(reverse.rev().map(|r| r.unwrap()));
    got.reverse();
    assert_pairs_eq(&got, &all_before, "reverse iterator across the churn");

    assert_pairs_eq(
        &collect(ranged),
        &model_range(
            &before,
            &Bound::Included(lo.clone()),
            &Bound::Excluded(hi.clone()),
        ),
        "range iterator across the churn",
    );
    assert_pairs_eq(
        &collect(prefixed),
        &model_prefix(&before, b"k01"),
        "prefix iterator across the churn",
    );
    let mut got = vec![both_head];
    got.extend(collect(both_ends));
    got.push(both_tail);
    assert_pairs_eq(&got, &all_before, "two-ended iterator across the churn");
    assert_pairs_eq(
        &collect(untouched),
        &model_range(
            &before,
            &Bound::Included(lo.clone()),
            &Bound::Included(hi.clone()),
        ),
        "unadvanced iterator across the churn",
    );

    // New reads see the new state.
    assert_pairs_eq(
        &collect(db.iter()),
        &model_range(&model, &Bound::Unbounded, &Bound::Unbounded),
        "a new iterator",
    );
    for k in [key(0), key(3), key(201), key(N + 100), b"".to_vec()] {
        assert_eq!(db.get(&k).unwrap(), model.get(&k).cloned(), "get {k:?}");
    }
}

#[test]
fn obsolete_tables_stay_readable_until_the_last_iterator_lets_go() {
    let dir = tempfile::tempdir().unwrap();
    // No automatic compaction (garbage compactions run with background GC): the tables on
    // disk are exactly those of the version the iterators pin.
    let opts = small_opts().l0_compaction_trigger(20).gc_enabled(false);
    let db = Db::open(dir.path(), opts).unwrap();
    let mut rng = Rng::new(33);
    let mut model = Model::new();
    for round in 0..3u64 {
        for i in 0..800 {
            let k = key(i);
            let v = value(&k, round, rng.next_u64());
            db.put(&k, &v).unwrap();
            model.insert(k, v);
        }
        db.flush().unwrap();
    }
    let pinned_model = model.clone();
    let old_tables = sst_files(dir.path());
    let in_version: usize = db.stats().unwrap().levels.iter().map(|l| l.files).sum();
    assert!(old_tables.len() >= 3 && old_tables.len() == in_version);

    let it = db.iter();
    let mut half = db.iter();
    let first: Vec<KvPair> = half.by_ref().take(400).map(|r| r.unwrap()).collect();

    for i in 0..800 {
        let k = key(i);
        db.delete(&k).unwrap();
        model.remove(&k);
    }
    db.compact_range(None, None).unwrap();
    assert!(collect(db.iter()).is_empty(), "everything was deleted");
    // The old tables were compacted away but are still on disk for the iterators.
    let now = sst_files(dir.path());
    assert!(
        old_tables.is_subset(&now),
        "pinned tables were deleted: before {old_tables:?}, now {now:?}"
    );

    let want = model_range(&pinned_model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(it), &want, "pinned iterator");
    let mut got = first;
    got.extend(collect(half));
    assert_pairs_eq(&got, &want, "half-consumed pinned iterator");

    // Both iterators are gone: the obsolete tables are removed, only live ones remain,
    // once the background's readers of the old version let go too (the live-data pass
    // holds a version while it walks the keys).
    wait_until(BACKGROUND_DEADLINE, || {
        old_tables.is_disjoint(&sst_files(dir.path()))
    });
    let live: usize = db.stats().unwrap().levels.iter().map(|l| l.files).sum();
    let now = sst_files(dir.path());
    assert!(
        old_tables.is_disjoint(&now),
        "obsolete tables left behind: {:?}",
        old_tables.intersection(&now).collect::<Vec<_>>()
    );
    assert_eq!(now.len(), live, "tables on disk vs tables in the version");
}

#[test]
fn an_iterator_outlives_its_db_handle() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), 400, 34);
    let it = db.iter();
    let rev = db.range(key(100)..key(300));
    drop(db);
    let want = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(it), &want, "iterator after the Db was dropped");
    let mut back: Vec<KvPair> = rev.rev().map(|r| r.unwrap()).collect();
    back.reverse();
    assert_pairs_eq(
        &back,
        &model_range(
            &model,
            &Bound::Included(key(100)),
            &Bound::Excluded(key(300)),
        ),
        "reverse iterator after the Db was dropped",
    );
    // With the iterators gone, the database reopens with the same contents.
    let db = Db::open(dir.path(), dbutil::layered_opts()).unwrap();
    assert_pairs_eq(&collect(db.iter()), &want, "after reopen");
}
