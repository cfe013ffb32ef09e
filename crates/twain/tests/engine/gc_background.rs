//! The background GC worker collects on its own, without `Db::gc`: after an overwrite
//! workload leaves sealed value files below `gc_threshold`, they are rewritten or punched
//! (the worker wakes at least once a second; the test waits up to a minute) and the data
//! stays correct.

use std::sync::Arc;
use std::time::{Duration, Instant};
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

#[test]
fn the_background_worker_collects_without_being_asked() {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .gc_threshold(0.6);
    let db = Db::open("/db", opts).unwrap();
    for round in 0..5u32 {
        for k in 0..300u32 {
            if round == 0 || k % 3 == 0 {
                db.put(format!("k{k:04}"), format!("{round}:{k}:").repeat(30))
                    .unwrap();
            }
        }
    }
    db.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let collected = |s: twain::Stats| s.gc_runs + s.gc_punch_runs;
    while collected(db.stats().unwrap()) == 0 {
        assert!(
            Instant::now() < deadline,
            "no background GC run: {}",
            db.stats().unwrap().to_text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for k in 0..300u32 {
        let round = if k % 3 == 0 { 4 } else { 0 };
        assert_eq!(
            db.get(format!("k{k:04}")).unwrap(),
            Some(format!("{round}:{k}:").repeat(30).into_bytes())
        );
    }
}
