//! The hash layout's reserved pool bounds the garbage actually on disk, measured from the
//! segment files, not only its own estimate: under uniform overwrites right after a load of
//! new keys (the estimate learns from the flushes' samples that writes now kill older
//! records, rather than waiting for GCs it would not start), and while most records sit in
//! cold segments (their dead records count against the budget, and a group picked for them
//! has its deadest cold segment merged). Every value reads back.

use crate::hashutil::{self, segment_bytes};
use twain::fs::MemFs;
use twain::{Db, Options};

fn opts(fs: &MemFs) -> Options {
    hashutil::opts(fs, 4)
        .hash_hotness(true)
        .space_amp_target(1.3)
}

const KEYS: u32 = 2000;
const VALUE: usize = 500;

fn value(key: u32, version: u32) -> Vec<u8> {
    hashutil::value(key, version, VALUE)
}

#[test]
fn uniform_overwrites_after_a_load_keep_garbage_within_the_budget() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs)).unwrap();
    let mut model: Vec<u32> = vec![0; KEYS as usize];
    for key in 0..KEYS {
        db.put(format!("k{key:05}"), value(key, 0)).unwrap();
    }
    // Uniform overwrites of 5 times the data, in rounds of a quarter of it: a record
    // that two group GCs find alive goes cold, and most overwrites then kill one.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut samples = Vec::new();
    for round in 1..=20u32 {
        for _ in 0..KEYS / 4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = (x % u64::from(KEYS)) as u32;
            model[key as usize] = round;
            db.put(format!("k{key:05}"), value(key, round)).unwrap();
        }
        let s = db.stats().unwrap();
        let h = s.hash_layout.unwrap();
        samples.push((segment_bytes(&s), h.reserved_budget, h));
    }
    let s = db.stats().unwrap();
    let h = s.hash_layout.unwrap();
    assert!(h.cold_bytes > 0, "nothing went cold: {h:?}");
    assert!(s.totals.gc_runs > 0, "no group GC ran: {h:?}");
    // The segments without garbage: a complete GC leaves only live records.
    db.gc().unwrap();
    let clean = segment_bytes(&db.stats().unwrap());
    let live = u64::from(KEYS) * (VALUE as u64 + 6);
    assert!(
        clean < live * 11 / 10,
        "{clean} bytes of segments after a complete GC for {live} live"
    );
    // Garbage on disk at the end of each round: at most the budget, plus the memtable a
    // flush adds once it finds room, plus the records that cold segments' own share
    // rule leaves (the estimate learns the pool's ratio as it goes).
    let worst = samples
        .iter()
        .map(|&(bytes, budget, _)| bytes.saturating_sub(clean) as f64 / budget as f64)
        .fold(0.0, f64::max);
    let (bytes, budget, h) = samples
        .iter()
        .max_by_key(|(bytes, _, _)| *bytes)
        .copied()
        .unwrap();
    assert!(
        worst <= 1.6,
        "garbage reached {worst:.2} budgets (worst sample {bytes} bytes of segments, \
         budget {budget}, {h:?})"
    );
    for (key, &version) in model.iter().enumerate() {
        let key = key as u32;
        assert_eq!(
            db.get(format!("k{key:05}")).unwrap(),
            Some(value(key, version)),
            "key {key}"
        );
    }
    db.close().unwrap();
}
