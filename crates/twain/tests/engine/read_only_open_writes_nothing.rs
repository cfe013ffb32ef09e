//! Issue 19, finding 12 ("opens of a database on a read-only mount fail") and issue 16, item 1
//! (a read-only open): `Db::open_read_only` never writes a byte — no `LOCK`, no truncated
//! torn tail, no manifest, no orphan removal, no log file — and every write fails with
//! `Error::ReadOnly`. A normal open on a file system that refuses writes (`EROFS`) opens
//! read-only by itself and says so. Reads and iterators see the recovered state.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{FaultFs, Fs, MemFs, OpKind};
use twain::{Db, Error, Options, WriteOptions};

const DIR: &str = "/db";

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
}

fn value(i: u32) -> Vec<u8> {
    vec![(i % 251) as u8; 20 + (i as usize % 200)]
}

/// Every file of the directory with its bytes.
fn image(fs: &dyn Fs) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for name in fs.list_dir(Path::new(DIR)).unwrap() {
        let path = Path::new(DIR).join(&name);
        let f = fs.open_read(&path).unwrap();
        out.insert(name, f.read_vec(0, f.len().unwrap() as usize).unwrap());
    }
    out
}

/// A database with flushed tables, sealed value files, an unflushed log, an orphan and a
/// torn tail at the end of the last value file; returns the file system and the newest
/// value file's name.
fn build() -> MemFs {
    let mem = MemFs::new();
    let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    for i in 0..600u32 {
        db.put_opt(format!("k{i:04}"), value(i), &WriteOptions::synced())
            .unwrap();
        if i == 300 {
            db.flush().unwrap();
        }
    }
    db.delete("k0001").unwrap();
    db.close().unwrap();
    let last = mem
        .list_dir(Path::new(DIR))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".vlog"))
        .max()
        .unwrap();
    let mut f = mem.open_append(&Path::new(DIR).join(last)).unwrap();
    f.append(&[0x5a; 37]).unwrap();
    f.sync_data().unwrap();
    let mut orphan = mem.create(&Path::new(DIR).join("999999.sst")).unwrap();
    orphan.append(b"left over").unwrap();
    orphan.sync_data().unwrap();
    mem
}

/// Reads every key through `get` and the iterators, then tries every kind of write.
fn reads_work_and_writes_fail(db: &Db) {
    for i in 0..600u32 {
        let want = (i != 1).then(|| value(i));
        assert_eq!(db.get(format!("k{i:04}")).unwrap(), want, "k{i:04}");
    }
    assert_eq!(db.iter().count(), 599);
    assert_eq!(db.iter().rev().count(), 599);
    assert_eq!(db.prefix("k05").count(), 100);
    assert_eq!(db.snapshot().get("k0599").unwrap(), Some(value(599)));
    db.stats().unwrap();

    let refusals = [
        db.put("new", "x"),
        db.put_opt("new", "x", &WriteOptions::synced()),
        db.delete("k0002"),
        db.sync(),
        db.flush(),
        db.compact_range(None, None),
        db.gc().map(|_| ()),
        db.health(),
    ];
    for r in refusals {
        let e = r.unwrap_err();
        assert!(
            matches!(&e, Error::ReadOnly(m) if m.contains("read-only")),
            "got {e}"
        );
    }
    assert_eq!(db.get("new").unwrap(), None);
}

#[test]
fn read_only_open_changes_no_file() {
    let mem = build();
    let before = image(&mem);
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open_read_only(DIR, options(Arc::new(faults.clone()))).unwrap();
    assert_eq!(
        db.read_only(),
        Some("opened read-only (Db::open_read_only)")
    );
    // The torn tail is ignored in memory, not truncated.
    assert_eq!(db.stats().unwrap().recovered_torn_bytes, 37);
    reads_work_and_writes_fail(&db);
    db.close().unwrap();
    assert_eq!(image(&mem), before);
    for op in [
        OpKind::Create,
        OpKind::OpenAppend,
        OpKind::Remove,
        OpKind::Rename,
        OpKind::Truncate,
        OpKind::SyncDir,
        OpKind::CreateDir,
        OpKind::Lock,
    ] {
        assert_eq!(faults.ops_of(op), 0, "{op:?}");
    }
}

#[test]
fn read_only_file_system_opens_read_only_by_itself() {
    let mem = build();
    let before = image(&mem);
    let faults = FaultFs::over_mem(&mem);
    faults.set_read_only(true);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    let why = db.read_only().expect("opened read-only").to_string();
    assert!(why.contains("LOCK") && why.contains("refused"), "{why}");
    reads_work_and_writes_fail(&db);
    drop(db);
    // The only mutating call was the refused lock.
    let refused: Vec<OpKind> = faults.injected_faults().iter().map(|f| f.op).collect();
    assert_eq!(refused, [OpKind::Lock]);
    assert_eq!(image(&mem), before);

    let db = Db::open_read_only(DIR, options(Arc::new(faults))).unwrap();
    reads_work_and_writes_fail(&db);
    drop(db);
    assert_eq!(image(&mem), before);
}

#[test]
fn a_writable_open_afterwards_recovers_the_same_state() {
    let mem = build();
    let db = Db::open_read_only(DIR, options(Arc::new(mem.clone()))).unwrap();
    let seen: Vec<_> = db.iter().map(|kv| kv.unwrap()).collect();
    drop(db);
    let db = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    assert!(db.read_only().is_none());
    let recovered: Vec<_> = db.iter().map(|kv| kv.unwrap()).collect();
    assert_eq!(seen, recovered);
    db.put("new", "x").unwrap();
    assert!(
        !mem.exists(Path::new("/db/999999.sst")).unwrap(),
        "orphan removed"
    );
}

#[test]
fn read_only_open_works_while_a_writer_holds_the_lock() {
    let mem = build();
    let writer = Db::open(DIR, options(Arc::new(mem.clone()))).unwrap();
    writer
        .put_opt("written", "by the writer", &WriteOptions::synced())
        .unwrap();
    let reader = Db::open_read_only(DIR, options(Arc::new(mem.clone()))).unwrap();
    assert_eq!(
        reader.get("written").unwrap(),
        Some(b"by the writer".to_vec())
    );
    assert_eq!(reader.get("k0599").unwrap(), Some(value(599)));
    // A point-in-time view: later writes show after a reopen.
    writer
        .put_opt("later", "x", &WriteOptions::synced())
        .unwrap();
    assert_eq!(reader.get("later").unwrap(), None);
    drop(reader);
    assert!(writer.health().is_ok());
    writer.put("still", "writable").unwrap();
}

#[test]
fn read_only_open_of_a_missing_database_creates_nothing() {
    let mem = MemFs::new();
    let opts = options(Arc::new(mem.clone())).create_if_missing(true);
    let e = Db::open_read_only(DIR, opts.clone()).unwrap_err();
    assert!(matches!(e, Error::NotFound(_)), "got {e}");
    assert!(!mem.exists(Path::new(DIR)).unwrap());

    mem.create_dir_all(Path::new(DIR)).unwrap();
    let e = Db::open_read_only(DIR, opts.clone()).unwrap_err();
    assert!(matches!(e, Error::NotFound(_)), "got {e}");
    assert!(mem.list_dir(Path::new(DIR)).unwrap().is_empty());

    // A normal open on a read-only file system cannot create one: the refusal is the error.
    let faults = FaultFs::over_mem(&mem);
    faults.set_read_only(true);
    let e = Db::open(DIR, opts.fs(Arc::new(faults))).unwrap_err();
    assert!(matches!(&e, Error::Io { op: "lock", .. }), "got {e}");
    assert!(mem.list_dir(Path::new(DIR)).unwrap().is_empty());
}
