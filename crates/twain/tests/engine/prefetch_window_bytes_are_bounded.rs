//! The bytes one iterator reads ahead are bounded: a scan of 256 KiB values whose window
//! would otherwise reach dozens of entries (it grows with the steps taken) holds at most
//! 4 MiB ahead of the cursor while the pool reads it, and 512 KiB while the cursor reads
//! its window itself. Counted through `prefetch_bytes` once the reads in flight are done.

use crate::dbutil;

use dbutil::{BACKGROUND_DEADLINE, key, wait_until};
use std::time::Duration;
use twain::{Db, Options};

const VALUE: u64 = 256 << 10;
const VALUES: u64 = 120;
const STEPS: u64 = 60;

fn value(i: u64) -> Vec<u8> {
    let mut v = format!("{i}:").into_bytes();
    v.resize(VALUE as usize, b'a' + (i % 26) as u8);
    v
}

/// The bytes prefetched after `STEPS` steps of a scan, once no read is in flight.
fn read_ahead_after_steps(min_read_micros: u64) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options::default()
        .value_file_size(64 << 20)
        .prefetch_threads(2)
        .prefetch_min_read_micros(min_read_micros)
        .gc_enabled(false);
    let db = Db::open(dir.path(), opts).unwrap();
    for i in 0..VALUES {
        db.put(key(i), value(i)).unwrap();
    }
    db.flush().unwrap();
    let before = db.stats().unwrap().prefetch_bytes;
    let mut it = db.iter();
    for i in 0..STEPS {
        let (k, v) = it.next().unwrap().unwrap();
        assert_eq!((k, v), (key(i), value(i)));
    }
    // The pool's reads finish in the background: wait until the figure holds still.
    let mut last = u64::MAX;
    let settled = wait_until(BACKGROUND_DEADLINE, || {
        std::thread::sleep(Duration::from_millis(50));
        let now = db.stats().unwrap().prefetch_bytes;
        std::mem::replace(&mut last, now) == now
    });
    assert!(settled, "prefetch reads never finished");
    drop(it);
    last - before
}

/// What `STEPS` steps may have read: the values the cursor took, the bound ahead of it,
/// one value past the bound (the window takes an entry while under it), and the record
/// headers and keys a read of neighbours spans (under 1 KiB per value here).
fn most(bound: u64) -> u64 {
    let values = STEPS + bound / VALUE + 1;
    values * (VALUE + 1024)
}

#[test]
fn the_pool_holds_at_most_four_mebibytes_ahead() {
    let read = read_ahead_after_steps(0);
    assert!(
        read > STEPS * VALUE / 2,
        "the pool read little ahead: {read}"
    );
    assert!(read <= most(4 << 20), "{read} bytes read for {STEPS} steps");
}

#[test]
fn the_cursor_holds_at_most_half_a_mebibyte_ahead() {
    // Every read counts as fast (the most the option allows): the cursor reads its own
    // window.
    let read = read_ahead_after_steps(1_000_000);
    assert!(
        read > STEPS * VALUE / 2,
        "the cursor read little ahead: {read}"
    );
    assert!(
        read <= most(512 << 10),
        "{read} bytes read for {STEPS} steps"
    );
}
