//! A flush makes the log durable up to its freeze position before it writes its table, so
//! no table on disk refers to log records a power loss can take. A table that no manifest
//! names yet matters too: `repair` rebuilds a lost manifest from the tables it finds, and a
//! table synced before the log would leave it handles into a torn tail, their keys reported
//! lost (and read as deleted). `repair_after_power_loss` met this under load, when a
//! background flush was between the two syncs at the crash. Here the crash image is taken
//! at that instant: right after the flush's table is synced, with its directory entry.

use crate::repairutil;

use repairutil::*;
use std::path::Path;
use std::sync::{Arc, Mutex};
use twain::fs::{CrashOptions, FaultFs, Fs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options};

#[test]
fn a_crash_right_after_the_flushed_table_is_synced_loses_none_of_its_values() {
    let mem = MemFs::new();
    let fault = FaultFs::over_mem(&mem);
    let opts = |fs: Arc<dyn Fs>| -> Options { options(&mem).fs(fs).log_buffer_size(4096) };
    let db = Db::open(Path::new(DIR), opts(Arc::new(fault.clone()))).unwrap();
    let mut model = Model::new();
    // Unsynced writes, fewer than a memtable holds: only the flush below makes them durable.
    for i in 0..200u32 {
        db.put(key(i), value(i, 0)).unwrap();
        model.insert(key(i), value(i, 0));
    }
    // The image: right after the directory sync that makes the synced table's entry
    // durable (before it, a crash loses the table with its name).
    let image: Arc<Mutex<Option<MemFs>>> = Arc::default();
    let table_synced = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let taken = Arc::clone(&image);
    let live = mem.clone();
    fault.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        use std::sync::atomic::Ordering::SeqCst;
        if e.phase != (OpPhase::After { ok: true }) {
            return;
        }
        let table = e.path.extension().is_some_and(|x| x == "sst");
        if e.op == OpKind::Sync && table {
            table_synced.store(true, SeqCst);
        } else if e.op == OpKind::SyncDir && table_synced.load(SeqCst) {
            let mut t = taken.lock().unwrap();
            if t.is_none() {
                *t = Some(live.crash(&CrashOptions::drop_unsynced()));
            }
        }
    })));
    db.flush().unwrap();
    fault.set_observer(None);
    drop(db);
    let image = image
        .lock()
        .unwrap()
        .take()
        .expect("the flush synced a table and its directory");
    // The manifest is lost: repair adopts the flushed table, not named by any manifest.
    for m in files_ending(&image, ".manifest") {
        image.remove_file(&path(&m)).unwrap();
    }
    let report = repair(&image);
    assert_eq!(report.lost_entries, 0, "{}", report.to_text());
    assert_repaired(&image, &model);
}
