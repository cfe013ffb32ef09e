//! `Stats::space_amplification` tells the truth: allocated bytes of every file in the
//! directory (what `du` counts) over the live bytes of a `BTreeMap` model of the workload,
//! within 10% once the background settles (its live-data pass included: `stats` reports the
//! cached figure of the background's last pass); and `Stats::live_bytes` is the model's
//! figure exactly, shadowed versions and tombstones not counted. Deleting every key leaves nothing
//! live: no ratio, and the value bytes are reported reclaimable.

use crate::{dbutil, spaceutil};

use dbutil::{Rng, key, small_opts};
use spaceutil::settled;
use std::collections::BTreeMap;
use std::path::Path;
use twain::{Db, Options};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn opts() -> Options {
    small_opts()
        .value_file_size(256 << 10)
        .memtable_size(1 << 20)
}

fn model_live(m: &Model) -> u64 {
    m.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum()
}

/// A value of `len` bytes, different for every `(i, version)`.
fn value(i: u64, version: u64, len: usize) -> Vec<u8> {
    let seed = format!("{i}:{version}:");
    seed.bytes().cycle().take(len).collect()
}

/// Checks the reported figures against the model and the directory.
fn check(db: &Db, dir: &Path, model: &Model, what: &str) -> f64 {
    db.flush().unwrap();
    let (s, disk) = settled(db, dir);
    let live = model_live(model);
    assert_eq!(s.live_bytes, live, "{what}: live bytes");
    let truth = disk as f64 / live as f64;
    let reported = s
        .space_amplification()
        .unwrap_or_else(|| panic!("{what}: no space amplification with {live} live bytes"));
    eprintln!("{what}: reported {reported:.3}, truth {truth:.3}");
    assert!(
        (reported / truth - 1.0).abs() <= 0.10,
        "{what}: reported space amplification {reported:.3}, truth {truth:.3}\n{}",
        s.to_text()
    );
    reported
}

/// 2,000 keys x 1 KiB: write, compact, overwrite every key, flush. The old values sit in
/// value files no compaction has dropped yet, so disk holds about twice the live data.
fn write_compact_overwrite(db: &Db, model: &mut Model) {
    for version in 0..2 {
        for i in 0..2000 {
            let (k, v) = (key(i), value(i, version, 1024));
            db.put(&k, &v).unwrap();
            model.insert(k, v);
        }
        if version == 0 {
            db.compact_range(None, None).unwrap();
        }
    }
}

#[test]
fn overwritten_keys_are_not_live() {
    let dir = tempfile::tempdir().unwrap();
    // Background GC (and its garbage compactions) off: the garbage stays, and the figure
    // must show it.
    let opts = opts().gc_enabled(false);
    let db = Db::open(dir.path(), opts).unwrap();
    let mut model = Model::new();
    write_compact_overwrite(&db, &mut model);
    let reported = check(&db, dir.path(), &model, "after the overwrite");
    // The old figure counted every version as live and said about 1.0.
    assert!(reported > 1.6, "space amplification {reported:.2}");
}

#[test]
fn deleting_every_key_leaves_nothing_live() {
    let dir = tempfile::tempdir().unwrap();
    // Background GC off: with it on, the space target may collect every byte before the
    // figure is read, and this test is about the figure, not the collection.
    let opts = opts().gc_enabled(false);
    let db = Db::open(dir.path(), opts).unwrap();
    let mut model = Model::new();
    write_compact_overwrite(&db, &mut model);
    for k in std::mem::take(&mut model).into_keys() {
        db.delete(&k).unwrap();
    }
    db.flush().unwrap();
    let (s, disk) = settled(&db, dir.path());
    assert_eq!(s.live_bytes, 0);
    assert_eq!(s.space_amplification(), None);
    assert!(
        s.to_text().contains("n/a (nothing live)"),
        "{}",
        s.to_text()
    );
    assert!(s.to_json().contains("\"space_amplification\":null"));
    // Every separated byte still on disk is garbage the engine knows about.
    // (Bytes value GC punched out are no longer on disk.)
    let separated: u64 = s
        .value_files
        .iter()
        .map(|f| f.separated_bytes - f.punched_bytes)
        .sum();
    assert!(separated > 0 && disk > 0);
    assert_eq!(s.reclaimable_bytes(), separated, "{}", s.to_text());
}

#[test]
fn random_workload_with_overwrites_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts().memtable_size(64 << 10);
    let db = Db::open(dir.path(), o).unwrap();
    let mut model = Model::new();
    let mut rng = Rng::new(10);
    for round in 0..4 {
        for op in 0..1500 {
            let i = rng.below(600);
            let k = key(i);
            if rng.percent(20) {
                db.delete(&k).unwrap();
                model.remove(&k);
            } else {
                // Inline and separated values alike (the inline threshold is 64 bytes).
                let len = [16, 200, 700, 1500][rng.below(4) as usize];
                let v = value(i, round * 10_000 + op, len);
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
        }
        check(&db, dir.path(), &model, &format!("round {round}"));
    }
}
