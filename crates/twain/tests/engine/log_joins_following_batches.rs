//! Batches written one after another share one batch record in the value log: the writer
//! appends a batch's entries to the record still open in its memory buffer when the
//! sequence numbers follow on, so a stream of small one-put writes pays for one frame
//! header per buffer instead of one per put. Batches with separated values keep a record
//! each (value GC punches whole records). Every value, inline or separated, reads back
//! from the buffer, from the file and after a reopen; a crash loses joined writes whole,
//! as a suffix, and never a synced one.

use std::sync::Arc;
use twain::fs::{CrashOptions, Fs, MemFs};
use twain::{Db, Options, WriteOptions};

const DIR: &str = "/db";
/// A batch record's frame header and batch header (`docs/format/value-log.md`).
const RECORD_HEADER: u64 = 8 + 21;

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .log_buffer_size(4096)
        .inline_threshold(64)
        .gc_enabled(false)
}

fn key(i: usize) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

/// Keys below this get a 10-byte value (inline), the others 100 bytes (separated).
const INLINE_KEYS: usize = 2000;

fn value(i: usize) -> Vec<u8> {
    let len = if i < INLINE_KEYS { 10 } else { 100 };
    (0..len).map(|j| (i ^ j) as u8).collect()
}

/// Bytes of key `i`'s log entry: kind, two one-byte lengths, key, value, and a separated
/// entry's checksum.
fn entry_len(i: usize) -> u64 {
    let crc = if i < INLINE_KEYS { 0 } else { 4 };
    (3 + key(i).len() + value(i).len() + crc) as u64
}

fn put(db: &Db, i: usize, sync: bool) {
    db.put_opt(key(i), value(i), &WriteOptions::default().sync(sync))
        .unwrap();
}

fn assert_holds(db: &Db, keys: std::ops::Range<usize>) {
    for i in keys {
        assert_eq!(db.get(key(i)).unwrap(), Some(value(i)), "key {i}");
    }
}

#[test]
fn one_put_batches_share_frames_and_read_back() {
    let mem = MemFs::new();
    let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    for i in 0..INLINE_KEYS {
        put(&db, i, false);
    }
    let written = db.stats().unwrap().log_bytes_written;
    let entries: u64 = (0..INLINE_KEYS).map(entry_len).sum();
    // One record per 4 KiB buffer (about 20 of them), not one per put (2,000).
    assert!(written >= entries + RECORD_HEADER, "{written} < {entries}");
    assert!(
        written <= entries + 64 * RECORD_HEADER,
        "log bytes {written}: entries {entries}, so {} records",
        (written - entries) / RECORD_HEADER
    );

    // Separated values keep a record each, and read back at once, from the buffer or
    // from the file.
    let end = INLINE_KEYS + 200;
    for i in INLINE_KEYS..end {
        put(&db, i, false);
        if i % 7 == 0 {
            assert_holds(&db, i..i + 1);
        }
    }
    let more = db.stats().unwrap().log_bytes_written - written;
    let entries: u64 = (INLINE_KEYS..end).map(entry_len).sum();
    assert_eq!(more, entries + 200 * RECORD_HEADER);
    assert_holds(&db, 0..end);
    db.close().unwrap();

    let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    assert_holds(&db, 0..end);
}

#[test]
fn a_crash_keeps_synced_writes_and_loses_joined_ones_whole() {
    let mem = MemFs::new();
    let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    // 30 puts join one record in the buffer; the synced put closes it, writes it out and
    // makes it durable; the 30 after it join a record no one has written out.
    for i in 0..30 {
        put(&db, i, false);
    }
    put(&db, 30, true);
    for i in 31..61 {
        put(&db, i, false);
    }
    let image = mem.crash(&CrashOptions::drop_unsynced());
    drop(db);
    let db = Db::open(DIR, options(Arc::new(image))).unwrap();
    assert_holds(&db, 0..31);
    for i in 31..61 {
        assert_eq!(
            db.get(key(i)).unwrap(),
            None,
            "key {i} was never written out"
        );
    }
}

#[test]
fn torn_joined_records_leave_a_prefix_of_the_writes() {
    for seed in 1..=12u64 {
        let mem = MemFs::new();
        let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
        // Written out every 4 KiB (about 40 puts a record), never synced.
        let n = 600;
        for i in 0..n {
            put(&db, i, false);
        }
        let image = mem.crash(&CrashOptions::torn(seed.wrapping_mul(0x9e37_79b9)));
        drop(db);
        let db = Db::open(DIR, options(Arc::new(image))).unwrap();
        let kept = (0..n)
            .position(|i| db.get(key(i)).unwrap().is_none())
            .unwrap_or(n);
        assert_holds(&db, 0..kept);
        for i in kept..n {
            assert_eq!(
                db.get(key(i)).unwrap(),
                None,
                "seed {seed}: key {i} after a hole"
            );
        }
    }
}
