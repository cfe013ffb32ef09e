//! Hardening finding 6: the newest value file deleted or truncated went unnoticed, and
//! acknowledged sync writes were lost while `open` and `check` were clean. Now a value file
//! missing between the flushed point and the newest one (every sealed file names the file
//! the log continues in), and a log that ends below the sequence the manifest records as
//! durable, are corruption naming the file — never a torn tail.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options, WriteOptions};

const DIR: &str = "/db";

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        // No flush: the whole history stays in the log after the flushed point.
        .memtable_size(64 << 20)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .gc_enabled(false)
}

fn value(i: u32) -> Vec<u8> {
    format!("{i:08}").repeat(40).into_bytes()
}

/// Value log files holding records, oldest first.
fn logs_with_records(fs: &MemFs) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs
        .file_names(Path::new(DIR))
        .into_iter()
        .filter(|n| n.ends_with(".vlog"))
        .map(|n| Path::new(DIR).join(n))
        .filter(|p| fs.read_file(p).unwrap().len() > 200)
        .collect();
    v.sort();
    v
}

fn synced_writes(fs: &MemFs, n: u32) {
    let db = Db::open(DIR, options(fs)).unwrap();
    for i in 0..n {
        db.put_opt(format!("k{i:05}"), value(i), &WriteOptions::synced())
            .unwrap();
    }
    db.close().unwrap();
}

fn assert_corruption_in(err: Error, file: &Path) {
    match err {
        Error::Corruption { file: f, .. } => assert_eq!(f, file, "corruption names another file"),
        other => panic!("expected corruption in {}, got {other}", file.display()),
    }
}

fn check_finds(fs: &MemFs, file: &Path) {
    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs: Arc::new(fs.clone()),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(!report.is_ok(), "check found nothing");
    let text = report.to_text();
    assert!(
        text.contains(&file.display().to_string()),
        "check does not name {}: {text}",
        file.display()
    );
}

#[test]
fn newest_value_file_deleted_is_corruption() {
    let fs = MemFs::new();
    synced_writes(&fs, 600);
    let logs = logs_with_records(&fs);
    assert!(logs.len() >= 3, "{logs:?}");
    let newest = logs.last().unwrap().clone();
    fs.remove_file(&newest).unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption_in(err, &newest);
    check_finds(&fs, &newest);
    // Nothing was deleted or rewritten by the failed open.
    assert!(fs.read_file(&logs[0]).is_ok());
}

#[test]
fn a_value_file_deleted_in_the_middle_of_the_log_is_corruption() {
    let fs = MemFs::new();
    synced_writes(&fs, 600);
    let logs = logs_with_records(&fs);
    let middle = logs[logs.len() / 2].clone();
    fs.remove_file(&middle).unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption_in(err, &middle);
    check_finds(&fs, &middle);
}

#[test]
fn newest_value_file_truncated_below_the_durable_sequence_is_corruption() {
    let fs = MemFs::new();
    synced_writes(&fs, 600);
    // An open records the sequence it recovered as durable (after syncing the log).
    Db::open(DIR, options(&fs)).unwrap().close().unwrap();
    let logs = logs_with_records(&fs);
    let newest = logs.last().unwrap().clone();
    let len = fs.read_file(&newest).unwrap().len() as u64;
    fs.truncate(&newest, len / 2).unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption_in(err, &newest);
    assert!(
        err_text(&fs).contains("below sequence"),
        "{}",
        err_text(&fs)
    );
    check_finds(&fs, &newest);
}

fn err_text(fs: &MemFs) -> String {
    Db::open(DIR, options(fs)).unwrap_err().to_string()
}
