//! Issue 19, finding 7, the other side of the rule: corruption met by value GC never makes
//! the database read-only, but an I/O error still does, as before (a failed read or sync
//! may leave a file or the manifest in doubt). Both GC modes.

use std::sync::Arc;
use twain::fs::{FaultFs, FaultRule, Fs, MemFs, OpKind};
use twain::{Db, Error, GcMode};

use crate::gcutil;
use gcutil::{manual_gc_options, sealed_file_with_drops, value};

const DIR: &str = "/db";

fn gc_failing_with(mode: GcMode, rule: FaultRule) {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let opts = manual_gc_options(&mem)
        .fs(Arc::new(faults.clone()) as Arc<dyn Fs>)
        .gc_mode(mode);
    let db = Db::open(DIR, opts).unwrap();
    sealed_file_with_drops(&db, 10..20);
    faults.add_rule(rule);
    let err = db.gc().unwrap_err();
    assert!(!err.is_corruption(), "{err}");
    assert!(!faults.injected_faults().is_empty());
    assert!(matches!(db.health(), Err(Error::ReadOnly(_))), "{err}");
    assert!(db.put("after", value("c", 1)).is_err());
    assert!(db.gc_set_aside().is_empty());
}

#[test]
fn a_failed_read_of_the_value_file_makes_the_database_read_only() {
    for mode in [GcMode::DropRecords, GcMode::LsmLookup] {
        gc_failing_with(mode, FaultRule::on(OpKind::Read).with_path(".vlog"));
    }
}

#[test]
fn a_failed_sync_of_gc_output_makes_the_database_read_only() {
    gc_failing_with(
        GcMode::DropRecords,
        FaultRule::on(OpKind::Sync).with_path(".svt"),
    );
    gc_failing_with(GcMode::LsmLookup, FaultRule::on(OpKind::Sync));
}
