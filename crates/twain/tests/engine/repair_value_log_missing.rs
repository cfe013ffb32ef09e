//! Repair with the oldest value log deleted: the report names it as missing, exactly the
//! keys whose newest value was in it read as deleted (counted and named by the report),
//! and every other key reads as written.

use crate::repairutil;
use repairutil::*;
use twain::fs::{Fs, MemFs};

#[test]
fn missing_value_log_loses_only_its_values() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 3000);
    let name = oldest_log(&fs);
    let p = path(&name);
    fs.remove_file(&p).unwrap();

    let report = repair(&fs);
    assert!(report.missing.contains(&p), "{}", report.to_text());
    assert!(report.lost_entries > 0);
    assert!(!report.is_lossless());

    let db = open_repaired(&fs);
    assert_lost_exactly_reported(&db, &model, &report);
}
