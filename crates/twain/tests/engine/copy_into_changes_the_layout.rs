//! `Db::copy_into` copies every pair a database's view holds, with its expiry time, into
//! a new database opened with other options (here the hash layout, which a database keeps
//! from its creation), leaves out what is deleted or expired, refuses a directory in use,
//! and leaves a copy cut short unopenable.

use std::collections::BTreeMap;
use std::sync::Arc;
use twain::fs::{FaultFs, Fs, MemFs};
use twain::{COPY_MARKER, Clock, Db, Error, KeyExpiry, ManualClock, Options, ValueLayout};

fn options(fs: Arc<dyn Fs>, clock: &ManualClock) -> Options {
    Options::default()
        .fs(fs)
        .clock(Arc::new(clock.clone()))
        .memtable_size(64 << 10)
        .value_file_size(256 << 10)
}

/// A value of `len` bytes that says which key and version it is.
fn value(i: u32, version: u32, len: usize) -> Vec<u8> {
    let mut v = format!("{i}:{version}:").into_bytes();
    v.resize(len, b'a' + (i % 26) as u8);
    v
}

/// Fills a log-layout database with pairs of every class, overwrites, deletes, a range
/// deletion and expiring pairs (some expired by the time of the copy), across flushes
/// and a compaction; returns what it holds: value and expiry per key.
fn fill(db: &Db, clock: &ManualClock) -> BTreeMap<Vec<u8>, (Vec<u8>, Option<u64>)> {
    let mut model = BTreeMap::new();
    let lens = [10, 100, 300, 2000, 9000];
    for version in 0..3u32 {
        for i in 0..400u32 {
            let key = format!("k{i:05}").into_bytes();
            let v = value(i, version, lens[((i + version) % 5) as usize]);
            match (i + version) % 7 {
                0 => {
                    let at = clock.now_millis() + 1_000 + u64::from(i % 2) * 100_000;
                    db.put_with_expiry(&key, &v, at).unwrap();
                    model.insert(key, (v, Some(at)));
                }
                1 if version == 2 => {
                    db.delete(&key).unwrap();
                    model.remove(&key);
                }
                _ => {
                    db.put(&key, &v).unwrap();
                    model.insert(key, (v, None));
                }
            }
        }
        db.flush().unwrap();
    }
    db.delete_range("k00100", "k00150").unwrap();
    model.retain(|k, _| !(k.as_slice() >= &b"k00100"[..] && k.as_slice() < &b"k00150"[..]));
    db.compact_range(None, None).unwrap();
    db.put("unflushed", value(9, 9, 5000)).unwrap();
    model.insert(b"unflushed".to_vec(), (value(9, 9, 5000), None));
    // The pairs that expire in a second are gone at the copy.
    clock.advance(2_000);
    let now = clock.now_millis();
    model.retain(|_, (_, at)| at.is_none_or(|at| at > now));
    model
}

#[test]
fn every_pair_and_expiry_reaches_a_hash_layout_copy() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let clock = ManualClock::new(1_000_000);
    let db = Db::open("/log", options(Arc::clone(&fs), &clock)).unwrap();
    let model = fill(&db, &clock);
    assert!(model.values().any(|(_, at)| at.is_some()));

    let hash = options(Arc::clone(&fs), &clock)
        .value_layout(ValueLayout::Hash)
        .hash_groups(4);
    let info = db.copy_into("/hash", hash.clone()).unwrap();
    assert_eq!(info.pairs, model.len() as u64);
    let expiring = model.values().filter(|(_, at)| at.is_some()).count();
    assert_eq!(info.expiring, expiring as u64);
    let value_bytes: usize = model.values().map(|(v, _)| v.len()).sum();
    assert_eq!(info.value_bytes, value_bytes as u64);
    assert!(
        !fs.exists(&std::path::Path::new("/hash").join(COPY_MARKER))
            .unwrap()
    );

    // The source is untouched, and the copy holds exactly the model.
    assert_eq!(db.get("unflushed").unwrap(), Some(value(9, 9, 5000)));
    drop(db);
    let copy = Db::open("/hash", hash).unwrap();
    assert!(
        copy.stats().unwrap().hash_layout.is_some(),
        "the copy is in the hash layout"
    );
    let got: Vec<(Vec<u8>, Vec<u8>)> = copy.iter().map(Result::unwrap).collect();
    let want: Vec<(Vec<u8>, Vec<u8>)> = model
        .iter()
        .map(|(k, (v, _))| (k.clone(), v.clone()))
        .collect();
    assert_eq!(got, want);
    for (k, (_, at)) in &model {
        let expect = match at {
            Some(at) => KeyExpiry::At(*at),
            None => KeyExpiry::Never,
        };
        assert_eq!(
            copy.expiry(k).unwrap(),
            expect,
            "{}",
            String::from_utf8_lossy(k)
        );
    }
    // Its expiring pairs still expire.
    clock.advance(200_000);
    let left = copy.iter().count();
    assert_eq!(left, model.values().filter(|(_, at)| at.is_none()).count());
}

#[test]
fn a_copy_refuses_a_used_directory_and_its_own() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let clock = ManualClock::new(1_000);
    let db = Db::open("/db", options(Arc::clone(&fs), &clock)).unwrap();
    db.put("k", "v").unwrap();
    fs.create_dir_all("/busy".as_ref()).unwrap();
    mem.write_file("/busy/notes.txt".as_ref(), b"mine").unwrap();
    let e = db
        .copy_into("/busy", options(Arc::clone(&fs), &clock))
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(
        e.to_string().contains("copy directory /busy is not empty"),
        "{e}"
    );
    let e = db
        .copy_into("/db", options(Arc::clone(&fs), &clock))
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert_eq!(mem.read_file("/busy/notes.txt".as_ref()).unwrap(), b"mine");
    assert_eq!(db.get("k").unwrap().as_deref(), Some(&b"v"[..]));
}

#[test]
fn a_copy_cut_short_does_not_open() {
    let mem = MemFs::new();
    let clock = ManualClock::new(1_000);
    let db = Db::open("/db", options(Arc::new(mem.clone()), &clock)).unwrap();
    for i in 0..2_000u32 {
        db.put(format!("k{i:05}"), value(i, 0, 1000)).unwrap();
    }
    db.flush().unwrap();
    // The copy's file system runs out of space half way.
    let faulty = FaultFs::over_mem(&mem);
    faulty.set_space_limit(Some(mem.total_bytes() + (1 << 20)));
    let e = db
        .copy_into("/copy", options(Arc::new(faulty), &clock))
        .unwrap_err();
    assert!(!matches!(e, Error::InvalidArgument(_)), "{e}");
    let marker = std::path::Path::new("/copy").join(COPY_MARKER);
    assert!(mem.exists(&marker).unwrap());
    let writable = Db::open("/copy", options(Arc::new(mem.clone()), &clock));
    let read_only = Db::open_read_only("/copy", options(Arc::new(mem.clone()), &clock));
    for e in [writable.unwrap_err(), read_only.unwrap_err()] {
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("did not finish"), "{e}");
    }
}
