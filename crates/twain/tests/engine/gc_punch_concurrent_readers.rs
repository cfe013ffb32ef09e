//! No reader ever meets a hole: while writers overwrite contiguous key ranges (clustered
//! garbage) and the background GC punches it, point reads, iterators and snapshots running
//! alongside never fail and never see a value their key did not have. Every value names
//! its key, so a read of zeros or of another record is caught.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{DIR, assert_check_ok, key, options, value};

const KEYS: u32 = 1200;

/// Whether `v` is a value `punchutil::value` made for key `k`.
fn names(v: &[u8], k: u32) -> bool {
    v.len() == 1000 && v.starts_with(format!("{k:05}/").as_bytes())
}

fn key_index(k: &[u8]) -> u32 {
    std::str::from_utf8(&k[1..]).unwrap().parse().unwrap()
}

#[test]
fn readers_never_meet_a_punched_hole() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let opts = options(Arc::clone(&fs)).gc_enabled(true).gc_threshold(0.9);
    let db = Arc::new(Db::open(DIR, opts).unwrap());
    for k in 0..KEYS {
        db.put(key(k), value(k, 0)).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers = Vec::new();
    for t in 0..2u32 {
        let (db, stop) = (Arc::clone(&db), Arc::clone(&stop));
        readers.push(std::thread::spawn(move || {
            let mut n = t;
            while !stop.load(Ordering::Relaxed) {
                n = n.wrapping_mul(2_654_435_761).wrapping_add(12_345);
                if n % 8 == 0 {
                    // A scan, or a snapshot read later: both hold an older version.
                    let snap = db.snapshot();
                    let it = db.iter();
                    std::thread::sleep(Duration::from_millis(2));
                    for r in it.take(300) {
                        let (k, v) = r.unwrap();
                        assert!(names(&v, key_index(&k)), "iterator read a wrong value");
                    }
                    let k = n % KEYS;
                    let v = snap.get(key(k)).unwrap().unwrap();
                    assert!(names(&v, k), "snapshot read a wrong value");
                } else {
                    let k = n % KEYS;
                    let v = db.get(key(k)).unwrap().unwrap();
                    assert!(names(&v, k), "point read a wrong value");
                }
            }
        }));
    }
    let start = Instant::now();
    let mut round = 1;
    while start.elapsed() < Duration::from_secs(3) || db.stats().unwrap().gc_punch_runs == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no punch in a minute"
        );
        // A burst over a contiguous range leaves its old records in one dead run.
        let from = (round * 397) % (KEYS - 300);
        for k in from..from + 300 {
            db.put(key(k), value(k, round)).unwrap();
        }
        if round % 3 == 0 {
            db.compact_range(None, None).unwrap();
        }
        round += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    assert!(db.stats().unwrap().gc_punch_runs > 0);
    Arc::try_unwrap(db).ok().unwrap().close().unwrap();
    assert_check_ok(fs);
}
