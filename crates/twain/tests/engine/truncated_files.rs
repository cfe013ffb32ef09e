//! Truncated and damaged files are corruption naming the file and an offset, never taken
//! for a torn write (found by `reliability_corruption.rs`).
//!
//! - Table: `TableFile::open` compares the file's size with the manifest's record, and a
//!   table the manifest names that is missing is corruption naming it.
//! - Manifest: an incomplete or damaged last edit is what a crash during that edit leaves
//!   (the edit was never acknowledged; the open goes on without it), and also what
//!   truncation or damage of acknowledged edits leaves. The manifest alone cannot tell them
//!   apart; two witnesses outside it can (`db::open`): the value log's close marker,
//!   written after the manifest's last edit at a clean close, and a file the version
//!   before the tail names that is gone (a file is deleted only once the edit that drops
//!   it is durable).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{CrashOptions, Fs, MemFs};
use twain::{Db, Error, Options};

const DIR: &str = "/db";

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .value_file_size(8 << 10)
        .inline_threshold(64)
        .gc_enabled(false)
}

/// Three flushed rounds of 60 keys, compacted (the flushed tables deleted), and a fourth
/// flushed round: the open database and its file system.
fn build() -> (MemFs, Db) {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs)).unwrap();
    for round in 0..4u8 {
        for i in 0..60u32 {
            db.put(format!("k{i:03}"), vec![round; 200]).unwrap();
        }
        db.flush().unwrap();
        if round == 2 {
            db.compact_range(None, None).unwrap();
        }
    }
    (fs, db)
}

fn first(fs: &MemFs, ext: &str) -> PathBuf {
    let name = fs
        .file_names(Path::new(DIR))
        .into_iter()
        .find(|n| n.ends_with(ext))
        .unwrap();
    Path::new(DIR).join(name)
}

fn assert_corruption_of(result: Result<Db, Error>, file: &Path) {
    match result {
        Err(Error::Corruption { file: f, .. }) if f == file => {}
        Err(e) => panic!("expected corruption in {}, got: {e}", file.display()),
        Ok(_) => panic!("the damaged database opened"),
    }
}

fn manifest(fs: &MemFs) -> PathBuf {
    first(fs, ".manifest")
}

/// Appends the start of an edit that never finished: a frame header claiming more bytes
/// than follow.
fn append_torn_edit(fs: &MemFs, path: &Path) {
    let mut bytes = fs.read_file(path).unwrap();
    bytes.extend_from_slice(&[0x11, 0x22, 0x33, 0x44, 0x40, 0, 0, 0, 1, 2, 3]);
    fs.write_file(path, &bytes).unwrap();
}

fn corruption_of(result: Result<Db, Error>) -> (PathBuf, u64, String) {
    match result {
        Err(Error::Corruption { file, offset, what }) => (file, offset, what),
        Err(e) => panic!("expected corruption, got: {e}"),
        Ok(_) => panic!("the damaged database opened"),
    }
}

fn assert_all_rounds_read(db: &Db, round: u8) {
    for i in 0..60u32 {
        let got = db.get(format!("k{i:03}")).unwrap();
        assert_eq!(got.as_deref(), Some(&[round; 200][..]), "k{i:03}");
    }
}

#[test]
fn a_torn_last_edit_after_a_crash_opens_with_everything_acknowledged() {
    let (fs, db) = build();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    drop(db);
    append_torn_edit(&image, &manifest(&image));
    let db = Db::open(DIR, options(&image)).unwrap();
    assert_all_rounds_read(&db, 3);
    db.close().unwrap();
    let db = Db::open(DIR, options(&image)).unwrap();
    assert_all_rounds_read(&db, 3);
}

#[test]
fn a_torn_tail_after_a_clean_close_is_corruption_naming_the_manifest() {
    let (fs, db) = build();
    db.close().unwrap();
    let path = manifest(&fs);
    let intact = fs.file_size(&path).unwrap();
    append_torn_edit(&fs, &path);
    let (file, offset, what) = corruption_of(Db::open(DIR, options(&fs)));
    assert_eq!(file, path);
    assert_eq!(offset, intact, "{what}");
    assert!(what.contains("closed cleanly"), "{what}");
    // Nothing was changed: the same open fails the same way, and so does a read-only one.
    let again = corruption_of(Db::open(DIR, options(&fs)));
    assert_eq!((again.0, again.1), (path.clone(), intact));
    let read_only = corruption_of(Db::open_read_only(DIR, options(&fs)));
    assert_eq!((read_only.0, read_only.1), (path, intact));
}

/// The spare value file the log thread keeps ready is deleted, durably, before the close
/// marker is written: a snapshot that outlives the close keeps the engine's files open,
/// and a power loss then must not leave an empty value file newer than the marker.
#[test]
fn a_power_loss_after_a_close_with_a_snapshot_alive_keeps_the_marker_newest() {
    let (fs, db) = build();
    let snapshot = db.snapshot();
    // Time for the log thread to make the spare that the last roll took.
    std::thread::sleep(std::time::Duration::from_millis(100));
    db.close().unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    drop(snapshot);
    let logs = image
        .file_names(Path::new(DIR))
        .into_iter()
        .filter(|n| n.ends_with(".vlog"))
        .count();
    let path = manifest(&image);
    let intact = image.file_size(&path).unwrap();
    append_torn_edit(&image, &path);
    let (file, offset, what) = corruption_of(Db::open(DIR, options(&image)));
    assert_eq!((file, offset), (path, intact), "{what} ({logs} value logs)");
    assert!(what.contains("closed cleanly"), "{what}");
}

#[test]
fn a_crash_image_cut_before_a_compaction_edit_blames_the_manifest_not_the_tables() {
    let (fs, db) = build();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    drop(db);
    let path = manifest(&image);
    let bytes = image.read_file(&path).unwrap();
    // Cut inside the first half: the version there names the flushed tables the
    // compaction deleted, and no close marker vouches for anything.
    image.write_file(&path, &bytes[..bytes.len() / 3]).unwrap();
    let (file, _, what) = corruption_of(Db::open(DIR, options(&image)));
    assert_eq!(file, path, "{what}");
    assert!(what.contains("which is gone"), "{what}");
    assert!(what.contains("repair"), "points to repair: {what}");
}

#[test]
fn a_missing_table_is_corruption_naming_it() {
    let (fs, db) = build();
    db.close().unwrap();
    let table = first(&fs, ".sst");
    fs.remove_file(&table).unwrap();
    let (file, offset, what) = corruption_of(Db::open(DIR, options(&fs)));
    assert_eq!((file, offset), (table, 0), "{what}");
    assert!(what.contains("missing"), "{what}");
}

#[test]
fn a_clean_close_then_reopen_keeps_working() {
    let (fs, db) = build();
    db.close().unwrap();
    for round in 4..6u8 {
        let db = Db::open(DIR, options(&fs)).unwrap();
        assert_all_rounds_read(&db, round - 1);
        for i in 0..60u32 {
            db.put(format!("k{i:03}"), vec![round; 200]).unwrap();
        }
        db.close().unwrap();
    }
    let db = Db::open(DIR, options(&fs)).unwrap();
    assert_all_rounds_read(&db, 5);
}

#[test]
fn check_calls_the_tail_a_problem_after_a_clean_close_and_a_note_after_a_crash() {
    use twain::check::{CheckOptions, check};
    let report_for = |fs: &MemFs| {
        check(
            Path::new(DIR),
            &CheckOptions {
                fs: Arc::new(fs.clone()),
                ..CheckOptions::default()
            },
        )
        .unwrap()
    };
    let (fs, db) = build();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    db.close().unwrap();
    append_torn_edit(&fs, &manifest(&fs));
    let r = report_for(&fs);
    assert!(
        r.problems.iter().any(|f| f.file == manifest(&fs)),
        "{}",
        r.to_text()
    );
    append_torn_edit(&image, &manifest(&image));
    let r = report_for(&image);
    assert!(r.problems.is_empty(), "{}", r.to_text());
    assert!(
        r.notes.iter().any(|f| f.file == manifest(&image)),
        "{}",
        r.to_text()
    );
}

#[test]
fn repair_rebuilds_a_manifest_cut_after_a_clean_close() {
    let (fs, db) = build();
    db.close().unwrap();
    let path = manifest(&fs);
    let bytes = fs.read_file(&path).unwrap();
    fs.write_file(&path, &bytes[..bytes.len() / 2]).unwrap();
    corruption_of(Db::open(DIR, options(&fs)));
    let report = twain::repair(Path::new(DIR), &options(&fs)).unwrap();
    assert!(report.reused_manifest.is_none(), "{report:?}");
    let db = Db::open(DIR, options(&fs)).unwrap();
    assert_all_rounds_read(&db, 3);
}

#[test]
fn truncated_table_is_corruption_naming_the_table() {
    let (fs, db) = build();
    db.close().unwrap();
    let sst = first(&fs, ".sst");
    let len = fs.file_size(&sst).unwrap();
    fs.truncate(&sst, len - 10).unwrap();
    assert_corruption_of(Db::open(DIR, options(&fs)), &sst);
}

#[test]
fn manifest_truncated_in_the_middle_is_corruption_naming_the_manifest() {
    let (fs, db) = build();
    db.close().unwrap();
    let manifest = manifest(&fs);
    let len = fs.file_size(&manifest).unwrap();
    fs.truncate(&manifest, len / 2).unwrap();
    assert_corruption_of(Db::open(DIR, options(&fs)), &manifest);
}

#[test]
fn damaged_last_manifest_edit_is_corruption_naming_the_manifest() {
    let (fs, db) = build();
    db.close().unwrap();
    let manifest = manifest(&fs);
    let len = fs.file_size(&manifest).unwrap();
    fs.corrupt(&manifest, len - 4, 0x10).unwrap();
    assert_corruption_of(Db::open(DIR, options(&fs)), &manifest);
}
