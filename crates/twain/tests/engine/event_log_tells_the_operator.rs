//! The engine's events (opens, flushes, compactions, GC runs, closes) reach the `log`
//! facade under target `twain` and, with `info_log`, the `LOG` file of the database
//! directory, the previous one kept as `LOG.old`. A read-only open writes no LOG; a LOG
//! that cannot be written never fails an operation; without `info_log` there is no file.

use std::path::Path;
use std::sync::{Arc, Mutex, Once};
use twain::fs::{FaultFs, FaultRule, Fs, MemFs, OpKind};
use twain::{Db, Options};

/// Every record of target `twain` logged in this test process.
static RECORDS: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target() == "twain"
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            let line = format!("{} {}", record.level(), record.args());
            RECORDS.lock().unwrap().push(line);
        }
    }

    fn flush(&self) {}
}

fn capture() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        log::set_logger(&Capture).unwrap();
        log::set_max_level(log::LevelFilter::Info);
    });
}

/// The records of the database in `dir`.
fn records_of(dir: &str) -> Vec<String> {
    let prefix = format!("{dir}: ");
    RECORDS
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.contains(&prefix))
        .cloned()
        .collect()
}

fn opts(fs: Arc<dyn Fs>, info_log: bool) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(64 << 10)
        .inline_threshold(64)
        .info_log(info_log)
}

/// Writes, flushes, compacts and collects.
fn work(db: &Db) {
    for round in 0..3u8 {
        for i in 0..300u32 {
            db.put(format!("key{i:05}"), vec![round; 500]).unwrap();
        }
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
    db.gc().unwrap();
}

fn text(fs: &MemFs, path: &Path) -> String {
    String::from_utf8(fs.read_file(path).unwrap()).unwrap()
}

#[test]
fn events_reach_the_facade_and_the_log_file() {
    capture();
    let fs = MemFs::new();
    let dir = Path::new("/events-db");
    let db = Db::open(dir, opts(Arc::new(fs.clone()), true)).unwrap();
    work(&db);
    db.close().unwrap();
    let log = text(&fs, &dir.join("LOG"));
    for what in [
        "INFO  opened: ",
        "INFO  flush: ",
        "INFO  compaction L0 -> L6 (manual): ",
        "INFO  closed",
    ] {
        assert!(log.contains(what), "{what:?} missing from LOG:\n{log}");
    }
    assert!(
        log.lines()
            .all(|l| l.len() > 25 && l.as_bytes()[10] == b'T'),
        "every line starts with a timestamp:\n{log}"
    );
    let records = records_of("/events-db");
    assert!(
        records
            .iter()
            .any(|r| r.starts_with("INFO /events-db: flush: ")),
        "{records:?}"
    );

    // The next open keeps the last LOG as LOG.old; a read-only open writes none.
    let db = Db::open(dir, opts(Arc::new(fs.clone()), true)).unwrap();
    db.close().unwrap();
    assert_eq!(text(&fs, &dir.join("LOG.old")), log);
    let second = text(&fs, &dir.join("LOG"));
    let db = Db::open_read_only(dir, opts(Arc::new(fs.clone()), true)).unwrap();
    assert!(db.get("key00001").unwrap().is_some());
    db.close().unwrap();
    assert_eq!(
        text(&fs, &dir.join("LOG")),
        second,
        "a read-only open wrote"
    );
    assert_eq!(text(&fs, &dir.join("LOG.old")), log);
    assert!(
        records_of("/events-db")
            .iter()
            .any(|r| r.contains("opened read-only")),
        "the facade still hears a read-only open"
    );
}

#[test]
fn without_info_log_there_is_no_file() {
    capture();
    let fs = MemFs::new();
    let db = Db::open("/quiet-db", opts(Arc::new(fs.clone()), false)).unwrap();
    work(&db);
    db.close().unwrap();
    assert!(!fs.exists(Path::new("/quiet-db/LOG")).unwrap());
    assert!(
        records_of("/quiet-db")
            .iter()
            .any(|r| r.contains("flush: ")),
        "events still reach the facade"
    );
}

#[test]
fn a_log_file_that_cannot_be_written_fails_nothing() {
    capture();
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    faults.add_rule(
        FaultRule::on(OpKind::Flush)
            .with_path("broken-db/LOG")
            .with_nth(2)
            .forever(),
    );
    let db = Db::open("/broken-db", opts(Arc::new(faults.clone()), true)).unwrap();
    work(&db);
    assert_eq!(db.get("key00007").unwrap(), Some(vec![2u8; 500]));
    db.close().unwrap();
    let log = text(&mem, Path::new("/broken-db/LOG"));
    assert!(
        (1..=2).contains(&log.lines().count()),
        "written until it failed, then closed:\n{log}"
    );
    assert!(
        records_of("/broken-db")
            .iter()
            .any(|r| r.contains("LOG file closed after a failed write")),
        "the failure is reported"
    );
}
