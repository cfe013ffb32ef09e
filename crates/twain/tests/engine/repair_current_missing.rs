//! Repair with `CURRENT` deleted: the manifest is intact, so repair only points `CURRENT`
//! at it again, and every key comes back.

use crate::repairutil;
use repairutil::*;
use twain::fs::{Fs, MemFs};

#[test]
fn current_missing_is_repaired_by_naming_the_manifest() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 2000);
    let manifests = files_ending(&fs, ".manifest");
    fs.remove_file(&path("CURRENT")).unwrap();

    let report = repair(&fs);
    assert_eq!(manifests.len(), 1);
    assert_eq!(report.reused_manifest, Some(path(&manifests[0])));
    assert!(report.set_aside.is_empty(), "{}", report.to_text());
    assert!(report.is_lossless());
    assert_repaired(&fs, &model);
}

#[test]
fn repair_of_a_healthy_database_changes_nothing() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 500);
    let report = repair(&fs);
    assert!(report.reused_manifest.is_some());
    assert!(report.set_aside.is_empty());
    assert!(lost_names(&fs).is_empty());
    assert_repaired(&fs, &model);
}
