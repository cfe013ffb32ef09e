//! Where the file system cannot punch holes, value GC rewrites instead: the file whose runs
//! it had recorded is rewritten (its garbage freed all the same), the database remembers
//! that punching is unsupported and says so in `stats`, and later runs do not try again
//! (no retry storm) until the database is reopened.

use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{
    DIR, assert_check_ok, assert_model, clustered, key, options, value, value_file_blocks,
};

#[test]
fn without_punch_support_gc_rewrites_and_does_not_retry() {
    let mem = MemFs::new();
    mem.set_punch_hole_support(false);
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    let mut model = clustered(&db);
    let first = db.stats().unwrap().value_files[0].number;
    let before = value_file_blocks(&mem)[&format!("{first:06}.vlog")];

    db.gc_report().unwrap();
    let stats = db.stats().unwrap();
    assert!(stats.gc_punch_unsupported);
    assert!(
        stats.to_text().contains("cannot punch holes"),
        "{}",
        stats.to_text()
    );
    assert_eq!(
        mem.op_counts().punches,
        0,
        "MemFs counts only punches it made"
    );
    // The file was rewritten instead: its garbage is gone all the same.
    let file = punchutil::file(&stats, first);
    assert_eq!(file.epoch, 1);
    let after = value_file_blocks(&mem)[&format!("{first:06}-1.svt")];
    assert!(after < before / 2, "{before} -> {after}");
    assert_model(&db, &model);
    let tried = stats.gc_punch_runs;

    // More clustered garbage in the second file: GC rewrites it without trying to punch.
    for k in 200..400u32 {
        db.put(key(k), value(k, 2)).unwrap();
        model.insert(key(k), value(k, 2));
    }
    db.compact_range(None, None).unwrap();
    let report = db.gc_report().unwrap();
    assert!(report.collected >= 1, "{report}");
    assert_eq!(report.punched, 0, "{report}");
    assert_eq!(db.stats().unwrap().gc_punch_runs, tried);
    assert_model(&db, &model);
    db.close().unwrap();
    assert_check_ok(Arc::clone(&fs));
    let db = Db::open(DIR, options(fs)).unwrap();
    assert_model(&db, &model);
}
