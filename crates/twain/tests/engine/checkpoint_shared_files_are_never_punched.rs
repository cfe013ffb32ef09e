//! A value file a checkpoint shares (a hard link) is never punched: the checkpoint's
//! tables still reference the records the source's drops call dead. Clustered garbage
//! that a complete GC punches without a checkpoint (the control) is rewritten instead when
//! a checkpoint shares the file, and the checkpoint reads every value it held; the same
//! holds the other way round, for GC in the checkpoint.

use std::path::Path;
use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{Model, assert_model, key, options, value};

/// Writes 600 keys, compacts and syncs: about two and a half value files, sealed ones
/// referenced by the tables.
fn fill(db: &Db) -> Model {
    let mut model = Model::new();
    for k in 0..600 {
        db.put(key(k), value(k, 0)).unwrap();
        model.insert(key(k), value(k, 0));
    }
    db.compact_range(None, None).unwrap();
    db.sync().unwrap();
    model
}

/// Overwrites the first 200 keys (one dead run over most of the first file), compacts,
/// and runs a complete GC; returns the holes it punched.
fn overwrite_and_collect(db: &Db, model: &mut Model) -> u64 {
    for k in 0..200 {
        db.put(key(k), value(k, 1)).unwrap();
        model.insert(key(k), value(k, 1));
    }
    db.compact_range(None, None).unwrap();
    db.sync().unwrap();
    let report = db.gc_report().unwrap();
    assert_model(db, model);
    report.punched
}

#[test]
fn without_a_checkpoint_the_garbage_is_punched() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let db = Db::open("/db", options(fs)).unwrap();
    let mut model = fill(&db);
    assert!(
        overwrite_and_collect(&db, &mut model) >= 1,
        "the control punches"
    );
}

#[test]
fn gc_rewrites_rather_than_punches_a_file_a_checkpoint_shares() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    let mut model = fill(&db);
    let at_checkpoint = model.clone();
    let info = db.checkpoint("/cp", true).unwrap();
    assert!(info.files_linked >= 2, "{info:?}");
    let punches_before = mem.op_counts().punches;

    assert_eq!(
        overwrite_and_collect(&db, &mut model),
        0,
        "a shared file was punched"
    );
    assert_eq!(mem.op_counts().punches, punches_before);
    let cp = Db::open("/cp", options(Arc::clone(&fs))).unwrap();
    assert_model(&cp, &at_checkpoint);

    // And the other way round: GC in the checkpoint leaves the source whole.
    let mut cp_model = at_checkpoint;
    drop(db);
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    overwrite_and_collect(&cp, &mut cp_model);
    assert_model(&db, &model);
    assert_model(&cp, &cp_model);
    for name in mem.file_names(Path::new("/cp")) {
        assert!(!name.ends_with(".tmp"), "{name} left behind");
    }
}
