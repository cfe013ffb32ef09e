//! Key-only iteration (`Db::keys`, `DbIterator::into_keys`) never reads a value file,
//! in either direction and through seeks: a `FaultFs` observer counts no read of one,
//! while a scan with values over the same range does read them.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use twain::fs::{FaultFs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options};

fn is_value_file(p: &Path) -> bool {
    let name = p.to_string_lossy();
    name.ends_with(".vlog") || name.ends_with(".svt")
}

#[test]
fn keys_only_scans_read_no_value_file() {
    let faults = FaultFs::over_mem(&MemFs::new());
    let opts = Options::default()
        .fs(Arc::new(faults.clone()))
        .memtable_size(64 << 10)
        .value_file_size(128 << 10)
        .inline_threshold(16)
        .gc_enabled(false);
    let db = Db::open("/db", opts).unwrap();
    let mut want = Vec::new();
    for i in 0..600u32 {
        let k = format!("k{i:05}").into_bytes();
        db.put(&k, vec![i as u8; 200]).unwrap();
        want.push(k);
    }
    db.flush().unwrap();
    // Some in the memtable too.
    for i in 600..700u32 {
        let k = format!("k{i:05}").into_bytes();
        db.put(&k, vec![i as u8; 200]).unwrap();
        want.push(k);
    }
    db.delete(b"k00010").unwrap();
    want.retain(|k| k != b"k00010");

    let reads = Arc::new(AtomicU64::new(0));
    let r = Arc::clone(&reads);
    faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if e.op == OpKind::Read && e.phase == OpPhase::Before && is_value_file(e.path) {
            r.fetch_add(1, Ordering::Relaxed);
        }
    })));

    let keys: Vec<Vec<u8>> = db.keys::<&[u8], _>(..).map(|k| k.unwrap()).collect();
    assert_eq!(keys, want);
    let back: Vec<Vec<u8>> = db.keys::<&[u8], _>(..).rev().map(|k| k.unwrap()).collect();
    assert_eq!(back.len(), want.len());
    let mut cursor = db.range("k00100".."k00200").into_keys();
    cursor.seek("k00150");
    assert_eq!(cursor.next().unwrap().unwrap(), b"k00150");
    assert_eq!(cursor.prev().unwrap().unwrap(), b"k00149");
    assert_eq!(cursor.count(), 50);
    assert_eq!(
        reads.load(Ordering::Relaxed),
        0,
        "a key-only scan read a value file"
    );

    let values = db.range("k00100".."k00200").count();
    assert_eq!(values, 100);
    assert!(
        reads.load(Ordering::Relaxed) > 0,
        "the observer sees value reads (the check above is not vacuous)"
    );
}
