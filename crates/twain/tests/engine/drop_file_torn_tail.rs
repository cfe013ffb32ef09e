//! Regression test (currently failing, so ignored): a drop file whose last block was torn
//! by a crash must not hide or poison the drop blocks appended after recovery.
//!
//! Found by `reliability_crash_points.rs`: a crash while a flush or compaction appends a
//! drop block leaves a torn block at the end of the drop file (a prefix of the unsynced
//! block, possibly with a garbage sector). Recovery does not look at drop files, and
//! `DropWriter::persist` (src/vlog/drops.rs) reopens an existing drop file with
//! `open_append` at its current end, so the next compaction's block lands *after* the
//! torn bytes. `read_drop_set` then either stops at the torn block (the later drops,
//! which the manifest counts, are silently missing) or finds an intact block after the
//! damage and reports the whole file as corrupt. Value GC, which reads drop sets, would
//! keep dead values forever or fail.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::vlog::read_drop_set;
use twain::{Db, Options};

const DIR: &str = "/db";

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .inline_threshold(16)
        .value_file_size(1 << 20)
}

/// Writes every key twice with separated values, flushing each round, then compacts: the
/// compaction drops the first round and appends one block to the drop file of the value file.
fn overwrite_and_compact(db: &Db, round: u8) {
    for r in 0..2u8 {
        for i in 0..20u32 {
            db.put(format!("k{i:02}"), vec![round * 2 + r; 100])
                .unwrap();
        }
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
}

/// The first drop file and the number of its value file.
fn drop_file(fs: &MemFs) -> (PathBuf, u64) {
    let name = fs
        .file_names(Path::new(DIR))
        .into_iter()
        .find(|n| n.ends_with(".drop"))
        .expect("a drop file");
    let number = name.trim_end_matches(".drop").parse().unwrap();
    (Path::new(DIR).join(name), number)
}

#[test]
fn drops_appended_after_a_torn_drop_block_stay_readable() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs)).unwrap();
    overwrite_and_compact(&db, 0);
    db.close().unwrap();
    let (path, number) = drop_file(&fs);
    let before = read_drop_set(&fs, &path, number).unwrap().len();
    assert_eq!(before, 20, "the first compaction drops 20 values");

    // A crash while appending the next block leaves a torn prefix of it (as the MemFs
    // power-loss model keeps): here the first 6 bytes of a frame header.
    {
        let mut f = fs.open_append(&path).unwrap();
        f.append(&[0x11, 0x22, 0x33, 0x44, 40, 0]).unwrap();
        f.sync_data().unwrap();
    }

    let db = Db::open(DIR, options(&fs)).unwrap();
    overwrite_and_compact(&db, 1);
    db.close().unwrap();

    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs: Arc::new(fs.clone()),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    let set = read_drop_set(&fs, &path, number);
    assert!(
        report.is_ok(),
        "twain check: {}\nread_drop_set: {:?}",
        report.to_text(),
        set.as_ref().map(|s| s.len())
    );
    assert!(set.unwrap().len() > before);
}
