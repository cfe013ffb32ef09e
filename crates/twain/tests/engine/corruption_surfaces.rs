//! Damaged or missing files surface through the public API as errors (`Corruption`
//! naming the file, or an I/O error), never as a panic or as silently wrong data; an
//! iterator yields the error once and then ends; undamaged keys stay readable.

use crate::dbutil;

use dbutil::{key, small_opts};
use std::path::{Path, PathBuf};
use twain::{Db, Error, Options, WriteOptions};

const MARKER: &[u8] = b"MARKER-0123456789-the-separated-value-under-test-0123456789-MARKER";

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    dbutil::files_with_ext(dir, ext)
}

/// Flips one byte of the first occurrence of `needle` in any file with extension `ext`;
/// returns the file.
fn damage_occurrence(dir: &Path, ext: &str, needle: &[u8]) -> PathBuf {
    for path in files(dir, ext) {
        let mut bytes = std::fs::read(&path).unwrap();
        if let Some(at) = bytes.windows(needle.len()).position(|w| w == needle) {
            bytes[at + needle.len() / 2] ^= 0x5a;
            std::fs::write(&path, &bytes).unwrap();
            return path;
        }
    }
    panic!("no .{ext} file holds the needle");
}

fn opts() -> Options {
    small_opts().value_file_size(64 << 10)
}

#[test]
fn a_damaged_separated_value_is_a_corruption_error_naming_its_value_file() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path(), opts()).unwrap();
        db.put("a-before", "1").unwrap();
        db.put("marker", MARKER).unwrap();
        db.put("z-after", "2").unwrap();
        // Roll past the marker's value file and flush, so that the file is sealed and
        // not replayed on open.
        for i in 0..400 {
            db.put(key(i), vec![7u8; 400]).unwrap();
        }
        db.flush().unwrap();
        let s = db.stats().unwrap();
        assert!(
            !s.value_files[0].is_log,
            "the first value file should be sealed"
        );
    }
    let damaged = damage_occurrence(dir.path(), "vlog", MARKER);
    let db = Db::open(dir.path(), opts()).unwrap();

    let err = db.get("marker").unwrap_err();
    match &err {
        Error::Corruption { file, .. } => assert_eq!(file, &damaged),
        other => panic!("expected corruption, got {other:?}"),
    }
    // Other keys are fine, including ones in the same value file.
    assert_eq!(db.get("a-before").unwrap().unwrap(), b"1");
    assert_eq!(db.get("z-after").unwrap().unwrap(), b"2");
    assert_eq!(db.get(key(3)).unwrap().unwrap(), vec![7u8; 400]);

    // An iterator over the damaged value yields the error once, then ends.
    let mut it = db.prefix("m");
    assert!(it.next().unwrap().unwrap_err().is_corruption());
    assert!(it.next().is_none());
    // From the back as well, with good keys before the damage yielded first.
    let mut it = db.range("a".."n");
    let mut good = 0;
    let mut errors = 0;
    for r in it.by_ref().rev() {
        match r {
            Ok(_) => good += 1,
            Err(e) => {
                assert!(e.is_corruption());
                errors += 1;
            }
        }
    }
    assert_eq!((good, errors), (0, 1), "the marker is the last key in a..n");
    assert!(it.next().is_none());
}

#[test]
fn a_damaged_table_block_is_a_corruption_error_naming_the_table() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path(), opts()).unwrap();
        for i in 0..2000 {
            db.put(key(i), format!("value-{i}")).unwrap();
        }
        db.compact_range(None, None).unwrap();
    }
    let tables = files(dir.path(), "sst");
    assert_eq!(tables.len(), 1);
    // Damage the first data block (right after the file header).
    let mut bytes = std::fs::read(&tables[0]).unwrap();
    bytes[64] ^= 0xff;
    std::fs::write(&tables[0], &bytes).unwrap();

    let db = Db::open(dir.path(), opts()).unwrap();
    match db.get(key(0)) {
        Err(Error::Corruption { file, .. }) => assert_eq!(file, tables[0]),
        other => panic!("expected corruption, got {other:?}"),
    }
    let mut it = db.iter();
    assert!(it.next().unwrap().unwrap_err().is_corruption());
    assert!(it.next().is_none());
    // Keys in undamaged blocks still read.
    assert_eq!(db.get(key(1999)).unwrap().unwrap(), b"value-1999");
    // A compaction that has to read the block fails instead of writing garbage, and
    // leaves the database readable.
    db.put(key(0), "new").unwrap();
    let err = db.compact_range(None, None).unwrap_err();
    assert!(err.is_corruption(), "{err:?}");
    assert_eq!(db.get(key(0)).unwrap().unwrap(), b"new");
    assert_eq!(db.get(key(1999)).unwrap().unwrap(), b"value-1999");
}

#[test]
fn missing_files_make_open_fail() {
    for ext in ["sst", "vlog"] {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Db::open(dir.path(), opts()).unwrap();
            for i in 0..600 {
                db.put(key(i), vec![1u8; 300]).unwrap();
            }
            db.compact_range(None, None).unwrap();
        }
        let victim = files(dir.path(), ext).remove(0);
        std::fs::remove_file(&victim).unwrap();
        let err = Db::open(dir.path(), opts()).unwrap_err();
        assert!(
            matches!(err, Error::Corruption { .. } | Error::Io { .. }),
            "{ext}: {err:?}"
        );
    }
}

/// Damage followed by a record that proves the damaged bytes were synced is reported,
/// not truncated away.
#[test]
fn damage_before_a_later_synced_record_is_a_corruption_error() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path(), opts()).unwrap();
        db.put("marker", MARKER).unwrap();
        db.sync().unwrap();
        db.put_opt("last", "synced", &WriteOptions::synced())
            .unwrap();
    }
    damage_occurrence(dir.path(), "vlog", MARKER);
    let err = Db::open(dir.path(), opts()).unwrap_err();
    assert!(err.is_corruption(), "{err:?}");
}

/// Writes made durable by `Db::sync` and a clean close, then damaged on disk, are not an
/// unsynced torn tail: recovery should fail with a corruption error (or keep every write
/// after the damage), not drop them silently.
#[test]

fn damage_in_durable_log_records_is_not_silently_truncated() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path(), opts()).unwrap();
        db.put("marker", MARKER).unwrap();
        for i in 0..100 {
            db.put(key(i), "after").unwrap();
        }
        db.sync().unwrap();
        db.close().unwrap();
    }
    damage_occurrence(dir.path(), "vlog", MARKER);
    match Db::open(dir.path(), opts()) {
        Err(e) => assert!(e.is_corruption(), "{e:?}"),
        Ok(db) => {
            let torn = db.stats().unwrap().recovered_torn_bytes;
            let kept = (0..100)
                .filter(|&i| db.get(key(i)).unwrap().is_some())
                .count();
            assert_eq!(
                kept, 100,
                "open succeeded after truncating {torn} bytes of synced records"
            );
        }
    }
}
