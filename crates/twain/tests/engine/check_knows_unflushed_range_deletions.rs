//! `twain::check` judges table handles by the range deletions still in the log too: after
//! lsm-lookup GC reclaimed a record that only an unflushed range deletion hid, the handle
//! left in a table is a shadowed version's (a note), not a dangling one (a problem).

use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, Options};

#[test]
fn a_handle_hidden_by_a_range_deletion_in_the_log_is_no_problem() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = std::path::Path::new("/db");
    let opts = || {
        Options::default()
            .fs(Arc::clone(&fs))
            .gc_mode(GcMode::LsmLookup)
            .gc_enabled(false)
            .gc_threshold(1.0)
            .inline_threshold(64)
            .value_file_size(64 << 10)
    };
    let db = Db::open(dir, opts()).unwrap();
    // Separated values in their own value files, then sealed: GC can take them.
    for i in 0..100u32 {
        db.put(format!("k{i:03}"), vec![b'v'; 2000]).unwrap();
    }
    db.flush().unwrap();
    db.put("zz", vec![b'z'; 80_000]).unwrap();
    db.delete_range("k000", "k100").unwrap();
    let collected = db.gc().unwrap();
    assert!(collected > 0, "no value file collected");
    assert_eq!(db.get("k050").unwrap(), None);
    drop(db);
    let report = check(
        dir,
        &CheckOptions {
            fs: Arc::clone(&fs),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.is_ok(), "{report:?}");
    let db = Db::open(dir, opts()).unwrap();
    assert_eq!(db.get("k050").unwrap(), None);
    assert_eq!(db.iter().count(), 1);
}
