//! Refresh compactions running in the background (background GC on) among random puts,
//! overwrites, deletes, flushes, value GC rounds and range compactions agree with a
//! `BTreeMap` model at every read, and after a reopen; `check` finds the database sound.
//! Settling steps give the background the quiet it refreshes in. Whether the random part
//! leaves a table worth refreshing depends on when background GC ran, so each seed ends
//! with a round that does for certain (background GC off while it is made): there at least
//! one refresh compaction must run.

use crate::dbutil;
use crate::model_gc_and_compactions_repoint_handles::{KEYS, key, reads_agree};

use dbutil::{Model, Rng, assert_pairs_eq, model_range, value};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, KvPair, Options};

fn opts(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .l1_target_size(64 << 10)
        .target_file_size(32 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .gc_enabled(true)
        .gc_mode(GcMode::DropRecords)
        .gc_threshold(0.9)
}

/// Lets the background settle: a fresh live-data pass, then up to `limit` for a refresh
/// compaction to run, or for no table to be worth one any more.
fn settle(db: &Db, limit: Duration) {
    db.refresh_live_bytes().unwrap();
    let before = db.stats().unwrap().refresh_compactions;
    let start = Instant::now();
    while start.elapsed() < limit {
        let s = db.stats().unwrap();
        if s.refresh_compactions > before || s.stale_handles == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run(seed: u64, steps: u64) {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    let db = Db::open(dir, opts(&fs)).unwrap();
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut model = Model::new();
    let mut version = 0u64;
    for step in 0..steps {
        let what = format!("seed {seed} step {step}");
        match rng.below(100) {
            0..=54 => {
                let k = key(&mut rng);
                version += 1;
                let v = value(&k, version, 3 + rng.below(5));
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
            55..=62 => {
                let k = key(&mut rng);
                db.delete(&k).unwrap();
                model.remove(&k);
            }
            63..=66 => db.flush().unwrap(),
            67..=69 => {
                db.gc().unwrap();
            }
            70..=71 => {
                let (a, b) = (key(&mut rng), key(&mut rng));
                let (lo, hi) = (a.clone().min(b.clone()), a.max(b));
                db.compact_range(Some(&lo), Some(&hi)).unwrap();
            }
            72..=73 => {
                // Everything to the bottom, GC rewrites the files its handles name: cold
                // tables full of stale handles, which only a refresh compaction reaches.
                db.compact_range(None, None).unwrap();
                db.gc().unwrap();
                settle(&db, Duration::from_secs(3));
                reads_agree(&model, &mut rng, &db, None, &format!("{what} settled"));
            }
            _ => reads_agree(&model, &mut rng, &db, None, &what),
        }
    }
    db.close().unwrap();

    // Cold tables full of stale handles, for certain: background GC off, everything in the
    // bottom level, a third of the keys overwritten with separated values and compacted
    // down, then a complete GC rewrites the files the other two thirds point into.
    let db = Db::open(dir, opts(&fs).gc_enabled(false)).unwrap();
    db.compact_range(None, None).unwrap();
    for i in (0..KEYS).step_by(3) {
        let k = format!("k{i:03}").into_bytes();
        version += 1;
        let v = value(&k, version, 6);
        db.put(&k, &v).unwrap();
        model.insert(k, v);
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
    db.refresh_live_bytes().unwrap();
    let made = db.stats().unwrap();
    assert!(made.stale_handles > 0, "seed {seed}: {}", made.to_text());
    db.close().unwrap();
    let db = Db::open(dir, opts(&fs)).unwrap();
    settle(&db, Duration::from_secs(30));
    reads_agree(
        &model,
        &mut rng,
        &db,
        None,
        &format!("seed {seed} refreshed"),
    );
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    let got: Vec<KvPair> = db.iter().map(|r| r.unwrap()).collect();
    assert_pairs_eq(&got, &all, &format!("seed {seed}: final"));
    let s = db.stats().unwrap();
    assert!(
        s.refresh_compactions > 0,
        "seed {seed}: no refresh compaction ran: {}",
        s.to_text()
    );
    dbutil::reopen_scan_and_check(db, dir, &fs, opts(&fs), &all, &format!("seed {seed}"));
}

/// Two seeds by default; more with `TWAIN_MODEL_SEEDS` and `TWAIN_MODEL_STEPS`.
#[test]
fn background_refreshes_agree_with_the_model() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (seeds, steps) = (env("TWAIN_MODEL_SEEDS", 2), env("TWAIN_MODEL_STEPS", 300));
    for seed in 0..seeds {
        run(seed, steps);
    }
}
