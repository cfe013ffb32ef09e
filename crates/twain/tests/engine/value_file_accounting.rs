//! Drop records and value-file byte counts: compaction records the separated entries it
//! drops, the counts survive restarts, and value files with nothing live are deleted — so a
//! small-value workload's log does not grow without bound.

use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::vlog::read_drop_set;
use twain::{Db, Options};

const DIR: &str = "/db";

fn options(fs: &MemFs, inline_threshold: usize) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(inline_threshold)
        .l0_compaction_trigger(2)
        .l1_target_size(128 << 10)
        // These tests check drop accounting; value GC would rewrite the files under them.
        .gc_enabled(false)
}

fn count(fs: &MemFs, ext: &str) -> usize {
    fs.file_names(Path::new(DIR))
        .iter()
        .filter(|n| n.ends_with(ext))
        .count()
}

#[test]
fn small_value_logs_are_deleted_once_flushed() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, 1 << 20)).unwrap();
    let mut most = 0;
    for round in 0..20u32 {
        for i in 0..2000u32 {
            db.put(format!("k{:05}", i % 500), format!("value {round} {i}"))
                .unwrap();
        }
        db.flush().unwrap();
        // The files of the current version: an obsolete file is deleted once no reader
        // (a background pass on a loaded machine, say) holds its version any more.
        most = most.max(db.stats().unwrap().value_files.len());
    }
    // And on disk, once those readers let go.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while count(&fs, ".vlog") > 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "obsolete logs stay on disk"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let s = db.stats().unwrap();
    // About 20 * 2000 * 23 bytes of log were written (the puts join one batch record per
    // log buffer): more than ten value files' worth.
    assert!(
        s.log_bytes_written > 10 * (64 << 10),
        "log bytes {}",
        s.log_bytes_written
    );
    assert!(most <= 3, "{most} value files alive at once");
    assert_eq!(s.value_files.iter().filter(|v| !v.is_log).count(), 0);
}

#[test]
fn overwritten_separated_values_are_recorded_as_drops_and_counted_after_restart() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, 64)).unwrap();
    for i in 0..300u32 {
        db.put(format!("k{i:04}"), vec![1u8; 500]).unwrap();
    }
    db.flush().unwrap();
    let first_files: Vec<u64> = db
        .stats()
        .unwrap()
        .value_files
        .iter()
        .map(|v| v.number)
        .collect();
    // Overwrite every other key, then compact everything: the old versions are dropped,
    // and every value file keeps live entries (so none is deleted).
    for i in (0..300u32).step_by(2) {
        db.put(format!("k{i:04}"), vec![2u8; 500]).unwrap();
    }
    db.compact_range(None, None).unwrap();
    let before = db.stats().unwrap();
    assert!(
        before.drop_records >= 150,
        "drop records {}",
        before.drop_records
    );
    let dropped: u64 = before.value_files.iter().map(|v| v.dropped_bytes).sum();
    assert!(dropped >= 150 * 500, "dropped bytes {dropped}");
    for v in &before.value_files {
        assert!((0.0..=1.0).contains(&v.valid_rate));
        assert!(v.dropped_bytes <= v.separated_bytes);
    }
    // The drop sets on disk name exactly the dropped records of the first value files.
    let mut on_disk = 0;
    for &n in &first_files {
        let path = Path::new(DIR).join(format!("{n:06}.drop"));
        on_disk += read_drop_set(&fs, &path, n).unwrap().len();
    }
    assert!(on_disk >= 150, "drop sets hold {on_disk} records");
    let per_file = |s: &twain::Stats| {
        s.value_files
            .iter()
            .filter(|v| !v.is_log)
            .map(|v| (v.number, v.total_bytes, v.separated_bytes, v.dropped_bytes))
            .collect::<Vec<_>>()
    };
    let counts = per_file(&before);
    drop(db);
    let db = Db::open(DIR, options(&fs, 64)).unwrap();
    assert_eq!(
        per_file(&db.stats().unwrap()),
        counts,
        "counts changed across a restart"
    );
    for i in 0..300u32 {
        let want = if i % 2 == 0 { 2u8 } else { 1 };
        assert_eq!(db.get(format!("k{i:04}")).unwrap(), Some(vec![want; 500]));
    }
}

#[test]
fn a_value_file_whose_entries_are_all_dropped_is_deleted() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, 64)).unwrap();
    for i in 0..200u32 {
        db.put(format!("k{i:04}"), vec![1u8; 600]).unwrap();
    }
    db.flush().unwrap();
    let old: Vec<u64> = db
        .stats()
        .unwrap()
        .value_files
        .iter()
        .map(|v| v.number)
        .collect();
    for i in 0..200u32 {
        db.delete(format!("k{i:04}")).unwrap();
    }
    db.compact_range(None, None).unwrap();
    // Small puts (about 95 KB of log, inline) fill the active log, so the log rolls and
    // every file of the first round is sealed and dead; a flush records it.
    for i in 0..5000u32 {
        db.put(format!("f{i:05}"), "0123456789").unwrap();
    }
    db.flush().unwrap();
    let live: Vec<u64> = db
        .stats()
        .unwrap()
        .value_files
        .iter()
        .map(|v| v.number)
        .collect();
    let names = fs.file_names(Path::new(DIR));
    for n in old.iter().filter(|n| !live.contains(n)) {
        assert!(
            !names.contains(&format!("{n:06}.vlog")),
            "dead value file {n} kept"
        );
        assert!(
            !names.contains(&format!("{n:06}.drop")),
            "drop file of {n} kept"
        );
    }
    assert!(
        old.iter().filter(|n| !live.contains(n)).count() >= 2,
        "no dead value file was deleted: old {old:?}, live {live:?}"
    );
}

#[test]
fn files_stay_while_an_iterator_reads_them() {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, 64)).unwrap();
    for i in 0..200u32 {
        db.put(format!("k{i:04}"), vec![(i % 200) as u8; 600])
            .unwrap();
    }
    db.flush().unwrap();
    let mut it = db.iter();
    assert_eq!(it.next().unwrap().unwrap().0, b"k0000");
    for i in 0..200u32 {
        db.delete(format!("k{i:04}")).unwrap();
    }
    db.compact_range(None, None).unwrap();
    db.put("z", "1").unwrap();
    db.flush().unwrap();
    assert_eq!(db.iter().count(), 1);
    // The old iterator still reads every old value: its tables and value files survive.
    let rest: Vec<_> = it.by_ref().map(|r| r.unwrap()).collect();
    assert_eq!(rest.len(), 199);
    assert_eq!(rest[10].1, vec![11u8; 600]);
    let before = count(&fs, ".sst") + count(&fs, ".vlog");
    drop(it);
    // The background's readers (the live-data pass holds a version while it walks the
    // keys) may keep the old files a moment longer: wait for them, bounded.
    let files = || count(&fs, ".sst") + count(&fs, ".vlog");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while files() >= before && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let after = files();
    assert!(
        after < before,
        "dropping the iterator released no file ({before} -> {after})"
    );
}
