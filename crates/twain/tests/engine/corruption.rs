//! Damaged files: every kind of damage is reported as `Error::Corruption` naming the file
//! and an offset inside the damaged unit — never returned as data, never a panic. The only
//! damage repaired silently is a torn tail of the last value file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options, WriteOptions};

const DIR: &str = "/db";

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
}

fn big(i: u32) -> Vec<u8> {
    format!("{i:08}").repeat(40).into_bytes()
}

/// A database with sealed value files, tables and a manifest; returns the file system.
fn build() -> MemFs {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs)).unwrap();
    for i in 0..400u32 {
        db.put(format!("k{i:04}"), big(i)).unwrap();
    }
    db.flush().unwrap();
    db.sync().unwrap();
    fs
}

fn files(fs: &MemFs, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs
        .file_names(Path::new(DIR))
        .into_iter()
        .filter(|n| n.ends_with(ext))
        .map(|n| Path::new(DIR).join(n))
        .collect();
    v.sort();
    v
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("pattern not found")
}

fn assert_corruption(err: Error, file: &Path, near: std::ops::Range<u64>) {
    match err {
        Error::Corruption {
            file: f, offset, ..
        } => {
            assert_eq!(f, file, "corruption reported in the wrong file");
            assert!(near.contains(&offset), "offset {offset} not in {near:?}");
        }
        other => panic!("expected corruption in {}, got {other}", file.display()),
    }
}

#[test]
fn damaged_value_in_a_sealed_value_file_is_reported_on_read() {
    let fs = build();
    let vlog = files(&fs, ".vlog")[0].clone();
    let bytes = fs.read_file(&vlog).unwrap();
    let at = find(&bytes, &big(3)) as u64;
    fs.corrupt(&vlog, at + 50, 0x40).unwrap();
    let db = Db::open(DIR, options(&fs)).unwrap();
    let err = db.get("k0003").unwrap_err();
    assert_corruption(err, &vlog, at - 20..at);
    // Neighbours are intact.
    assert_eq!(db.get("k0004").unwrap(), Some(big(4)));
    // A scan reports the same damage instead of skipping the key.
    let err = db
        .iter()
        .find_map(|r| r.err())
        .expect("scan hid the damage");
    assert!(err.is_corruption());
}

#[test]
fn damage_in_the_middle_of_a_sealed_value_file_fails_recovery() {
    let fs = MemFs::new();
    {
        let db = Db::open(DIR, options(&fs)).unwrap();
        for i in 0..100u32 {
            db.put_opt(format!("k{i:04}"), big(i), &WriteOptions::synced())
                .unwrap();
        }
    }
    // Nothing was flushed: recovery replays every value file. Damage a sealed one.
    let vlog = files(&fs, ".vlog")[0].clone();
    fs.corrupt(&vlog, 200, 0x01).unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption(err, &vlog, 24..200);
}

#[test]
fn damage_to_synced_records_of_the_last_value_file_is_not_mistaken_for_a_torn_tail() {
    let fs = MemFs::new();
    {
        let db = Db::open(DIR, options(&fs)).unwrap();
        for i in 0..20u32 {
            db.put_opt(format!("k{i:04}"), big(i), &WriteOptions::synced())
                .unwrap();
        }
    }
    let vlog = files(&fs, ".vlog").last().unwrap().clone();
    let bytes = fs.read_file(&vlog).unwrap();
    let at = find(&bytes, &big(5)) as u64;
    fs.corrupt(&vlog, at + 10, 0x08).unwrap();
    // Later synced records say the damaged bytes were durable: corruption, not a torn tail.
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption(err, &vlog, 24..at);
}

#[test]
fn a_torn_tail_of_the_last_value_file_is_truncated() {
    let live = MemFs::new();
    let db = Db::open(DIR, options(&live)).unwrap();
    for i in 0..20u32 {
        db.put_opt(format!("k{i:04}"), big(i), &WriteOptions::synced())
            .unwrap();
    }
    // A power loss now: no clean-close marker vouches for the last record.
    let fs = live.crash(&twain::fs::CrashOptions::drop_unsynced());
    drop(db);
    // The log's last file holds the record (a spare file may follow it, still empty).
    let vlog = files(&fs, ".vlog")
        .into_iter()
        .rfind(|p| {
            let b = fs.read_file(p).unwrap();
            b.windows(big(19).len()).any(|w| w == big(19))
        })
        .unwrap();
    let bytes = fs.read_file(&vlog).unwrap();
    let at = find(&bytes, &big(19)) as u64;
    // Damage the last record: nothing after it can vouch for it.
    fs.corrupt(&vlog, at + 10, 0x08).unwrap();
    let db = Db::open(DIR, options(&fs)).unwrap();
    assert_eq!(db.get("k0018").unwrap(), Some(big(18)));
    assert_eq!(db.get("k0019").unwrap(), None);
    assert!(db.stats().unwrap().recovered_torn_bytes > 0);
}

#[test]
fn after_a_clean_close_damage_to_the_last_record_is_corruption() {
    let fs = MemFs::new();
    {
        let db = Db::open(DIR, options(&fs)).unwrap();
        for i in 0..20u32 {
            db.put(format!("k{i:04}"), big(i)).unwrap();
        }
        db.close().unwrap();
    }
    let vlog = files(&fs, ".vlog").last().unwrap().clone();
    let bytes = fs.read_file(&vlog).unwrap();
    let at = find(&bytes, &big(19)) as u64;
    fs.corrupt(&vlog, at + 10, 0x08).unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption(err, &vlog, 24..at);
}

#[test]
fn damaged_table_block_is_reported_on_read() {
    let fs = build();
    let db = Db::open(DIR, options(&fs)).unwrap();
    db.compact_range(None, None).unwrap();
    drop(db);
    let sst = files(&fs, ".sst")[0].clone();
    let bytes = fs.read_file(&sst).unwrap();
    // Keys are prefix-compressed; damage a byte inside the first data block.
    fs.corrupt(&sst, 100, 0x01).unwrap();
    let db = Db::open(DIR, options(&fs)).unwrap();
    let errors: Vec<Error> = (0..10u32)
        .filter_map(|i| db.get(format!("k{i:04}")).err())
        .collect();
    assert!(!errors.is_empty(), "no read noticed the damaged block");
    for e in errors {
        assert_corruption(e, &sst, 0..bytes.len() as u64);
    }
}

#[test]
fn damaged_manifest_edit_fails_open() {
    let fs = build();
    {
        let db = Db::open(DIR, options(&fs)).unwrap();
        for i in 0..400u32 {
            db.put(format!("x{i:04}"), big(i)).unwrap();
        }
        db.flush().unwrap();
    }
    let manifest = files(&fs, ".manifest")[0].clone();
    // The first edit (the snapshot) is followed by the flush's edit: damage the first.
    fs.corrupt(&manifest, 40, 0x10).unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption(err, &manifest, 24..41);
}

#[test]
fn garbage_in_current_fails_open() {
    let fs = build();
    fs.write_file(&Path::new(DIR).join("CURRENT"), b"not a manifest\n")
        .unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption(err, &Path::new(DIR).join("CURRENT"), 0..1);
}

#[test]
fn missing_value_file_named_by_the_manifest_fails_open() {
    let fs = build();
    let vlog = files(&fs, ".vlog")[0].clone();
    fs.remove_file(&vlog).unwrap();
    let err = Db::open(DIR, options(&fs)).unwrap_err();
    assert_corruption(err, &vlog, 0..1);
}
