//! Issue 16, item 2: `Db::checkpoint` makes an openable copy holding every write
//! acknowledged before the call, hard-linking the files that never change and copying the
//! rest; afterwards the two databases are independent: writes, compactions and GC in one
//! never show in the other, and `twain check` finds nothing wrong in either.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(32)
}

fn value(k: u32, round: u32) -> Vec<u8> {
    let mut v = format!("{k}/{round}/").into_bytes();
    v.resize(20 + (k as usize * 13) % 300, b'a' + (round % 26) as u8);
    v
}

/// Round `round` of writes: puts for most keys, deletes for every seventh.
fn write_round(db: &Db, model: &mut Model, round: u32) {
    for k in 0..1500u32 {
        let key = format!("key{:05}", (k * 7919) % 1500).into_bytes();
        if (k + round).is_multiple_of(7) {
            db.delete(&key).unwrap();
            model.remove(&key);
        } else {
            db.put(&key, value(k, round)).unwrap();
            model.insert(key, value(k, round));
        }
    }
}

fn contents(db: &Db) -> Model {
    db.iter().map(|r| r.unwrap()).collect()
}

fn assert_check_ok(fs: &Arc<dyn Fs>, dir: &str) {
    let report = check(
        Path::new(dir),
        &CheckOptions {
            fs: Arc::clone(fs),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.is_ok(), "{dir}: {:?}", report.problems);
}

#[test]
fn a_checkpoint_holds_every_acknowledged_write_and_lives_apart() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    let mut model = Model::new();
    write_round(&db, &mut model, 0);
    db.compact_range(None, None).unwrap();
    write_round(&db, &mut model, 1);
    // Part of round 2 stays in the memtable and the active log (not synced).
    for k in 0..100u32 {
        db.put(format!("late{k:03}"), value(k, 2)).unwrap();
        model.insert(format!("late{k:03}").into_bytes(), value(k, 2));
    }

    let info = db.checkpoint("/cp", true).unwrap();
    assert!(info.files_linked > 0, "{info:?}");
    assert!(
        info.files_copied > 0,
        "the active log's prefix is a copy: {info:?}"
    );
    let stats = db.stats().unwrap();
    assert!(info.sequence > 0);
    eprintln!("{info:?}, source files {}", stats.value_files.len());

    // The source goes on: more writes, a compaction, a complete GC.
    let at_checkpoint = model.clone();
    write_round(&db, &mut model, 3);
    db.compact_range(None, None).unwrap();
    db.gc_report().unwrap();
    assert_eq!(contents(&db), model);

    let cp = Db::open("/cp", options(Arc::clone(&fs))).unwrap();
    assert_eq!(contents(&cp), at_checkpoint, "the checkpoint's view");
    assert_ne!(
        cp.identity(),
        db.identity(),
        "a checkpoint is its own database"
    );
    // The checkpoint goes its own way too.
    let mut cp_model = at_checkpoint.clone();
    write_round(&cp, &mut cp_model, 4);
    cp.compact_range(None, None).unwrap();
    cp.gc_report().unwrap();
    assert_eq!(contents(&cp), cp_model);
    assert_eq!(
        contents(&db),
        model,
        "the checkpoint's work does not reach the source"
    );

    db.close().unwrap();
    cp.close().unwrap();
    assert_check_ok(&fs, "/db");
    assert_check_ok(&fs, "/cp");
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    assert_eq!(contents(&db), model);
    let cp = Db::open("/cp", options(Arc::clone(&fs))).unwrap();
    assert_eq!(contents(&cp), cp_model);
}

#[test]
fn without_links_every_file_is_copied() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    let mut model = Model::new();
    write_round(&db, &mut model, 0);
    let info = db.checkpoint("/cp", false).unwrap();
    assert_eq!(info.files_linked, 0);
    assert!(info.bytes_copied > 0);
    for name in mem.file_names(Path::new("/cp")) {
        let path = Path::new("/cp").join(&name);
        assert_eq!(fs.link_count(&path).unwrap(), 1, "{name} is shared");
    }
    drop(db);
    let cp = Db::open("/cp", options(Arc::clone(&fs))).unwrap();
    assert_eq!(contents(&cp), model);
}
