//! A crash at any point of a checkpoint (issue 16, item 2): at every mutating file
//! operation of `Db::checkpoint`, before and after it, power-loss states are taken (unsynced
//! data dropped, and torn tails). In every state the source opens and holds the model, and
//! the checkpoint either holds exactly the model or is not a database: its open fails
//! (no `CURRENT`) and creates nothing over the files it left.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use twain::fs::{CrashOptions, FaultFs, Fs, MemFs, OpEvent, OpPhase};
use twain::{Db, Options};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(16 << 10)
        .value_file_size(32 << 10)
        .inline_threshold(48)
}

fn contents(db: &Db) -> Model {
    db.iter().map(|r| r.unwrap()).collect()
}

#[test]
fn every_crash_state_of_a_checkpoint_is_whole_or_not_a_database() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open("/db", options(Arc::new(faults.clone()))).unwrap();
    let mut model = Model::new();
    for i in 0..1200u32 {
        let (k, v) = (
            format!("k{:05}", (i * 37) % 900),
            vec![(i % 250) as u8; 10 + (i as usize % 90)],
        );
        db.put(&k, &v).unwrap();
        model.insert(k.into_bytes(), v);
    }
    db.sync().unwrap();

    let images: Arc<Mutex<Vec<(String, MemFs)>>> = Arc::default();
    {
        let (mem, images) = (mem.clone(), Arc::clone(&images));
        faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
            if !e.op.is_mutating() || e.phase == (OpPhase::After { ok: false }) {
                return;
            }
            let when = if e.phase == OpPhase::Before {
                "before"
            } else {
                "after"
            };
            let at = format!(
                "{when} {:?} of {} (op {})",
                e.op,
                e.path.display(),
                e.number
            );
            let modes = [
                ("drop-unsynced", CrashOptions::drop_unsynced()),
                ("torn", CrashOptions::torn(e.number)),
            ];
            let mut images = images.lock().unwrap();
            for (mode, opts) in modes {
                images.push((format!("{at}, {mode}"), mem.crash(&opts)));
            }
        })));
    }
    db.checkpoint("/cp", true).unwrap();
    faults.set_observer(None);
    drop(db);

    let images = std::mem::take(&mut *images.lock().unwrap());
    let (mut whole, mut not_yet) = (0, 0);
    for (label, image) in &images {
        let fs: Arc<dyn Fs> = Arc::new(image.clone());
        let db = Db::open("/db", options(Arc::clone(&fs)))
            .unwrap_or_else(|e| panic!("{label}: the source does not open: {e}"));
        assert!(
            contents(&db) == model,
            "{label}: the source differs from the model"
        );
        drop(db);
        let before = image.file_names(Path::new("/cp"));
        let no_create = options(Arc::clone(&fs)).create_if_missing(false);
        match Db::open("/cp", no_create) {
            Ok(cp) => {
                assert!(contents(&cp) == model, "{label}: the checkpoint differs");
                whole += 1;
            }
            Err(e) => {
                assert!(!before.contains(&"CURRENT".to_string()), "{label}: {e}");
                assert_eq!(
                    image.file_names(Path::new("/cp")),
                    before,
                    "{label}: open wrote ({e})"
                );
                not_yet += 1;
            }
        }
    }
    eprintln!(
        "{} crash states: {whole} whole checkpoints, {not_yet} not databases",
        images.len()
    );
    assert!(whole > 0 && not_yet > 0);
}
