//! Under tight L0 triggers and a single immutable memtable, writers are slowed down or
//! stalled while flushes and compactions catch up, the stalls are counted, and every
//! write completes and reads back.

use crate::dbutil;

use dbutil::{Model, Rng, assert_pairs_eq, collect, model_range, value};
use std::ops::Bound;
use std::sync::Arc;
use twain::{Db, Options};

#[test]
fn writes_under_tight_l0_triggers_complete_and_are_counted_as_stalls() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options::default()
        .memtable_size(64 << 10)
        .max_immutable_memtables(1)
        .value_file_size(256 << 10)
        .target_file_size(64 << 10)
        .l1_target_size(128 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .l0_slowdown_trigger(2)
        .l0_stop_trigger(3);
    let db = Arc::new(Db::open(dir.path(), opts).unwrap());
    let threads: Vec<_> = (0..3u64)
        .map(|t| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || {
                let mut rng = Rng::new(t);
                let mut model = Model::new();
                for i in 0..2500u64 {
                    let k = format!("t{t}-{:04}", rng.below(1500)).into_bytes();
                    let v = value(&k, i, rng.next_u64() % 6);
                    db.put(&k, &v).unwrap();
                    model.insert(k, v);
                }
                model
            })
        })
        .collect();
    let mut model = Model::new();
    for t in threads {
        model.extend(t.join().unwrap());
    }
    let s = db.stats().unwrap();
    // Which brake engages depends on the machine's speed: with flushes slower than
    // compactions (a loaded machine), writers wait for a memtable and L0 never reaches its
    // slowdown trigger; otherwise L0 slowdowns come first. Either is counted.
    assert!(
        s.slowdowns > 0 || s.stall_micros > 0,
        "no write was slowed down or stalled: {}",
        s.to_text()
    );
    assert!(s.levels[0].files <= 3 + 1, "L0 grew past the stop trigger");
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(db.iter()), &all, "after stalled writes");
}

/// With compactions held back (every table read they make sleeps), flushes pile files
/// into L0 and writers reach the slowdown trigger: each slowed write is counted.
#[test]
fn writes_are_slowed_down_once_l0_reaches_its_trigger() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use twain::fs::{FaultFs, MemFs, OpEvent, OpKind, OpPhase};
    let faults = FaultFs::over_mem(&MemFs::new());
    let slow = Arc::new(AtomicBool::new(true));
    let s2 = Arc::clone(&slow);
    faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        let table = e.path.extension().is_some_and(|x| x == "sst");
        if table && e.op == OpKind::Read && e.phase == OpPhase::Before && s2.load(Ordering::Relaxed)
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    })));
    let opts = Options::default()
        .fs(Arc::new(faults.clone()))
        .memtable_size(16 << 10)
        .max_immutable_memtables(1)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .l0_slowdown_trigger(2)
        .l0_stop_trigger(8)
        .gc_enabled(false);
    let db = Db::open("/db", opts).unwrap();
    let mut model = Model::new();
    for i in 0..3000u64 {
        let k = format!("k{:04}", i % 1000).into_bytes();
        let v = value(&k, i, 2);
        db.put(&k, &v).unwrap();
        model.insert(k, v);
    }
    slow.store(false, Ordering::Relaxed);
    let s = db.stats().unwrap();
    assert!(s.slowdowns > 0, "no write was slowed down: {}", s.to_text());
    assert!(s.stall_micros > 0);
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(db.iter()), &all, "after slowed writes");
}
