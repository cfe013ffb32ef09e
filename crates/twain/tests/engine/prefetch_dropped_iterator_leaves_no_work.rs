//! Dropping an iterator whose prefetcher has reads queued and running leaves no work:
//! once `drop` returns, no read of a value file happens any more. A seek forgets the
//! window read ahead, counting the values read for nothing as wasted.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use twain::fs::{FaultFs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options};

fn is_value_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "vlog" || e == "svt")
}

#[test]
fn no_read_after_drop_returns() {
    let faults = FaultFs::over_mem(&MemFs::new());
    let opts = Options::default()
        .fs(Arc::new(faults.clone()))
        .memtable_size(64 << 10)
        .value_file_size(256 << 10)
        .inline_threshold(16)
        .prefetch_threads(4)
        .prefetch_min_read_micros(0)
        .gc_enabled(false);
    let db = Db::open("/db", opts).unwrap();
    for i in 0..3000u32 {
        db.put(format!("k{i:05}"), vec![i as u8; 500]).unwrap();
    }
    db.flush().unwrap();
    let reads = Arc::new(AtomicU64::new(0));
    let r = Arc::clone(&reads);
    faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if e.op == OpKind::Read && e.phase == OpPhase::Before && is_value_file(e.path) {
            // Slow reads, so that some are queued and some running at the drop.
            std::thread::sleep(Duration::from_millis(1));
            r.fetch_add(1, Ordering::Relaxed);
        }
    })));

    for round in 0..5 {
        let mut it = db.iter();
        for _ in 0..(40 + round * 30) {
            it.next().unwrap().unwrap();
        }
        // Seeks forget the window; the iterator goes on correctly.
        it.seek("k02000");
        assert_eq!(it.next().unwrap().unwrap().0, b"k02000");
        for _ in 0..50 {
            it.next().unwrap().unwrap();
        }
        drop(it);
        let at_drop = reads.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            reads.load(Ordering::Relaxed),
            at_drop,
            "round {round}: a value file was read after the iterator was dropped"
        );
    }
    let s = db.stats().unwrap();
    assert!(s.prefetch_reads > 0);
    assert!(
        s.prefetch_wasted_bytes > 0,
        "seeks and drops in mid-window waste some reads"
    );
}
