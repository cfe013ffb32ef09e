//! A crash at any point of a backup: at every mutating file operation of `Db::backup`
//! (the checkpoint into staging, the copies into the store, the description), power-loss
//! states are taken. In every state the source holds the model, the backup directory lists
//! either the earlier backup alone or both, every listed backup verifies and restores to
//! its model, and the next backup succeeds and leaves no orphan in the store.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use twain::fs::{CrashOptions, FaultFs, Fs, MemFs, OpEvent, OpPhase};
use twain::{Db, Options, backup};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(16 << 10)
        .value_file_size(32 << 10)
        .inline_threshold(48)
}

fn write(db: &Db, model: &mut Model, range: std::ops::Range<u32>) {
    for i in range {
        let (k, v) = (
            format!("k{:05}", (i * 37) % 900),
            vec![(i % 250) as u8; 10 + i as usize % 90],
        );
        db.put(&k, &v).unwrap();
        model.insert(k.into_bytes(), v);
    }
    db.sync().unwrap();
}

fn restore(fs: &Arc<dyn Fs>, id: u64, to: &str) -> Model {
    backup::restore(fs.as_ref(), Path::new("/bk"), id, Path::new(to)).unwrap();
    let db = Db::open(to, options(Arc::clone(fs))).unwrap();
    db.iter().map(|r| r.unwrap()).collect()
}

#[test]
fn every_crash_state_of_a_backup_lists_only_whole_backups() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open("/db", options(Arc::new(faults.clone()))).unwrap();
    let mut model = Model::new();
    write(&db, &mut model, 0..800);
    db.backup("/bk").unwrap();
    let first = model.clone();
    write(&db, &mut model, 800..1400);

    let images: Arc<Mutex<Vec<(String, MemFs)>>> = Arc::default();
    {
        let (mem, images) = (mem.clone(), Arc::clone(&images));
        faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
            if !e.op.is_mutating() || e.phase != OpPhase::Before {
                return;
            }
            let at = format!(
                "before {:?} of {} (op {})",
                e.op,
                e.path.display(),
                e.number
            );
            let opts = if e.number.is_multiple_of(2) {
                CrashOptions::drop_unsynced()
            } else {
                CrashOptions::torn(e.number)
            };
            images.lock().unwrap().push((at, mem.crash(&opts)));
        })));
    }
    db.backup("/bk").unwrap();
    faults.set_observer(None);
    drop(db);

    let images = std::mem::take(&mut *images.lock().unwrap());
    let mut both = 0;
    for (label, image) in &images {
        let fs: Arc<dyn Fs> = Arc::new(image.clone());
        let listed =
            backup::list(fs.as_ref(), Path::new("/bk")).unwrap_or_else(|e| panic!("{label}: {e}"));
        let ids: Vec<u64> = listed.iter().map(|b| b.id).collect();
        assert!(ids == [1] || ids == [1, 2], "{label}: {ids:?}");
        for &id in &ids {
            let (_, problems) = backup::verify(fs.as_ref(), Path::new("/bk"), id).unwrap();
            assert!(problems.is_empty(), "{label}: backup {id}: {problems:?}");
        }
        assert!(restore(&fs, 1, "/r1") == first, "{label}: backup 1 differs");
        if ids.len() == 2 {
            both += 1;
            assert!(restore(&fs, 2, "/r2") == model, "{label}: backup 2 differs");
        }
        // The next backup works and the store holds only what descriptions name.
        let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
        let next = db.backup("/bk").unwrap();
        drop(db);
        let named: usize = backup::list(fs.as_ref(), Path::new("/bk"))
            .unwrap()
            .iter()
            .map(|b| b.files as usize)
            .sum();
        let stored = image.file_names(Path::new("/bk/files")).len();
        assert!(
            stored <= named,
            "{label}: {stored} store files for {named} names"
        );
        assert!(
            restore(&fs, next.id, "/r3") == model,
            "{label}: the next backup differs"
        );
    }
    eprintln!(
        "{} crash states, {both} with the second backup whole",
        images.len()
    );
    assert!(both > 0 && both < images.len());
}
