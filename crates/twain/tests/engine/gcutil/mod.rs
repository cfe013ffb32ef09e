//! Helpers shared by the value-GC regression tests: options where GC runs only when asked,
//! recognisable values, and a database whose first value file GC has rewritten once.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, Options, ValueFileStats};

/// Small value files, no automatic compaction and GC only on `Db::gc()`, which collects
/// any sealed file with garbage (threshold 1.0).
pub fn manual_gc_options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(1 << 20)
        .value_file_size(16 << 10)
        .inline_threshold(32)
        .l0_compaction_trigger(100)
        .l0_slowdown_trigger(100)
        .l0_stop_trigger(100)
        .gc_enabled(false)
        .gc_mode(GcMode::DropRecords)
        .gc_threshold(1.0)
}

/// A separated value that names its writer (`tag`) and key index.
pub fn value(tag: &str, i: u32) -> Vec<u8> {
    format!("{tag}-{i:04}-").repeat(10).into_bytes()
}

/// The statistics of value file `number`, if it is still live.
pub fn file_of(db: &Db, number: u64) -> Option<ValueFileStats> {
    db.stats()
        .unwrap()
        .value_files
        .into_iter()
        .find(|v| v.number == number)
}

/// Writes keys `k0000..k0060` (tag "a") into one sealed value file, all in the bottom
/// level, overwrites `k0040..k0060` (tag "b") and runs GC once: the file is at epoch 1.
/// Returns its number.
pub fn first_file_collected_once(db: &Db) -> u64 {
    for i in 0..60u32 {
        db.put(format!("k{i:04}"), value("a", i)).unwrap();
    }
    db.put("roll", vec![0u8; 20 << 10]).unwrap(); // seals the first value file
    db.compact_range(None, None).unwrap();
    let first = db.stats().unwrap().value_files[0].number;
    for i in 40..60u32 {
        db.put(format!("k{i:04}"), value("b", i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
    assert_eq!(file_of(db, first).unwrap().epoch, 1);
    first
}

/// 32 KiB memtables, 64 KiB value files, values of 64 bytes or more separated, L0
/// compacted at two tables, GC only on `Db::gc()` in `mode` at `threshold`: many small
/// files, so that a short workload goes through flushes, compactions and GC runs.
pub fn small_files_options(fs: &MemFs, mode: GcMode, threshold: f64) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .gc_enabled(false)
        .gc_mode(mode)
        .gc_threshold(threshold)
}

/// A separated value naming its key and the round that wrote it.
pub fn round_value(k: u32, round: u32) -> Vec<u8> {
    format!("{k:04}/{round}:").repeat(24).into_bytes()
}

/// The path of epoch `epoch` of value file `number` in `dir`.
pub fn value_file_path(dir: &str, number: u64, epoch: u32) -> std::path::PathBuf {
    let dir = std::path::Path::new(dir);
    match epoch {
        0 => dir.join(format!("{number:06}.vlog")),
        e => dir.join(format!("{number:06}-{e}.svt")),
    }
}

/// Flips one byte in the middle of the first copy of `value` in the file at `path`, and
/// returns the file offset of the value's first byte.
pub fn damage_value(fs: &MemFs, path: &std::path::Path, value: &[u8]) -> u64 {
    let bytes = fs.read_file(path).unwrap();
    let at = bytes
        .windows(value.len())
        .position(|w| w == value)
        .unwrap_or_else(|| panic!("value not found in {}", path.display()));
    fs.corrupt(path, (at + value.len() / 2) as u64, 0x5a)
        .unwrap();
    at as u64
}

/// Writes keys `k0000..k0060` (tag "a") into one value file, seals it, overwrites the keys
/// in `overwrite` (tag "b") and compacts, so that their first versions are recorded as
/// dropped. GC has not run. Returns the sealed file's number.
pub fn sealed_file_with_drops(db: &Db, overwrite: std::ops::Range<u32>) -> u64 {
    for i in 0..60u32 {
        db.put(format!("k{i:04}"), value("a", i)).unwrap();
    }
    db.put("roll", vec![0u8; 20 << 10]).unwrap(); // seals the first value file
    let first = db.stats().unwrap().value_files[0].number;
    for i in overwrite {
        db.put(format!("k{i:04}"), value("b", i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    first
}

/// Every key `sealed_file_with_drops(db, overwrite)` wrote, read back, except `skip`.
pub fn assert_keys_read_back(db: &Db, overwrite: std::ops::Range<u32>, skip: Option<u32>) {
    for i in (0..60u32).filter(|&i| Some(i) != skip) {
        let tag = if overwrite.contains(&i) { "b" } else { "a" };
        assert_eq!(
            db.get(format!("k{i:04}")).unwrap(),
            Some(value(tag, i)),
            "key k{i:04}"
        );
    }
}

/// The pairs a database should hold.
pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// [`with_stale_handles`] on a database of [`manual_gc_options`].
pub fn database_with_stale_handles(fs: &MemFs) -> (Db, Model) {
    with_stale_handles(Db::open("/db", manual_gc_options(fs)).unwrap())
}

/// Fills `db` (opened with GC on demand only, like [`manual_gc_options`]) with 400 keys
/// spread over several value files (each round writes every fourth key), half
/// overwritten, and GC run twice so that tables reach epochs 1 and 2.
pub fn with_stale_handles(db: Db) -> (Db, Model) {
    let mut model = Model::new();
    let mut put = |db: &Db, i: u32, tag: &str| {
        let (k, v) = (format!("k{i:04}").into_bytes(), value(tag, i));
        db.put(&k, &v).unwrap();
        model.insert(k, v);
    };
    for round in 0..4 {
        for i in (round..400).step_by(4) {
            put(&db, i, "a");
        }
    }
    db.compact_range(None, None).unwrap();
    for i in (0..400).step_by(2) {
        put(&db, i, "b");
    }
    db.compact_range(None, None).unwrap();
    assert!(db.gc().unwrap() > 0);
    for i in (0..400).step_by(6) {
        put(&db, i, "c");
    }
    db.compact_range(None, None).unwrap();
    assert!(db.gc().unwrap() > 0);
    let stats = db.stats().unwrap();
    assert!(
        stats.value_files.iter().any(|f| f.epoch >= 2),
        "{:?}",
        stats.value_files
    );
    (db, model)
}
