//! Helpers shared by the hole-punching GC tests: small options with GC only on demand in
//! drop-records mode, and workloads that leave clustered or scattered garbage in a sealed
//! value log.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, Options, Stats, ValueFileStats};

pub const DIR: &str = "/db";

pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// 64 KiB memtables, 256 KiB value files, values of 64 bytes or more separated, GC only on
/// `Db::gc()` in drop-records mode.
pub fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(64 << 10)
        .value_file_size(256 << 10)
        .inline_threshold(64)
        .gc_enabled(false)
        .gc_mode(GcMode::DropRecords)
        .gc_threshold(0.5)
}

pub fn key(k: u32) -> Vec<u8> {
    format!("k{k:05}").into_bytes()
}

/// A 1000-byte value naming its key and the round that wrote it.
pub fn value(k: u32, round: u32) -> Vec<u8> {
    let mut v = format!("{k:05}/{round}:").into_bytes();
    v.resize(1000, b'a' + (round % 26) as u8);
    v
}

/// Writes keys `0..n` in order, then `overwrite` (new values), compacts and syncs.
/// Returns the model.
pub fn write_and_overwrite(db: &Db, n: u32, overwrite: impl Iterator<Item = u32>) -> Model {
    let mut model = Model::new();
    for k in 0..n {
        db.put(key(k), value(k, 0)).unwrap();
        model.insert(key(k), value(k, 0));
    }
    for k in overwrite {
        db.put(key(k), value(k, 1)).unwrap();
        model.insert(key(k), value(k, 1));
    }
    db.compact_range(None, None).unwrap();
    db.sync().unwrap();
    model
}

/// Clustered garbage: 600 keys (about two and a half value files), the first 200
/// overwritten: most of the first file is one dead run.
pub fn clustered(db: &Db) -> Model {
    write_and_overwrite(db, 600, 0..200)
}

/// Scattered garbage: 600 keys, every other one overwritten.
pub fn scattered(db: &Db) -> Model {
    write_and_overwrite(db, 600, (0..600).step_by(2))
}

/// Every key reads its model value, a scan equals the model, and nothing else is there.
pub fn assert_model(db: &Db, model: &Model) {
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "{k:?}");
    }
    let state: Model = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(&state, model);
}

/// `twain check` of the database in `fs` finds nothing wrong.
pub fn assert_check_ok(fs: Arc<dyn Fs>) {
    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs,
            ..CheckOptions::default()
        },
    )
    .unwrap();
    let first: Vec<_> = report.problems.iter().take(3).collect();
    assert!(
        report.is_ok(),
        "{} problems, first {first:?}",
        report.problems.len()
    );
}

/// The allocated bytes of each value file (`.vlog` and `.svt`) of `mem`, by name.
pub fn value_file_blocks(mem: &MemFs) -> BTreeMap<String, u64> {
    mem.file_names(Path::new(DIR))
        .into_iter()
        .filter(|n| n.ends_with(".vlog") || n.ends_with(".svt"))
        .map(|n| {
            let a = mem.allocated_bytes(&Path::new(DIR).join(&n)).unwrap();
            (n, a)
        })
        .collect()
}

/// The statistics of value file `number` in `stats`.
pub fn file(stats: &Stats, number: u64) -> &ValueFileStats {
    let found = stats.value_files.iter().find(|v| v.number == number);
    found.unwrap_or_else(|| panic!("no value file {number}"))
}
