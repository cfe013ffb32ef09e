//! Value GC end to end, in both modes: after an overwrite-heavy workload, GC reclaims the
//! dead records' space, every value stays readable (before and after a reopen), and the
//! counters tell the two modes apart (no LSM lookups in drop-records mode; relocations and
//! lookups in lsm-lookup mode; SVTable searches and fix-ups only in drop-records mode); vlog
//! mode collects the log's tail and records no drops.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use twain::fs::MemFs;
use twain::{Db, GcEvent, GcMode, Options};

use crate::dbutil::{BACKGROUND_DEADLINE, wait_until};
use crate::gcutil;
use gcutil::small_files_options;

const DIR: &str = "/db";

fn options(fs: &MemFs, mode: GcMode) -> Options {
    (small_files_options(fs, mode, 0.6)).l1_target_size(64 << 10)
}

fn value(key: u32, round: u32) -> Vec<u8> {
    format!("{key:05}-{round:03}-").repeat(20).into_bytes()
}

/// Loads 300 keys, overwrites a skewed subset several times, compacts so drops are
/// recorded. Returns the model.
fn workload(db: &Db) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut model = BTreeMap::new();
    for round in 0..6u32 {
        for k in 0..300u32 {
            if round > 0 && k % (round + 1) != 0 {
                continue;
            }
            let key = format!("key{k:05}").into_bytes();
            db.put(&key, value(k, round)).unwrap();
            model.insert(key, value(k, round));
        }
    }
    db.compact_range(None, None).unwrap();
    model
}

fn check(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    for (k, v) in model {
        assert_eq!(
            db.get(k).unwrap().as_ref(),
            Some(v),
            "key {}",
            String::from_utf8_lossy(k)
        );
    }
    let all: Vec<_> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(all.len(), model.len());
    assert!(
        all.iter()
            .zip(model)
            .all(|((k, v), (mk, mv))| k == mk && v == mv)
    );
}

fn value_file_bytes(fs: &MemFs) -> u64 {
    fs.file_names(Path::new(DIR))
        .iter()
        .filter(|n| n.ends_with(".vlog") || n.ends_with(".svt"))
        // A file the background deletes between the listing and the read is gone.
        .filter_map(|n| fs.read_file(&Path::new(DIR).join(n)).ok())
        .map(|data| data.len() as u64)
        .sum()
}

#[test]
fn drop_records_mode_rewrites_into_svtables_and_fixes_handles_lazily() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, GcMode::DropRecords)).unwrap();
    let model = workload(&db);
    let before = value_file_bytes(&fs);
    let runs = db.gc().unwrap();
    assert!(runs >= 2, "only {runs} GC runs");
    // An old epoch's file goes when no reader holds it any more (a background pass may
    // still hold the version that names it for a moment).
    let mut after = 0;
    let shrunk = wait_until(BACKGROUND_DEADLINE, || {
        after = value_file_bytes(&fs);
        after * 10 < before * 7
    });
    assert!(shrunk, "value files {before} -> {after} bytes");
    let names = fs.file_names(Path::new(DIR));
    assert!(
        names.iter().any(|n| n.ends_with(".svt")),
        "no SVTable written: {names:?}"
    );
    let s = db.stats().unwrap();
    assert_eq!(s.gc_lsm_lookups, 0);
    assert!(s.gc_bytes_read > 0 && s.gc_bytes_written > 0);
    // First reads search the SVTables and fix the handles; second reads need no search.
    check(&db, &model);
    let s1 = db.stats().unwrap();
    assert!(s1.svtable_searches > 0 && s1.handle_fixups > 0, "{s1:?}");
    for k in model.keys() {
        db.get(k).unwrap();
    }
    let s2 = db.stats().unwrap();
    assert_eq!(
        s2.svtable_searches, s1.svtable_searches,
        "fixed handles searched again"
    );
    drop(db);
    let db = Db::open(DIR, options(&fs, GcMode::DropRecords)).unwrap();
    check(&db, &model);
    // A second round of overwrites and GC rewrites SVTables into later epochs.
    for k in (0..300u32).step_by(3) {
        db.put(format!("key{k:05}"), value(k, 9)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
    let mut model = model;
    for k in (0..300u32).step_by(3) {
        model.insert(format!("key{k:05}").into_bytes(), value(k, 9));
    }
    check(&db, &model);
}

#[test]
fn lsm_lookup_mode_relocates_and_writes_handles_back() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, GcMode::LsmLookup)).unwrap();
    let model = workload(&db);
    let before = value_file_bytes(&fs);
    let runs = db.gc().unwrap();
    assert!(runs >= 2, "only {runs} GC runs");
    let s = db.stats().unwrap();
    assert!(s.gc_lsm_lookups > 0);
    assert!(s.gc_records_relocated > 0);
    assert_eq!(s.svtable_searches, 0);
    check(&db, &model);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert!(
        wait_until(BACKGROUND_DEADLINE, || value_file_bytes(&fs) < before),
        "no space reclaimed"
    );
    drop(db);
    let db = Db::open(DIR, options(&fs, GcMode::LsmLookup)).unwrap();
    check(&db, &model);
}

/// Vlog mode is WiscKey's circular log: flushes and compactions record no drops (no drop
/// file is written, the counters stay at zero), GC collects the oldest sealed file first
/// whatever its garbage, judges every record by lookup, and the database then stays in
/// vlog mode: the modes that trust drop records refuse it, read-only opens do not.
#[test]
fn vlog_mode_collects_the_tail_first_and_records_no_drops() {
    let fs = MemFs::new();
    let started = Arc::new(Mutex::new(Vec::new()));
    let opts = || {
        let started = Arc::clone(&started);
        (options(&fs, GcMode::Vlog)).gc_listener(Some(Arc::new(move |e: GcEvent| {
            if let GcEvent::Started { file } = e {
                started.lock().unwrap().push(file);
            }
        })))
    };
    let db = Db::open(DIR, opts()).unwrap();
    let model = workload(&db);
    // The active log and the spare are the newest: the oldest file is sealed.
    let files: Vec<u64> = db
        .stats()
        .unwrap()
        .value_files
        .iter()
        .map(|f| f.number)
        .collect();
    assert!(files.len() >= 3, "value files {files:?}");
    let before = value_file_bytes(&fs);
    let report = db.gc_report().unwrap();
    let order = started.lock().unwrap().clone();
    assert!(report.collected >= 2, "{report}");
    assert_eq!(order[0], files[0], "the tail first: {order:?} of {files:?}");
    assert!(order.is_sorted(), "oldest first: {order:?}");
    let s = db.stats().unwrap();
    assert_eq!(
        (s.drop_records, s.drop_file_bytes_written),
        (0, 0),
        "{}",
        s.to_text()
    );
    assert!(s.gc_lsm_lookups > 0 && s.gc_records_relocated > 0);
    assert_eq!(s.svtable_searches, 0);
    let names = fs.file_names(Path::new(DIR));
    assert!(
        !names.iter().any(|n| n.ends_with(".drop")),
        "drop files written: {names:?}"
    );
    check(&db, &model);
    assert!(
        wait_until(BACKGROUND_DEADLINE, || value_file_bytes(&fs) < before),
        "no space reclaimed"
    );
    drop(db);
    let refused = Db::open(DIR, options(&fs, GcMode::DropRecords)).err();
    assert!(
        refused
            .as_ref()
            .is_some_and(|e| e.to_string().contains("ran with gc_mode=vlog")),
        "{refused:?}"
    );
    let refused = Db::open(DIR, options(&fs, GcMode::LsmLookup)).err();
    assert!(refused.is_some(), "lsm-lookup mode trusts drop records too");
    let ro = Db::open_read_only(DIR, options(&fs, GcMode::DropRecords)).unwrap();
    check(&ro, &model);
    drop(ro);
    let db = Db::open(DIR, opts()).unwrap();
    check(&db, &model);
}
