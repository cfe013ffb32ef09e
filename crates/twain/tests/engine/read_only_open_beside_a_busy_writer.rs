//! Issue 16, item 1: a read-only open works while another handle writes the database. The
//! writer flushes, compacts and rolls value files all the time, deleting files the reader
//! may have just read about; every read-only open must still succeed (it retries when the
//! manifest changed under it) and see a prefix of the writer's synced writes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use twain::fs::{Fs, MemFs};
use twain::{Db, Options, WriteOptions};

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(8 << 10)
        .value_file_size(16 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .gc_enabled(false)
}

fn value(i: u32) -> Vec<u8> {
    vec![(i % 251) as u8; 10 + (i as usize * 7) % 150]
}

#[test]
fn read_only_opens_beside_a_writer_see_a_prefix() {
    let mem = MemFs::new();
    let writer = Arc::new(Db::open("/db", options(Arc::new(mem.clone()))).unwrap());
    let done = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicU32::new(0));
    let thread = {
        let (writer, done, written) = (writer.clone(), done.clone(), written.clone());
        std::thread::spawn(move || {
            for i in 0..4000u32 {
                writer
                    .put_opt(format!("k{i:05}"), value(i), &WriteOptions::synced())
                    .unwrap();
                written.store(i + 1, Ordering::Release);
                if i % 500 == 499 {
                    writer.compact_range(None, None).unwrap();
                }
            }
            done.store(true, Ordering::Release);
        })
    };
    let mut opens = 0;
    while !done.load(Ordering::Acquire) || opens < 5 {
        let acknowledged = written.load(Ordering::Acquire);
        let reader = Db::open_read_only("/db", options(Arc::new(mem.clone())))
            .unwrap_or_else(|e| panic!("read-only open {opens} failed: {e}"));
        let mut seen = 0u32;
        for kv in reader.iter() {
            let (k, v) = kv.unwrap();
            assert_eq!(k, format!("k{seen:05}").into_bytes(), "a hole in the view");
            assert_eq!(v, value(seen));
            seen += 1;
        }
        assert!(
            seen >= acknowledged,
            "saw {seen} of {acknowledged} synced writes"
        );
        opens += 1;
    }
    thread.join().unwrap();
    assert!(writer.health().is_ok());
    eprintln!("read-only opens {opens}");
    assert!(opens >= 5);
}
