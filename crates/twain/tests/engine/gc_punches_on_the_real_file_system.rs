//! Value GC punching holes on the temporary directory's real file system: where it can
//! punch, the clustered garbage's blocks are freed (allocated bytes drop, as `du` sees
//! them), every key reads its value, and the database reopens; where it cannot, GC
//! rewrites the file instead and says so.

use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, RealFs};

use crate::punchutil;
use punchutil::{assert_model, clustered, options};

#[test]
fn real_file_system_punches_or_falls_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let db = Db::open(&dir, options(Arc::clone(&fs))).unwrap();
    let model = clustered(&db);
    let first = db.stats().unwrap().value_files[0].number;
    let log = dir.join(format!("{first:06}.vlog"));
    let before = fs.allocated_bytes(&log).unwrap();

    let report = db.gc_report().unwrap();
    let stats = db.stats().unwrap();
    let file = punchutil::file(&stats, first);
    if stats.gc_punch_unsupported {
        eprintln!(
            "NOTE: {} cannot punch holes: GC rewrote",
            tmp.path().display()
        );
        assert_eq!(file.epoch, 1, "{report}");
    } else {
        assert!(report.punched >= 1, "{report}");
        assert_eq!(file.epoch, 0);
        let after = fs.allocated_bytes(&log).unwrap();
        assert!(after + 150 * 1024 <= before, "{before} -> {after}");
    }
    assert_model(&db, &model);
    db.close().unwrap();
    let db = Db::open(&dir, options(fs)).unwrap();
    assert_model(&db, &model);
}
