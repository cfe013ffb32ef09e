//! A checkpoint taken while another thread writes holds a prefix of that thread's writes
//! (one sequence number: no hole, no later write without an earlier one) that includes
//! every write acknowledged before the call, and it opens and goes on working.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(16 << 10)
        .value_file_size(32 << 10)
        .inline_threshold(48)
        .l0_compaction_trigger(2)
}

fn value(i: u32) -> Vec<u8> {
    vec![(i % 251) as u8; 8 + (i as usize * 11) % 200]
}

#[test]
fn checkpoints_beside_a_writer_hold_a_prefix_of_its_writes() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let db = Arc::new(Db::open("/db", options(Arc::clone(&fs))).unwrap());
    let (done, written) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU32::new(0)),
    );
    let writer = {
        let (db, done, written) = (db.clone(), done.clone(), written.clone());
        std::thread::spawn(move || {
            let mut i = 0u32;
            while !done.load(Ordering::Acquire) && i < 200_000 {
                db.put(format!("k{i:06}"), value(i)).unwrap();
                i += 1;
                written.store(i, Ordering::Release);
            }
        })
    };
    for c in 0..6 {
        while written.load(Ordering::Acquire) < (c + 1) * 1500 {
            std::thread::yield_now();
        }
        let acknowledged = written.load(Ordering::Acquire);
        let dir = format!("/cp{c}");
        let info = db.checkpoint(&dir, c % 2 == 0).unwrap();
        let cp = Db::open(&dir, options(Arc::clone(&fs))).unwrap();
        let mut seen = 0u32;
        for kv in cp.iter() {
            let (k, v) = kv.unwrap();
            assert_eq!(k, format!("k{seen:06}").into_bytes(), "{dir}: a hole");
            assert_eq!(v, value(seen), "{dir}");
            seen += 1;
        }
        assert!(seen >= acknowledged, "{dir}: {seen} of {acknowledged}");
        eprintln!("{dir}: {seen} writes (acknowledged {acknowledged}), {info:?}");
        cp.put("after", "x").unwrap();
        cp.flush().unwrap();
    }
    done.store(true, Ordering::Release);
    writer.join().unwrap();
    assert!(db.health().is_ok());
}
