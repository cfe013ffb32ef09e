//! Regression (found by the long crash-point sweep): reopening a cleanly closed database
//! continued appending to the value file after its close marker. After a power loss whose
//! torn write cut that file right after the marker, the file looked complete, recovery went
//! on into the next file, and a later write survived while earlier ones were lost (a hole).
//! Writing never continues after a close marker or a seal record: the reopened database
//! starts a new value file, and the closed one keeps its bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options, WriteOptions};

const DIR: &str = "/db";

fn options(fs: &MemFs) -> Options {
    Options {
        fs: Arc::new(fs.clone()) as Arc<dyn Fs>,
        memtable_size: 1 << 20,
        value_file_size: 1 << 20,
        inline_threshold: 64,
        ..Options::default()
    }
}

fn logs(fs: &MemFs) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs
        .file_names(Path::new(DIR))
        .into_iter()
        .filter(|n| n.ends_with(".vlog"))
        .map(|n| Path::new(DIR).join(n))
        .collect();
    v.sort();
    v
}

#[test]
fn a_reopened_database_writes_a_new_value_file_after_a_clean_close() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs)).unwrap();
    for i in 0..50u32 {
        db.put(format!("k{i:03}"), vec![1u8; 200]).unwrap();
    }
    db.close().unwrap();
    let closed: Vec<(PathBuf, Vec<u8>)> = logs(&fs)
        .into_iter()
        .map(|p| {
            let b = fs.read_file(&p).unwrap();
            (p, b)
        })
        .collect();
    let db = Db::open(DIR, options(&fs)).unwrap();
    for i in 0..50u32 {
        db.put_opt(format!("k{i:03}"), vec![2u8; 200], &WriteOptions::synced())
            .unwrap();
    }
    for (path, bytes) in &closed {
        let now = fs.read_file(path).unwrap();
        assert!(
            &now == bytes,
            "{} was written after its close marker ({} bytes, then {})",
            path.display(),
            bytes.len(),
            now.len()
        );
    }
    assert!(logs(&fs).len() > closed.len(), "no new value file");
    db.close().unwrap();
    let db = Db::open(DIR, options(&fs)).unwrap();
    assert_eq!(db.get("k049").unwrap(), Some(vec![2u8; 200]));
}
