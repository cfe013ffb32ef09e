//! Zero-copy reads: `get_pinned` and the `Pinned` iterator return the same values as
//! `get` and `range` from every tier (memtable, L0 and deeper tables, inline, expiring
//! and separated values, after value GC), and an inline value found in a table shares its
//! block: two values of one block lie side by side in memory, and a value outlives the
//! block's life in the cache.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Bytes, Db, ManualClock, Options, ReadOptions};

use crate::dbutil::{self, Model};

fn opts(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(400)
        .medium_threshold(400)
        .gc_enabled(false)
        .gc_threshold(1.0)
        .clock(Arc::new(ManualClock::new(1_000)))
        // Iterators read separated values ahead however fast reads are: pinned values
        // then share the prefetcher's reads.
        .prefetch_min_read_micros(0)
}

/// A value of key `k`: inline (200 B) or separated (2,000 B) by `k`.
fn value(k: u32, round: u32) -> Vec<u8> {
    let n = if k.is_multiple_of(3) { 2_000 } else { 200 };
    format!("k{k:04}r{round}.").repeat(n / 8 + 1).into_bytes()[..n].to_vec()
}

fn key(k: u32) -> String {
    format!("k{k:04}")
}

/// Fills 600 keys over three rounds: some deleted, one in ten expiring later, the last
/// round left in the memtable.
fn fill(db: &Db) -> Model {
    let mut model = Model::new();
    for round in 0..3u32 {
        for k in 0..600u32 {
            if k % 11 == 5 && round == 2 {
                db.delete(key(k)).unwrap();
                model.remove(key(k).as_bytes());
            } else if round == 0 || k % 2 == 0 {
                let v = value(k, round);
                if k % 10 == 7 {
                    db.put_with_expiry(key(k), &v, 1_000_000).unwrap();
                } else {
                    db.put(key(k), &v).unwrap();
                }
                model.insert(key(k).into_bytes(), v);
            }
        }
        if round < 2 {
            db.flush().unwrap();
        }
        if round == 0 {
            db.compact_range(None, None).unwrap();
        }
    }
    model
}

fn agrees_with_model(db: &Db, model: &Model, what: &str) {
    for k in 0..610u32 {
        let want = model.get(key(k).as_bytes());
        let got = db.get_pinned(key(k)).unwrap();
        assert_eq!(
            got.as_deref(),
            want.map(Vec::as_slice),
            "{what}: get_pinned {k}"
        );
        let uncached = db
            .get_pinned_opt(key(k), &ReadOptions::default().fill_cache(false))
            .unwrap();
        assert_eq!(uncached, got, "{what}: without fill_cache {k}");
        assert_eq!(
            got.map(Vec::from),
            db.get(key(k)).unwrap(),
            "{what}: get {k}"
        );
    }
    let pinned: Vec<(Vec<u8>, Bytes)> = db
        .range_pinned::<&[u8], _>(..)
        .map(Result::unwrap)
        .collect();
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.clone().into_iter().collect();
    let got: Vec<(Vec<u8>, Vec<u8>)> = pinned.into_iter().map(|(k, v)| (k, v.to_vec())).collect();
    dbutil::assert_pairs_eq(&got, &want, &format!("{what}: forward"));
    let mut back: Vec<(Vec<u8>, Vec<u8>)> = db
        .range_pinned::<&[u8], _>(..)
        .rev()
        .map(|r| r.map(|(k, v)| (k, v.to_vec())).unwrap())
        .collect();
    back.reverse();
    dbutil::assert_pairs_eq(&back, &want, &format!("{what}: backward"));
    // Separated values were read ahead: pinned ones share the prefetcher's reads.
    assert!(
        db.stats().unwrap().prefetch_reads > 0,
        "{what}: nothing prefetched"
    );
}

#[test]
fn pinned_reads_return_what_copying_reads_return() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs)).unwrap();
    let model = fill(&db);
    agrees_with_model(&db, &model, "three tiers");
    // After value GC the handles are stale: values come from the rewritten files.
    db.gc().unwrap();
    agrees_with_model(&db, &model, "after GC");
    // A snapshot reads at its own view.
    let snap = db.snapshot();
    db.put(key(1), "newer").unwrap();
    assert_eq!(
        snap.get_pinned(key(1)).unwrap().as_deref(),
        model.get(key(1).as_bytes()).map(Vec::as_slice)
    );
    assert_eq!(
        db.get_pinned(key(1)).unwrap().as_deref(),
        Some(&b"newer"[..])
    );
    drop(snap);
    drop(db);
    let db = Db::open("/db", opts(&fs)).unwrap();
    let mut model = model;
    model.insert(key(1).into_bytes(), b"newer".to_vec());
    agrees_with_model(&db, &model, "reopened");
}

#[test]
fn the_cursor_seeks_and_steps_back_with_pinned_values() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs)).unwrap();
    let model = fill(&db);
    let mut it = db.range_pinned(key(100)..key(200));
    it.seek(key(150));
    let (k, v) = it.next().unwrap().unwrap();
    let (wk, wv) = model.range(key(150).into_bytes()..).next().unwrap();
    assert_eq!((&k, v.as_ref()), (wk, wv.as_slice()));
    let (k2, v2) = it.prev().unwrap().unwrap();
    let (wk2, wv2) = model.range(..key(150).into_bytes()).next_back().unwrap();
    assert_eq!((&k2, v2.as_ref()), (wk2, wv2.as_slice()));
    it.seek_to_last();
    let (k3, _) = it.prev().unwrap().unwrap();
    assert_eq!(
        &k3,
        model.range(..key(200).into_bytes()).next_back().unwrap().0
    );
    // A plain iterator turned pinned keeps its place: after one step, in the middle of a
    // long walk (with values read ahead of the cursor), and with its back end in use.
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.clone().into_iter().collect();
    for steps in [1, 150] {
        let mut plain = db.range(key(0)..);
        let walked: Vec<_> = plain.by_ref().take(steps).map(Result::unwrap).collect();
        assert_eq!(walked, want[..steps]);
        let rest: Vec<_> = plain
            .into_pinned()
            .map(|r| r.map(|(k, v)| (k, v.to_vec())).unwrap())
            .collect();
        assert_eq!(rest, want[steps..], "after {steps} steps");
    }
    let mut plain = db.range(key(0)..);
    let last = plain.next_back().unwrap().unwrap();
    assert_eq!(&last, want.last().unwrap());
    let mut pinned = plain.into_pinned();
    let (k, v) = pinned.next_back().unwrap().unwrap();
    assert_eq!(
        (&k, v.as_ref()),
        (&want[want.len() - 2].0, want[want.len() - 2].1.as_slice())
    );
    let front: Vec<_> = pinned.map(|r| r.unwrap().0).collect();
    assert_eq!(front.len(), want.len() - 2, "the two ends meet");
}

#[test]
fn inline_values_of_a_table_share_its_block() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs).block_cache_size(64 << 10)).unwrap();
    // Four 200-byte values fit one 4 KiB block several times over.
    for k in 0..4u32 {
        db.put(key(k * 3 + 1), value(1, 0)).unwrap();
    }
    db.flush().unwrap();
    let a = db.get_pinned(key(1)).unwrap().unwrap();
    let b = db.get_pinned(key(4)).unwrap().unwrap();
    let again = db.get_pinned(key(1)).unwrap().unwrap();
    // One cached block: the same bytes for the same key, neighbours side by side.
    assert_eq!(
        a.as_ptr(),
        again.as_ptr(),
        "a second read shares the cached block"
    );
    let gap = (b.as_ptr() as usize).abs_diff(a.as_ptr() as usize);
    assert!(gap < 4096, "neighbours {gap} bytes apart: not one block");
    // The iterator shares it too.
    let via_iter: Vec<Bytes> = db
        .range_pinned::<&[u8], _>(..)
        .map(|r| r.unwrap().1)
        .collect();
    assert_eq!(via_iter[0].as_ptr(), a.as_ptr());
    drop(db);
    // Without a block cache each read loads the block afresh, and the value it returns
    // holds that block: it stays valid however many blocks are read after it.
    let db = Db::open("/db", opts(&fs).block_cache_size(0)).unwrap();
    let a = db.get_pinned(key(1)).unwrap().unwrap();
    let b = db.get_pinned(key(1)).unwrap().unwrap();
    assert_ne!(
        a.as_ptr(),
        b.as_ptr(),
        "no cache: each read has its own block"
    );
    for _ in 0..100 {
        db.get(key(7)).unwrap();
    }
    assert_eq!(a, value(1, 0));
    assert_eq!(b, value(1, 0));
}

/// The copying iterator's values, read ahead in coalesced runs that pinned values share,
/// each hold a buffer of about their own size: none keeps its run's buffer.
#[test]
fn copied_values_keep_no_run_buffer() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs)).unwrap();
    for k in 0..400u32 {
        db.put(key(k), vec![b'v'; 1000]).unwrap();
    }
    db.flush().unwrap();
    let before = db.stats().unwrap().prefetch_bytes;
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(Result::unwrap).collect();
    assert_eq!(pairs.len(), 400);
    assert!(
        db.stats().unwrap().prefetch_bytes > before,
        "nothing prefetched"
    );
    for (k, v) in &pairs {
        assert_eq!(v.len(), 1000);
        assert!(
            v.capacity() <= 2000,
            "{k:?}: a value of 1000 bytes holds {}",
            v.capacity()
        );
    }
}
