//! Value GC racing the foreground, made deterministic by pausing GC at a step:
//! - the known KV-separation bug class: GC reads a live value, the key is then deleted and
//!   compacted away, and GC must not write the old value back (both modes);
//! - drop records that arrive while a file is being collected are carried over to its new
//!   epoch, so the next run reclaims them;
//! - iterators and snapshots keep reading correct values while GC rewrites and deletes
//!   the files under them;
//! - lsm-lookup mode keeps a file whose record was overwritten after GC looked it up but is
//!   still seen by a snapshot taken in between (found by the kill loop).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use twain::fs::MemFs;
use twain::{Db, GcEvent, GcMode, Options};

use crate::gcutil;
use gcutil::{round_value, small_files_options};

const DIR: &str = "/db";

/// A listener that stops the GC thread at the first `LiveRecordsRead` until released.
struct Pause {
    reached: Receiver<u64>,
    release: SyncSender<()>,
}

fn pausing_listener(opts: &mut Options) -> Pause {
    let (reached_tx, reached) = sync_channel::<u64>(1);
    let (release, release_rx) = sync_channel::<()>(1);
    let armed = Mutex::new(Some((reached_tx, release_rx)));
    opts.gc_listener = Some(Arc::new(move |e: GcEvent| {
        if let GcEvent::LiveRecordsRead { file, .. } = e
            && let Some((tx, rx)) = armed.lock().unwrap().take()
        {
            tx.send(file).unwrap();
            rx.recv().unwrap();
        }
    }));
    Pause { reached, release }
}

/// 400 keys, half of them overwritten once, flushed and compacted: the first value file
/// holds live records of keys 1, 3, 5, ...
fn load(db: &Db) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut model = BTreeMap::new();
    for round in 0..2u32 {
        for k in 0..400u32 {
            if round == 1 && k % 2 == 1 {
                continue;
            }
            let key = format!("k{k:04}").into_bytes();
            db.put(&key, round_value(k, round)).unwrap();
            model.insert(key, round_value(k, round));
        }
    }
    db.compact_range(None, None).unwrap();
    model
}

fn deleted_key_stays_deleted(mode: GcMode) {
    let fs = MemFs::new();
    let mut opts = small_files_options(&fs, mode, 0.9);
    let pause = pausing_listener(&mut opts);
    let db = Arc::new(Db::open(DIR, opts.clone()).unwrap());
    let mut model = load(&db);
    let gc = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || db.gc())
    };
    // GC has read the file's live records (k0001 among them) and waits.
    pause.reached.recv().unwrap();
    db.delete("k0001").unwrap();
    model.remove(b"k0001".as_slice());
    // The tombstone and the old value are compacted away at the bottom level.
    db.compact_range(None, None).unwrap();
    pause.release.send(()).unwrap();
    gc.join().unwrap().unwrap();
    assert_eq!(
        db.get("k0001").unwrap(),
        None,
        "{mode:?}: GC brought a deleted key back"
    );
    let state: BTreeMap<_, _> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(state, model, "{mode:?}");
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(
        db.get("k0001").unwrap(),
        None,
        "{mode:?}: back after compaction"
    );
    drop(db);
    let db = Db::open(DIR, small_files_options(&fs, mode, 0.9)).unwrap();
    assert_eq!(
        db.get("k0001").unwrap(),
        None,
        "{mode:?}: back after reopen"
    );
    let state: BTreeMap<_, _> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(state, model, "{mode:?} after reopen");
}

#[test]
fn gc_never_writes_back_a_value_deleted_and_compacted_away_meanwhile_drop_records() {
    deleted_key_stays_deleted(GcMode::DropRecords);
}

#[test]
fn gc_never_writes_back_a_value_deleted_and_compacted_away_meanwhile_lsm_lookup() {
    deleted_key_stays_deleted(GcMode::LsmLookup);
}

#[test]
fn gc_never_writes_back_a_value_deleted_and_compacted_away_meanwhile_vlog() {
    deleted_key_stays_deleted(GcMode::Vlog);
}

#[test]
fn lsm_lookup_gc_keeps_a_file_a_snapshot_taken_meanwhile_still_reads() {
    let fs = MemFs::new();
    let mut opts = small_files_options(&fs, GcMode::LsmLookup, 0.9);
    let pause = pausing_listener(&mut opts);
    let db = Arc::new(Db::open(DIR, opts.clone()).unwrap());
    let model = load(&db);
    let gc = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || db.gc())
    };
    // GC has looked up the file's records (k0001 is live) and waits to write them back.
    pause.reached.recv().unwrap();
    let snap = db.snapshot();
    db.put("k0001", round_value(1, 7)).unwrap();
    db.delete("k0003").unwrap();
    pause.release.send(()).unwrap();
    gc.join().unwrap().unwrap();
    // The snapshot still reads the versions GC could no longer write back.
    assert_eq!(
        snap.get("k0001").unwrap().as_deref(),
        Some(&model[b"k0001".as_slice()][..])
    );
    assert_eq!(
        snap.get("k0003").unwrap().as_deref(),
        Some(&model[b"k0003".as_slice()][..])
    );
    let seen: BTreeMap<_, _> = snap.iter().map(|r| r.unwrap()).collect();
    assert_eq!(seen, model);
    assert_eq!(db.get("k0001").unwrap(), Some(round_value(1, 7)));
    assert_eq!(db.get("k0003").unwrap(), None);
    // Once the snapshot is gone, GC can collect the file.
    drop(snap);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
    let mut want = model;
    want.insert(b"k0001".to_vec(), round_value(1, 7));
    want.remove(b"k0003".as_slice());
    let state: BTreeMap<_, _> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(state, want);
}

#[test]
fn drops_recorded_during_a_run_are_carried_over_to_the_new_epoch() {
    let fs = MemFs::new();
    let mut opts = small_files_options(&fs, GcMode::DropRecords, 0.9);
    let pause = pausing_listener(&mut opts);
    // Also keep the durable state right after the first install.
    let installed: Arc<Mutex<Option<MemFs>>> = Arc::default();
    let pausing = opts.gc_listener.take().unwrap();
    {
        let (fs, installed) = (fs.clone(), Arc::clone(&installed));
        opts.gc_listener = Some(Arc::new(move |e: GcEvent| {
            pausing(e);
            if let GcEvent::Installed { .. } = e {
                let mut slot = installed.lock().unwrap();
                if slot.is_none() {
                    *slot = Some(fs.crash(&twain::fs::CrashOptions::drop_unsynced()));
                }
            }
        }));
    }
    let db = Arc::new(Db::open(DIR, opts).unwrap());
    load(&db);
    let gc = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || db.gc())
    };
    let file = pause.reached.recv().unwrap();
    // Overwrite keys whose live records the paused run is copying; compaction drops them.
    for k in (1..400u32).step_by(4) {
        db.put(format!("k{k:04}"), round_value(k, 7)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    pause.release.send(()).unwrap();
    gc.join().unwrap().unwrap();
    // Right after the first install, epoch 1's drop file held the carried drops...
    let image = installed.lock().unwrap().take().expect("no install seen");
    let drop_file = Path::new(DIR).join(format!("{file:06}-1.drop"));
    let carried = twain::vlog::read_drop_set(&image, &drop_file, file).unwrap();
    assert!(
        !carried.is_empty() && carried.len() <= 100,
        "{} drops carried over",
        carried.len()
    );
    let reopened = Db::open(DIR, small_files_options(&image, GcMode::DropRecords, 0.9)).unwrap();
    let at_install = reopened
        .stats()
        .unwrap()
        .value_files
        .into_iter()
        .find(|v| v.number == file)
        .unwrap();
    assert_eq!(at_install.epoch, 1);
    assert_eq!(
        at_install.dropped_bytes,
        carried.values().map(|&l| u64::from(l)).sum::<u64>()
    );
    drop(reopened);
    // ...and the run after it reclaimed them: epoch 2 holds no dead record.
    let now = db
        .stats()
        .unwrap()
        .value_files
        .into_iter()
        .find(|v| v.number == file)
        .unwrap();
    assert_eq!((now.epoch, now.dropped_bytes), (2, 0));
    for k in 0..400u32 {
        let want = if k % 4 == 1 {
            round_value(k, 7)
        } else if k % 2 == 0 {
            round_value(k, 1)
        } else {
            round_value(k, 0)
        };
        assert_eq!(db.get(format!("k{k:04}")).unwrap(), Some(want));
    }
}

#[test]
fn iterators_and_snapshots_read_correct_values_while_gc_rewrites_their_files() {
    for mode in [GcMode::DropRecords, GcMode::LsmLookup, GcMode::Vlog] {
        let fs = MemFs::new();
        let db = Db::open(DIR, small_files_options(&fs, mode, 0.9)).unwrap();
        let model = load(&db);
        let snapshot = db.snapshot();
        let mut it = db.iter();
        let first = it.next().unwrap().unwrap();
        // Overwrite everything, compact, collect: the old files are rewritten or deleted.
        for k in 0..400u32 {
            db.put(format!("k{k:04}"), round_value(k, 5)).unwrap();
        }
        db.compact_range(None, None).unwrap();
        db.gc().unwrap();
        let rest: Vec<_> = it.map(|r| r.unwrap()).collect();
        let seen: BTreeMap<_, _> = std::iter::once(first).chain(rest).collect();
        assert_eq!(seen, model, "{mode:?}: iterator created before GC");
        let snap: BTreeMap<_, _> = snapshot.iter().map(|r| r.unwrap()).collect();
        assert_eq!(snap, model, "{mode:?}: snapshot taken before GC");
        for k in (0..400u32).step_by(37) {
            let key = format!("k{k:04}");
            assert_eq!(
                snapshot.get(&key).unwrap().as_ref(),
                model.get(key.as_bytes())
            );
            assert_eq!(db.get(&key).unwrap(), Some(round_value(k, 5)));
        }
    }
}
