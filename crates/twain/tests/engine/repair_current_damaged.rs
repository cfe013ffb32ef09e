//! Repair with `CURRENT` overwritten by garbage: open fails and points to repair; repair
//! sets the damaged `CURRENT` aside in `lost/` and names the intact manifest again.

use crate::repairutil;
use repairutil::*;
use std::path::Path;
use twain::Db;
use twain::fs::MemFs;

#[test]
fn current_damaged_is_set_aside_and_rewritten() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 2000);
    fs.write_file(&path("CURRENT"), b"\x00garbage\n").unwrap();

    let err = Db::open(Path::new(DIR), options(&fs)).err().unwrap();
    assert!(err.is_corruption(), "{err}");
    assert!(err.to_string().contains("twain repair"), "{err}");

    let report = repair(&fs);
    assert!(report.reused_manifest.is_some(), "{}", report.to_text());
    assert_eq!(report.set_aside.len(), 1);
    assert!(report.set_aside[0].damaged);
    assert!(report.set_aside[0].file.ends_with("CURRENT"));
    assert_eq!(lost_names(&fs), vec!["CURRENT".to_string()]);
    assert_repaired(&fs, &model);
}
