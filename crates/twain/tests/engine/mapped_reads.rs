//! `mmap_reads`: gets and scans that copy separated values out of value files' memory
//! mappings return what reads by system call return, and a value damaged in a mapped
//! file is a corruption error naming the file, never data.

use crate::dbutil;

use dbutil::{Rng, key, small_opts};
use std::collections::BTreeMap;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use twain::{Db, Error, Options};

fn opts(mapped: bool) -> Options {
    small_opts()
        .value_file_size(64 << 10)
        .mmap_reads(mapped)
        // Cursors read their own windows (values are in the page cache): the window's
        // runs come out of the mappings.
        .prefetch_min_read_micros(1_000_000)
}

/// Every pair, by gets and by a forward and a backward scan.
fn read_all(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "get {k:?}");
    }
    let forward: Vec<_> = db.iter().map(|kv| kv.unwrap()).collect();
    let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert!(forward == want, "forward scan differs from the model");
    let mut backward: Vec<_> = db.iter().rev().map(|kv| kv.unwrap()).collect();
    backward.reverse();
    assert!(backward == want, "backward scan differs from the model");
}

#[test]
fn mapped_and_unmapped_reads_return_the_same_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = BTreeMap::new();
    let mut rng = Rng::new(7);
    {
        let db = Db::open(dir.path(), opts(true)).unwrap();
        for round in 0..3u8 {
            for _ in 0..600 {
                let k = key(rng.below(900));
                let len = 10 + rng.below(1_500) as usize;
                let v = vec![round.wrapping_mul(31).wrapping_add(len as u8); len];
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
            db.flush().unwrap();
        }
        let s = db.stats().unwrap();
        assert!(
            s.value_files.iter().filter(|f| !f.is_log).count() >= 2,
            "values should lie in sealed (mapped) value files"
        );
        read_all(&db, &model);
    }
    // The same database read by system calls, then mapped again after a reopen.
    for mapped in [false, true] {
        let db = Db::open(dir.path(), opts(mapped)).unwrap();
        read_all(&db, &model);
    }
}

const MARKER: &[u8] = b"MARKER-0123456789-a-separated-value-in-a-mapped-file-0123456789-MARKER";

/// The `.vlog` file holding `needle`, and the needle's offset in it.
fn find(dir: &Path, needle: &[u8]) -> (PathBuf, u64) {
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|e| e == "vlog") {
            let bytes = std::fs::read(&path).unwrap();
            if let Some(at) = bytes.windows(needle.len()).position(|w| w == needle) {
                return (path, at as u64);
            }
        }
    }
    panic!("no value file holds the needle");
}

#[test]
fn a_value_damaged_under_a_mapping_is_a_corruption_error_naming_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts(true)).unwrap();
    db.put("marker", MARKER).unwrap();
    // Roll past the marker's value file, so that it is sealed and may be mapped.
    for i in 0..400 {
        db.put(key(i), vec![7u8; 400]).unwrap();
    }
    db.flush().unwrap();
    // Read once: the file is mapped now.
    assert_eq!(db.get("marker").unwrap().unwrap(), MARKER);
    let (path, at) = find(dir.path(), MARKER);
    // Damage it in place (no truncation, which would cut pages off the mapping).
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.write_at(b"#", at + 20).unwrap();
    file.sync_all().unwrap();

    match db.get("marker").unwrap_err() {
        Error::Corruption { file, .. } => assert_eq!(file, path),
        other => panic!("expected corruption, got {other:?}"),
    }
    let mut it = db.prefix("m");
    assert!(it.next().unwrap().unwrap_err().is_corruption());
    assert!(it.next().is_none());
    // The rest of the file still reads.
    assert_eq!(db.get(key(3)).unwrap().unwrap(), vec![7u8; 400]);
}

#[test]
fn mmap_reads_is_an_option_by_name() {
    let mut o = Options::default();
    assert!(!o.mmap_reads, "off by default");
    o.set("mmap_reads", "true").unwrap();
    assert!(o.mmap_reads);
    assert!(o.set("mmap_reads", "sometimes").is_err());
}
