//! Damage met while a scan reads ahead is reported at its entry on every read-ahead path:
//! a damaged table block that the look-ahead walk reaches partway through a scan, and a
//! damaged value on the path where the cursor reads its own windows (the pool stays
//! idle because reads are fast), as well as through the pool. Every entry before the
//! damage is yielded with its value, then one error naming the damaged file, then the
//! iteration ends.

use crate::dbutil;

use dbutil::key;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use twain::{Db, Options};

const N: u64 = 3000;

fn big(i: u64) -> Vec<u8> {
    vec![(i % 251) as u8; 300]
}

/// One flush, so the key store is one table of many small blocks, and every value is
/// separated. `cursor_reads` makes reads count as fast, so the cursor reads its windows
/// itself instead of the pool.
fn opts(cursor_reads: bool) -> Options {
    Options::default()
        .memtable_size(4 << 20)
        .value_file_size(256 << 10)
        .target_file_size(4 << 20)
        .block_size(1024)
        .inline_threshold(32)
        .prefetch_threads(2)
        .prefetch_min_read_micros(if cursor_reads { 1_000_000 } else { 0 })
        .gc_enabled(false)
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    dbutil::files_with_ext(dir, ext)
}

fn load(dir: &Path, cursor_reads: bool) {
    let db = Db::open(dir, opts(cursor_reads)).unwrap();
    for i in 0..N {
        db.put(key(i), big(i)).unwrap();
    }
    db.flush().unwrap();
}

fn flip(path: &Path, at: u64) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(&[0xa5; 8], at).unwrap();
}

/// Scans from the start: every entry before `bad` must come with its value, then the
/// corruption naming `file`, then the end. Returns the prefetch reads the scan made.
fn scan_until_damage(db: &Db, bad: u64, file: &Path) -> u64 {
    let before = db.stats().unwrap().prefetch_reads;
    let mut it = db.iter();
    for i in 0..bad {
        let (k, v) = match it.next() {
            Some(Ok(pair)) => pair,
            other => panic!("entry {i} of {bad} before the damage: {other:?}"),
        };
        assert_eq!((k, v), (key(i), big(i)), "entry {i} before the damage");
    }
    match it.next() {
        Some(Err(twain::Error::Corruption { file: f, .. })) => assert_eq!(f, file),
        other => panic!("want the corruption at entry {bad}, got {other:?}"),
    }
    assert!(it.next().is_none(), "an error ends the iteration");
    db.stats().unwrap().prefetch_reads - before
}

#[test]
fn a_damaged_table_block_met_by_the_look_ahead_is_reported_at_its_first_entry() {
    for cursor_reads in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        load(dir.path(), cursor_reads);
        let tables = files(dir.path(), "sst");
        assert_eq!(tables.len(), 1, "one flush, one table");
        let table = &tables[0];
        // A third of the way in lies a data block (the index and filter are at the end).
        flip(table, std::fs::metadata(table).unwrap().len() / 3);

        // A fresh open, so no block is cached: which keys the damage hides, point reads say.
        let db = Db::open(dir.path(), opts(cursor_reads)).unwrap();
        let hidden: Vec<u64> = (0..N).filter(|&i| db.get(key(i)).is_err()).collect();
        assert!(!hidden.is_empty(), "the flipped bytes hide some keys");
        let bad = hidden[0];
        assert!(
            hidden.iter().zip(bad..).all(|(&h, want)| h == want),
            "one block's keys, consecutive: {hidden:?}"
        );
        assert!(
            bad > 100,
            "the damage lies where the scan has been reading ahead"
        );
        drop(db);

        let db = Db::open(dir.path(), opts(cursor_reads)).unwrap();
        let reads = scan_until_damage(&db, bad, table);
        assert!(
            reads > 0,
            "windows were read ahead (cursor_reads {cursor_reads})"
        );
        // A seek past the damaged block reads on.
        let past = hidden[hidden.len() - 1] + 1;
        let mut it = db.iter();
        it.seek(key(past));
        assert_eq!(it.next().unwrap().unwrap(), (key(past), big(past)));
    }
}

#[test]
fn a_damaged_value_read_by_the_cursors_own_window_is_reported_at_its_entry() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), true);
    // The first value file: sealed, so not replayed (and checked) on open.
    let vlog = files(dir.path(), "vlog").into_iter().next().unwrap();
    flip(&vlog, std::fs::metadata(&vlog).unwrap().len() / 2);

    let db = Db::open(dir.path(), opts(true)).unwrap();
    let damaged = dbutil::unreadable_values(&db);
    assert_eq!(damaged.len(), 1, "one value damaged: {damaged:?}");
    let bad = damaged[0] as u64;
    assert!(bad > 100, "the damage lies where the cursor reads windows");
    let reads = scan_until_damage(&db, bad, &vlog);
    // Windows, neighbours coalesced: far fewer reads than values.
    assert!(
        reads > 0 && reads < bad / 4,
        "{reads} window reads for {bad} values"
    );
}
