//! The hash layout (HashKV) against a `BTreeMap` model: random puts of small and large
//! values, overwrites, deletes, range deletions and snapshots, interleaved with flushes, complete GCs (group
//! GC merges segments, which forwards handles to the groups' main segments), background
//! GC, compactions and reopens, agree with the model at every read: gets, scans both ways,
//! lazy entries, and reads through snapshots. At the end `check` finds the database sound.

use crate::dbutil;
use crate::model_gc_and_compactions_repoint_handles::{key, reads_agree};

use dbutil::{
    Model, Rng, Snapshots, assert_pairs_eq, assert_snapshots_read_back, model_range, pick_snapshot,
    take_or_release_snapshot, value,
};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, KvPair, Options, ValueLayout};

fn opts(fs: &MemFs, background: bool) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .l1_target_size(64 << 10)
        .target_file_size(32 << 10)
        .inline_threshold(64)
        .medium_threshold(64)
        .l0_compaction_trigger(2)
        .gc_enabled(background)
        .value_layout(ValueLayout::Hash)
        .hash_groups(4)
}

fn run(seed: u64, steps: u64, background: bool) {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    let mut db = Db::open(dir, opts(&fs, background)).unwrap();
    let mut rng = Rng::new(seed);
    let mut model = Model::new();
    let mut snaps = Snapshots::new();
    let mut version = 0u64;
    for step in 0..steps {
        let what = format!("seed {seed} step {step}");
        match rng.below(100) {
            // Mostly large values (size classes 4..8 are 64 bytes and up).
            0..=49 => {
                let k = key(&mut rng);
                version += 1;
                let v = value(&k, version, 3 + rng.below(5));
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
            50..=57 => {
                let k = key(&mut rng);
                db.delete(&k).unwrap();
                model.remove(&k);
            }
            58..=59 => {
                let (a, b) = (key(&mut rng), key(&mut rng));
                let (lo, hi) = (a.clone().min(b.clone()), a.max(b));
                db.delete_range(&lo, &hi).unwrap();
                model.retain(|k, _| *k < lo || *k >= hi);
            }
            60..=63 => db.flush().unwrap(),
            64..=67 => {
                db.gc().unwrap();
            }
            68..=70 => {
                let (a, b) = (key(&mut rng), key(&mut rng));
                let (lo, hi) = (a.clone().min(b.clone()), a.max(b));
                db.compact_range(Some(&lo), Some(&hi)).unwrap();
            }
            71 if snaps.is_empty() => {
                db.close().unwrap();
                db = Db::open(dir, opts(&fs, background)).unwrap();
            }
            72..=76 => {
                take_or_release_snapshot(&db, &model, &mut snaps, &mut rng);
            }
            77..=84 => {
                if let Some((i, s, m)) = pick_snapshot(&snaps, &mut rng) {
                    reads_agree(m, &mut rng, &db, Some(s), &format!("{what} snapshot {i}"));
                }
            }
            _ => reads_agree(&model, &mut rng, &db, None, &what),
        }
    }
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_snapshots_read_back(&snaps, &format!("seed {seed}"));
    snaps.clear();
    db.gc().unwrap();
    let stats = db.stats().unwrap();
    let hash = stats
        .hash_layout
        .expect("a hash-layout database reports its figures");
    assert_eq!(hash.groups, 4);
    assert!(stats.totals.gc_runs > 0, "seed {seed}: no group GC ran");
    assert!(
        stats.totals.hash_segment_bytes_written > 0,
        "seed {seed}: no segment written"
    );
    assert_eq!(
        hash.reserved_bytes, 0,
        "seed {seed}: a complete GC empties the pool"
    );
    let got: Vec<KvPair> = db.iter().map(|r| r.unwrap()).collect();
    assert_pairs_eq(&got, &all, &format!("seed {seed}: final"));
    // The GC just merged every group: the tables' handles name merged segments or older
    // epochs of main ones, and the scan found their records by search.
    assert!(
        db.stats().unwrap().scan_svtable_searches > 0,
        "seed {seed}: no handle was forwarded"
    );
    dbutil::reopen_scan_and_check(
        db,
        dir,
        &fs,
        opts(&fs, background),
        &all,
        &format!("seed {seed}"),
    );
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Three seeds by default; more with `TWAIN_MODEL_SEEDS` and `TWAIN_MODEL_STEPS`.
#[test]
fn hash_layout_agrees_with_the_model() {
    let (seeds, steps) = (env("TWAIN_MODEL_SEEDS", 3), env("TWAIN_MODEL_STEPS", 500));
    for seed in 0..seeds {
        run(seed, steps, false);
    }
}

/// The same with the background's group GC running beside the operations.
#[test]
fn hash_layout_with_background_gc_agrees_with_the_model() {
    let (seeds, steps) = (env("TWAIN_MODEL_SEEDS", 3), env("TWAIN_MODEL_STEPS", 500));
    for seed in 100..100 + seeds {
        run(seed, steps, true);
    }
}
