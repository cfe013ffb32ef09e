//! Hole punches join the I/O error sweep (issue 10, item 6): a complete GC that punches
//! clustered garbage runs with each of its file operations in turn failing with EIO from
//! then on. Whatever GC reports, the file system after a power loss opens, holds exactly
//! the model (nothing lost, nothing resurrected), passes `twain check`, and GC then works.

use std::sync::Arc;
use twain::Db;
use twain::fs::{CrashOptions, FaultFs, FaultRule, Fs, MemFs};

use crate::punchutil;
use punchutil::{DIR, Model, assert_check_ok, assert_model, clustered, options};

/// A database with clustered garbage on a `FaultFs` over a fresh `MemFs`.
fn setup() -> (MemFs, FaultFs, Db, Model) {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    let model = clustered(&db);
    (mem, faults, db, model)
}

#[test]
fn every_operation_of_a_punching_gc_failing_loses_nothing() {
    // How many operations the GC makes when nothing fails.
    let (_, faults, db, _) = setup();
    let before = faults.op_count();
    let report = db.gc_report().unwrap();
    assert!(report.punched >= 1, "{report}");
    let ops = faults.op_count() - before;
    drop(db);

    let mut failed = 0;
    for n in 1..=ops {
        let (mem, faults, db, model) = setup();
        faults.add_rule(FaultRule::any_op().with_nth(n).forever());
        if db.gc_report().is_err() {
            failed += 1;
        }
        drop(db);
        let fs: Arc<dyn Fs> = Arc::new(mem.crash(&CrashOptions::drop_unsynced()));
        let db = Db::open(DIR, options(Arc::clone(&fs)))
            .unwrap_or_else(|e| panic!("operation {n} failing: open failed: {e}"));
        let state: Model = db
            .iter()
            .map(|r| r.unwrap_or_else(|e| panic!("operation {n} failing: read failed: {e}")))
            .collect();
        assert!(state == model, "operation {n} failing: state differs");
        db.gc()
            .unwrap_or_else(|e| panic!("operation {n} failing: GC after reopen: {e}"));
        assert_model(&db, &model);
        db.close().unwrap();
        assert_check_ok(fs);
    }
    eprintln!("{ops} operations, {failed} faults made the GC fail");
    assert!(
        failed > 0,
        "no injected fault made the GC fail ({ops} operations)"
    );
}
