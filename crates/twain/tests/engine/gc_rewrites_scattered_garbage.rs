//! Value GC rewrites a file whose garbage is scattered (every other record dead): punching
//! would free no whole block, so the cost rule picks the rewrite, and nothing is punched.

use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{DIR, assert_check_ok, assert_model, options, scattered};

#[test]
fn scattered_garbage_is_rewritten_not_punched() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    let model = scattered(&db);
    let first = db.stats().unwrap().value_files[0].number;
    let report = db.gc_report().unwrap();
    assert!(report.collected >= 1, "{report}");
    assert_eq!(report.punched, 0, "{report}");
    let stats = db.stats().unwrap();
    assert_eq!(stats.gc_punched_bytes, 0);
    assert_eq!(mem.op_counts().punches, 0);
    let file = punchutil::file(&stats, first);
    assert_eq!(
        file.epoch, 1,
        "the first file was rewritten into an SVTable"
    );
    assert_model(&db, &model);
    db.close().unwrap();
    assert_check_ok(fs);
}
