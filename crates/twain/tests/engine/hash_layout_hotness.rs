//! Hotness awareness in the hash layout (HashKV's H2): records that survive a second group
//! GC move to cold segments, which later GCs judge without copying; reads through every
//! kind of stale handle find them; a complete GC merges cold segments that hold garbage;
//! with `hash_hotness` off, every survivor is copied by every GC.

use crate::hashutil;
use std::path::Path;
use twain::fs::MemFs;
use twain::{Db, Options};

fn opts(fs: &MemFs, hotness: bool) -> Options {
    hashutil::opts(fs, 2)
        .hash_hotness(hotness)
        .gc_enabled(false)
}

fn value(key: u32, round: u32) -> Vec<u8> {
    hashutil::value(key, round, 500)
}

/// Loads `keys` keys, then overwrites the first tenth `rounds` times with a complete GC
/// after each round; returns the value each key holds.
fn hot_and_cold(db: &Db, keys: u32, rounds: u32) -> Vec<Vec<u8>> {
    let mut model: Vec<Vec<u8>> = (0..keys).map(|k| value(k, 0)).collect();
    for (k, v) in model.iter().enumerate() {
        db.put(format!("k{k:04}"), v).unwrap();
    }
    db.gc().unwrap();
    for round in 1..=rounds {
        for k in 0..keys / 10 {
            model[k as usize] = value(k, round);
            db.put(format!("k{k:04}"), &model[k as usize]).unwrap();
        }
        db.gc().unwrap();
    }
    model
}

fn read_all(db: &Db, model: &[Vec<u8>]) {
    for (k, v) in model.iter().enumerate() {
        assert_eq!(
            db.get(format!("k{k:04}")).unwrap().as_ref(),
            Some(v),
            "key {k}"
        );
    }
    let scanned: Vec<Vec<u8>> = db.iter().map(|r| r.unwrap().1).collect();
    assert_eq!(scanned, model);
}

#[test]
fn cold_records_are_judged_not_copied_and_read_back_through_old_handles() {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    let db = Db::open(dir, opts(&fs, true)).unwrap();
    let model = hot_and_cold(&db, 1000, 6);
    let stats = db.stats().unwrap();
    let h = stats.hash_layout.unwrap();
    assert!(h.cold_segments > 0 && h.cold_bytes > 0, "{h:?}");
    assert!(
        h.cold_segments <= 2 * 4,
        "at most four cold segments per group: {h:?}"
    );
    // The cold nine tenths are judged by every GC after the second, and never copied.
    let cold_live = 900 * 500;
    assert!(
        stats.totals.hash_gc_bytes_not_copied >= 3 * cold_live,
        "{} bytes not copied",
        stats.totals.hash_gc_bytes_not_copied
    );
    // The tables still hold handles made by the flush (the segments are long merged
    // away) and by nothing else: every read goes through the group's chain.
    read_all(&db, &model);
    db.close().unwrap();
    hashutil::assert_checks_clean(&fs, dir);

    // Counted across opens; cold segments are recognised again.
    let db = Db::open(dir, opts(&fs, true)).unwrap();
    read_all(&db, &model);
    let again = db.stats().unwrap();
    assert_eq!(again.hash_layout.unwrap().cold_segments, h.cold_segments);
    assert_eq!(
        again.totals.hash_gc_bytes_not_copied,
        stats.totals.hash_gc_bytes_not_copied
    );
    db.close().unwrap();
}

#[test]
fn hotness_off_copies_every_survivor_every_time() {
    let written = |hotness: bool| {
        let fs = MemFs::new();
        let db = Db::open("/db", opts(&fs, hotness)).unwrap();
        let model = hot_and_cold(&db, 1000, 6);
        read_all(&db, &model);
        let s = db.stats().unwrap();
        db.close().unwrap();
        (s.totals.gc_bytes_written, s.hash_layout.unwrap())
    };
    let (on, h_on) = written(true);
    let (off, h_off) = written(false);
    assert_eq!(h_off.cold_segments, 0, "{h_off:?}");
    assert!(h_on.cold_segments > 0, "{h_on:?}");
    assert!(
        on * 2 < off,
        "GC wrote {on} bytes with hotness, {off} without"
    );
}

#[test]
fn cold_garbage_is_merged_away() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, true)).unwrap();
    let mut model = hot_and_cold(&db, 1000, 3);
    // Now the cold keys change: their cold records die.
    for k in 100..1000u32 {
        if k % 2 == 0 {
            db.delete(format!("k{k:04}")).unwrap();
        } else {
            model[k as usize] = value(k, 9);
            db.put(format!("k{k:04}"), &model[k as usize]).unwrap();
        }
    }
    db.gc().unwrap();
    let h = db.stats().unwrap().hash_layout.unwrap();
    let live: u64 = 550 * 500;
    assert!(
        h.main_bytes < live * 13 / 10,
        "a complete GC leaves no garbage behind: {h:?}"
    );
    for k in 0..1000u32 {
        let want = (k < 100 || k % 2 == 1).then(|| model[k as usize].clone());
        assert_eq!(db.get(format!("k{k:04}")).unwrap(), want, "key {k}");
    }
    db.close().unwrap();
}

#[test]
fn a_group_of_cold_segments_alone_survives_hotness_turned_off() {
    let fs = MemFs::new();
    let one_group = |hotness| (opts(&fs, hotness)).hash_groups(1);
    let db = Db::open("/db", one_group(true)).unwrap();
    for k in 0..200u32 {
        db.put(format!("k{k:04}"), value(k, 0)).unwrap();
    }
    db.gc().unwrap();
    for k in 0..100u32 {
        db.delete(format!("k{k:04}")).unwrap();
    }
    // The survivors go cold and nothing is left for the main segment.
    db.gc().unwrap();
    let h = db.stats().unwrap().hash_layout.unwrap();
    assert_eq!((h.segments, h.cold_segments), (1, 1), "{h:?}");
    db.close().unwrap();

    let db = Db::open("/db", one_group(false)).unwrap();
    for k in 100..120u32 {
        db.delete(format!("k{k:04}")).unwrap();
    }
    db.gc().unwrap();
    db.gc().unwrap();
    for k in 0..200u32 {
        let want = (k >= 120).then(|| value(k, 0));
        assert_eq!(db.get(format!("k{k:04}")).unwrap(), want, "key {k}");
    }
    db.put("k0150", value(150, 1)).unwrap();
    db.gc().unwrap();
    let h = db.stats().unwrap().hash_layout.unwrap();
    assert_eq!(h.cold_segments, 0, "folded into the main segment: {h:?}");
    for k in 120..200u32 {
        let want = value(k, u32::from(k == 150));
        assert_eq!(db.get(format!("k{k:04}")).unwrap(), Some(want), "key {k}");
    }
    db.close().unwrap();
}
