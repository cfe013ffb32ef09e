//! Regression (found by the long crash-point sweep): reopening a cleanly closed database
//! continued appending to the value file after its close marker. After a power loss whose
//! torn write cut that file right after the marker, the file looked complete, recovery went
//! on into the next file, and a later write survived while earlier ones were lost (a hole).
//! Now the open removes the close marker (durably) before writing continues in the file:
//! the file keeps every byte before the marker, the marker's place holds the new records,
//! and a crash at any point leaves no marker in the middle of the log.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options, WriteOptions};

const DIR: &str = "/db";

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(1 << 20)
        .value_file_size(1 << 20)
        .inline_threshold(64)
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
fn a_reopened_database_overwrites_no_marker_but_removes_it_first() {
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
    // The log continues in the same file, from where the marker began. A file that was not
    // there at close can only be the log thread's spare, which holds no record yet.
    let (last_closed, _) = closed.last().unwrap();
    for path in logs(&fs) {
        if path > *last_closed {
            let len = fs.read_file(&path).unwrap().len();
            assert!(
                len <= 64,
                "a new value file {} holds records ({len} bytes)",
                path.display()
            );
        }
    }
    let (path, old) = closed.last().unwrap();
    let now = fs.read_file(path).unwrap();
    let marker_at = old.len() - twain::vlog::MARKER_FRAME_LEN as usize;
    assert!(
        now.len() > old.len(),
        "nothing appended to {}",
        path.display()
    );
    assert!(
        now[..marker_at] == old[..marker_at],
        "the bytes before the marker changed"
    );
    assert!(
        now[marker_at..old.len()] != old[marker_at..],
        "the close marker is still in the middle of {}",
        path.display()
    );
    db.close().unwrap();
    let db = Db::open(DIR, options(&fs)).unwrap();
    assert_eq!(db.get("k049").unwrap(), Some(vec![2u8; 200]));
}
