//! The hash layout's reserved space (HashKV's H4): under a burst of overwrites, background
//! group GC keeps the garbage of the log segments within the budget that
//! `space_amp_target` sets (a flush that finds it used up waits for GC rather than grow
//! the disk), and every value reads back; a load of new keys is not regrouped over and
//! over. Without background GC, flushes never wait (nothing would make room).

use crate::hashutil;
use std::path::Path;
use twain::fs::MemFs;
use twain::{Db, Options};

fn opts(fs: &MemFs, gc: bool) -> Options {
    hashutil::opts(fs, 4).gc_enabled(gc).space_amp_target(1.3)
}

fn value(key: u32, round: u32) -> Vec<u8> {
    hashutil::value(key, round, 1000)
}

#[test]
fn overwrites_stay_within_the_reserved_budget() {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    let db = Db::open(dir, opts(&fs, true)).unwrap();
    let (keys, rounds) = (400u32, 25u32);
    let mut worst = 0i64;
    for round in 0..rounds {
        for key in 0..keys {
            db.put(format!("k{key:04}"), value(key, round)).unwrap();
        }
        let h = db.stats().unwrap().hash_layout.unwrap();
        // A flush waits while the garbage is at the budget, then adds one memtable's.
        worst = worst.max(h.reserved_garbage as i64 - h.reserved_budget as i64);
    }
    let stats = db.stats().unwrap();
    let h = stats.hash_layout.unwrap();
    assert!(
        worst <= (72 << 10),
        "the garbage went {worst} bytes past its budget: {h:?}"
    );
    assert!(stats.totals.gc_runs > 0, "no group GC ran: {h:?}");
    assert!(h.main_bytes > 0);
    for key in 0..keys {
        assert_eq!(
            db.get(format!("k{key:04}")).unwrap(),
            Some(value(key, rounds - 1))
        );
    }
    // Quiet: a complete GC empties the pool, and the segments hold little more than the
    // live values.
    db.gc().unwrap();
    let h = db.stats().unwrap().hash_layout.unwrap();
    assert_eq!(h.reserved_bytes, 0, "{h:?}");
    let live = u64::from(keys) * 1000;
    assert!(h.main_bytes < live * 13 / 10, "{h:?}");
    db.close().unwrap();
}

#[test]
fn without_background_gc_a_flush_never_waits() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, false)).unwrap();
    for round in 0..10 {
        for key in 0..400 {
            db.put(format!("k{key:04}"), value(key, round)).unwrap();
        }
    }
    db.flush().unwrap();
    let stats = db.stats().unwrap();
    let h = stats.hash_layout.unwrap();
    assert_eq!(h.flush_waits, 0);
    assert!(h.reserved_garbage > h.reserved_budget, "{h:?}");
    assert_eq!(stats.totals.gc_runs, 0);
    // A complete GC still collects on request.
    db.gc().unwrap();
    assert_eq!(db.stats().unwrap().hash_layout.unwrap().reserved_bytes, 0);
    db.close().unwrap();
}

#[test]
fn a_load_of_new_keys_is_not_regrouped_over_and_over() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, true)).unwrap();
    // 8 MiB of new keys: 128 memtables' worth of segments for a 64 KiB memtable.
    for key in 0..8000u32 {
        db.put(format!("k{key:05}"), value(key, 0)).unwrap();
    }
    db.flush().unwrap();
    let s = db.stats().unwrap();
    let written = s.totals.hash_segment_bytes_written;
    // Group GCs learn that the logs hold no garbage: they copy far less than a GC per
    // memtable would (each rewrites a group's whole main segment).
    assert!(
        s.totals.gc_bytes_written < written * 2,
        "GC wrote {} for {written} of segments",
        s.totals.gc_bytes_written
    );
    db.close().unwrap();
}
