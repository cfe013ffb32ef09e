//! Helpers shared by the space-reclaiming tests: the two scenarios of issue 10 at sizes a
//! debug build runs quickly, and the true space amplification (file bytes of the directory
//! over the live bytes of a model).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};
use twain::{Db, GcMode, Options, Stats};

use crate::dbutil;

/// Keys in each scenario.
pub const KEYS: u32 = 3000;
/// Bytes per value.
pub const VALUE_LEN: usize = 1024;

/// The model: every key's newest value.
pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// The key of index `i`.
pub fn key(i: u32) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

/// A 1 KiB value naming its round and key.
pub fn value(round: u32, i: u32) -> Vec<u8> {
    let mut v = format!("r{round}-k{i}-").into_bytes();
    v.resize(VALUE_LEN, b'a' + (round % 26) as u8);
    v
}

/// Writes every key with round `round`'s value, into the database and the model.
pub fn import(db: &Db, model: &mut Model, round: u32) {
    for i in 0..KEYS {
        db.put(key(i), value(round, i)).unwrap();
        model.insert(key(i), value(round, i));
    }
}

/// Options on the real file system with value files of `value_file_size` bytes.
pub fn options(mode: GcMode, value_file_size: u64) -> Options {
    Options::default()
        .memtable_size(1 << 20)
        .value_file_size(value_file_size)
        .gc_mode(mode)
}

/// Bytes of every file in `dir`: allocated blocks, what `du` counts (value GC may punch
/// holes, which file lengths do not show). A file the background deletes between the
/// listing and its metadata counts nothing.
pub fn dir_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.blocks() * 512)
        .sum()
}

/// Bytes of the model's keys and values.
pub fn live_bytes(model: &Model) -> u64 {
    model.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum()
}

/// The true space amplification: directory bytes over live bytes.
pub fn space_amp(dir: &Path, model: &Model) -> f64 {
    dir_bytes(dir) as f64 / live_bytes(model) as f64
}

/// The bound after reclaiming: 1.1 plus the floor, one value file that may stay (the
/// active log) over the live bytes.
pub fn bound(model: &Model, value_file_size: u64) -> f64 {
    1.1 + value_file_size as f64 / live_bytes(model) as f64
}

/// Waits (up to a minute) until the true space amplification is at most `bound`; panics
/// with the statistics otherwise.
pub fn wait_for_space(db: &Db, dir: &Path, model: &Model, bound: f64) -> f64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let amp = space_amp(dir, model);
        if amp <= bound {
            return amp;
        }
        assert!(
            Instant::now() < deadline,
            "space amplification {amp:.3} > {bound:.3} after a minute:\n{}",
            db.stats().unwrap().to_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every key reads as the model says, and nothing else is there.
pub fn check(db: &Db, model: &Model) {
    let got: Model = db.iter().map(|kv| kv.unwrap()).collect();
    assert_eq!(got.len(), model.len());
    assert!(got == *model, "the database differs from the model");
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_deref(), Some(v.as_slice()));
    }
}

/// The statistics once compactions are quiet and the directory holds still: its bytes
/// unchanged across taking them, equal to their disk bytes, and their live bytes from a
/// pass over the current tree. Returns them with the directory's bytes.
pub fn settled(db: &Db, dir: &Path) -> (Stats, u64) {
    assert!(dbutil::wait_for_quiet(db), "compactions never settled");
    let mut seen = None;
    let still = dbutil::wait_until(dbutil::BACKGROUND_DEADLINE, || {
        let before = dir_bytes(dir);
        let s = db.stats().unwrap();
        let after = dir_bytes(dir);
        let same = before == after && s.disk.total() == after && s.live_bytes_is_current();
        if same {
            seen = Some((s, after));
        }
        same
    });
    assert!(still, "the directory never held still");
    seen.unwrap()
}
