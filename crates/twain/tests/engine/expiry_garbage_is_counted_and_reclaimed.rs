//! Expired data is counted as garbage as soon as it expires, with no write to wake the
//! background: its live-data pass runs again once the earliest expiry it saw has passed, and
//! the statistics say the expired bytes are reclaimable. A complete compaction and GC then
//! bring the space down to the bound. (Tables that no compaction reaches keep expired data
//! until one does: the garbage picks push down overlapping tables only; see
//! `docs/architecture.md`, "Expiry".) Both GC modes that learn garbage from compaction.

use crate::spaceutil;

use spaceutil::*;
use std::sync::Arc;
use std::time::{Duration, Instant};
use twain::{Db, GcMode, ManualClock, Options};

const FILE: u64 = 256 << 10;
const T0: u64 = 1_900_000_000_000;

fn expired_data_is_counted_then_reclaimed(mode: GcMode) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let opts = Options {
        clock: Arc::new(clock.clone()),
        ..options(mode, FILE)
    };
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
    // The background sees the expiry with no write: live keys fall, the bytes become
    // reclaimable.
    loop {
        let s = db.stats().unwrap();
        if s.live_keys == u64::from(KEYS) / 3 && s.expiring_keys == 0 {
            assert!(s.reclaimable_shadowed_bytes >= 2_000_000, "{}", s.to_text());
            break;
        }
        assert!(Instant::now() < deadline, "{}", s.to_text());
        std::thread::sleep(Duration::from_millis(50));
    }
    db.compact_range(None, None).unwrap();
    db.gc_report().unwrap();
    let bound = bound(&model, FILE);
    let amp = wait_for_space(&db, dir.path(), &model, bound);
    assert!(amp <= bound);
    let stats = db.stats().unwrap();
    assert_eq!(stats.expired_entries, 2000, "{}", stats.to_text());
    let got: Model = db.iter().map(Result::unwrap).collect();
    assert_eq!(got, model);
}

#[test]
fn expired_data_is_counted_then_reclaimed_with_drop_records() {
    expired_data_is_counted_then_reclaimed(GcMode::DropRecords);
}

#[test]
fn expired_data_is_counted_then_reclaimed_with_lsm_lookup() {
    expired_data_is_counted_then_reclaimed(GcMode::LsmLookup);
}
