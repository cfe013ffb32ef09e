//! `Db::stats` reads no table: once the background has made its live-data pass, the live
//! figure comes from the cache, and the statistics cost a directory listing, not a read of
//! the key store. The reads are counted by a `FaultFs` observer, on the caller's thread
//! only (background threads may read tables meanwhile).

use crate::dbutil;

use dbutil::{BACKGROUND_DEADLINE, key, small_opts, wait_for_quiet, wait_until};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::ThreadId;
use twain::Db;
use twain::fs::{FaultFs, Fs, MemFs, OpEvent, OpKind, OpPhase};

/// Counts table opens and reads made on `thread`.
fn count_table_reads(fs: &FaultFs, thread: ThreadId) -> Arc<AtomicU64> {
    let reads = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&reads);
    fs.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        let table = e.path.extension().is_some_and(|x| x == "sst");
        let read = matches!(e.op, OpKind::Read | OpKind::OpenRead);
        if table && read && e.phase == OpPhase::Before && std::thread::current().id() == thread {
            seen.fetch_add(1, Ordering::Relaxed);
        }
    })));
    reads
}

#[test]
fn stats_reads_no_table_once_the_live_cache_is_warm() {
    let mem = MemFs::new();
    let fs = FaultFs::over_mem(&mem);
    let opts = small_opts().fs(Arc::new(fs.clone()) as Arc<dyn Fs>);
    let db = Db::open("/db", opts).unwrap();
    let mut live = 0u64;
    for i in 0..3000 {
        let (k, v) = (key(i), vec![b'v'; 40]);
        live += (k.len() + v.len()) as u64;
        db.put(k, v).unwrap();
    }
    db.flush().unwrap();
    assert!(wait_for_quiet(&db), "compactions never settled");
    assert!(
        db.stats()
            .unwrap()
            .levels
            .iter()
            .map(|l| l.files)
            .sum::<usize>()
            > 1,
        "the test needs several tables"
    );
    assert!(
        wait_until(BACKGROUND_DEADLINE, || db
            .stats()
            .unwrap()
            .live_bytes_is_current()),
        "the background never made its pass"
    );

    let reads = count_table_reads(&fs, std::thread::current().id());
    for _ in 0..5 {
        let s = db.stats().unwrap();
        assert_eq!(s.live_bytes, live);
        assert!(s.live_bytes_age.is_some());
    }
    assert_eq!(reads.load(Ordering::Relaxed), 0, "stats read a table");

    // The observer does see table reads: the pass on demand makes them.
    assert_eq!(db.refresh_live_bytes().unwrap(), live);
    assert!(
        reads.load(Ordering::Relaxed) > 0,
        "the observer saw no read"
    );
}
