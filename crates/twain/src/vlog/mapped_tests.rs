//! `ValueFile::mapped`: which bytes a value file's memory mapping serves, and when the
//! caller must read them with a system call instead.

use super::ValueFile;
use crate::fs::{Fs, MemFs, RealFs};
use std::path::Path;
use std::sync::Arc;

/// A value file of `len` patterned bytes in `dir` (number 1, epoch 0).
fn file_of(fs: Arc<dyn Fs>, dir: &Path, len: usize) -> (ValueFile, Vec<u8>) {
    let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
    let file = ValueFile::new(Arc::clone(&fs), dir, 1);
    let mut w = fs.create(file.path()).unwrap();
    w.append(&bytes).unwrap();
    w.sync_data().unwrap();
    (file, bytes)
}

#[test]
fn a_file_no_longer_appended_to_is_copied_out_of_its_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = file_of(Arc::new(RealFs::new()), dir.path(), 10_000);
    assert_eq!(file.mapped(0, 16).unwrap(), &bytes[..16]);
    assert_eq!(file.mapped(4_000, 1_000).unwrap(), &bytes[4_000..5_000]);
    assert_eq!(file.mapped(9_990, 10).unwrap(), &bytes[9_990..]);
    // Past the end: the caller reads it, and reports the short read.
    assert!(file.mapped(9_990, 11).is_none());
    assert!(file.mapped(u64::MAX, 1).is_none());
}

#[test]
fn bytes_appended_after_the_mapping_are_read_by_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let (file, bytes) = file_of(Arc::clone(&fs), dir.path(), 4_096);
    assert_eq!(file.mapped(100, 100).unwrap(), &bytes[100..200]);
    let mut w = fs.open_append(file.path()).unwrap();
    w.append(&[9u8; 100]).unwrap();
    w.flush().unwrap();
    // The mapping keeps the length it was made with.
    assert!(file.mapped(4_000, 196).is_none());
    assert_eq!(file.mapped(4_000, 96).unwrap(), &bytes[4_000..]);
}

#[test]
fn a_file_the_log_appends_to_is_not_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = file_of(Arc::new(RealFs::new()), dir.path(), 4_096);
    file.set_tail_start(4_096);
    assert!(file.mapped(0, 10).is_none());
    assert!(file.mapping.get().is_none(), "no mapping was made");
    // Sealed: from now on it is.
    file.set_tail_start(u64::MAX);
    assert_eq!(file.mapped(0, 10).unwrap(), &bytes[..10]);
}

#[test]
fn a_file_system_that_maps_nothing_leaves_every_read_to_the_caller() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    fs.create_dir_all(Path::new("/db")).unwrap();
    let (file, _) = file_of(fs, Path::new("/db"), 4_096);
    assert!(file.mapped(0, 10).is_none());
    assert!(file.mapped(0, 10).is_none());
}
