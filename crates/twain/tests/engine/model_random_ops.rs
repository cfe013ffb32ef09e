//! Random sequences of every public operation (puts of sizes crossing every placement
//! threshold, deletes, batches,
//! flushes, manual compactions of sub-ranges, reopens, snapshots) agree with a
//! `BTreeMap` model at every check: point reads, ranges forward, backward and from both
//! ends, prefixes, and reads through live snapshots.

use crate::dbutil;

use dbutil::{
    Model, Rng, Snapshots, assert_pairs_eq, assert_snapshots_read_back, model_prefix, model_range,
    pick_snapshot, take_or_release_snapshot, value,
};
use std::ops::Bound;
use std::path::Path;
use twain::{Db, KvPair, Options, Snapshot, WriteBatch, WriteOptions};

const KEYS: u64 = 300;

/// The value sizes (0 to 3000 bytes) cross every placement threshold, and a key's class
/// changes from write to write: placement `0 mod 3` has three classes merged at the last
/// level, `1 mod 3` three classes merged from L1 on, `2 mod 3` two classes (no medium), and
/// `3..6` moves the thresholds (every reopen picks one at random, so compactions re-place
/// what was written under other ones). Seeds 1 and 2 modulo 3 run value GC in lsm-lookup and vlog mode.
/// Even seeds count every value read as slow, so the prefetch pool's threads read the
/// scans' windows; odd seeds keep the default, where the cursor reads them itself.
fn opts(seed: u64, placement: u64) -> Options {
    let (medium_threshold, medium_merge_level) = match placement % 3 {
        0 => (24, 0),
        1 => (24, 1),
        _ => (512, 0),
    };
    let inline_threshold = if placement >= 3 { 128 } else { 512 };
    let defaults = Options::default();
    let min_read_micros = match seed % 2 {
        0 => 0,
        _ => defaults.prefetch_min_read_micros,
    };
    defaults
        .prefetch_min_read_micros(min_read_micros)
        .gc_mode(match seed % 3 {
            1 => twain::GcMode::LsmLookup,
            2 => twain::GcMode::Vlog,
            _ => twain::GcMode::DropRecords,
        })
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .l1_target_size(32 << 10)
        .target_file_size(64 << 10)
        .medium_threshold(medium_threshold)
        .medium_merge_level(medium_merge_level)
        .inline_threshold(inline_threshold)
        .l0_compaction_trigger(2)
        // Even seeds split compactions into up to three parts merged at once.
        .max_subcompactions(if seed.is_multiple_of(2) { 3 } else { 1 })
        // Odd seeds keep the old shape: static levels, tables picked round-robin.
        .level_sizing(match seed % 2 {
            1 => twain::LevelSizing::Static,
            _ => twain::LevelSizing::Dynamic,
        })
        .compaction_priority(match seed % 2 {
            1 => twain::CompactionPriority::RoundRobin,
            _ => twain::CompactionPriority::MinOverlap,
        })
}

/// Keys from a small space, so that operations collide; a few have awkward bytes.
fn random_key(rng: &mut Rng) -> Vec<u8> {
    match rng.below(20) {
        0 => Vec::new(),
        1 => vec![0xff; 1 + rng.below(3) as usize],
        2 => vec![b'k', 0xff],
        _ => format!("k{:03}", rng.below(KEYS)).into_bytes(),
    }
}

fn random_bound(rng: &mut Rng) -> Bound<Vec<u8>> {
    match rng.below(5) {
        0 => Bound::Unbounded,
        1 | 2 => Bound::Included(random_key(rng)),
        _ => Bound::Excluded(random_key(rng)),
    }
}

fn drain_mixed(it: twain::DbIterator, rng: &mut Rng) -> Vec<KvPair> {
    let mut it = it;
    let (mut front, mut back) = (Vec::new(), Vec::new());
    let bias = rng.below(101);
    loop {
        let from_front = rng.percent(bias);
        let item = if from_front {
            it.next()
        } else {
            it.next_back()
        };
        let Some(kv) = item else { break };
        let kv = kv.unwrap();
        if from_front {
            front.push(kv);
        } else {
            back.push(kv);
        }
    }
    assert!(it.next().is_none() && it.next_back().is_none());
    front.extend(back.into_iter().rev());
    front
}

/// Compares every kind of read (through `get`, `range` and `prefix` of the database or of
/// a snapshot) with `model`.
fn check(
    model: &Model,
    rng: &mut Rng,
    get: &dyn Fn(&[u8]) -> Option<Vec<u8>>,
    range: &dyn Fn(Bound<Vec<u8>>, Bound<Vec<u8>>) -> twain::DbIterator,
    prefix: &dyn Fn(&[u8]) -> twain::DbIterator,
    what: &str,
) {
    for _ in 0..10 {
        let k = random_key(rng);
        assert_eq!(get(&k), model.get(&k).cloned(), "{what}: get {k:?}");
    }
    let (lo, hi) = (random_bound(rng), random_bound(rng));
    let want = model_range(model, &lo, &hi);
    let label = format!("{what}: range ({lo:?}, {hi:?})");
    match rng.below(3) {
        0 => {
            let got: Vec<KvPair> = range(lo, hi).map(|r| r.unwrap()).collect();
            assert_pairs_eq(&got, &want, &label);
        }
        1 => {
            let mut got: Vec<KvPair> = range(lo, hi).rev().map(|r| r.unwrap()).collect();
            got.reverse();
            assert_pairs_eq(&got, &want, &label);
        }
        _ => assert_pairs_eq(&drain_mixed(range(lo, hi), rng), &want, &label),
    }
    let p = random_key(rng);
    let p = &p[..p.len().min(rng.below(4) as usize)];
    let got: Vec<KvPair> = prefix(p).map(|r| r.unwrap()).collect();
    assert_pairs_eq(
        &got,
        &model_prefix(model, p),
        &format!("{what}: prefix {p:?}"),
    );
}

fn check_db(db: &Db, model: &Model, rng: &mut Rng, what: &str) {
    check(
        model,
        rng,
        &|k| db.get(k).unwrap(),
        &|lo, hi| db.range((lo, hi)),
        &|p| db.prefix(p),
        what,
    );
}

fn check_snapshot(s: &Snapshot, model: &Model, rng: &mut Rng, what: &str) {
    check(
        model,
        rng,
        &|k| s.get(k).unwrap(),
        &|lo, hi| s.range((lo, hi)),
        &|p| s.prefix(p),
        what,
    );
}

fn run(seed: u64, steps: u64, dir: &Path) {
    let mut rng = Rng::new(seed);
    let mut placement = seed % 3;
    let mut db = Db::open(dir, opts(seed, placement)).unwrap();
    let mut model = Model::new();
    let mut snaps = Snapshots::new();
    let mut version = 0u64;
    for step in 0..steps {
        let what = format!("seed {seed} step {step}");
        match rng.below(100) {
            0..=44 => {
                let k = random_key(&mut rng);
                version += 1;
                let v = value(&k, version, rng.next_u64());
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
            45..=59 => {
                let k = random_key(&mut rng);
                db.delete(&k).unwrap();
                model.remove(&k);
            }
            60..=69 => {
                let mut b = WriteBatch::new();
                for _ in 0..1 + rng.below(20) {
                    let k = random_key(&mut rng);
                    if rng.percent(25) {
                        b.delete(&k);
                        model.remove(&k);
                    } else {
                        version += 1;
                        let v = value(&k, version, rng.next_u64());
                        b.put(&k, &v);
                        model.insert(k, v);
                    }
                }
                let sync = WriteOptions::default().sync(rng.percent(10));
                db.write(b, &sync).unwrap();
            }
            70..=73 => db.flush().unwrap(),
            74..=75 => {
                let (a, b) = (random_key(&mut rng), random_key(&mut rng));
                match rng.below(4) {
                    0 => db.compact_range(None, None).unwrap(),
                    1 => db.compact_range(Some(&a), None).unwrap(),
                    2 => db.compact_range(None, Some(&b)).unwrap(),
                    _ => db
                        .compact_range(Some(&a.clone().min(b.clone())), Some(&a.max(b)))
                        .unwrap(),
                }
            }
            76 => {
                // Snapshots do not survive a reopen.
                snaps.clear();
                drop(db);
                placement = rng.below(6);
                db = Db::open(dir, opts(seed, placement)).unwrap();
            }
            77..=79 => {
                take_or_release_snapshot(&db, &model, &mut snaps, &mut rng);
            }
            80..=84 => {
                if let Some((i, s, m)) = pick_snapshot(&snaps, &mut rng) {
                    check_snapshot(s, m, &mut rng, &format!("{what} snapshot {i}"));
                }
            }
            _ => check_db(&db, &model, &mut rng, &what),
        }
    }
    // A full comparison at the end, then after a reopen.
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    let got: Vec<KvPair> = db.iter().map(|r| r.unwrap()).collect();
    assert_pairs_eq(&got, &all, &format!("seed {seed}: final"));
    assert_snapshots_read_back(&snaps, &format!("seed {seed}"));
    snaps.clear();
    drop(db);
    let db = Db::open(dir, opts(seed, placement)).unwrap();
    let got: Vec<KvPair> = db.iter().map(|r| r.unwrap()).collect();
    assert_pairs_eq(&got, &all, &format!("seed {seed}: final after reopen"));
    // The placement paths ran: transient files written, medium values merged in place.
    let t = db.stats().unwrap().totals;
    if seed.is_multiple_of(3) && steps >= 200 {
        assert!(t.medium_bytes_written > 0, "seed {seed}: {t:?}");
        assert!(t.transient_bytes_written > 0, "seed {seed}: {t:?}");
        assert!(t.medium_bytes_merged > 0, "seed {seed}: {t:?}");
    }
}

/// Three short seeds by default; longer runs with `TWAIN_MODEL_SEEDS`,
/// `TWAIN_MODEL_STEPS` and `TWAIN_MODEL_SEED_BASE`.
#[test]
fn random_operations_agree_with_the_model() {
    let seeds: u64 = std::env::var("TWAIN_MODEL_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let steps: u64 = std::env::var("TWAIN_MODEL_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(250);
    let base: u64 = std::env::var("TWAIN_MODEL_SEED_BASE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    for seed in base..base + seeds {
        let dir = tempfile::tempdir().unwrap();
        run(seed, steps, dir.path());
    }
}
