//! Regression test (fixed in db846df): after a background compaction's
//! manifest fsync fails, the database turns read-only — and must then reopen (a process
//! restart, no power loss) with everything it acknowledged.
//!
//! Found by `reliability_io_errors.rs` run with background compactions. The failed edit's
//! bytes were appended to the manifest before the fsync failed, so they stay in the file
//! (in the page cache, and on the device whenever it writes them back); the compaction
//! then deletes its output tables (`run` in src/db/compact.rs removes outputs on any
//! error). On reopen, `read_manifest` (src/version/set.rs) replays that edit as if it had
//! succeeded: the version names the deleted outputs and open fails with "I/O error during
//! open of 000006.sst: no such file or directory". A failed edit must never be replayed
//! (e.g. start a new manifest before going on, or truncate the failed frame), or its
//! outputs must be kept until it is known not to be durable. The fix keeps the outputs
//! once the edit may have reached the manifest; the next open removes them if it did not.

use std::sync::Arc;
use std::time::{Duration, Instant};
use twain::fs::{FaultFs, FaultRule, Fs, MemFs, OpKind};
use twain::{Db, Error, Options};

fn options(fs: &FaultFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .inline_threshold(32)
        .l0_compaction_trigger(2)
}

#[test]
fn reopen_after_a_failed_compaction_manifest_sync_keeps_everything() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open("/db", options(&faults)).unwrap();
    for i in 0..20u32 {
        db.put(format!("k{i:02}"), vec![0u8; 100]).unwrap();
    }
    db.flush().unwrap();
    // The second flush's edit is the first manifest sync from now on; the compaction it
    // triggers makes the second, which fails.
    faults.add_rule(
        FaultRule::on(OpKind::Sync)
            .with_path(".manifest")
            .with_nth(2),
    );
    for i in 0..20u32 {
        db.put(format!("k{i:02}"), vec![1u8; 100]).unwrap();
    }
    // The compaction may fail before the flush call sees its memtable gone.
    let _ = db.flush();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !matches!(db.put("probe", "x"), Err(Error::ReadOnly(_))) {
        assert!(Instant::now() < deadline, "the compaction never failed");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(db);
    faults.clear_rules();
    let db = Db::open("/db", options(&faults)).expect("reopen after the failed compaction");
    assert_eq!(db.get("k07").unwrap(), Some(vec![1u8; 100]));
}
