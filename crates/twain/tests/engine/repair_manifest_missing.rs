//! Repair with the manifest deleted: open fails (CURRENT names a missing manifest) and
//! points to repair; repair rebuilds the manifest from the tables and value files, and
//! every key comes back, including the writes only the log held.

use crate::repairutil;
use repairutil::*;
use std::path::Path;
use twain::Db;
use twain::fs::{Fs, MemFs};

#[test]
fn manifest_missing_is_rebuilt_from_the_files() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 3000);
    let tables = files_ending(&fs, ".sst");
    for m in files_ending(&fs, ".manifest") {
        fs.remove_file(&path(&m)).unwrap();
    }

    let err = Db::open(Path::new(DIR), options(&fs)).err().unwrap();
    assert!(err.is_corruption(), "{err}");
    assert!(err.to_string().contains("twain repair"), "{err}");

    let report = repair(&fs);
    assert!(report.reused_manifest.is_none());
    assert!(report.is_lossless(), "{}", report.to_text());
    assert_eq!(report.tables_recovered.len(), tables.len());
    assert!(!report.tables_written.is_empty());
    assert!(report.entries > 0);
    assert_eq!(report.lost_entries, 0);
    // The original tables are kept in lost/, never deleted.
    let lost = lost_names(&fs);
    for t in &tables {
        assert!(lost.contains(t), "{t} not in lost/: {lost:?}");
    }
    assert_repaired(&fs, &model);
}
