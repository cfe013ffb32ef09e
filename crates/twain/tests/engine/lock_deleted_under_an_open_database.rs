//! Issue 19, finding 12: deleting `LOCK` under a running server let a second writer in, and a
//! synced write was lost. An advisory lock belongs to the file, not to its name: once `LOCK`
//! is gone, a second open locks a new `LOCK`. The first database must notice — at its next
//! manifest write, and on its own within a few seconds when idle — and stop writing, so that
//! the two never both write.

use std::sync::Arc;
use std::time::{Duration, Instant};
use twain::fs::{Fs, MemFs, RealFs};
use twain::{Db, Error, Options, WriteOptions};

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default().fs(fs).memtable_size(64 << 10)
}

fn fill(db: &Db, prefix: &str) {
    for i in 0..100u32 {
        db.put_opt(
            format!("{prefix}{i:03}"),
            vec![b'v'; 200],
            &WriteOptions::synced(),
        )
        .unwrap();
    }
}

fn lock_lost(e: &Error) -> bool {
    matches!(e, Error::ReadOnly(m) if m.contains("lock check") && m.contains("LOCK file was deleted or replaced"))
}

/// The first database, whose `LOCK` is gone and whose directory a second one opened,
/// fails its next flush (a manifest write) and every write after it.
fn first_database_stops_writing(fs: Arc<dyn Fs>, dir: &std::path::Path) {
    let first = Db::open(dir, options(Arc::clone(&fs))).unwrap();
    fill(&first, "a");
    fs.remove_file(&dir.join("LOCK")).unwrap();

    let second = Db::open(dir, options(Arc::clone(&fs))).expect("the second open locks anew");
    fill(&second, "b");

    // The flush thread's manifest write finds the lock gone (or the periodic check did).
    let flush = first.flush().unwrap_err();
    assert!(lock_lost(&flush), "got {flush}");
    let put = first.put("late", "x").unwrap_err();
    assert!(
        matches!(&put, Error::ReadOnly(m) if m.contains("LOCK")),
        "got {put}"
    );
    assert!(matches!(first.health(), Err(Error::ReadOnly(_))));
    drop(first);

    // The second database is intact: its own writes and the first one's synced ones.
    second.flush().unwrap();
    assert_eq!(second.get("a050").unwrap(), Some(vec![b'v'; 200]));
    assert_eq!(second.get("b099").unwrap(), Some(vec![b'v'; 200]));
    assert_eq!(second.get("late").unwrap(), None);
    drop(second);
    let reopened = Db::open(dir, options(fs)).unwrap();
    assert_eq!(reopened.iter().count(), 200);
}

#[test]
fn lock_deleted_on_memfs_stops_the_first_database() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    first_database_stops_writing(fs, std::path::Path::new("/db"));
}

#[test]
fn lock_deleted_on_the_real_fs_stops_the_first_database() {
    let dir = tempfile::tempdir().unwrap();
    first_database_stops_writing(Arc::new(RealFs::new()), dir.path());
}

#[test]
fn lock_replaced_by_another_file_stops_the_first_database() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let db = Db::open(dir.path(), options(Arc::clone(&fs))).unwrap();
    fill(&db, "a");
    // Same name, another inode: a lock on it is not ours.
    std::fs::write(dir.path().join("LOCK.new"), b"").unwrap();
    std::fs::rename(dir.path().join("LOCK.new"), dir.path().join("LOCK")).unwrap();
    let err = db.flush().unwrap_err();
    assert!(lock_lost(&err), "got {err}");
}

#[test]
fn an_idle_database_notices_a_deleted_lock() {
    let fs = MemFs::new();
    let db = Db::open("/db", options(Arc::new(fs.clone()))).unwrap();
    fill(&db, "a");
    assert!(db.health().is_ok());
    fs.remove_file(std::path::Path::new("/db/LOCK")).unwrap();
    // The background checks the lock about once a second; allow a slow machine plenty.
    let deadline = Instant::now() + Duration::from_secs(30);
    while db.health().is_ok() {
        assert!(Instant::now() < deadline, "the deleted LOCK went unnoticed");
        std::thread::sleep(Duration::from_millis(50));
    }
    let health = db.health().unwrap_err();
    assert!(lock_lost(&health), "got {health}");
    assert!(matches!(db.put("x", "y"), Err(Error::ReadOnly(_))));
    assert_eq!(db.get("a007").unwrap(), Some(vec![b'v'; 200]));
}

#[test]
fn a_held_lock_lets_the_database_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), options(Arc::new(RealFs::new()))).unwrap();
    fill(&db, "a");
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(db.health().is_ok());
}
