//! Expired data comes back unaided, in a bottom-level table that no size compaction will
//! touch again: with no write to wake the background, its live-data pass runs again once
//! the earliest expiry it saw has passed and counts the expired bytes reclaimable; the space
//! target's background work then compacts the tables whose earliest expiry time (a table
//! property) has passed, which drops the expired puts with their values, and value GC frees
//! the files. A complete GC (`Db::gc_report`) does the same on demand. Both GC modes that
//! learn garbage from compaction.

use crate::spaceutil;

use spaceutil::*;
use std::sync::Arc;
use std::time::{Duration, Instant};
use twain::{Db, GcMode, ManualClock};

const FILE: u64 = 256 << 10;
const T0: u64 = 1_900_000_000_000;

fn expired_data_is_reclaimed(mode: GcMode, on_demand: bool) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let opts = (options(mode, FILE)).clock(Arc::new(clock.clone()));
    let db = Db::open(dir.path(), opts).unwrap();
    let mut model = Model::new();
    // A third of the keys never expire; the rest expire in a minute.
    for i in 0..KEYS {
        if i % 3 == 0 {
            db.put(key(i), value(0, i)).unwrap();
            model.insert(key(i), value(0, i));
        } else {
            db.put_with_expiry(key(i), value(0, i), T0 + 60_000)
                .unwrap();
        }
    }
    db.compact_range(None, None).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while db.stats().unwrap().expiring_keys < 2000 {
        assert!(
            Instant::now() < deadline,
            "{}",
            db.stats().unwrap().to_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    clock.advance(60_000);
    assert_eq!(db.iter().count(), model.len());
    // The background sees the expiry with no write: live keys fall (the bytes are
    // reclaimable from then on, and soon reclaimed).
    loop {
        let s = db.stats().unwrap();
        if s.live_keys == u64::from(KEYS) / 3 && s.expiring_keys == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{}", s.to_text());
        std::thread::sleep(Duration::from_millis(50));
    }
    if on_demand {
        db.gc_report().unwrap();
    }
    let bound = bound(&model, FILE);
    let amp = wait_for_space(&db, dir.path(), &model, bound);
    assert!(amp <= bound);
    let stats = db.stats().unwrap();
    assert!(
        stats.expired_entries == 2000 && stats.garbage_compactions >= 1,
        "the expired puts were dropped by compactions of their own: {}",
        stats.to_text()
    );
    let got: Model = db.iter().map(Result::unwrap).collect();
    assert_eq!(got, model);
}

#[test]
fn expired_data_is_reclaimed_unaided_with_drop_records() {
    expired_data_is_reclaimed(GcMode::DropRecords, false);
}

#[test]
fn expired_data_is_reclaimed_unaided_with_lsm_lookup() {
    expired_data_is_reclaimed(GcMode::LsmLookup, false);
}

#[test]
fn expired_data_is_reclaimed_by_a_complete_gc() {
    expired_data_is_reclaimed(GcMode::DropRecords, true);
}
