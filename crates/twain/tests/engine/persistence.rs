//! Acknowledged writes survive closing and reopening: with and without a flush, with
//! deletes, with data spread over many value files, across several reopen cycles, and
//! with new writes after a reopen still shadowing older data.

use crate::dbutil;

use dbutil::{Model, Rng, assert_pairs_eq, collect, key, model_range, small_opts, value};
use std::ops::Bound;
use std::path::Path;
use twain::{Db, Options, WriteBatch, WriteOptions};

fn tiny_files() -> Options {
    small_opts().value_file_size(64 << 10)
}

fn check_all(db: &Db, model: &Model, when: &str) {
    let all = model_range(model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(db.iter()), &all, when);
}

/// Random puts, deletes and batches over `keys` keys.
fn random_writes(db: &Db, model: &mut Model, rng: &mut Rng, ops: u64, keys: u64, tag: u64) {
    for n in 0..ops {
        let k = key(rng.below(keys));
        match rng.below(10) {
            0 | 1 => {
                db.delete(&k).unwrap();
                model.remove(&k);
            }
            2 => {
                let k2 = key(rng.below(keys));
                let v = value(&k, tag * 1_000_000 + n, rng.next_u64());
                let mut b = WriteBatch::new();
                b.put(&k, &v).delete(&k2);
                db.write(b, &WriteOptions::default()).unwrap();
                model.insert(k.clone(), v);
                model.remove(&k2);
            }
            _ => {
                let v = value(&k, tag * 1_000_000 + n, rng.next_u64());
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
        }
    }
}

fn open(dir: &Path, opts: &Options) -> Db {
    Db::open(dir, opts.clone()).unwrap()
}

#[test]
fn unflushed_writes_and_deletes_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    let mut model = Model::new();
    {
        let db = open(dir.path(), &opts);
        random_writes(&db, &mut model, &mut Rng::new(1), 300, 200, 1);
        assert_eq!(
            db.stats().unwrap().flushes,
            0,
            "nothing should have been flushed"
        );
        // Dropped without flush or sync.
    }
    let db = open(dir.path(), &opts);
    check_all(&db, &model, "after reopen");
    for i in 0..200 {
        assert_eq!(
            db.get(key(i)).unwrap(),
            model.get(&key(i)).cloned(),
            "key {i}"
        );
    }
    db.close().unwrap();
    check_all(&open(dir.path(), &opts), &model, "after close and reopen");
}

#[test]
fn flushed_and_compacted_data_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    let mut model = Model::new();
    let mut rng = Rng::new(2);
    {
        let db = open(dir.path(), &opts);
        random_writes(&db, &mut model, &mut rng, 2000, 800, 1);
        db.compact_range(None, None).unwrap();
        random_writes(&db, &mut model, &mut rng, 1000, 800, 2);
        db.flush().unwrap();
        random_writes(&db, &mut model, &mut rng, 300, 800, 3);
        let s = db.stats().unwrap();
        // Tables (L0 or deeper: a background compaction may have moved the flushed one
        // down already, as CI saw on a loaded machine) and a memtable to replay.
        let tables: u64 = s.levels.iter().map(|l| l.files as u64).sum();
        assert!(tables > 0 && s.memtable_entries > 0, "{tables} tables");
    }
    let db = open(dir.path(), &opts);
    check_all(&db, &model, "after reopen");
    db.compact_range(None, None).unwrap();
    drop(db);
    check_all(
        &open(dir.path(), &opts),
        &model,
        "after compaction and reopen",
    );
}

#[test]
fn many_reopen_cycles_over_many_value_files() {
    let dir = tempfile::tempdir().unwrap();
    let opts = tiny_files();
    let mut model = Model::new();
    let mut rng = Rng::new(3);
    let mut max_files = 0;
    for cycle in 0..8u64 {
        let db = open(dir.path(), &opts);
        check_all(&db, &model, &format!("start of cycle {cycle}"));
        random_writes(&db, &mut model, &mut rng, 400, 500, cycle + 1);
        match cycle % 4 {
            0 => {}
            1 => db.flush().unwrap(),
            2 => db.compact_range(None, None).unwrap(),
            _ => db.sync().unwrap(),
        }
        random_writes(&db, &mut model, &mut rng, 100, 500, cycle + 100);
        max_files = max_files.max(db.stats().unwrap().value_files.len());
        check_all(&db, &model, &format!("end of cycle {cycle}"));
        if cycle % 2 == 0 {
            db.close().unwrap();
        }
    }
    assert!(max_files >= 4, "only {max_files} value files");
    let db = open(dir.path(), &opts);
    check_all(&db, &model, "after the last cycle");
    for i in 0..500 {
        assert_eq!(db.get(key(i)).unwrap(), model.get(&key(i)).cloned());
    }
}

#[test]
fn a_log_longer_than_several_memtables_replays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let opts = tiny_files();
    let mut model = Model::new();
    {
        let db = open(dir.path(), &opts);
        // Enough to fill several memtables; dropped at once, so frozen memtables may
        // still be waiting for the flush thread.
        random_writes(&db, &mut model, &mut Rng::new(4), 6000, 3000, 1);
    }
    let db = open(dir.path(), &opts);
    check_all(&db, &model, "after reopen");
    drop(db);
    // A second reopen replays from whatever the first one flushed.
    let db = open(dir.path(), &opts);
    check_all(&db, &model, "after a second reopen");
}

/// New writes after a reopen get sequence numbers above everything already stored, so
/// they shadow older versions in every level, including after compaction.
#[test]
fn writes_after_reopen_shadow_older_data() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    {
        let db = open(dir.path(), &opts);
        db.put("a", "old").unwrap();
        db.put("b", vec![1u8; 500]).unwrap();
        db.put("c", "old").unwrap();
        db.compact_range(None, None).unwrap();
    }
    // A reopen with nothing to replay, then one with nothing written at all.
    drop(open(dir.path(), &opts));
    {
        let db = open(dir.path(), &opts);
        db.put("a", "new").unwrap();
        db.delete("b").unwrap();
    }
    {
        let db = open(dir.path(), &opts);
        assert_eq!(db.get("a").unwrap().unwrap(), b"new");
        assert_eq!(db.get("b").unwrap(), None);
        db.compact_range(None, None).unwrap();
        assert_eq!(db.get("a").unwrap().unwrap(), b"new");
        assert_eq!(db.get("b").unwrap(), None);
        db.put("c", vec![2u8; 500]).unwrap();
        db.flush().unwrap();
    }
    let db = open(dir.path(), &opts);
    db.compact_range(None, None).unwrap();
    assert_eq!(
        collect(db.iter()),
        vec![
            (b"a".to_vec(), b"new".to_vec()),
            (b"c".to_vec(), vec![2u8; 500])
        ]
    );
}

#[test]
fn synced_writes_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    {
        let db = open(dir.path(), &opts);
        for i in 0..50 {
            db.put_opt(key(i), vec![i as u8; 100], &WriteOptions::synced())
                .unwrap();
        }
        db.delete_opt(key(7), &WriteOptions::synced()).unwrap();
        let s = db.stats().unwrap();
        assert_eq!(s.synced_groups, s.write_groups);
    }
    let db = open(dir.path(), &opts);
    let all = collect(db.iter());
    assert_eq!(all.len(), 49);
    assert!(all.iter().all(|(k, v)| k != &key(7) && v.len() == 100));
}
