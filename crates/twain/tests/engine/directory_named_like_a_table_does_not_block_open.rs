//! Issue 19, finding 12: a directory named `000300.sst` blocked every open (open tried to
//! remove it as an orphan). Entries that are not the engine's files — a directory or FIFO
//! named like a table or value file, an unknown name — are skipped, never removed, counted
//! by `Db::unexpected_entries` and listed by `twain check`, which still says OK.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs, RealFs};
use twain::{Db, Options, WriteOptions};

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(32 << 10)
        .inline_threshold(64)
}

fn fill(dir: &Path, fs: &Arc<dyn Fs>) {
    let db = Db::open(dir, options(Arc::clone(fs))).unwrap();
    for i in 0..300u32 {
        db.put_opt(format!("k{i:03}"), vec![b'v'; 100], &WriteOptions::synced())
            .unwrap();
    }
    db.flush().unwrap();
    db.put("tail", "in the log").unwrap();
}

/// Opens with the strangers in place, twice (the second open must not have removed them),
/// and checks the data, the report of `Db` and the report of `check`.
fn strangers_are_left_alone(dir: &Path, fs: Arc<dyn Fs>, strangers: &[&str]) {
    let mut want: Vec<PathBuf> = strangers.iter().map(|s| dir.join(s)).collect();
    want.sort();
    for round in 0..2 {
        let db = Db::open(dir, options(Arc::clone(&fs))).unwrap();
        assert_eq!(db.get("k150").unwrap(), Some(vec![b'v'; 100]));
        assert_eq!(db.get("tail").unwrap(), Some(b"in the log".to_vec()));
        assert_eq!(db.iter().count(), 301 + round);
        assert_eq!(db.unexpected_entries(), want.as_slice());
        db.put("more", "x").unwrap();
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
    }
    let ro = Db::open_read_only(dir, options(Arc::clone(&fs))).unwrap();
    assert_eq!(ro.unexpected_entries(), want.as_slice());
    drop(ro);
    for s in strangers {
        assert!(fs.exists(&dir.join(s)).unwrap(), "{s} was removed");
    }
    let report = check(
        dir,
        &CheckOptions {
            fs,
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.is_ok(), "{}", report.to_text());
    let listed: Vec<PathBuf> = report.unexpected.iter().map(|f| f.file.clone()).collect();
    assert_eq!(listed, want);
    assert!(report.orphans.is_empty(), "{:?}", report.orphans);
    let text = report.to_text();
    assert!(
        text.contains("000300.sst: named like a twain file but not a regular file"),
        "{text}"
    );
}

#[test]
fn directory_named_like_a_table_on_memfs() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = Path::new("/db");
    fill(dir, &fs);
    fs.create_dir_all(&dir.join("000300.sst")).unwrap();
    // Named like a value file past the flushed point: recovery would replay it.
    fs.create_dir_all(&dir.join("999999.vlog")).unwrap();
    let mut notes = fs.create(&dir.join("notes.txt")).unwrap();
    notes.append(b"mine").unwrap();
    drop(notes);
    strangers_are_left_alone(dir, fs, &["000300.sst", "999999.vlog", "notes.txt"]);
}

#[test]
fn directory_and_fifo_named_like_twain_files_on_the_real_fs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    fill(dir, &fs);
    std::fs::create_dir(dir.join("000300.sst")).unwrap();
    std::fs::write(dir.join("000300.sst").join("inside"), b"x").unwrap();
    std::fs::write(dir.join("README"), b"operator notes").unwrap();
    let mut strangers = vec!["000300.sst", "README"];
    let fifo = std::process::Command::new("mkfifo")
        .arg(dir.join("999998.drop"))
        .status();
    if fifo.is_ok_and(|s| s.success()) {
        strangers.push("999998.drop");
    }
    strangers.sort();
    strangers_are_left_alone(dir, fs, &strangers);
    assert!(dir.join("000300.sst").join("inside").exists());
}
