//! Helpers shared by the hash layout's tests: options at sizes a debug build runs quickly,
//! and the bytes of the groups' segments.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::{Options, Stats, ValueLayout};

/// The hash layout on `fs` with `groups` groups, 64 KiB memtables and 256 KiB value files;
/// pairs of 64 bytes and more are separated (no medium class).
pub fn opts(fs: &MemFs, groups: u32) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(256 << 10)
        .inline_threshold(64)
        .medium_threshold(64)
        .value_layout(ValueLayout::Hash)
        .hash_groups(groups)
}

/// A value of `len` bytes that names its key and round.
pub fn value(key: u32, round: u32, len: usize) -> Vec<u8> {
    let mut v = format!("k{key:04}r{round:03}").into_bytes();
    v.resize(len, b'.');
    v
}

/// Bytes of the groups' segment files (epoch 1 and later; the log's files are epoch 0).
pub fn segment_bytes(s: &Stats) -> u64 {
    s.value_files
        .iter()
        .filter(|f| f.epoch >= 1)
        .map(|f| f.total_bytes)
        .sum()
}

/// Runs `twain check` over the closed database at `dir` on `fs` and asserts it finds no
/// problem.
pub fn assert_checks_clean(fs: &MemFs, dir: &Path) {
    let report = check(
        dir,
        &CheckOptions {
            fs: Arc::new(fs.clone()) as Arc<dyn Fs>,
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}
