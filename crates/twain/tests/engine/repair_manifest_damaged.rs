//! Repair with the manifest damaged in its first edit (an intact edit after it makes it
//! corruption, not a torn tail): open fails and points to repair; repair sets the manifest
//! aside as damaged and rebuilds, and every key comes back.

use crate::repairutil;
use repairutil::*;
use std::path::Path;
use twain::Db;
use twain::fs::{Fs, MemFs};

#[test]
fn manifest_damaged_is_set_aside_and_rebuilt() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 3000);
    let manifests = files_ending(&fs, ".manifest");
    assert_eq!(manifests.len(), 1);
    let m = path(&manifests[0]);
    // The first frame starts after the 24-byte file header; damage its payload.
    fs.corrupt(&m, 24 + 8 + 2, 0x55).unwrap();
    assert!(
        fs.file_size(&m).unwrap() > 200,
        "want later edits after the damage"
    );

    let err = Db::open(Path::new(DIR), options(&fs)).err().unwrap();
    assert!(err.is_corruption(), "{err}");
    assert!(err.to_string().contains("twain repair"), "{err}");

    let report = repair(&fs);
    assert!(report.reused_manifest.is_none());
    let aside = report
        .set_aside
        .iter()
        .find(|s| s.file == m)
        .expect("the damaged manifest is set aside");
    assert!(aside.damaged, "{}", report.to_text());
    assert_eq!(report.lost_entries, 0, "{}", report.to_text());
    assert!(lost_names(&fs).contains(&manifests[0]));
    assert_repaired(&fs, &model);
}
