//! Closing the database does not wait out `gc_bytes_per_sec`: a background GC run that is
//! ahead of its rate when the database closes finishes at the disk's pace. At the lowest
//! rate (1 MiB/s) the run below reads an 8 MiB value file and writes a third of it back,
//! about 11 s of waits; the close must take well under half that. The data stays whole
//! after the reopen.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use twain::fs::{Fs, MemFs};
use twain::{Db, GcEvent, Options};

const KEYS: u32 = 40_000;

fn value(round: u32, k: u32) -> Vec<u8> {
    format!("{round}:{k}:").repeat(40).into_bytes()
}

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(1 << 20)
        .value_file_size(8 << 20)
        .l0_compaction_trigger(2)
        .gc_threshold(0.6)
        .gc_bytes_per_sec(1 << 20)
}

#[test]
fn a_gc_run_ahead_of_its_rate_does_not_hold_the_close() {
    let fs = MemFs::new();
    let (started_tx, started_rx) = mpsc::channel();
    let started_tx = Mutex::new(started_tx);
    let opts = options(&fs).gc_listener(Some(Arc::new(move |e: GcEvent| {
        if let GcEvent::Started { file } = e {
            let _ = started_tx.lock().unwrap().send(file);
        }
    })));
    let db = Db::open("/db", opts).unwrap();
    // Two of every three keys overwritten twice: the first value files keep a third of
    // their records live, scattered, so GC rewrites them rather than punching.
    for round in 0..3u32 {
        for k in 0..KEYS {
            if round == 0 || k % 3 != 0 {
                db.put(format!("k{k:06}"), value(round, k)).unwrap();
            }
        }
    }
    db.flush().unwrap();
    let file = started_rx
        .recv_timeout(Duration::from_secs(120))
        .expect("no background GC run started");
    let closing = Instant::now();
    db.close().unwrap();
    let took = closing.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "closing waited {took:?} for the GC run over value file {file}, throttled to 1 MiB/s"
    );
    let db = Db::open("/db", options(&fs)).unwrap();
    for k in 0..KEYS {
        let round = if k % 3 == 0 { 0 } else { 2 };
        assert_eq!(
            db.get(format!("k{k:06}")).unwrap(),
            Some(value(round, k)),
            "key {k}"
        );
    }
}
