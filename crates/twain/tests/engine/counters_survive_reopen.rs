//! The cumulative counters (`Stats::totals`: user bytes, bytes written per kind, GC
//! totals) persist across opens, in the manifest; the top-level figures count since this
//! open. After a reopen the write amplification still describes the database's life.

use crate::dbutil;

use dbutil::{key, small_opts};
use twain::{Db, Stats, Totals};

fn write(db: &Db, from: u64, n: u64) {
    for i in from..from + n {
        db.put(key(i), vec![b'v'; 1024]).unwrap();
    }
}

/// `t` without the manifest's own bytes, which every open and close adds to.
fn without_manifest(t: Totals) -> Totals {
    Totals {
        manifest_bytes_written: 0,
        ..t
    }
}

fn stats(db: &Db) -> Stats {
    db.stats().unwrap()
}

#[test]
fn counters_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    write(&db, 0, 500);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let first = stats(&db);
    assert_eq!(first.totals, first.since_open());
    assert!(first.totals.user_bytes_written >= 500 * 1024);
    assert!(first.totals.flushes > 0 && first.totals.compactions > 0);
    db.close().unwrap();

    let db = Db::open(dir.path(), small_opts()).unwrap();
    let reopened = stats(&db);
    assert_eq!(
        without_manifest(reopened.totals),
        without_manifest(first.totals)
    );
    assert!(reopened.totals.manifest_bytes_written > first.totals.manifest_bytes_written);
    // Since this open: nothing written by users yet.
    assert_eq!(reopened.user_bytes_written, 0);
    assert_eq!(reopened.flushes, 0);
    assert!(reopened.write_amplification() > 1.0);
    assert!(reopened.to_text().contains("since open"));
    assert!(reopened.to_json().contains(&format!(
        "\"total_user_bytes_written\":{}",
        first.totals.user_bytes_written
    )));

    // A second session adds to the totals.
    write(&db, 500, 100);
    db.flush().unwrap();
    let second = stats(&db);
    assert_eq!(
        second.totals.user_bytes_written,
        first.totals.user_bytes_written + second.user_bytes_written
    );
    assert_eq!(second.totals.flushes, first.totals.flushes + second.flushes);
    // Dropping the handle closes the database too.
    drop(db);
    let db = Db::open(dir.path(), small_opts()).unwrap();
    assert_eq!(
        without_manifest(stats(&db).totals),
        without_manifest(second.totals)
    );
}
