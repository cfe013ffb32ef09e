//! A failed `FaultFs` operation has no effect beyond what it reports: an `Eio` append writes
//! nothing, a short write exactly a prefix, a failed sync leaves the data unsynced, and a
//! failed namespace operation leaves the names as they were.

use std::path::PathBuf;
use twain::fs::{CrashOptions, FaultFs, FaultKind, FaultRule, Fs, MemFs, OpKind};

fn setup() -> (MemFs, FaultFs, PathBuf) {
    let mem = MemFs::new();
    let fs = FaultFs::over_mem(&mem);
    let dir = PathBuf::from("/db");
    fs.create_dir_all(&dir).unwrap();
    (mem, fs, dir)
}

#[test]
fn eio_append_writes_nothing() {
    let (mem, fs, dir) = setup();
    let mut f = fs.create(&dir.join("f")).unwrap();
    f.append(b"kept").unwrap();
    fs.add_rule(FaultRule::on(OpKind::Append));
    assert!(f.append(b"lost").is_err());
    assert_eq!(f.len(), 4);
    assert_eq!(mem.read_file(&dir.join("f")).unwrap(), b"kept");
}

#[test]
fn short_write_leaves_exactly_the_first_half() {
    let (mem, fs, dir) = setup();
    let mut f = fs.create(&dir.join("f")).unwrap();
    f.append(b"head:").unwrap();
    fs.add_rule(FaultRule::on(OpKind::Append).with_kind(FaultKind::ShortWrite));
    let err = f.append(b"0123456789").err().unwrap();
    assert!(FaultFs::is_injected(&err));
    assert_eq!(mem.read_file(&dir.join("f")).unwrap(), b"head:01234");
    assert_eq!(f.len(), 10);
    f.append(b"!").unwrap();
    assert_eq!(mem.read_file(&dir.join("f")).unwrap(), b"head:01234!");
}

#[test]
fn short_write_on_other_ops_is_plain_eio() {
    let (mem, fs, dir) = setup();
    mem.write_file(&dir.join("f"), b"x").unwrap();
    fs.add_rule(FaultRule::on(OpKind::Remove).with_kind(FaultKind::ShortWrite));
    assert!(fs.remove_file(&dir.join("f")).is_err());
    assert!(mem.exists(&dir.join("f")).unwrap());
}

#[test]
fn failed_sync_leaves_the_data_unsynced() {
    let (mem, fs, dir) = setup();
    let mut f = fs.create(&dir.join("f")).unwrap();
    f.append(b"synced").unwrap();
    f.sync_data().unwrap();
    fs.sync_dir(&dir).unwrap();
    f.append(b" pending").unwrap();
    fs.add_rule(FaultRule::on(OpKind::Sync));
    assert!(f.sync_data().is_err());
    assert_eq!(mem.synced_len(&dir.join("f")).unwrap(), 6);
    let image = mem.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(&dir.join("f")).unwrap(), b"synced");
}

#[test]
fn failed_sync_dir_leaves_the_entries_non_durable() {
    let (mem, fs, dir) = setup();
    let mut f = fs.create(&dir.join("new")).unwrap();
    f.sync_data().unwrap();
    fs.add_rule(FaultRule::on(OpKind::SyncDir));
    assert!(fs.sync_dir(&dir).is_err());
    let image = mem.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.file_names(&dir), Vec::<String>::new());
}

#[test]
fn failed_rename_leaves_both_names_as_they_were() {
    let (mem, fs, dir) = setup();
    mem.write_file(&dir.join("tmp"), b"new").unwrap();
    mem.write_file(&dir.join("CURRENT"), b"old").unwrap();
    fs.add_rule(FaultRule::on(OpKind::Rename));
    assert!(fs.rename(&dir.join("tmp"), &dir.join("CURRENT")).is_err());
    assert_eq!(mem.read_file(&dir.join("tmp")).unwrap(), b"new");
    assert_eq!(mem.read_file(&dir.join("CURRENT")).unwrap(), b"old");
}

#[test]
fn failed_create_does_not_replace_the_existing_file() {
    let (mem, fs, dir) = setup();
    mem.write_file(&dir.join("f"), b"old").unwrap();
    fs.add_rule(FaultRule::on(OpKind::Create));
    assert!(fs.create(&dir.join("f")).is_err());
    assert_eq!(mem.read_file(&dir.join("f")).unwrap(), b"old");
}

#[test]
fn failed_truncate_leaves_the_length() {
    let (mem, fs, dir) = setup();
    mem.write_file(&dir.join("f"), b"0123456789").unwrap();
    fs.add_rule(FaultRule::on(OpKind::Truncate));
    assert!(fs.truncate(&dir.join("f"), 2).is_err());
    assert_eq!(mem.read_file(&dir.join("f")).unwrap().len(), 10);
}
