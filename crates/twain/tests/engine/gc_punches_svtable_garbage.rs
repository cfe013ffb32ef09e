//! Value GC punches an SVTable too: an SVTable holds its records sorted by key, so
//! overwriting a key range leaves them in one dead run. After a first GC rewrote a value
//! log into an SVTable, overwriting the range it starts with and collecting again punches
//! the SVTable in place (same epoch, fewer allocated blocks); every key reads its value,
//! `twain check` passes, `twain dump` lists the run, and the database reopens.

use std::path::Path;
use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{
    DIR, assert_check_ok, assert_model, key, options, scattered, value, value_file_blocks,
};

#[test]
fn an_svtable_whose_key_range_was_overwritten_is_punched() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    let mut model = scattered(&db);
    db.gc().unwrap();
    let first = db.stats().unwrap().value_files[0].clone();
    assert_eq!(
        first.epoch, 1,
        "scattered garbage is rewritten into an SVTable"
    );
    let name = format!("{:06}-1.svt", first.number);
    let before = value_file_blocks(&mem)[&name];

    // The SVTable starts with the odd keys below 250: overwrite keys 0..200.
    for k in 0..200u32 {
        db.put(key(k), value(k, 2)).unwrap();
        model.insert(key(k), value(k, 2));
    }
    db.compact_range(None, None).unwrap();
    let report = db.gc_report().unwrap();
    assert!(report.punched >= 1, "{report}");
    let stats = db.stats().unwrap();
    let again = punchutil::file(&stats, first.number);
    assert_eq!(again.epoch, 1, "punched in place, not rewritten");
    let after = value_file_blocks(&mem)[&name];
    assert!(after + 80 * 1024 <= before, "{before} -> {after}");
    assert_model(&db, &model);
    db.close().unwrap();
    assert_check_ok(Arc::clone(&fs));

    let mut out = Vec::new();
    twain::dump::dump_file(&fs, &Path::new(DIR).join(&name), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("punched run @"), "{text}");
    assert!(!text.contains("key \"k00001\""), "{text}");
    assert!(text.contains("key \"k00201\""), "{text}");

    let db = Db::open(DIR, options(fs)).unwrap();
    assert_model(&db, &model);
}
