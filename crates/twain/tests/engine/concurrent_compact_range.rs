//! Regression test (fixed in db846df): `compact_range` called from two
//! threads at once must not fail. `Db` is `Send + Sync` and nothing documents that manual
//! compactions must be serialized by the caller.
//!
//! Found by `twain crashtest` (the stress child died with "invalid argument: edit deletes
//! table 72, which is not in L0"). `compact_range` (src/db/compact.rs) sets
//! `bg.state.manual`, waits for background compactions to finish and then picks and runs
//! tasks without marking their input tables busy; a second `compact_range` does the same
//! at the same time, both pick the same tables, and the second to install gets an edit
//! that deletes tables already gone (`VersionState::apply` rejects it with
//! `InvalidArgument`). The first to finish also clears `manual` while the other still
//! runs, so background compactions can collide with it the same way. Manual compactions
//! now run one at a time.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

#[test]
fn concurrent_manual_compactions_all_succeed() {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs) as Arc<dyn Fs>)
        .memtable_size(4096)
        .inline_threshold(32)
        .l0_compaction_trigger(2)
        .compaction_threads(2);
    let db = Arc::new(Db::open("/db", opts).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || -> Result<(), String> {
                for round in 0..300u32 {
                    for i in 0..20u32 {
                        db.put(format!("k{t}{i:03}"), vec![round as u8; 64])
                            .map_err(|e| e.to_string())?;
                    }
                    db.compact_range(None, None)
                        .map_err(|e| format!("thread {t} round {round}: {e}"))?;
                }
                Ok(())
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    for t in 0..4 {
        for i in 0..20u32 {
            assert_eq!(
                db.get(format!("k{t}{i:03}")).unwrap(),
                Some(vec![(299 % 256) as u8; 64])
            );
        }
    }
}
