//! `Db::entries` yields each key with its value unread: a separated value is read when
//! `Entry::value` is called (and only then), an inline one is held; an entry read after
//! the iterator moved on, or after new writes, still gives the value the iterator saw.
//! A damaged value file fails only the `value()` calls that reach it.

use crate::dbutil;

use dbutil::{key, small_opts};
use twain::{Db, Entry};

fn open(dir: &std::path::Path) -> Db {
    let opts = small_opts().inline_threshold(32).gc_enabled(false);
    Db::open(dir, opts).unwrap()
}

fn big(i: u64) -> Vec<u8> {
    vec![(i % 251) as u8; 300]
}

#[test]
fn values_are_read_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    for i in 0..300u64 {
        if i.is_multiple_of(2) {
            db.put(key(i), big(i)).unwrap();
        } else {
            db.put(key(i), b"small").unwrap();
        }
    }
    db.flush().unwrap();
    let before = db.stats().unwrap().value_reads;
    let entries: Vec<Entry> = db.entries::<&[u8], _>(..).map(|e| e.unwrap()).collect();
    assert_eq!(entries.len(), 300);
    assert_eq!(
        db.stats().unwrap().value_reads,
        before,
        "iterating read values"
    );

    // Overwrites after the scan do not change what the entries give.
    for i in 0..300u64 {
        db.put(key(i), b"new").unwrap();
    }
    db.flush().unwrap();
    for (i, e) in entries.iter().enumerate().step_by(7) {
        let i = i as u64;
        assert_eq!(e.key(), key(i).as_slice());
        assert_eq!(e.is_separated(), i.is_multiple_of(2));
        let want = if i.is_multiple_of(2) {
            big(i)
        } else {
            b"small".to_vec()
        };
        assert_eq!(e.value().unwrap(), want);
    }
    let separated_read = (0..300u64)
        .step_by(7)
        .filter(|i| i.is_multiple_of(2))
        .count() as u64;
    assert_eq!(db.stats().unwrap().value_reads, before + separated_read);
}

#[test]
fn a_damaged_value_fails_only_its_value_call() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    for i in 0..50 {
        db.put(key(i), big(i)).unwrap();
    }
    db.flush().unwrap();
    // Flip bytes in the middle of the value log under the open database: the values
    // there are damaged.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "vlog") {
            let mut bytes = std::fs::read(&p).unwrap();
            if bytes.len() > 4000 {
                let mid = bytes.len() / 2;
                for b in &mut bytes[mid..mid + 16] {
                    *b ^= 0xff;
                }
                let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                std::os::unix::fs::FileExt::write_all_at(&f, &bytes[mid..mid + 16], mid as u64)
                    .unwrap();
            }
        }
    }
    let entries: Vec<Entry> = db.entries::<&[u8], _>(..).map(|e| e.unwrap()).collect();
    assert_eq!(entries.len(), 50, "every key is listed");
    let mut damaged = 0;
    for (i, e) in entries.iter().enumerate() {
        match e.value() {
            Ok(v) => assert_eq!(v, big(i as u64)),
            Err(twain::Error::Corruption { .. }) => damaged += 1,
            Err(e) => panic!("want corruption, got {e}"),
        }
    }
    assert!((1..5).contains(&damaged), "{damaged} damaged values");
}
