//! Parallax's medium class end to end: the log holds medium pairs inline (so a log of
//! medium pairs dies at flush), the flush moves their values into a sorted transient value
//! file and gives the table handles, and the compaction that writes them into the last
//! level merges them inline again, after which the transient file is deleted whole, with no
//! value GC run. Small and large pairs keep their places throughout.

use crate::dbutil;

use std::collections::BTreeMap;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(256 << 10)
        .medium_threshold(64)
        .inline_threshold(1024)
        // Nothing merges on its own: the test compacts.
        .l0_compaction_trigger(100)
        .l0_slowdown_trigger(100)
        .l0_stop_trigger(100)
        .gc_enabled(false)
}

fn files_ending(fs: &MemFs, suffix: &str) -> Vec<String> {
    files_ending_in(&(Arc::new(fs.clone()) as Arc<dyn Fs>), suffix)
}

fn table_handles(db: &Db, fs: &MemFs) -> u64 {
    dbutil::table_handles(db, fs, "/db")
}

fn files_ending_in(fs: &Arc<dyn Fs>, suffix: &str) -> Vec<String> {
    fs.list_dir(std::path::Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(suffix))
        .collect()
}

fn value(i: u32, len: usize) -> Vec<u8> {
    (0..len).map(|j| (i as usize * 31 + j) as u8).collect()
}

#[test]
fn medium_values_go_to_a_transient_file_and_merge_back_at_the_last_level() {
    let fs = MemFs::new();
    let db = Db::open("/db", options(&fs)).unwrap();
    let mut model = BTreeMap::new();
    // Three classes: 20 B values are small, 300 B medium, 2000 B large.
    for i in 0..600u32 {
        let key = format!("key{i:05}").into_bytes();
        let len = [20, 300, 300, 2000][(i % 4) as usize];
        let v = value(i, len);
        db.put(&key, &v).unwrap();
        model.insert(key, v);
    }
    db.flush().unwrap();
    let s = db.stats().unwrap();
    assert!(s.transient_files >= 1, "{}", s.to_text());
    assert!(s.transient_bytes >= 300 * 300, "{}", s.to_text());
    assert!(s.totals.transient_bytes_written >= s.transient_bytes);
    assert_eq!(s.totals.medium_bytes_written, 300 * (300 + 8));
    assert_eq!(s.totals.small_bytes_written, 150 * (20 + 8));
    assert_eq!(s.totals.large_bytes_written, 150 * (2000 + 8));
    assert!(!files_ending(&fs, "-1.svt").is_empty());
    // The tables hold handles for the medium and large values, inline the small ones.
    let handles = table_handles(&db, &fs);
    assert_eq!(handles, 450);
    for (k, v) in &model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }

    // Compacting into the last level merges the medium values inline; the transient file
    // has nothing referenced any more and goes.
    db.compact_range(None, None).unwrap();
    let s = db.stats().unwrap();
    assert_eq!(s.transient_files, 0, "{}", s.to_text());
    // The file goes once no reader holds a version naming it (a background live-data pass
    // may hold one for a moment).
    assert!(
        dbutil::wait_until(dbutil::BACKGROUND_DEADLINE, || files_ending(&fs, "-1.svt")
            .is_empty()),
        "{:?}",
        files_ending(&fs, "-1.svt")
    );
    assert!(s.totals.transient_bytes_freed > 0);
    assert_eq!(s.totals.medium_bytes_merged, 300 * 300);
    assert_eq!(s.gc_runs, 0);
    assert_eq!(
        table_handles(&db, &fs),
        150,
        "only the large values keep handles"
    );
    for (k, v) in &model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }
    let scanned: Vec<_> = db.iter().map(|kv| kv.unwrap()).collect();
    assert_eq!(scanned.len(), model.len());
    assert!(
        scanned
            .iter()
            .zip(&model)
            .all(|(a, b)| &a.0 == b.0 && &a.1 == b.1)
    );
    db.close().unwrap();

    // The placement survives a reopen.
    let db = Db::open("/db", options(&fs)).unwrap();
    for (k, v) in &model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }
    let s = db.stats().unwrap();
    assert_eq!(s.totals.medium_bytes_merged, 300 * 300);
}

#[test]
fn a_log_of_medium_pairs_dies_at_its_flush() {
    let fs = MemFs::new();
    let opts = options(&fs).value_file_size(32 << 10);
    let db = Db::open("/db", opts).unwrap();
    for i in 0..2000u32 {
        db.put(format!("key{i:05}"), value(i, 300)).unwrap();
    }
    db.flush().unwrap();
    let s = db.stats().unwrap();
    // Every log file wholly before the flushed point held no separated entry: the flush's
    // edit deleted it, with no value GC. What stays in the version are the transient files
    // and the log being written (and its spare). (The directory may keep a deleted file a
    // moment longer, while a background reader still holds an older version.)
    let logs: Vec<u64> = s
        .value_files
        .iter()
        .filter(|f| f.is_log)
        .map(|f| f.number)
        .collect();
    assert!(logs.len() <= 2, "{logs:?}\n{}", s.to_text());
    assert!(s.totals.gc_files_deleted_unread >= 10, "{}", s.to_text());
    assert_eq!(s.gc_runs, 0);
    assert!(s.transient_files >= 1);
}

#[test]
fn a_table_moved_down_whole_still_merges_its_medium_values() {
    // One L0 table and nothing below it: the automatic compaction would move it down as it
    // is, into a level where placement merges medium pairs, leaving its transient file
    // alive with no compaction due to merge it. It is rewritten instead.
    let fs = MemFs::new();
    let opts = options(&fs)
        .l0_compaction_trigger(1)
        .l0_slowdown_trigger(20)
        .l0_stop_trigger(30);
    let db = Db::open("/db", opts).unwrap();
    let mut model = BTreeMap::new();
    for i in 0..200u32 {
        let key = format!("key{i:05}").into_bytes();
        let v = value(i, [20, 300][(i % 2) as usize]);
        db.put(&key, &v).unwrap();
        model.insert(key, v);
    }
    db.flush().unwrap();
    assert!(
        dbutil::wait_until(dbutil::BACKGROUND_DEADLINE, || {
            let s = db.stats().unwrap();
            s.levels[0].files == 0
                && s.transient_files == 0
                && s.totals.medium_bytes_merged == 100 * 300
                && s.totals.transient_bytes_freed > 0
        }),
        "{}",
        db.stats().unwrap().to_text()
    );
    let s = db.stats().unwrap();
    assert_eq!(s.totals.medium_bytes_merged, 100 * 300, "{}", s.to_text());
    assert!(s.totals.transient_bytes_freed > 0);
    assert_eq!(s.trivial_moves, 0, "the move became a merge");
    assert_eq!(
        table_handles(&db, &fs),
        0,
        "every medium value is inline again"
    );
    for (k, v) in &model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }

    // Without a medium class the same table is moved as it is.
    let fs = MemFs::new();
    let opts = options(&fs)
        .medium_threshold(1024)
        .l0_compaction_trigger(1)
        .l0_slowdown_trigger(20)
        .l0_stop_trigger(30);
    let db = Db::open("/db", opts).unwrap();
    for (k, v) in &model {
        db.put(k, v).unwrap();
    }
    db.flush().unwrap();
    // (The move's counter is added just after its version is installed: wait for both.)
    assert!(
        dbutil::wait_until(dbutil::BACKGROUND_DEADLINE, || {
            let s = db.stats().unwrap();
            s.levels[0].files == 0 && s.trivial_moves == 1
        }),
        "{}",
        db.stats().unwrap().to_text()
    );
}
