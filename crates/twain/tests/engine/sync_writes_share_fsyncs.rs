//! `sync` writes from many threads are group-committed: one fdatasync serves a whole group,
//! so syncs per write stay well below one (on the real file system, where an fdatasync
//! takes long enough for writers to queue behind it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use twain::fs::{FaultFs, Fs, OpEvent, OpKind, OpPhase, RealFs};
use twain::{Db, Options, WriteOptions};

#[test]
fn sixteen_threads_of_sync_writes_share_their_fsyncs() {
    const THREADS: u64 = 16;
    const WRITES: u64 = 200;
    let dir = tempfile::tempdir().unwrap();
    let faults = FaultFs::new(Arc::new(RealFs::new()));
    let log_syncs = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&log_syncs);
    faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if e.op == OpKind::Sync
            && e.phase == OpPhase::Before
            && e.path.to_string_lossy().ends_with(".vlog")
        {
            seen.fetch_add(1, Ordering::Relaxed);
        }
    })));
    let opts = Options::default().fs(Arc::new(faults.clone()) as Arc<dyn Fs>);
    let db = Arc::new(Db::open(dir.path(), opts).unwrap());
    let before = log_syncs.load(Ordering::Relaxed);
    let barrier = Arc::new(Barrier::new(THREADS as usize));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (db, barrier) = (Arc::clone(&db), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                for i in 0..WRITES {
                    db.put_opt(
                        format!("t{t:02}-{i:04}"),
                        vec![t as u8; 200],
                        &WriteOptions::synced(),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let syncs = log_syncs.load(Ordering::Relaxed) - before;
    let writes = THREADS * WRITES;
    let s = db.stats().unwrap();
    assert_eq!(s.user_ops, writes);
    assert!(syncs > 0, "no sync at all");
    assert!(
        syncs * 2 < writes,
        "{syncs} log syncs for {writes} sync writes ({} groups)",
        s.synced_groups
    );
    for t in 0..THREADS {
        assert_eq!(
            db.get(format!("t{t:02}-{:04}", WRITES - 1)).unwrap(),
            Some(vec![t as u8; 200])
        );
    }
}
