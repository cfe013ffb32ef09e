//! Random puts, overwrites, deletes and snapshots, interleaved with value GC rounds (which
//! make handles stale) and compactions (which re-point them), agree with a `BTreeMap`
//! model at every read: gets, scans forward and backward, lazy entries, and reads through
//! snapshots. After a full manual compaction (GC idle) a scan meets no stale handle, and
//! at the end `check` finds the database sound.

use crate::dbutil;

use dbutil::{
    Model, Rng, Snapshots, assert_pairs_eq, assert_snapshots_read_back, model_range, pick_snapshot,
    take_or_release_snapshot, value,
};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, KvPair, Options, Snapshot};

pub(crate) const KEYS: u64 = 200;

fn opts(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .l1_target_size(64 << 10)
        .target_file_size(32 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .gc_enabled(false)
        .gc_mode(GcMode::DropRecords)
        .gc_threshold(1.0)
}

pub(crate) fn key(rng: &mut Rng) -> Vec<u8> {
    format!("k{:03}", rng.below(KEYS)).into_bytes()
}

fn bounds(rng: &mut Rng) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let (a, b) = (key(rng), key(rng));
    let (lo, hi) = (a.clone().min(b.clone()), a.max(b));
    match rng.below(3) {
        0 => (Bound::Unbounded, Bound::Unbounded),
        1 => (Bound::Included(lo), Bound::Excluded(hi)),
        _ => (Bound::Excluded(lo), Bound::Included(hi)),
    }
}

/// Gets, a scan in one direction or through lazy entries, against `model` (also used by
/// `hash_layout_model`).
pub(crate) fn reads_agree(
    model: &Model,
    rng: &mut Rng,
    db: &Db,
    snap: Option<&Snapshot>,
    what: &str,
) {
    for _ in 0..8 {
        let k = key(rng);
        let got = match snap {
            Some(s) => s.get(&k).unwrap(),
            None => db.get(&k).unwrap(),
        };
        assert_eq!(got, model.get(&k).cloned(), "{what}: get {k:?}");
    }
    let (lo, hi) = bounds(rng);
    let want = model_range(model, &lo, &hi);
    let range = (lo.clone(), hi.clone());
    let label = format!("{what}: range ({lo:?}, {hi:?})");
    let got: Vec<KvPair> = match (rng.below(3), snap) {
        (0, Some(s)) => s.range(range).map(|r| r.unwrap()).collect(),
        (0, None) => db.range(range).map(|r| r.unwrap()).collect(),
        (1, Some(s)) => {
            let mut v: Vec<KvPair> = s.range(range).rev().map(|r| r.unwrap()).collect();
            v.reverse();
            v
        }
        (1, None) => {
            let mut v: Vec<KvPair> = db.range(range).rev().map(|r| r.unwrap()).collect();
            v.reverse();
            v
        }
        (_, Some(s)) => s.range(range).map(|r| r.unwrap()).collect(),
        (_, None) => db
            .entries(range)
            .map(|e| {
                let e = e.unwrap();
                (e.key().to_vec(), e.value().unwrap())
            })
            .collect(),
    };
    assert_pairs_eq(&got, &want, &label);
}

fn run(seed: u64, steps: u64) {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    let db = Db::open(dir, opts(&fs)).unwrap();
    let mut rng = Rng::new(seed);
    let mut model = Model::new();
    let mut snaps = Snapshots::new();
    let mut version = 0u64;
    for step in 0..steps {
        let what = format!("seed {seed} step {step}");
        match rng.below(100) {
            // Mostly separated values (size classes 4..8 are 64 bytes and up).
            0..=49 => {
                let k = key(&mut rng);
                version += 1;
                let v = value(&k, version, 3 + rng.below(5));
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
            50..=59 => {
                let k = key(&mut rng);
                db.delete(&k).unwrap();
                model.remove(&k);
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
            71 => {
                // GC is idle: the full merge re-points every stale handle it keeps, so a
                // scan then meets none.
                db.compact_range(None, None).unwrap();
                let before = db.stats().unwrap();
                let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
                let got: Vec<KvPair> = db.iter().map(|r| r.unwrap()).collect();
                assert_pairs_eq(&got, &all, &format!("{what}: scan after full compaction"));
                let after = db.stats().unwrap();
                assert_eq!(
                    after.scan_svtable_searches, before.scan_svtable_searches,
                    "{what}: a stale handle survived a full compaction"
                );
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
    let t = db.stats().unwrap().totals;
    assert!(t.gc_runs > 0, "seed {seed}: no GC ran: {t:?}");
    assert!(
        t.compaction_handle_refreshes > 0,
        "seed {seed}: no handle re-pointed: {t:?}"
    );
    dbutil::reopen_scan_and_check(db, dir, &fs, opts(&fs), &all, &format!("seed {seed}"));
}

/// Three seeds by default; more with `TWAIN_MODEL_SEEDS` and `TWAIN_MODEL_STEPS`.
#[test]
fn gc_rounds_and_compactions_agree_with_the_model() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (seeds, steps) = (env("TWAIN_MODEL_SEEDS", 3), env("TWAIN_MODEL_STEPS", 400));
    for seed in 0..seeds {
        run(seed, steps);
    }
}
