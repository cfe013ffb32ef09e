//! The log's unsynced end may span several value files: the writer seals a full file and
//! moves on without syncing it, and the log thread syncs it later. A crash while it lags
//! loses a suffix of the non-sync writes — possibly several files of them — and never a
//! write in the middle; the files after the new end are removed, and the database passes
//! `check` afterwards.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use twain::check::{CheckOptions, check};
use twain::fs::{CrashOptions, FaultFs, Fs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options};

const DIR: &str = "/db";

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(256 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .gc_enabled(false)
}

fn value(i: u32) -> Vec<u8> {
    format!("{i:08}").repeat(40).into_bytes()
}

/// Writes keys in order with background syncs slowed down, and takes crash images while
/// the background lags; returns the images.
fn images_with_a_lagging_log_thread() -> Vec<MemFs> {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    let writer = std::thread::current().id();
    faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if e.op == OpKind::Sync
            && e.phase == OpPhase::Before
            && std::thread::current().id() != writer
        {
            std::thread::sleep(Duration::from_millis(15));
        }
    })));
    let mut images = Vec::new();
    for i in 0..2400u32 {
        db.put(format!("k{i:06}"), value(i)).unwrap();
        if i % 400 == 399 {
            images.push(mem.crash(&CrashOptions::drop_unsynced()));
            images.push(mem.crash(&CrashOptions::torn(u64::from(i))));
        }
    }
    faults.set_observer(None);
    drop(db);
    images
}

/// The recovered keys must be exactly `k000000 .. k(n-1)` for some n.
fn assert_prefix(db: &Db, what: &str) -> usize {
    let mut n = 0u32;
    for kv in db.iter() {
        let (k, v) = kv.unwrap_or_else(|e| panic!("{what}: read failed: {e}"));
        assert_eq!(
            k,
            format!("k{n:06}").into_bytes(),
            "{what}: a gap before key {n}"
        );
        assert_eq!(v, value(n), "{what}: wrong value of key {n}");
        n += 1;
    }
    n as usize
}

#[test]
fn a_crash_while_sealed_files_wait_for_their_sync_loses_only_a_suffix() {
    let images = images_with_a_lagging_log_thread();
    assert!(images.len() >= 10);
    let mut lost_files = 0;
    for (i, image) in images.iter().enumerate() {
        let logs_before = image
            .file_names(Path::new(DIR))
            .iter()
            .filter(|n| n.ends_with(".vlog"))
            .count();
        let db = Db::open(DIR, options(Arc::new(image.clone())))
            .unwrap_or_else(|e| panic!("image {i}: open failed: {e}"));
        let n = assert_prefix(&db, &format!("image {i}"));
        let torn = db.stats().unwrap().recovered_torn_bytes;
        // More writes after recovery, then a clean close: still a consistent database.
        db.put("after", "recovery").unwrap();
        db.close().unwrap();
        let report = check(
            Path::new(DIR),
            &CheckOptions {
                fs: Arc::new(image.clone()),
                ..CheckOptions::default()
            },
        )
        .unwrap();
        assert!(
            report.is_ok(),
            "image {i}: check after recovery: {}",
            report.to_text()
        );
        let logs_after = image
            .file_names(Path::new(DIR))
            .iter()
            .filter(|n| n.ends_with(".vlog"))
            .count();
        if logs_after < logs_before {
            lost_files += 1;
        }
        assert!(
            n <= 2400 && (torn > 0 || n > 0),
            "image {i}: {n} keys, {torn} torn bytes"
        );
    }
    // The background lagged by more than a file at least once, so whole files went.
    assert!(lost_files > 0, "no image lost a whole unsynced file");
}
