//! `Db::multi_get` (and `Snapshot::multi_get`): the values of many keys at one view, in the order asked, the same as a
//! `get` of each (memtable and tables, inline and separated, deleted and missing keys, a
//! key asked twice, handles made stale by value GC, both value layouts); separated values
//! that lie together in one value file are read with few positional reads, submitted
//! together in groups of bounded size (through io_uring on a real file system); a damaged
//! one fails the call with its file.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options, ValueLayout};

fn opts(fs: &MemFs, layout: ValueLayout) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .medium_threshold(64)
        .gc_enabled(false)
        .gc_threshold(1.0)
        .value_layout(layout)
        .hash_groups(4)
}

fn value(k: u32, round: u32) -> Vec<u8> {
    let n = if k.is_multiple_of(4) { 10 } else { 300 }; // a quarter inline, the rest separated
    format!("k{k:03}r{round}").repeat(n / 7 + 1).into_bytes()
}

fn agrees_with_get(db: &Db, what: &str) {
    let mut keys: Vec<String> = (0..220u32).map(|k| format!("k{k:03}")).collect();
    keys.push("k005".into()); // asked twice
    keys.reverse(); // not in key order
    let got = db.multi_get(&keys).unwrap();
    assert_eq!(got.len(), keys.len());
    for (k, v) in keys.iter().zip(&got) {
        assert_eq!(v, &db.get(k).unwrap(), "{what}: {k}");
    }
}

fn reads_like_get(layout: ValueLayout) {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, layout)).unwrap();
    for round in 0..3u32 {
        for k in 0..200u32 {
            if k % 7 == 3 && round == 2 {
                db.delete(format!("k{k:03}")).unwrap();
            } else if round == 0 || k % 2 == 0 {
                db.put(format!("k{k:03}"), value(k, round)).unwrap();
            }
        }
        if round < 2 {
            db.flush().unwrap();
        }
        agrees_with_get(&db, &format!("{layout:?} round {round}"));
    }
    // A snapshot reads at its own view.
    let snap = db.snapshot();
    let before: Vec<String> = (0..200u32).map(|k| format!("k{k:03}")).collect();
    let seen = snap.multi_get(&before).unwrap();
    for k in 0..200u32 {
        db.put(format!("k{k:03}"), value(k, 9)).unwrap();
    }
    assert_eq!(snap.multi_get(&before).unwrap(), seen);
    for (k, v) in before.iter().zip(&seen) {
        assert_eq!(v, &snap.get(k).unwrap(), "{layout:?} snapshot: {k}");
    }
    drop(snap);
    // Value GC rewrites or merges the files: handles go stale or are forwarded.
    db.gc().unwrap();
    agrees_with_get(&db, &format!("{layout:?} after GC"));
    db.compact_range(None, None).unwrap();
    agrees_with_get(&db, &format!("{layout:?} after a compaction"));
    db.close().unwrap();
}

#[test]
fn multi_get_reads_what_get_reads() {
    reads_like_get(ValueLayout::Log);
    reads_like_get(ValueLayout::Hash);
}

#[test]
fn values_of_one_file_are_read_together() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, ValueLayout::Log)).unwrap();
    // 100 separated values written in key order: neighbours in the value log.
    for k in 0..100u32 {
        db.put(format!("k{k:03}"), vec![b'v'; 500]).unwrap();
    }
    db.flush().unwrap();
    db.close().unwrap();
    let db = Db::open("/db", opts(&fs, ValueLayout::Log)).unwrap();
    let keys: Vec<String> = (0..100u32).rev().map(|k| format!("k{k:03}")).collect();
    let got = db.multi_get(&keys).unwrap();
    assert!(got.iter().all(|v| v.as_deref() == Some(&[b'v'; 500][..])));
    let s = db.stats().unwrap();
    assert_eq!(s.value_reads, 100);
    // 100 values of about 520 bytes: one read of at most 256 KiB covers them.
    assert!(
        (1..=2).contains(&s.multi_get_reads),
        "{} reads for 100 neighbouring values",
        s.multi_get_reads
    );
    db.close().unwrap();
}

#[test]
fn a_damaged_value_fails_the_call_with_its_file() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs, ValueLayout::Log)).unwrap();
    let target = b"the value that will be damaged ".repeat(5);
    db.put("a", vec![b'a'; 200]).unwrap();
    db.put("b", &target).unwrap();
    // Roll the log past the first file, so that the damage is in a sealed one (open
    // checks the active log's records).
    for k in 0..200u32 {
        db.put(format!("z{k:03}"), vec![b'z'; 500]).unwrap();
    }
    db.flush().unwrap();
    db.close().unwrap();
    let dir = std::path::Path::new("/db");
    let (path, at) = fs
        .list_dir(dir)
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".vlog"))
        .find_map(|n| {
            let p = dir.join(&n);
            let data = fs.read_file(&p).unwrap();
            data.windows(target.len())
                .position(|w| w == target)
                .map(|at| (p, at))
        })
        .unwrap();
    fs.corrupt(&path, at as u64 + 3, 0x01).unwrap();
    let db = Db::open("/db", opts(&fs, ValueLayout::Log)).unwrap();
    match db.multi_get(&["a", "b"]) {
        Err(Error::Corruption { file, .. }) => assert_eq!(file, path),
        other => panic!("{other:?}"),
    }
    assert_eq!(db.multi_get(&["a"]).unwrap(), vec![Some(vec![b'a'; 200])]);
    db.close().unwrap();
}

#[test]
fn a_request_larger_than_one_group_reads_every_value_on_a_real_file_system() {
    // 2,400 values of 4 KiB (about 9.9 MB) in value files of 1 MiB: more than one group
    // of submitted reads (8 MiB), from files read through the kernel (io_uring on Linux).
    let dir = tempfile::tempdir().unwrap();
    let opts = || {
        Options::default()
            .memtable_size(1 << 20)
            .value_file_size(1 << 20)
            .gc_enabled(false)
    };
    let db = Db::open(dir.path(), opts()).unwrap();
    let value = |k: u32| format!("v{k:05}").repeat(4096 / 6 + 1).into_bytes();
    for k in 0..2400u32 {
        db.put(
            format!("k{:05}", (k * 7919) % 2400),
            value((k * 7919) % 2400),
        )
        .unwrap();
    }
    db.flush().unwrap();
    db.close().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    let mut keys: Vec<String> = (0..2400u32).map(|k| format!("k{k:05}")).collect();
    keys.push("k99999".into()); // missing
    let got = db.multi_get(&keys).unwrap();
    for k in 0..2400u32 {
        assert_eq!(got[k as usize].as_deref(), Some(&value(k)[..]), "k{k:05}");
    }
    assert_eq!(got[2400], None);
    let s = db.stats().unwrap();
    assert_eq!(s.value_reads, 2400);
    // Reads cover at most 256 KiB each: about 9.9 MB needs 38 or more, over 32 (8 MiB).
    assert!(s.multi_get_reads > 32, "{} reads", s.multi_get_reads);
    db.close().unwrap();
}
