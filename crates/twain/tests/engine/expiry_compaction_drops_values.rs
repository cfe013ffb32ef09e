//! Compaction drops expired puts (and flushes those expired before they reach a table):
//! an expired put becomes a tombstone at its sequence, its separated value gets a drop
//! record, and value GC reclaims the value file. A reopen with a clock that went back
//! brings back what no compaction has dropped yet, never what one has. Expiry times
//! survive every rewrite of their entry: placement, handle refresh and lazy fix-ups. In the
//! hash layout expiring puts stay inline, so their values leave with the compaction.

use std::sync::Arc;
use twain::{Db, GcMode, KeyExpiry, ManualClock, Options};

const T0: u64 = 1_900_000_000_000;

fn options(clock: &ManualClock, mode: GcMode) -> Options {
    Options::default()
        .clock(Arc::new(clock.clone()))
        .gc_mode(mode)
        .inline_threshold(64)
        .medium_threshold(64)
        .value_file_size(64 << 10)
        .memtable_size(256 << 10)
}

fn expired_values_are_reclaimed(mode: GcMode) {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open(dir.path(), options(&clock, mode)).unwrap();
    for i in 0..400u32 {
        let key = format!("k{i:04}");
        if i % 2 == 0 {
            db.put_with_expiry(&key, vec![1u8; 1000], T0 + 1_000)
                .unwrap();
        } else {
            db.put_with_expiry(&key, vec![2u8; 1000], T0 + 1_000_000)
                .unwrap();
        }
    }
    db.put("keeper", "k").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(
        db.stats().unwrap().expired_entries,
        0,
        "nothing expired yet"
    );
    clock.advance(1_000);
    db.compact_range(None, None).unwrap();
    let stats = db.stats().unwrap();
    assert_eq!(stats.expired_entries, 200, "{}", stats.to_text());
    assert!(
        stats.drop_records >= 200 || mode == GcMode::Vlog,
        "{}",
        stats.to_text()
    );
    // GC reclaims the dropped values: the live bytes are the 200 that remain.
    db.gc_report().unwrap();
    db.refresh_live_bytes().unwrap();
    let stats = db.stats().unwrap();
    assert_eq!(stats.live_keys, 201);
    assert_eq!(stats.expiring_keys, 200);
    assert!(
        stats.space_amplification().is_some_and(|a| a < 1.6),
        "expired values still take space: {}",
        stats.to_text()
    );
    assert_eq!(db.iter().count(), 201);
    for i in (1..400u32).step_by(2) {
        let key = format!("k{i:04}");
        assert_eq!(db.expiry(&key).unwrap(), KeyExpiry::At(T0 + 1_000_000));
        assert_eq!(db.get(&key).unwrap(), Some(vec![2u8; 1000]));
    }
}

#[test]
fn expired_values_are_reclaimed_with_drop_records() {
    expired_values_are_reclaimed(GcMode::DropRecords);
}

#[test]
fn expired_values_are_reclaimed_with_lsm_lookup() {
    expired_values_are_reclaimed(GcMode::LsmLookup);
}

#[test]
fn a_clock_set_back_brings_back_only_what_no_compaction_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let db = Db::open(dir.path(), options(&clock, GcMode::DropRecords)).unwrap();
    db.put_with_expiry("compacted", vec![3u8; 300], T0 + 10)
        .unwrap();
    db.put_with_expiry("in the log", "v", T0 + 10).unwrap();
    clock.advance(10);
    // The flush drops the first (expired before it reached a table); the second is
    // written after, so it stays in the log and the memtable.
    db.flush().unwrap();
    db.put_with_expiry("in the log", "v", T0 + 10).unwrap();
    assert_eq!(db.get("in the log").unwrap(), None);
    db.close().unwrap();
    clock.set(T0);
    let db = Db::open(dir.path(), options(&clock, GcMode::DropRecords)).unwrap();
    assert_eq!(
        db.get("compacted").unwrap(),
        None,
        "a dropped put stays dropped"
    );
    assert_eq!(db.get("in the log").unwrap(), Some(b"v".to_vec()));
    assert_eq!(db.expiry("in the log").unwrap(), KeyExpiry::At(T0 + 10));
}

#[test]
fn expiry_survives_placement_refresh_and_fixups() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let opts = (options(&clock, GcMode::DropRecords))
        // Medium pairs go to transient files at the flush and merge inline at the last
        // level: both moves must keep the expiry.
        .medium_threshold(32)
        .inline_threshold(2048);
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    for i in 0..300u32 {
        let key = format!("k{i:04}");
        let len = if i % 3 == 0 { 3000 } else { 200 };
        db.put_with_expiry(&key, vec![i as u8; len], T0 + 5_000 + u64::from(i))
            .unwrap();
    }
    db.flush().unwrap();
    // Overwrite a third so that GC rewrites value files, then read (fix-ups) and compact
    // (refreshes, merges).
    for i in (0..300u32).step_by(3) {
        db.put(format!("k{i:04}"), vec![9u8; 3000]).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.gc_report().unwrap();
    let check = |db: &Db| {
        for i in 0..300u32 {
            let key = format!("k{i:04}");
            if i % 3 == 0 {
                assert_eq!(db.expiry(&key).unwrap(), KeyExpiry::Never);
                assert_eq!(db.get(&key).unwrap(), Some(vec![9u8; 3000]));
            } else {
                assert_eq!(
                    db.get_with_expiry(&key).unwrap(),
                    Some((vec![i as u8; 200], Some(T0 + 5_000 + u64::from(i))))
                );
            }
        }
    };
    check(&db);
    db.compact_range(None, None).unwrap();
    check(&db);
    drop(db);
    let db = Db::open(dir.path(), opts).unwrap();
    check(&db);
    // Keys 1..=200 that expire have (134 of them); 66 remain, with the 100 plain ones.
    clock.advance(5_200);
    assert_eq!(db.iter().count(), 166);
    db.compact_range(None, None).unwrap();
    assert_eq!(db.iter().count(), 166);
    assert_eq!(db.stats().unwrap().expired_entries, 134);
    drop(db);
    let opts = twain::check::CheckOptions {
        clock: Arc::new(clock.clone()),
        ..Default::default()
    };
    let report = twain::check::check(dir.path(), &opts).unwrap();
    assert!(report.is_ok(), "{}", report.to_text());
}

#[test]
fn in_the_hash_layout_expiring_puts_stay_inline_and_leave_with_their_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let opts = (options(&clock, GcMode::DropRecords)).value_layout(twain::ValueLayout::Hash);
    let db = Db::open(dir.path(), opts).unwrap();
    for i in 0..300u32 {
        let key = format!("k{i:04}");
        if i % 3 == 0 {
            db.put(&key, vec![5u8; 1000]).unwrap();
        } else {
            db.put_with_expiry(&key, vec![6u8; 1000], T0 + 1_000)
                .unwrap();
        }
    }
    db.flush().unwrap();
    // Only the 100 plain values went into the groups' segments.
    let written = db.stats().unwrap().hash_segment_bytes_written;
    assert!(
        (100_000..150_000).contains(&written),
        "segments got {written} bytes"
    );
    assert_eq!(db.expiry("k0001").unwrap(), KeyExpiry::At(T0 + 1_000));
    clock.advance(1_000);
    db.compact_range(None, None).unwrap();
    let stats = db.stats().unwrap();
    assert_eq!(stats.expired_entries, 200, "{}", stats.to_text());
    let left: Vec<_> = db.iter().map(Result::unwrap).collect();
    assert_eq!(left.len(), 100);
    assert!(left.iter().all(|(_, v)| v == &vec![5u8; 1000]));
    drop(db);
    let opts = twain::check::CheckOptions {
        clock: Arc::new(clock.clone()),
        ..Default::default()
    };
    let report = twain::check::check(dir.path(), &opts).unwrap();
    assert!(report.is_ok(), "{}", report.to_text());
}
