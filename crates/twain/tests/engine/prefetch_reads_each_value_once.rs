//! With the prefetcher on, a scan reads each separated value exactly once (the cursor
//! never resolves again a value the pool read), coalesces neighbouring values into fewer
//! reads, wastes nothing when it runs to the end, and yields what a scan without
//! prefetching yields, whether the pool's threads or (values read fast) the cursor reads
//! the window. With `prefetch_threads = 0` nothing is prefetched.

use crate::dbutil;

use dbutil::{collect, key, small_opts, value};
use twain::Db;

fn filled(dir: &std::path::Path, prefetch_threads: usize) -> Db {
    filled_with(dir, prefetch_threads, 0)
}

/// 2,000 separated values, flushed; reads count as fast below `min_read_micros`.
fn filled_with(dir: &std::path::Path, prefetch_threads: usize, min_read_micros: u64) -> Db {
    let opts = small_opts()
        .prefetch_threads(prefetch_threads)
        .prefetch_min_read_micros(min_read_micros)
        .inline_threshold(32)
        .gc_enabled(false);
    let db = Db::open(dir, opts).unwrap();
    for i in 0..2000 {
        db.put(key(i), value(&key(i), 1, 5)).unwrap(); // 200 bytes: separated
    }
    db.flush().unwrap();
    db
}

/// Scans `db` whole, checks every pair and that each value was read once, and returns
/// the statistics before and after.
fn full_scan(db: &Db) -> (twain::Stats, twain::Stats) {
    let before = db.stats().unwrap();
    let got = collect(db.iter());
    let after = db.stats().unwrap();
    assert_eq!(got.len(), 2000);
    for (i, (k, v)) in got.iter().enumerate() {
        assert_eq!(k, &key(i as u64));
        assert_eq!(v, &value(k, 1, 5));
    }
    assert_eq!(
        after.value_reads - before.value_reads,
        2000,
        "every value read exactly once"
    );
    (before, after)
}

#[test]
fn a_full_scan_reads_each_value_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = filled(dir.path(), 3);
    let (before, after) = full_scan(&db);
    let reads = after.prefetch_reads - before.prefetch_reads;
    assert!(reads > 0, "nothing was prefetched");
    assert!(
        reads < 2000 / 4,
        "{reads} prefetch reads for 2000 neighbouring values: not coalesced"
    );
    assert!(after.prefetch_bytes > 2000 * 150);
    assert_eq!(
        after.prefetch_wasted_bytes, 0,
        "a scan to the end wastes nothing"
    );

    // Reverse scans and short scans do not prefetch, and read each value once too.
    let before = db.stats().unwrap();
    let back: Vec<_> = db.iter().rev().map(|r| r.unwrap()).collect();
    let two: Vec<_> = db.iter().take(2).map(|r| r.unwrap()).collect();
    let after = db.stats().unwrap();
    assert_eq!(back.len(), 2000);
    assert_eq!(two.len(), 2);
    assert_eq!(after.value_reads - before.value_reads, 2002);
    assert_eq!(after.prefetch_reads, before.prefetch_reads);
}

#[test]
fn fast_reads_are_read_a_window_at_a_time_by_the_cursor() {
    // Every read counts as fast: the cursor reads each window itself, neighbours
    // coalesced, each value once.
    let dir = tempfile::tempdir().unwrap();
    let db = filled_with(dir.path(), 2, 1_000_000);
    let (before, after) = full_scan(&db);
    let reads = after.prefetch_reads - before.prefetch_reads;
    assert!(reads > 0, "the cursor read no window");
    assert!(reads < 2000 / 4, "{reads} reads for 2000 neighbours");
    assert_eq!(after.prefetch_wasted_bytes, 0);

    // A scan that stops early (the walks seen so far went to the end) wastes what its
    // last window read past it, and no more than a cursor's window of 64 entries.
    let before = db.stats().unwrap();
    let some: Vec<_> = db.iter().take(100).map(|r| r.unwrap()).collect();
    let after = db.stats().unwrap();
    assert_eq!(some.len(), 100);
    for (i, (k, v)) in some.iter().enumerate() {
        assert_eq!(k, &key(i as u64));
        assert_eq!(v, &value(k, 1, 5));
    }
    let wasted = after.prefetch_wasted_bytes - before.prefetch_wasted_bytes;
    let one = value(&key(0), 1, 5).len() as u64;
    assert!(
        wasted > 0 && wasted <= 64 * one,
        "{wasted} bytes read past the end ({one} per value)"
    );
}

#[test]
fn no_threads_no_prefetch() {
    let dir = tempfile::tempdir().unwrap();
    let db = filled(dir.path(), 0);
    let got = collect(db.iter());
    assert_eq!(got.len(), 2000);
    let s = db.stats().unwrap();
    assert_eq!(s.prefetch_reads, 0);
    assert_eq!(s.prefetch_bytes, 0);
    assert_eq!(s.value_reads, 2000);
}
