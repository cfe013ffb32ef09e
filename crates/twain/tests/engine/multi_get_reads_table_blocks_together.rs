//! `Db::multi_get` finds its keys' entries in the tables as `get` does (level 0 newest
//! first, then one table per deeper level, a range deletion in the memtable hiding what it
//! covers), with the data blocks the keys need read together: each uncached block once per
//! request however many keys lie in it, in rounds of bounded size (through io_uring on a
//! real file system). A damaged block fails the call with its table's file; keys in other
//! blocks still read.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options};

/// Small tables of small blocks, values inline (the tables hold them).
fn opts(fs: &MemFs, block_cache: u64) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(16 << 10)
        .block_size(1024)
        .block_cache_size(block_cache)
        .target_file_size(16 << 10)
        .l0_compaction_trigger(100)
        .l0_slowdown_trigger(100)
        .l0_stop_trigger(100)
        .inline_threshold(4096)
        .medium_threshold(4096)
        .gc_enabled(false)
}

fn value(k: u32, round: u32) -> Vec<u8> {
    format!("k{k:04}r{round}-")
        .repeat(1 + (k % 5) as usize)
        .into_bytes()
}

fn key(k: u32) -> String {
    format!("k{k:04}")
}

/// Block reads so far, once the background's live-data pass (which reads the tables too)
/// has caught up with the database and stopped reading.
fn settled_misses(db: &Db) -> u64 {
    db.refresh_live_bytes().unwrap();
    let mut last = db.stats().unwrap().block_cache_misses;
    loop {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let now = db.stats().unwrap().block_cache_misses;
        if now == last {
            return now;
        }
        last = now;
    }
}

/// Every key of `0..n` and some missing ones, shuffled, one asked twice: `multi_get`
/// answers what `get` answers.
fn agrees_with_get(db: &Db, n: u32, what: &str) {
    let mut keys: Vec<String> = (0..n + 20).map(|k| key((k * 7919) % (n + 20))).collect();
    keys.push(key(3));
    keys.push("a".into());
    keys.push("zzz".into());
    let got = db.multi_get(&keys).unwrap();
    assert_eq!(got.len(), keys.len());
    for (k, v) in keys.iter().zip(&got) {
        assert_eq!(v, &db.get(k).unwrap(), "{what}: {k}");
    }
}

#[test]
fn multi_get_finds_what_get_finds_in_level_0_and_below() {
    for cache in [0, 1 << 20] {
        let fs = MemFs::new();
        let db = Db::open("/db", opts(&fs, cache)).unwrap();
        let n = 1500u32;
        for round in 0..5u32 {
            for k in 0..n {
                if (k + round).is_multiple_of(11) {
                    db.delete(key(k)).unwrap();
                } else if round == 0 || k % (round + 1) == 0 {
                    db.put(key(k), value(k, round)).unwrap();
                }
            }
            if round == 2 {
                db.compact_range(None, None).unwrap();
            }
            if round > 2 {
                // Each later round ends in a table of its own: the flush thread may flush
                // the memtables a round froze as one table, so without this level 0 could
                // hold a single table when the machine is busy.
                db.flush().unwrap();
            }
            agrees_with_get(&db, n, &format!("cache {cache} round {round}"));
        }
        // Overlapping tables of level 0 (no compaction runs) over a deeper level.
        let levels = db.stats().unwrap().levels;
        assert!(
            levels[0].files >= 2,
            "cache {cache}: {} tables in level 0",
            levels[0].files
        );
        assert!(
            levels[1..].iter().any(|l| l.files > 0),
            "cache {cache}: {levels:?}"
        );
        // A range deletion in the memtable hides what the tables hold.
        db.delete_range(key(100), key(300)).unwrap();
        agrees_with_get(&db, n, &format!("cache {cache} after a range deletion"));
        let snap = db.snapshot();
        let keys: Vec<String> = (0..n).map(key).collect();
        let seen = snap.multi_get(&keys).unwrap();
        for k in 0..n {
            db.put(key(k), value(k, 9)).unwrap();
        }
        db.flush().unwrap();
        assert_eq!(
            snap.multi_get(&keys).unwrap(),
            seen,
            "cache {cache}: snapshot"
        );
        drop(snap);
        agrees_with_get(&db, n, &format!("cache {cache} after rewriting every key"));
        db.close().unwrap();
    }
}

#[test]
fn each_uncached_block_is_read_once_per_request() {
    // No block cache: every block a read needs is read again. 400 keys of about 30 bytes
    // in one table of 1 KiB blocks: about 20 blocks.
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, 0).memtable_size(1 << 20)).unwrap();
    let n = 400u32;
    for k in 0..n {
        db.put(key(k), format!("value-of-{k:05}-padding")).unwrap();
    }
    db.flush().unwrap();
    assert_eq!(db.stats().unwrap().levels[0].files, 1);
    let keys: Vec<String> = (0..n).rev().map(key).collect();
    let before = settled_misses(&db);
    for k in &keys {
        assert!(db.get(k).unwrap().is_some());
    }
    let gets = db.stats().unwrap().block_cache_misses - before;
    assert_eq!(gets, u64::from(n), "a get reads its key's block");
    let got = db.multi_get(&keys).unwrap();
    assert!(got.iter().all(Option::is_some));
    let multi = db.stats().unwrap().block_cache_misses - before - gets;
    // A scan reads each block of the table once.
    assert_eq!(db.iter().count(), n as usize);
    let blocks = db.stats().unwrap().block_cache_misses - before - gets - multi;
    assert!(blocks > 5 && blocks < u64::from(n) / 10, "{blocks} blocks");
    assert_eq!(multi, blocks, "multi_get's block reads for {n} keys");
    db.close().unwrap();
}

/// The table file holding `needle`, and where.
fn find_in_tables(fs: &MemFs, dir: &Path, needle: &[u8]) -> (PathBuf, usize) {
    fs.list_dir(dir)
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .find_map(|n| {
            let p = dir.join(&n);
            let data = fs.read_file(&p).unwrap();
            data.windows(needle.len())
                .position(|w| w == needle)
                .map(|at| (p, at))
        })
        .unwrap_or_else(|| panic!("the value is in no table: {:?}", fs.list_dir(dir)))
}

#[test]
fn a_damaged_block_fails_the_call_with_its_table() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, 1 << 20).memtable_size(1 << 20)).unwrap();
    let n = 400u32;
    let target = b"the value that will be damaged, ".repeat(4);
    for k in 0..n {
        if k == 50 {
            db.put(key(k), &target).unwrap();
        } else {
            db.put(key(k), value(k, 0)).unwrap();
        }
    }
    db.flush().unwrap();
    db.close().unwrap();
    let (path, at) = find_in_tables(&fs, Path::new("/db"), &target);
    fs.corrupt(&path, at as u64 + 5, 0x01).unwrap();
    let db = Db::open("/db", opts(&fs, 1 << 20).memtable_size(1 << 20)).unwrap();
    match db.multi_get(&[key(300), key(50), key(1)]) {
        Err(Error::Corruption { file, .. }) => assert_eq!(file, path),
        other => panic!("{other:?}"),
    }
    // Keys in other blocks still read, and the damaged block was not cached.
    let far: Vec<String> = (300..n).map(key).collect();
    let got = db.multi_get(&far).unwrap();
    for (k, v) in (300..n).zip(got) {
        assert_eq!(v, Some(value(k, 0)), "{}", key(k));
    }
    assert!(matches!(db.get(key(50)), Err(Error::Corruption { .. })));
    db.close().unwrap();
}

#[test]
fn a_request_needing_more_than_one_round_of_blocks_reads_them_on_a_real_file_system() {
    // 10,000 inline values of 1 KiB (about 10 MB of blocks) in a cold cache: more than one
    // round of submitted block reads (8 MiB), from files read through the kernel.
    let dir = tempfile::tempdir().unwrap();
    let opts = || {
        Options::default()
            .memtable_size(1 << 20)
            .inline_threshold(4096)
            .medium_threshold(4096)
            .block_cache_size(64 << 20)
            .gc_enabled(false)
    };
    let db = Db::open(dir.path(), opts()).unwrap();
    let n = 10_000u32;
    let value = |k: u32| format!("v{k:05}").repeat(1024 / 6 + 1).into_bytes();
    for k in 0..n {
        let k = (k * 7919) % n;
        db.put(key(k), value(k)).unwrap();
    }
    // One sorted level: a filter's false positives in overlapping tables of level 0 would
    // add reads of blocks that do not hold the key.
    db.compact_range(None, None).unwrap();
    db.close().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    let mut keys: Vec<String> = (0..n).map(key).collect();
    keys.push("k99999".into()); // missing
    let before = settled_misses(&db);
    let got = db.multi_get(&keys).unwrap();
    for k in 0..n {
        assert_eq!(
            got[k as usize].as_deref(),
            Some(&value(k)[..]),
            "{}",
            key(k)
        );
    }
    assert_eq!(got[n as usize], None);
    let read = db.stats().unwrap().block_cache_misses - before;
    db.close().unwrap();
    // Each block was read once: as many as a scan of every table reads in a cold cache,
    // a few keys per block, not one read per key.
    let db = Db::open(dir.path(), opts()).unwrap();
    let before = settled_misses(&db);
    assert_eq!(db.iter().count(), n as usize);
    let blocks = db.stats().unwrap().block_cache_misses - before;
    assert!(blocks < u64::from(n) / 2, "{blocks} blocks");
    assert_eq!(read, blocks, "multi_get's block reads for {n} keys");
    db.close().unwrap();
}
