//! `FaultFs::set_read_only` simulates a file system remounted read-only (what ext4 does to a
//! damaged volume): every mutating call fails with `EROFS` and changes nothing, reads keep
//! working, rules do not count the refused calls, and turning it off restores writes.

use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{FaultFs, FaultKind, FaultRule, Fs, MemFs, OpKind};

#[test]
fn every_mutating_call_fails_with_erofs_and_reads_work() {
    let mem = MemFs::new();
    let fs = FaultFs::over_mem(&mem);
    let dir = Path::new("/d");
    fs.create_dir_all(dir).unwrap();
    let f = dir.join("f");
    let mut w = fs.create(&f).unwrap();
    w.append(b"hello").unwrap();
    w.sync_data().unwrap();
    let lock = fs.lock(&dir.join("LOCK")).unwrap();

    fs.set_read_only(true);
    fs.add_rule(FaultRule::on(OpKind::Create).with_kind(FaultKind::NoSpace));
    let erofs = Some(ErrorKind::ReadOnlyFilesystem);
    let kind = |r: std::io::Result<()>| r.err().map(|e| e.kind());
    assert_eq!(kind(w.append(b"x")), erofs);
    assert_eq!(kind(w.flush()), erofs);
    assert_eq!(kind(w.sync_data()), erofs);
    assert_eq!(kind(fs.create(&dir.join("g")).map(drop)), erofs);
    assert_eq!(kind(fs.open_append(&f).map(drop)), erofs);
    assert_eq!(kind(fs.remove_file(&f)), erofs);
    assert_eq!(kind(fs.rename(&f, &dir.join("h"))), erofs);
    assert_eq!(kind(fs.truncate(&f, 1)), erofs);
    assert_eq!(kind(fs.sync_dir(dir)), erofs);
    assert_eq!(kind(fs.create_dir_all(&dir.join("sub"))), erofs);
    assert_eq!(kind(fs.lock(&dir.join("LOCK2")).map(drop)), erofs);

    // Reads, listings and stats work; the held lock can still be checked.
    let r = fs.open_read(&f).unwrap();
    assert_eq!(r.read_vec(0, 5).unwrap(), b"hello");
    assert_eq!(fs.file_size(&f).unwrap(), 5);
    assert!(fs.exists(&f).unwrap() && fs.is_file(&f).unwrap());
    let mut names = fs.list_dir(dir).unwrap();
    names.sort();
    assert_eq!(names, ["LOCK", "f"]);
    assert!(lock.still_held().unwrap());
    assert!(
        fs.injected_faults()
            .iter()
            .all(|i| i.kind == FaultKind::ReadOnly)
    );

    // The rule did not see the refused create: it fires on the next one.
    fs.set_read_only(false);
    let e = fs.create(&dir.join("g")).map(drop).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::StorageFull);
    fs.create(&dir.join("g")).unwrap();
    assert_eq!(Arc::new(mem).file_size(&f).unwrap(), 5);
}
