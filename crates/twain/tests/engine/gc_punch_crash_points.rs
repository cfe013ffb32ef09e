//! Hole punches join the crash-point sweep (issue 10, item 6): a complete GC that punches
//! the clustered garbage of a value file runs on a `FaultFs` over a `MemFs`, and at every
//! mutating file operation (appends, syncs, creates, renames, removes, directory syncs,
//! truncates and the punches themselves), before and after it, power-loss states are
//! taken: unsynced data dropped, and torn tails with and without garbage. Every state
//! opens, holds exactly the model (nothing lost, nothing resurrected: all writes were
//! synced before the GC), passes `twain check`, and goes on working: another complete GC,
//! then the model again, and the space comes back (runs recorded before the crash but not
//! punched, or not synced, are punched again after the open).

use std::sync::{Arc, Mutex};
use twain::Db;
use twain::fs::{CrashOptions, FaultFs, Fs, MemFs, OpEvent, OpPhase};

use crate::punchutil;
use punchutil::{DIR, assert_check_ok, assert_model, clustered, options, value_file_blocks};

#[test]
fn every_crash_state_of_a_punching_gc_holds_the_model() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    let model = clustered(&db);

    let images: Arc<Mutex<Vec<(String, MemFs)>>> = Arc::default();
    {
        let (mem, images) = (mem.clone(), Arc::clone(&images));
        faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
            // Every mutating operation is a crash point here (the GC makes few).
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
                ("torn+garbage", CrashOptions::torn_with_garbage(e.number)),
            ];
            let mut images = images.lock().unwrap();
            for (mode, opts) in modes {
                images.push((format!("{at}, {mode}"), mem.crash(&opts)));
            }
        })));
    }
    let report = db.gc_report().unwrap();
    assert!(report.punched >= 1, "{report}");
    faults.set_observer(None);
    db.close().unwrap();
    let punched = value_file_blocks(&mem);

    let images = std::mem::take(&mut *images.lock().unwrap());
    let punch_points = images.iter().filter(|(l, _)| l.contains("Punch")).count();
    assert!(punch_points >= 2, "no crash point at a punch");
    eprintln!("{} crash states, {punch_points} at punches", images.len());
    for (label, image) in images {
        let fs: Arc<dyn Fs> = Arc::new(image.clone());
        let db = Db::open(DIR, options(Arc::clone(&fs)))
            .unwrap_or_else(|e| panic!("crash {label}: open failed: {e}"));
        let state: punchutil::Model = db
            .iter()
            .map(|r| r.unwrap_or_else(|e| panic!("crash {label}: read failed: {e}")))
            .collect();
        assert!(
            state == model,
            "crash {label}: state differs from the model"
        );
        db.gc()
            .unwrap_or_else(|e| panic!("crash {label}: GC failed: {e}"));
        assert_model(&db, &model);
        for (name, blocks) in value_file_blocks(&image) {
            let at_most = punched.get(&name).copied().unwrap_or(u64::MAX);
            assert!(
                blocks <= at_most,
                "crash {label}: {name} holds {blocks} bytes, not {at_most}"
            );
        }
        db.close().unwrap();
        assert_check_ok(fs);
    }
}
