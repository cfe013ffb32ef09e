//! A hole punch that fails with EIO makes the database read-only like any failed write
//! (issue 10, item 6): `Db::gc` fails, writes are refused until a reopen, and the reopened
//! database holds every key (the runs were recorded before the punch, so readers skip
//! them whether or not they were punched) and passes `twain check`.

use std::sync::Arc;
use twain::Db;
use twain::fs::{FaultFs, FaultRule, Fs, MemFs, OpKind};

use crate::punchutil;
use punchutil::{DIR, assert_check_ok, assert_model, clustered, key, options, value};

#[test]
fn eio_from_a_punch_stops_writes_and_loses_nothing() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    let model = clustered(&db);
    faults.add_rule(FaultRule::on(OpKind::Punch).with_path("vlog"));

    let err = db.gc_report().unwrap_err();
    assert!(!err.is_corruption(), "{err}");
    assert_eq!(faults.injected_faults()[0].op, OpKind::Punch);
    assert!(
        db.put(key(1), value(1, 9)).is_err(),
        "writes must be refused"
    );
    assert_model(&db, &model);
    drop(db);

    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    assert_model(&db, &model);
    db.put(key(1), value(1, 9)).unwrap();
    db.close().unwrap();
    assert_check_ok(fs);
}
