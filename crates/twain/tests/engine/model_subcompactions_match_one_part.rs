//! The same random operations on two databases, one compacting in a single part and one
//! split into up to four key-range parts run in parallel (`max_subcompactions`), give the
//! same reads as each other and as a `BTreeMap` model: at every check, through snapshots
//! taken along the way, after manual compactions of sub-ranges and after reopens.

use crate::dbutil;

use dbutil::{Model, Rng, assert_pairs_eq, model_range, value};
use std::ops::Bound;
use std::path::Path;
use twain::{Db, KvPair, Options, WriteBatch, WriteOptions};

const KEYS: u64 = 400;

fn opts(parts: usize, seed: u64) -> Options {
    Options::default()
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .l1_target_size(32 << 10)
        .target_file_size(8 << 10)
        .block_size(1024)
        .inline_threshold(512)
        .medium_threshold(if seed.is_multiple_of(2) { 24 } else { 512 })
        .l0_compaction_trigger(2)
        .max_subcompactions(parts)
        .gc_mode(if seed % 3 == 2 {
            twain::GcMode::LsmLookup
        } else {
            twain::GcMode::DropRecords
        })
}

fn key(rng: &mut Rng) -> Vec<u8> {
    format!("k{:04}", rng.below(KEYS)).into_bytes()
}

fn scan(db: &Db, lo: &Bound<Vec<u8>>, hi: &Bound<Vec<u8>>) -> Vec<KvPair> {
    db.range((lo.clone(), hi.clone()))
        .map(|r| r.unwrap())
        .collect()
}

fn run(seed: u64, steps: u64, dirs: [&Path; 2]) {
    let mut rng = Rng::new(seed);
    let parts = [1, 4];
    let open = |i: usize| Db::open(dirs[i], opts(parts[i], seed)).unwrap();
    let mut dbs: Vec<Db> = (0..2).map(open).collect();
    let mut model = Model::new();
    let mut version = 0u64;
    let mut snaps: Vec<(Model, [twain::Snapshot; 2])> = Vec::new();
    for step in 0..steps {
        let what = format!("seed {seed} step {step}");
        match rng.below(100) {
            0..=59 => {
                let mut b = WriteBatch::new();
                for _ in 0..1 + rng.below(30) {
                    let k = key(&mut rng);
                    if rng.percent(15) {
                        b.delete(&k);
                        model.remove(&k);
                    } else {
                        version += 1;
                        let v = value(&k, version, rng.next_u64());
                        b.put(&k, &v);
                        model.insert(k, v);
                    }
                }
                for db in &dbs {
                    db.write(b.clone(), &WriteOptions::default()).unwrap();
                }
            }
            60..=64 => dbs.iter().for_each(|db| db.flush().unwrap()),
            65..=67 => {
                let (a, b) = (key(&mut rng), key(&mut rng));
                let (lo, hi) = (a.clone().min(b.clone()), a.max(b));
                for db in &dbs {
                    match step % 3 {
                        0 => db.compact_range(None, None).unwrap(),
                        1 => db.compact_range(Some(&lo), None).unwrap(),
                        _ => db.compact_range(Some(&lo), Some(&hi)).unwrap(),
                    }
                }
            }
            68 => {
                snaps.clear();
                dbs.clear();
                dbs = (0..2).map(open).collect();
            }
            69..=71 => {
                if snaps.len() < 3 {
                    snaps.push((model.clone(), [dbs[0].snapshot(), dbs[1].snapshot()]));
                } else {
                    snaps.remove(rng.below(3) as usize);
                }
            }
            _ => {
                let (a, b) = (key(&mut rng), key(&mut rng));
                let (lo, hi) = (Bound::Included(a.min(b.clone())), Bound::Excluded(b));
                let want = model_range(&model, &lo, &hi);
                for (i, db) in dbs.iter().enumerate() {
                    let label = format!("{what}: {} part(s), range ({lo:?}, {hi:?})", parts[i]);
                    assert_pairs_eq(&scan(db, &lo, &hi), &want, &label);
                }
                for (m, s) in &snaps {
                    let want = model_range(m, &Bound::Unbounded, &Bound::Unbounded);
                    for (i, s) in s.iter().enumerate() {
                        let got: Vec<KvPair> = s.iter().map(|r| r.unwrap()).collect();
                        assert_pairs_eq(
                            &got,
                            &want,
                            &format!("{what}: {} part(s), snapshot", parts[i]),
                        );
                    }
                }
            }
        }
    }
    snaps.clear();
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    for (i, db) in dbs.iter().enumerate() {
        db.compact_range(None, None).unwrap();
        let got = scan(db, &Bound::Unbounded, &Bound::Unbounded);
        assert_pairs_eq(
            &got,
            &all,
            &format!("seed {seed}: {} part(s), final", parts[i]),
        );
    }
    let split = dbs[1].stats().unwrap().totals;
    assert!(
        split.split_compactions > 0 && split.compaction_parts > split.compactions,
        "seed {seed}: no compaction was split: {split:?}"
    );
    assert_eq!(dbs[0].stats().unwrap().totals.split_compactions, 0);
}

/// Three seeds by default; more with `TWAIN_MODEL_SEEDS` and `TWAIN_MODEL_STEPS`.
#[test]
fn split_compactions_read_like_single_part_ones_and_the_model() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    for seed in 0..env("TWAIN_MODEL_SEEDS", 3) {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        run(seed, env("TWAIN_MODEL_STEPS", 300), [a.path(), b.path()]);
    }
}
