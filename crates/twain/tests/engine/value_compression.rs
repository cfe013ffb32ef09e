//! Separated values compressed per value class (`value_compression`,
//! `medium_value_compression`): every read returns the value written, the value files hold
//! the compressed form (kind 0x05 entries) through recovery, value GC and group GC, medium
//! values merge back into the tree uncompressed, incompressible values stay plain, and
//! damage is corruption with the file named.

use crate::dbutil::{Rng, small_opts};
use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::{Compression, Db, Options, ValueLayout};

/// A value of `len` bytes that LZ4 and zstd shrink to about a third: words from a small
/// vocabulary, chosen by `rng`.
fn text(rng: &mut Rng, len: usize) -> Vec<u8> {
    const WORDS: [&str; 8] = [
        "alpha ",
        "beta ",
        "gamma ",
        "delta ",
        "user:",
        "order ",
        "12345 ",
        "status=ok ",
    ];
    let mut v = Vec::with_capacity(len + 16);
    while v.len() < len {
        v.extend_from_slice(WORDS[(rng.next_u64() % 8) as usize].as_bytes());
    }
    v.truncate(len);
    v
}

fn random(rng: &mut Rng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

fn key(i: usize) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

/// Bytes of every value file (logs, SVTables, segments, transient files) in `dir`.
fn value_file_bytes(fs: &Arc<dyn Fs>, dir: &Path) -> u64 {
    // A file compaction or GC removed after the listing counts nothing.
    value_files(fs, dir)
        .iter()
        .filter_map(|p| fs.file_size(p).ok())
        .sum()
}

fn value_files(fs: &Arc<dyn Fs>, dir: &Path) -> Vec<std::path::PathBuf> {
    let mut names = fs.list_dir(dir).unwrap();
    names.sort();
    names
        .into_iter()
        .filter(|n| n.ends_with(".vlog") || n.ends_with(".svt"))
        .map(|n| dir.join(n))
        .collect()
}

/// How many entries the dumps of `dir`'s value files show stored compressed.
fn compressed_entries(fs: &Arc<dyn Fs>, dir: &Path) -> usize {
    let mut n = 0;
    for p in value_files(fs, dir) {
        let mut out = Vec::new();
        match twain::dump::dump_file(fs, &p, &mut out) {
            Ok(()) => n += String::from_utf8_lossy(&out).matches("stored in").count(),
            // Removed after the listing.
            Err(_) if !fs.exists(&p).unwrap() => {}
            Err(e) => panic!("dump of {}: {e}", p.display()),
        }
    }
    n
}

/// Every way of reading returns `model`'s values.
fn reads_match(db: &Db, model: &[(Vec<u8>, Vec<u8>)]) {
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_deref(), Some(&v[..]), "get {k:?}");
        assert_eq!(db.get_pinned(k).unwrap().as_deref(), Some(&v[..]));
    }
    let keys: Vec<&[u8]> = model.iter().map(|(k, _)| &k[..]).collect();
    let got = db.multi_get(&keys).unwrap();
    for ((_, v), g) in model.iter().zip(got) {
        assert_eq!(g.as_deref(), Some(&v[..]), "multi_get");
    }
    let forward: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(forward, model, "forward scan");
    let mut backward: Vec<(Vec<u8>, Vec<u8>)> = db.iter().rev().map(|r| r.unwrap()).collect();
    backward.reverse();
    assert_eq!(backward, model, "backward scan");
}

fn opts(fs: &Arc<dyn Fs>, codec: Compression) -> Options {
    small_opts()
        .fs(Arc::clone(fs))
        .value_compression(codec)
        .prefetch_threads(2)
        .gc_enabled(false)
}

#[test]
fn compressed_values_read_back_through_recovery_gc_and_compaction() {
    for codec in [Compression::Lz4, Compression::Zstd] {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let dir = Path::new("/db");
        let db = Db::open(dir, opts(&fs, codec)).unwrap();
        let mut rng = Rng::new(7);
        let mut model = Vec::new();
        let mut raw = 0u64;
        for i in 0..600 {
            let v = if i % 6 == 5 {
                random(&mut rng, 900)
            } else {
                text(&mut rng, 200 + i % 1500)
            };
            raw += v.len() as u64;
            db.put(key(i), &v).unwrap();
            model.push((key(i), v));
        }
        reads_match(&db, &model);
        // Every record in the files, none in the log's buffer. A sixth of the values are
        // random (incompressible): LZ4 stores 0.71 of the raw bytes, zstd 0.59, and an
        // uncompressed log would be above 1. (Measured before the sync, the buffered tail
        // used to hide up to a log buffer of them.)
        db.sync().unwrap();
        let stored = value_file_bytes(&fs, dir);
        assert!(
            stored * 10 < raw * 8,
            "{codec:?}: {stored} bytes of value files for {raw} bytes of values"
        );
        // Recovery replays the log's compressed entries.
        drop(db);
        let db = Db::open(dir, opts(&fs, codec)).unwrap();
        reads_match(&db, &model);
        // Overwrite half, compact (drop records), and collect: GC copies the live
        // entries into SVTables as they are stored.
        for (i, (k, v)) in model.iter_mut().enumerate().filter(|(i, _)| i % 2 == 0) {
            *v = text(&mut rng, 300 + i % 700);
            db.put(&k[..], &v[..]).unwrap();
        }
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
        let report = db.gc_report().unwrap();
        assert!(report.collected > 0, "{codec:?}: GC collected nothing");
        reads_match(&db, &model);
        assert!(
            compressed_entries(&fs, dir) >= model.len() / 2,
            "{codec:?}: compressed entries after GC: {}",
            compressed_entries(&fs, dir)
        );
        drop(db);
        let report = check(
            dir,
            &CheckOptions {
                fs: Arc::clone(&fs),
                ..CheckOptions::default()
            },
        )
        .unwrap();
        assert!(report.is_ok(), "{codec:?}: {report:?}");
        // Reopened without compression, the database reads what it holds.
        let db = Db::open(dir, opts(&fs, Compression::None)).unwrap();
        reads_match(&db, &model);
    }
}

#[test]
fn incompressible_values_are_stored_plain() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = Path::new("/db");
    let db = Db::open(dir, opts(&fs, Compression::Zstd)).unwrap();
    let mut rng = Rng::new(3);
    let mut model = Vec::new();
    for i in 0..100 {
        let v = random(&mut rng, 1000);
        db.put(key(i), &v).unwrap();
        model.push((key(i), v));
    }
    db.flush().unwrap();
    assert_eq!(compressed_entries(&fs, dir), 0);
    reads_match(&db, &model);
}

#[test]
fn a_value_is_compressed_only_if_it_stays_in_its_class() {
    // Large from 1,000 bytes: a 1,200-byte run of one byte would compress far below
    // that, so it stays plain; 4,000 bytes of text stay large compressed.
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = Path::new("/db");
    let o = opts(&fs, Compression::Lz4).inline_threshold(1000);
    let db = Db::open(dir, o.clone()).unwrap();
    db.put("run", vec![b'x'; 1200]).unwrap();
    db.flush().unwrap();
    assert_eq!(compressed_entries(&fs, dir), 0);
    let mut rng = Rng::new(5);
    let long = text(&mut rng, 4000);
    db.put("text", &long).unwrap();
    db.flush().unwrap();
    assert_eq!(compressed_entries(&fs, dir), 1);
    // Compactions do not re-place either value: both stay separated.
    db.compact_range(None, None).unwrap();
    let stats = db.stats().unwrap();
    assert_eq!(
        stats.replaced_inline_bytes, 0,
        "a compressed value looked small"
    );
    assert_eq!(db.get("run").unwrap(), Some(vec![b'x'; 1200]));
    assert_eq!(db.get("text").unwrap(), Some(long));
}

#[test]
fn hash_segments_hold_compressed_values_through_group_gc() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = Path::new("/db");
    let o = opts(&fs, Compression::Zstd)
        .value_layout(ValueLayout::Hash)
        .hash_groups(2);
    let db = Db::open(dir, o.clone()).unwrap();
    let mut rng = Rng::new(11);
    let mut model: Vec<(Vec<u8>, Vec<u8>)> = (0..200).map(|i| (key(i), Vec::new())).collect();
    for round in 0..4 {
        for (i, (k, v)) in model.iter_mut().enumerate() {
            *v = text(&mut rng, 400 + (i * 7 + round) % 900);
            db.put(&k[..], &v[..]).unwrap();
        }
        db.flush().unwrap();
    }
    assert!(compressed_entries(&fs, dir) >= model.len());
    db.gc_report().unwrap();
    reads_match(&db, &model);
    assert!(db.stats().unwrap().gc_runs > 0, "no group GC ran");
    drop(db);
    let db = Db::open(dir, o).unwrap();
    reads_match(&db, &model);
}

#[test]
fn medium_values_compress_in_transient_files_and_merge_back_whole() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = Path::new("/db");
    let o = opts(&fs, Compression::None)
        .medium_threshold(64)
        .inline_threshold(1 << 20)
        .medium_value_compression(Compression::Lz4)
        // No compaction until asked: the transient files stay to be looked at.
        .l0_compaction_trigger(50)
        .l0_slowdown_trigger(60)
        .l0_stop_trigger(70);
    let db = Db::open(dir, o).unwrap();
    let mut rng = Rng::new(13);
    let mut model = Vec::new();
    for i in 0..300 {
        let v = text(&mut rng, 500 + i);
        db.put(key(i), &v).unwrap();
        model.push((key(i), v));
    }
    db.flush().unwrap();
    assert!(
        compressed_entries(&fs, dir) >= 250,
        "transient files: {} compressed entries",
        compressed_entries(&fs, dir)
    );
    reads_match(&db, &model);
    // Merged into the last level inline, uncompressed by the read that merges them.
    db.compact_range(None, None).unwrap();
    let stats = db.stats().unwrap();
    assert!(stats.medium_bytes_merged > 0, "nothing merged");
    reads_match(&db, &model);
}

#[test]
fn damaged_compressed_values_are_corruption_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let o = small_opts()
        .value_compression(Compression::Lz4)
        .gc_enabled(false);
    let db = Db::open(dir, o.clone()).unwrap();
    let mut rng = Rng::new(17);
    // Enough compressed values to roll the log: the first file, sealed and flushed, is
    // read only through handles.
    let mut model = Vec::new();
    for i in 0..400 {
        let v = text(&mut rng, 3000);
        db.put(key(i), &v).unwrap();
        model.push((key(i), v));
    }
    db.flush().unwrap();
    drop(db);
    let mut logs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vlog"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 2, "the log did not roll: {logs:?}");
    let mut bytes = std::fs::read(&logs[0]).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x5a;
    std::fs::write(&logs[0], &bytes).unwrap();
    let db = Db::open(dir, o).unwrap();
    let mut damaged = 0;
    for (k, v) in &model {
        match db.get(k) {
            Ok(got) => assert_eq!(got.as_deref(), Some(&v[..]), "{k:?}"),
            Err(e) => {
                assert!(e.is_corruption(), "{e}");
                assert!(e.to_string().contains(".vlog"), "{e}");
                damaged += 1;
            }
        }
    }
    assert_eq!(damaged, 1, "one damaged value");
}
