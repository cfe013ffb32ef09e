//! In the hash layout a delete, or a small put over a large value, kills a record of its
//! key's group while the group gets only a tombstone: a few bytes of log segment for a
//! record of any size. The reserved pool sees that garbage from the flush that writes the
//! tombstones (its sample looks the keys up in the tree), and background GC reclaims it
//! unasked, within a bounded time. Every value reads back.

use crate::hashutil::{self, segment_bytes};
use std::time::{Duration, Instant};
use twain::fs::MemFs;
use twain::{Db, Options};

fn opts(fs: &MemFs) -> Options {
    hashutil::opts(fs, 4).space_amp_target(1.3)
}

const KEYS: u32 = 2000;
const VALUE: usize = 2000;

fn key(k: u32) -> String {
    format!("k{k:05}")
}

fn value(k: u32) -> Vec<u8> {
    hashutil::value(k, 0, VALUE)
}

#[test]
fn deletes_and_small_puts_over_large_values_are_collected_unasked() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs)).unwrap();
    for k in 0..KEYS {
        db.put(key(k), value(k)).unwrap();
    }
    // Everything in main segments, nothing dead.
    db.gc().unwrap();
    let loaded = segment_bytes(&db.stats().unwrap());
    // Half the keys deleted, a quarter overwritten small: three quarters of the records
    // die, for tombstones of a few bytes each.
    for k in (0..KEYS).step_by(2) {
        db.delete(key(k)).unwrap();
    }
    for k in (1..KEYS).step_by(4) {
        db.put(key(k), b"tiny").unwrap();
    }
    db.flush().unwrap();
    // The background reclaims it once the foreground is quiet (the tombstones' own bytes
    // would never have started a GC: they are a few percent of the pool's budget).
    let live = u64::from(KEYS) / 4 * VALUE as u64;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = db.stats().unwrap();
        let bytes = segment_bytes(&s);
        if bytes <= live * 3 / 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{bytes} bytes of segments for {live} live after a minute ({loaded} loaded): {:?}",
            s.hash_layout
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for k in 0..KEYS {
        let want = match k % 4 {
            0 | 2 => None,
            1 => Some(b"tiny".to_vec()),
            _ => Some(value(k)),
        };
        assert_eq!(db.get(key(k)).unwrap(), want, "key {k}");
    }
    db.close().unwrap();
}
