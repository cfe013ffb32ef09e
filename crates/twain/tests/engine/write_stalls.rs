//! Under tight L0 triggers and a single immutable memtable, writers are slowed down and
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
    let opts = Options {
        memtable_size: 64 << 10,
        max_immutable_memtables: 1,
        value_file_size: 256 << 10,
        target_file_size: 64 << 10,
        l1_target_size: 128 << 10,
        inline_threshold: 64,
        l0_compaction_trigger: 2,
        l0_slowdown_trigger: 2,
        l0_stop_trigger: 3,
        ..Options::default()
    };
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
    assert!(s.slowdowns > 0, "no write was slowed down: {}", s.to_text());
    assert!(s.stall_micros > 0);
    assert!(s.levels[0].files <= 3 + 1, "L0 grew past the stop trigger");
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(db.iter()), &all, "after stalled writes");
}
