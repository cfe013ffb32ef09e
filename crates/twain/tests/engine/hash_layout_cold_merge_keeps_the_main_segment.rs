//! A group GC with no log segment to merge, run to merge a cold segment that holds
//! garbage, leaves the group's main segment as it is: it copies the cold segment's live
//! records and nothing else, and every key still reads its value after reopen.

use crate::hashutil;
use std::collections::BTreeMap;
use std::path::Path;
use twain::fs::MemFs;
use twain::{Db, Options, Stats};

fn opts(fs: &MemFs) -> Options {
    hashutil::opts(fs, 2).hash_hotness(true).gc_enabled(false)
}

fn key(k: u32) -> String {
    format!("k{k:04}")
}

/// The main segments' (number, epoch): cold segments and log segments are at epoch 1.
fn main_segments(s: &Stats) -> BTreeMap<u64, u32> {
    s.value_files
        .iter()
        .filter(|f| f.epoch >= 2)
        .map(|f| (f.number, f.epoch))
        .collect()
}

#[test]
fn merging_a_cold_segment_does_not_copy_the_main_segment() {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    let db = Db::open(dir, opts(&fs)).unwrap();
    let mut model: Vec<Vec<u8>> = (0..1000).map(|k| hashutil::value(k, 0, 500)).collect();
    for (k, v) in model.iter().enumerate() {
        db.put(key(k as u32), v).unwrap();
    }
    db.gc().unwrap();
    // A second GC with log segments sends the untouched nine tenths cold.
    for k in 0..100 {
        model[k as usize] = hashutil::value(k, 1, 500);
        db.put(key(k), &model[k as usize]).unwrap();
    }
    db.gc().unwrap();
    assert!(db.stats().unwrap().hash_layout.unwrap().cold_segments > 0);

    // Cold records overwritten under a snapshot survive the next GC in place; once the
    // snapshot is gone they are dead, and the groups have no log segment left.
    let snapshot = db.snapshot();
    for k in 100..400 {
        model[k as usize] = hashutil::value(k, 2, 500);
        db.put(key(k), &model[k as usize]).unwrap();
    }
    db.gc().unwrap();
    drop(snapshot);
    let before = db.stats().unwrap();
    let mains = main_segments(&before);
    assert_eq!(mains.len(), 2, "one main segment per group: {mains:?}");
    let main_bytes: u64 = before
        .value_files
        .iter()
        .filter(|f| f.epoch >= 2)
        .map(|f| f.total_bytes)
        .sum();

    db.gc().unwrap();
    let after = db.stats().unwrap();
    assert_eq!(
        main_segments(&after),
        mains,
        "the main segments are neither rewritten nor deleted"
    );
    let written = after.totals.gc_bytes_written - before.totals.gc_bytes_written;
    assert!(
        written > 0,
        "the cold segments with dead records were merged"
    );
    // Copying the main segments too would write their bytes on top.
    let cold_live = 600 * 500;
    assert!(
        written < cold_live * 11 / 10 && cold_live * 11 / 10 < cold_live + main_bytes,
        "{written} bytes written for {cold_live} bytes of live cold records \
         (the main segments hold {main_bytes})"
    );
    let read_all = |db: &Db| {
        for (k, v) in model.iter().enumerate() {
            assert_eq!(db.get(key(k as u32)).unwrap().as_ref(), Some(v), "key {k}");
        }
    };
    read_all(&db);
    db.close().unwrap();

    hashutil::assert_checks_clean(&fs, dir);
    let db = Db::open(dir, opts(&fs)).unwrap();
    read_all(&db);
    db.close().unwrap();
}
