//! I/O failures: a failed fsync or write makes the database refuse writes (never a retry
//! into a fake success), reads report errors instead of "not found" or wrong data, and a
//! reopen recovers everything that was acknowledged.

use std::sync::Arc;
use twain::fs::{FaultFs, FaultKind, FaultRule, Fs, MemFs, OpKind};
use twain::{Db, Error, Options, WriteOptions};

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(64 << 10)
        .value_file_size(128 << 10)
        .inline_threshold(64)
}

const DIR: &str = "/db";

fn value(i: u32) -> Vec<u8> {
    vec![(i % 251) as u8; 100 + (i as usize % 300)]
}

#[test]
fn failed_log_fsync_fails_the_write_and_every_later_one() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    for i in 0..50u32 {
        db.put_opt(format!("k{i}"), value(i), &WriteOptions::synced())
            .unwrap();
    }
    faults.add_rule(FaultRule::on(OpKind::Sync).with_path(".vlog"));
    let err = db
        .put_opt("doomed", "x", &WriteOptions::synced())
        .unwrap_err();
    assert!(matches!(err, Error::Io { op: "sync", .. }), "got {err}");
    faults.clear_rules();
    // The fsync would succeed now, but the database must not pretend the data is safe.
    let later = db
        .put_opt("later", "y", &WriteOptions::synced())
        .unwrap_err();
    assert!(matches!(later, Error::ReadOnly(_)), "got {later}");
    assert!(matches!(
        db.put("later2", "z").unwrap_err(),
        Error::ReadOnly(_)
    ));
    // Reads keep working.
    assert_eq!(db.get("k7").unwrap(), Some(value(7)));
    drop(db);

    let db = Db::open(
        DIR,
        options(Arc::new(
            mem.crash(&twain::fs::CrashOptions::drop_unsynced()),
        )),
    )
    .unwrap();
    for i in 0..50u32 {
        assert_eq!(
            db.get(format!("k{i}")).unwrap(),
            Some(value(i)),
            "acknowledged write lost"
        );
    }
    assert_eq!(db.get("later").unwrap(), None);
    assert_eq!(db.get("later2").unwrap(), None);
}

#[test]
fn failed_table_sync_in_a_flush_makes_the_database_read_only() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    for i in 0..200u32 {
        db.put(format!("k{i:04}"), value(i)).unwrap();
    }
    db.health().unwrap();
    faults.add_rule(FaultRule::on(OpKind::Sync).with_path(".sst").forever());
    let err = db.flush().unwrap_err();
    let health = db.health().unwrap_err();
    assert!(
        matches!(&health, Error::ReadOnly(m) if m.contains(".sst")),
        "health reported {health}"
    );

    assert!(
        matches!(err, Error::Io { .. } | Error::ReadOnly(_)),
        "flush reported {err}"
    );
    assert!(matches!(db.put("x", "y").unwrap_err(), Error::ReadOnly(_)));
    assert_eq!(db.get("k0003").unwrap(), Some(value(3)));
    drop(db);
    faults.clear_rules();
    // Nothing was synced before the failure, so recover from the live image, not a crash.
    let db = Db::open(DIR, options(Arc::new(mem))).unwrap();
    for i in 0..200u32 {
        assert_eq!(db.get(format!("k{i:04}")).unwrap(), Some(value(i)));
    }
    db.flush().unwrap();
}

#[test]
fn failed_manifest_sync_makes_the_database_read_only() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    for i in 0..100u32 {
        db.put_opt(format!("k{i}"), value(i), &WriteOptions::synced())
            .unwrap();
    }
    faults.add_rule(FaultRule::on(OpKind::Sync).with_path(".manifest").forever());
    assert!(db.flush().is_err());
    assert!(matches!(db.put("x", "y").unwrap_err(), Error::ReadOnly(_)));
    drop(db);
    let db = Db::open(
        DIR,
        options(Arc::new(
            mem.crash(&twain::fs::CrashOptions::drop_unsynced()),
        )),
    )
    .unwrap();
    for i in 0..100u32 {
        assert_eq!(db.get(format!("k{i}")).unwrap(), Some(value(i)));
    }
}

#[test]
fn running_out_of_space_fails_writes_without_losing_acknowledged_ones() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    faults.set_space_limit(Some(mem.total_bytes() + 300_000));
    let mut acknowledged = Vec::new();
    let mut failure = None;
    for i in 0..5000u32 {
        match db.put_opt(format!("k{i:05}"), value(i), &WriteOptions::synced()) {
            Ok(()) => acknowledged.push(i),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let failure = failure.expect("writes never ran out of space");
    assert!(
        matches!(&failure, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::StorageFull)
            || matches!(failure, Error::ReadOnly(_)),
        "got {failure}"
    );
    assert!(db.put("more", "x").is_err());
    drop(db);
    faults.set_space_limit(None);
    let db = Db::open(
        DIR,
        options(Arc::new(
            mem.crash(&twain::fs::CrashOptions::drop_unsynced()),
        )),
    )
    .unwrap();
    for &i in &acknowledged {
        assert_eq!(db.get(format!("k{i:05}")).unwrap(), Some(value(i)));
    }
    db.put("after", "space").unwrap();
}

#[test]
fn short_write_to_the_log_is_truncated_on_recovery() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    db.put_opt("before", value(1), &WriteOptions::synced())
        .unwrap();
    // The log thread makes a spare value file after open: wait (bounded) for it, so that the
    // fault below hits the put's append, not the spare's header.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while mem
        .file_names(std::path::Path::new(DIR))
        .iter()
        .filter(|n| n.ends_with(".vlog"))
        .count()
        < 2
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    faults.add_rule(
        FaultRule::on(OpKind::Append)
            .with_path(".vlog")
            .with_kind(FaultKind::ShortWrite),
    );
    assert!(
        db.put_opt("torn", value(2), &WriteOptions::synced())
            .is_err()
    );
    assert!(matches!(
        db.put("next", "x").unwrap_err(),
        Error::ReadOnly(_)
    ));
    drop(db);
    faults.clear_rules();
    let db = Db::open(DIR, options(Arc::new(mem))).unwrap();
    assert_eq!(db.get("before").unwrap(), Some(value(1)));
    assert_eq!(db.get("torn").unwrap(), None);
    assert!(db.stats().unwrap().recovered_torn_bytes > 0);
    db.put_opt("after", "ok", &WriteOptions::synced()).unwrap();
}

#[test]
fn a_read_fault_is_an_error_never_a_miss_or_wrong_data() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    for i in 0..300u32 {
        db.put(format!("k{i:04}"), value(i)).unwrap();
    }
    db.flush().unwrap();
    faults.add_rule(FaultRule::on(OpKind::Read).forever());
    // A value behind a handle (value file) and a key in a table (SSTable) both need reads.
    let err = db.get("k0150").unwrap_err();
    assert!(matches!(err, Error::Io { op: "read", .. }), "got {err}");
    let mut it = db.iter();
    assert!(matches!(it.next(), Some(Err(_))));
    assert!(it.next().is_none(), "an iterator ends after its error");
    faults.clear_rules();
    assert_eq!(db.get("k0150").unwrap(), Some(value(150)));
}
