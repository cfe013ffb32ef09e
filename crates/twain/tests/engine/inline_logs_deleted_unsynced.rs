//! A value file that holds inline entries only is needed by recovery alone, and only until
//! its memtables are flushed. The writer rolls such a file at a memtable switch (when a
//! spare file is ready), the log thread leaves it unsynced, and the flush whose freeze
//! position lies past it deletes it without a sync: its bytes need never reach the disk.
//! Files with separated entries are synced as before. Crashes still keep a prefix of the
//! writes that holds every flushed and every synced one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use twain::fs::{CrashOptions, FaultFs, Fs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options, WriteOptions};

const DIR: &str = "/db";

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(32 << 10)
        .log_buffer_size(4096)
        .gc_enabled(false)
}

fn key(i: usize) -> Vec<u8> {
    format!("k{i:06}").into_bytes()
}

fn value(i: usize, len: usize) -> Vec<u8> {
    (0..len).map(|j| (i ^ j) as u8).collect()
}

/// Writes keys `keys` with `len`-byte values, pausing every 100 puts (about a third of a
/// memtable at 100 bytes) so the log thread has a spare file ready at each switch.
fn write(db: &Db, keys: std::ops::Range<usize>, len: usize) {
    for i in keys {
        db.put(key(i), value(i, len)).unwrap();
        if i % 100 == 99 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The longest prefix of `0..n` the database holds, after checking that it holds nothing
/// beyond it (a crash loses a suffix, never a write in the middle).
fn prefix(db: &Db, n: usize, len: usize) -> usize {
    let kept = (0..n)
        .position(|i| db.get(key(i)).unwrap().is_none())
        .unwrap_or(n);
    for i in 0..n {
        let got = db.get(key(i)).unwrap();
        if i < kept {
            assert_eq!(got, Some(value(i, len)), "key {i}");
        } else {
            assert_eq!(got, None, "key {i} after a hole at {kept}");
        }
    }
    kept
}

type Ops = Arc<Mutex<HashMap<(OpKind, String), u64>>>;

/// Counts completed syncs and removals per file name.
fn counting(fs: &FaultFs) -> Ops {
    let ops: Ops = Arc::default();
    let seen = Arc::clone(&ops);
    fs.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if matches!(e.phase, OpPhase::After { ok: true })
            && matches!(e.op, OpKind::Sync | OpKind::Remove)
        {
            let name = e.path.file_name().unwrap().to_string_lossy().into_owned();
            *seen.lock().unwrap().entry((e.op, name)).or_default() += 1;
        }
    })));
    ops
}

#[test]
fn flushed_inline_logs_are_deleted_without_a_sync() {
    let mem = MemFs::new();
    let fs = FaultFs::over_mem(&mem);
    let ops = counting(&fs);
    let db = Db::open(DIR, options(Arc::new(fs.clone()))).unwrap();
    let n = 3000;
    write(&db, 0..n, 100);
    db.flush().unwrap();
    let stats = db.stats().unwrap();
    // About 350 KB of puts through 32 KiB memtables: ten switches or so, most with a
    // spare ready.
    assert!(
        stats.log_files_deleted_unsynced >= 3,
        "{} log files deleted unsynced",
        stats.log_files_deleted_unsynced
    );
    assert!(stats.log_bytes_deleted_unsynced >= stats.log_files_deleted_unsynced * 4096);

    // Each of them was synced once, with its header when the log thread made it, and never
    // after a record was appended.
    let ops = ops.lock().unwrap().clone();
    let removed: Vec<&String> = ops
        .keys()
        .filter(|(op, name)| *op == OpKind::Remove && name.ends_with(".vlog"))
        .map(|(_, name)| name)
        .collect();
    let header_only = removed
        .iter()
        .filter(|name| ops.get(&(OpKind::Sync, name.to_string())) == Some(&1))
        .count() as u64;
    assert!(
        header_only >= stats.log_files_deleted_unsynced,
        "{header_only} removed log files synced only with their header, {} deleted unsynced",
        stats.log_files_deleted_unsynced
    );

    // The flush made every write durable in tables: a crash now loses nothing.
    let image = mem.crash(&CrashOptions::drop_unsynced());
    drop(db);
    let db = Db::open(DIR, options(Arc::new(image))).unwrap();
    assert_eq!(prefix(&db, n, 100), n);
}

#[test]
fn separated_values_keep_their_log_files_synced() {
    let mem = MemFs::new();
    let opts = || options(Arc::new(mem.clone())).value_file_size(64 << 10);
    let db = Db::open(DIR, opts()).unwrap();
    let n = 400;
    write(&db, 0..n, 1000);
    db.flush().unwrap();
    assert_eq!(db.stats().unwrap().log_files_deleted_unsynced, 0);
    // The tables hold handles into the log: every file they name is durable.
    let image = mem.crash(&CrashOptions::drop_unsynced());
    drop(db);
    let db = Db::open(DIR, options(Arc::new(image)).value_file_size(64 << 10)).unwrap();
    assert_eq!(prefix(&db, n, 1000), n);
}

#[test]
fn a_sync_write_syncs_the_inline_files_before_it() {
    let mem = MemFs::new();
    let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    let n = 1500;
    write(&db, 0..n, 100);
    db.put_opt(key(n), value(n, 100), &WriteOptions::synced())
        .unwrap();
    let image = mem.crash(&CrashOptions::drop_unsynced());
    drop(db);
    let db = Db::open(DIR, options(Arc::new(image))).unwrap();
    assert_eq!(prefix(&db, n + 1, 100), n + 1);
}

#[test]
fn crashes_between_flushes_keep_a_prefix_with_every_flushed_write() {
    for seed in 1..=8u64 {
        let mem = MemFs::new();
        let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
        let flushed = 1000;
        write(&db, 0..flushed, 100);
        db.flush().unwrap();
        let n = 2500;
        write(&db, flushed..n, 100);
        let crash = if seed % 2 == 0 {
            CrashOptions::drop_unsynced()
        } else {
            CrashOptions::torn(seed.wrapping_mul(0x9e37_79b9))
        };
        let image = mem.crash(&crash);
        drop(db);
        let db = Db::open(DIR, options(Arc::new(image.clone()))).unwrap();
        let kept = prefix(&db, n, 100);
        assert!(
            kept >= flushed,
            "seed {seed}: only {kept} of {flushed} flushed writes"
        );
        // What recovery kept is durable: a second crash right after the open keeps it.
        let again = image.crash(&CrashOptions::drop_unsynced());
        drop(db);
        let db = Db::open(DIR, options(Arc::new(again))).unwrap();
        assert_eq!(prefix(&db, n, 100), kept, "seed {seed}");
    }
}

#[test]
fn the_counters_are_in_the_stats_text_and_json() {
    let mem = MemFs::new();
    let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    write(&db, 0..1000, 100);
    db.flush().unwrap();
    let s = db.stats().unwrap();
    assert!(s.log_files_deleted_unsynced > 0);
    let text = s.to_text_with(&|b| format!("{b} B"));
    let files = match s.log_files_deleted_unsynced {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    let expect = format!(
        "{files} of inline entries deleted unsynced, {} B",
        s.log_bytes_deleted_unsynced
    );
    assert!(text.contains(&expect), "{expect:?} not in\n{text}");
    let json = s.to_json();
    assert!(
        json.contains(&format!(
            "\"log_bytes_deleted_unsynced\":{}",
            s.log_bytes_deleted_unsynced
        )),
        "{json}"
    );
}
