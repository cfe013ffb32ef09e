//! Garbage compactions, forced log seals and complete GCs lose nothing and resurrect
//! nothing: random puts, overwrites and deletes against a BTreeMap model, interleaved
//! with complete GCs (which seal the active log and run garbage compactions), flushes,
//! reopens and snapshots, with the background's garbage compactions and GC running too,
//! in both GC modes. After every step the database reads exactly as the model.

use std::collections::BTreeMap;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, Options};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn options(fs: &MemFs, mode: GcMode) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(16 << 10)
        .value_file_size(16 << 10)
        .inline_threshold(32)
        .l0_compaction_trigger(3)
        .l1_target_size(64 << 10)
        .target_file_size(16 << 10)
        .gc_threshold(0.7)
        .gc_mode(mode)
}

fn check(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>, at: &str) {
    let got: BTreeMap<Vec<u8>, Vec<u8>> = db.iter().map(|kv| kv.unwrap()).collect();
    assert!(got == *model, "{at}: the database differs from the model");
    for k in 0..64u32 {
        let key = format!("k{k:03}").into_bytes();
        assert_eq!(
            db.get(&key).unwrap().as_ref(),
            model.get(&key),
            "{at}: key {k}"
        );
    }
}

/// Runs one seed; returns the forced seals and the files collected.
fn run(seed: u64, mode: GcMode) -> (u64, u64) {
    let fs = MemFs::new();
    let mut rng = Rng(seed);
    let mut model = BTreeMap::new();
    let mut db = Db::open("/db", options(&fs, mode)).unwrap();
    let (mut seals, mut collected) = (0, 0);
    for step in 0..1500 {
        match rng.below(200) {
            0..=2 => {
                let report = db.gc_report().unwrap();
                seals += report.logs_sealed;
                collected += report.collected;
                check(&db, &model, &format!("seed {seed} step {step} after gc"));
            }
            3..=4 => db.flush().unwrap(),
            5 => {
                db.close().unwrap();
                db = Db::open("/db", options(&fs, mode)).unwrap();
                check(
                    &db,
                    &model,
                    &format!("seed {seed} step {step} after reopen"),
                );
            }
            6 => {
                // A snapshot across a complete GC reads what it saw.
                let snap = db.snapshot();
                let seen: BTreeMap<Vec<u8>, Vec<u8>> = snap.iter().map(|kv| kv.unwrap()).collect();
                db.put(b"k000", vec![b'x'; 100]).unwrap();
                model.insert(b"k000".to_vec(), vec![b'x'; 100]);
                db.gc_report().unwrap();
                let after: BTreeMap<Vec<u8>, Vec<u8>> = snap.iter().map(|kv| kv.unwrap()).collect();
                assert!(
                    seen == after,
                    "seed {seed} step {step}: the snapshot changed"
                );
            }
            7..=30 => {
                let key = format!("k{:03}", rng.below(64)).into_bytes();
                db.delete(&key).unwrap();
                model.remove(&key);
            }
            _ => {
                let key = format!("k{:03}", rng.below(64)).into_bytes();
                let len = if rng.below(4) == 0 {
                    10
                } else {
                    200 + rng.below(800) as usize
                };
                let value = vec![(step % 251) as u8; len];
                db.put(&key, &value).unwrap();
                model.insert(key, value);
            }
        }
    }
    let report = db.gc_report().unwrap();
    seals += report.logs_sealed;
    collected += report.collected;
    check(&db, &model, &format!("seed {seed} at the end"));
    db.close().unwrap();
    let db = Db::open("/db", options(&fs, mode)).unwrap();
    check(&db, &model, &format!("seed {seed} after the last reopen"));
    (seals, collected)
}

/// Whether a seed seals or collects depends on what the background did meanwhile: over
/// the seeds of a mode, both must happen.
fn run_seeds(seeds: [u64; 3], mode: GcMode) {
    let (mut seals, mut collected) = (0, 0);
    for seed in seeds {
        let (s, c) = run(seed * 7919, mode);
        seals += s;
        collected += c;
    }
    assert!(seals > 0, "{mode:?}: no forced seal");
    assert!(collected > 0, "{mode:?}: nothing collected");
}

#[test]
fn drop_records_mode_loses_and_resurrects_nothing() {
    run_seeds([1, 2, 3], GcMode::DropRecords);
}

#[test]
fn lsm_lookup_mode_loses_and_resurrects_nothing() {
    run_seeds([4, 5, 6], GcMode::LsmLookup);
}

#[test]
fn vlog_mode_loses_and_resurrects_nothing() {
    run_seeds([7, 8, 9], GcMode::Vlog);
}
