//! Non-sync writes never wait for the disk: across memtable freezes and value-file rolls,
//! the thread that calls `put` never calls fsync/fdatasync (file or directory). The flush
//! syncs the log up to its memtable's freeze position and the log thread syncs sealed files
//! and prepares the next one. A sync write still syncs on its own thread.

use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use twain::fs::{FaultFs, Fs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options, WriteOptions};

const DIR: &str = "/db";

/// Every sync (file or directory) with the thread that made it and the path it named.
type Syncs = Arc<Mutex<Vec<(ThreadId, String)>>>;

fn observed() -> (FaultFs, Syncs) {
    let faults = FaultFs::over_mem(&MemFs::new());
    let syncs: Syncs = Arc::default();
    let seen = Arc::clone(&syncs);
    faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if matches!(e.op, OpKind::Sync | OpKind::SyncDir) && e.phase == OpPhase::Before {
            seen.lock()
                .unwrap()
                .push((std::thread::current().id(), e.path.display().to_string()));
        }
    })));
    (faults, syncs)
}

fn options(fs: &FaultFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
}

#[test]
fn a_non_sync_put_never_reaches_an_fsync_on_its_thread() {
    let (faults, syncs) = observed();
    let db = Db::open(DIR, options(&faults)).unwrap();
    syncs.lock().unwrap().clear();
    let me = std::thread::current().id();
    for i in 0..4000u32 {
        db.put(format!("k{:05}", i % 1500), vec![(i % 251) as u8; 300])
            .unwrap();
    }
    let during: Vec<(ThreadId, String)> = std::mem::take(&mut *syncs.lock().unwrap());
    let stats = db.stats().unwrap();
    // The run crossed many freezes and rolls, so the old foreground syncs would show.
    assert!(stats.flushes >= 5, "only {} flushes", stats.flushes);
    assert!(
        stats.log_bytes_written > 10 * (64 << 10),
        "the log rolled too few times: {} bytes",
        stats.log_bytes_written
    );
    let on_writer: Vec<&String> = during
        .iter()
        .filter(|(t, _)| *t == me)
        .map(|(_, p)| p)
        .collect();
    assert!(
        on_writer.is_empty(),
        "{} syncs on the writing thread, e.g. {:?}",
        on_writer.len(),
        on_writer.first()
    );
    // The syncs happened, on the background threads.
    assert!(
        during.iter().any(|(_, p)| p.ends_with(".vlog")),
        "no value-log sync at all: {during:?}"
    );

    // A sync write syncs, on its own thread.
    db.put_opt("synced", "v", &WriteOptions::synced()).unwrap();
    assert!(
        syncs
            .lock()
            .unwrap()
            .iter()
            .any(|(t, p)| *t == me && p.ends_with(".vlog")),
        "a sync write did not sync the log"
    );
    db.close().unwrap();
}

#[test]
fn a_write_stall_is_counted_by_cause() {
    let (faults, _syncs) = observed();
    let opts = options(&faults).max_immutable_memtables(1);
    let db = Db::open(DIR, opts).unwrap();
    // Slow every table sync down so the writer outruns the flush.
    faults.set_observer(Some(Arc::new(|e: &OpEvent<'_>| {
        if e.op == OpKind::Sync
            && e.phase == OpPhase::Before
            && e.path.to_string_lossy().ends_with(".sst")
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    })));
    for i in 0..3000u32 {
        db.put(format!("k{i:05}"), vec![7u8; 300]).unwrap();
    }
    let s = db.stats().unwrap();
    assert!(s.stalls_memtables > 0, "no memtable stall: {}", s.to_text());
    assert!(s.stall_memtables_micros > 0);
    assert!(s.stall_micros >= s.stall_memtables_micros);
    assert!(s.to_text().contains("memtables"), "{}", s.to_text());
    assert!(
        s.to_json().contains("\"stalls_memtables\""),
        "{}",
        s.to_json()
    );
    db.close().unwrap();
}

#[test]
fn a_non_sync_writer_never_syncs_for_a_sync_writer_queued_behind_it() {
    let (faults, syncs) = observed();
    let db = Arc::new(Db::open(DIR, options(&faults)).unwrap());
    syncs.lock().unwrap().clear();
    let nonsync: Vec<_> = (0..3)
        .map(|t| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || {
                for i in 0..1500u32 {
                    db.put(format!("n{t}-{i:05}"), vec![1u8; 200]).unwrap();
                }
                std::thread::current().id()
            })
        })
        .collect();
    let synced: Vec<_> = (0..2)
        .map(|t| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || {
                for i in 0..300u32 {
                    db.put_opt(
                        format!("s{t}-{i:05}"),
                        vec![2u8; 200],
                        &WriteOptions::synced(),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    let nonsync_threads: Vec<ThreadId> = nonsync.into_iter().map(|h| h.join().unwrap()).collect();
    for h in synced {
        h.join().unwrap();
    }
    let all = std::mem::take(&mut *syncs.lock().unwrap());
    let on_nonsync = all
        .iter()
        .filter(|(t, _)| nonsync_threads.contains(t))
        .count();
    assert_eq!(on_nonsync, 0, "a non-sync writer synced {on_nonsync} times");
    assert!(all.iter().any(|(_, p)| p.ends_with(".vlog")));
    let s = db.stats().unwrap();
    assert!(s.synced_groups > 0 && s.synced_groups < s.write_groups);
}
