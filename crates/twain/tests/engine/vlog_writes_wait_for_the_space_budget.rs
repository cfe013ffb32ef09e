//! vlog GC mode holds its space budget as HashKV's vLog holds its fixed size: once the
//! space amplification passes `space_amp_target` while GC collects the log's tail, writes
//! wait for it (`stalls_space`), so overwrites do not grow the disk without bound; every
//! value reads back. A budget GC cannot reach (live data smaller than the log's files)
//! holds writes no longer than a round: the writes all complete. Without background GC
//! nothing waits.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, Options};

fn opts(fs: &MemFs, gc: bool) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(128 << 10)
        .inline_threshold(64)
        .gc_mode(GcMode::Vlog)
        .gc_enabled(gc)
        .space_amp_target(1.3)
}

fn value(key: u32, round: u32) -> Vec<u8> {
    let mut v = format!("k{key:05}r{round:03}").into_bytes();
    v.resize(1000, b'.');
    v
}

/// Overwrites `keys` keys `rounds` times; returns the model and the highest disk bytes /
/// live bytes seen after a round.
fn overwrite(db: &Db, fs: &MemFs, keys: u32, rounds: u32) -> (BTreeMap<Vec<u8>, Vec<u8>>, f64) {
    let mut model = BTreeMap::new();
    let mut worst: f64 = 0.0;
    for round in 0..rounds {
        for key in 0..keys {
            let k = format!("k{key:05}").into_bytes();
            db.put(&k, value(key, round)).unwrap();
            model.insert(k, value(key, round));
        }
        let live: usize = model.iter().map(|(k, v)| k.len() + v.len()).sum();
        worst = worst.max(fs.total_bytes() as f64 / live as f64);
    }
    (model, worst)
}

fn check(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_deref(), Some(&v[..]));
    }
}

#[test]
fn overwrites_wait_for_the_tail_to_be_collected() {
    let fs = MemFs::new();
    let db = Db::open(Path::new("/db"), opts(&fs, true)).unwrap();
    // 2 MB live, 12 rounds: 24 MB of overwrites through 128 KiB files.
    let (model, worst) = overwrite(&db, &fs, 2000, 12);
    let stats = db.stats().unwrap();
    assert!(
        stats.stalls_space > 0,
        "no write waited for the budget: worst {worst:.2}, {stats:?}"
    );
    assert!(stats.totals.gc_runs > 0);
    // The budget is held from an estimate (the live-data pass, plus every byte written since
    // counted as live), so the figure passes it by what is written between passes: about 3
    // here on a quiet machine, 5.5 seen under a loaded one; without GC it grows with the
    // overwrites, to 12.
    assert!(worst < 8.0, "space amplification reached {worst:.2}");
    check(&db, &model);
    db.close().unwrap();
    let db = Db::open(Path::new("/db"), opts(&fs, true)).unwrap();
    check(&db, &model);
    db.close().unwrap();
}

#[test]
fn a_budget_below_the_floor_holds_writes_no_longer_than_a_round() {
    let fs = MemFs::new();
    let db = Db::open(Path::new("/db"), opts(&fs, true)).unwrap();
    // 50 KB live beside 128 KiB files: the floor is far above 1.3, yet every write ends.
    let (model, _) = overwrite(&db, &fs, 50, 200);
    check(&db, &model);
    db.close().unwrap();
}

#[test]
fn without_background_gc_nothing_waits() {
    let fs = MemFs::new();
    let db = Db::open(Path::new("/db"), opts(&fs, false)).unwrap();
    let (model, worst) = overwrite(&db, &fs, 500, 8);
    let stats = db.stats().unwrap();
    assert_eq!(stats.stalls_space, 0, "{stats:?}");
    assert!(worst > 3.0, "nothing collects, so space grows: {worst:.2}");
    check(&db, &model);
    db.close().unwrap();
}
