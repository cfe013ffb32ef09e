//! With the foreground quiet, a garbage compaction waits for the active memtable's flush.
//! The memtable's versions are what shadow the tables' garbage: a garbage compaction
//! picked before the flush rewrites the level it merges into once without them, and once
//! more for the flushed table (the headline 100 B run's idle minute rewrote its whole
//! bottom level twice that way). After an update burst that leaves fresh tables in L0 and
//! more updates in the memtable, the background now freezes the memtable, and one garbage
//! compaction brings everything down. Before the fix the count was 2 whenever the
//! compaction thread looked before the GC thread sealed the log (the two race).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use twain::{Db, Options};

const KEYS: u32 = 20_000;

fn key(i: u32) -> Vec<u8> {
    format!("key{i:08}").into_bytes()
}

/// 100 B values: inline, as in the headline's 100 B run.
fn value(round: u32, i: u32) -> Vec<u8> {
    let mut v = format!("r{round}-k{i}-").into_bytes();
    v.resize(100, b'a' + round as u8);
    v
}

#[test]
fn a_quiet_garbage_compaction_takes_the_memtable_along() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options::default().memtable_size(1 << 20);
    let db = Db::open(dir.path(), opts).unwrap();
    let mut model = BTreeMap::new();
    for i in 0..KEYS {
        db.put(key(i), value(0, i)).unwrap();
        model.insert(key(i), value(0, i));
    }
    db.compact_range(None, None).unwrap();
    // Every key again: a few memtables' worth flushes into L0 (under its trigger of 8),
    // and the rest stays in the active memtable.
    for i in 0..KEYS {
        db.put(key(i), value(1, i)).unwrap();
        model.insert(key(i), value(1, i));
    }
    // The memtables frozen during the burst reach L0 within moments (well before the
    // foreground counts as quiet, a second after the last put).
    let settle = Instant::now() + Duration::from_millis(800);
    let mut before = db.stats().unwrap();
    while before.levels[0].files == 0 && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(5));
        before = db.stats().unwrap();
    }
    assert!(
        before.levels[0].files >= 1
            && before.memtable_entries > 0
            && before.garbage_compactions == 0,
        "the burst leaves tables in L0 and entries in the memtable: {}",
        before.to_text()
    );
    // Quiet: wait (bounded) until the background has brought L0 and the memtable down.
    let deadline = Instant::now() + Duration::from_secs(60);
    let after = loop {
        let s = db.stats().unwrap();
        if s.levels[0].files == 0 && s.memtable_entries == 0 && s.garbage_compactions >= 1 {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "nothing came down after a minute: {}",
            s.to_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // Let anything that was still to start start.
    std::thread::sleep(Duration::from_millis(2500));
    let after_rest = db.stats().unwrap();
    assert_eq!(
        after_rest.garbage_compactions,
        1,
        "one garbage compaction took L0 and the memtable down together: {}",
        after_rest.to_text()
    );
    assert!(
        after.flushes > before.flushes,
        "the memtable was flushed with nobody asking"
    );
    let got: BTreeMap<Vec<u8>, Vec<u8>> = db.iter().map(|kv| kv.unwrap()).collect();
    assert!(got == model, "the database differs from the model");
}
