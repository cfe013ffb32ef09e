//! Value GC frees clustered garbage by punching holes (issue 10, item 4): the file keeps
//! its number and epoch, its allocated blocks drop by about the dead run, every key still
//! reads its value, `twain check` passes, and so does a reopen. The punched bytes are
//! counted, persist across the reopen, and the file is not picked again for them.

use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{DIR, assert_check_ok, assert_model, clustered, options, value_file_blocks};

#[test]
fn clustered_garbage_is_punched_not_copied() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    let model = clustered(&db);
    let before = value_file_blocks(&mem);
    let first = db.stats().unwrap().value_files[0].clone();
    assert_eq!(first.epoch, 0);

    let report = db.gc_report().unwrap();
    assert!(report.punched >= 1, "{report}");
    let after = value_file_blocks(&mem);
    let name = format!("{:06}.vlog", first.number);
    // The first file holds 200 dead records of about 1 KiB in one run: nearly all of it
    // is freed, and nothing was copied into an SVTable.
    let freed = before[&name] - after[&name];
    assert!(
        freed >= 180 * 1024,
        "freed {freed}: {before:?} -> {after:?}"
    );
    assert!(!after.keys().any(|n| n.ends_with(".svt")), "{after:?}");
    let stats = db.stats().unwrap();
    let again = punchutil::file(&stats, first.number);
    assert_eq!(again.epoch, 0);
    assert!(
        stats.gc_punched_bytes >= freed,
        "{}",
        stats.gc_punched_bytes
    );
    assert!(stats.gc_punch_runs >= 1);
    assert_eq!(stats.totals.gc_punched_bytes, stats.gc_punched_bytes);
    // Disk usage counts allocated blocks: the punched file counts what is left.
    assert!(stats.disk.total() <= after.values().sum::<u64>() + (1 << 20));
    assert!(
        stats.to_text().contains("GC punching"),
        "{}",
        stats.to_text()
    );
    assert_model(&db, &model);

    // Not picked again for the same garbage: another GC punches and copies nothing.
    let report = db.gc_report().unwrap();
    assert_eq!(report.punched, 0, "{report}");
    assert_eq!(value_file_blocks(&mem)[&name], after[&name]);

    db.close().unwrap();
    assert_check_ok(Arc::clone(&fs));
    let db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    assert_model(&db, &model);
    let stats = db.stats().unwrap();
    assert!(stats.totals.gc_punched_bytes >= freed);
    assert_eq!(stats.gc_punched_bytes, 0, "since this open");
    // New writes, flushes, compactions and GC go on over the punched file.
    let mut model = model;
    for k in 0..100u32 {
        let key = punchutil::key(k * 3);
        db.put(&key, punchutil::value(k * 3, 2)).unwrap();
        model.insert(key, punchutil::value(k * 3, 2));
    }
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
    assert_model(&db, &model);
    db.close().unwrap();
    assert_check_ok(fs);
}
