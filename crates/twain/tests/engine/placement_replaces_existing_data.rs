//! Re-placement (the mission's row B6): when the thresholds change, compaction moves what
//! it rewrites to its new class, and `compact_range` re-places everything — separated
//! values (in logs and in files value GC rewrote) become inline, inline values become
//! separated into a value file the compaction writes, medium values merge at the last
//! level. Every value reads back after each step, and `twain dump`'s table properties
//! show the classes.

use crate::dbutil;

use std::collections::BTreeMap;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

fn options(fs: &MemFs, medium_threshold: usize, inline_threshold: usize) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .medium_threshold(medium_threshold)
        .inline_threshold(inline_threshold)
        .gc_enabled(false)
}

fn table_handles(db: &Db, fs: &MemFs) -> u64 {
    dbutil::table_handles(db, fs, "/db")
}

fn check_all(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>, what: &str) {
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "{what}");
    }
    let n = db.iter().inspect(|kv| assert!(kv.is_ok())).count();
    assert_eq!(n, model.len(), "{what}");
}

#[test]
fn compaction_re_places_entries_when_the_thresholds_change() {
    let fs = MemFs::new();
    let mut model = BTreeMap::new();
    // Two classes, everything separated; overwrite half so value GC rewrites files.
    {
        let db = Db::open("/db", options(&fs, 16, 16)).unwrap();
        for round in 0..2u32 {
            for i in 0..300u32 {
                if round == 1 && i % 2 == 0 {
                    continue;
                }
                let key = format!("key{i:04}").into_bytes();
                let v = vec![(i + round) as u8; 100 + (i as usize % 4) * 100];
                db.put(&key, &v).unwrap();
                model.insert(key, v);
            }
        }
        db.compact_range(None, None).unwrap();
        db.gc().unwrap();
        let s = db.stats().unwrap();
        assert!(
            s.value_files.iter().any(|f| f.epoch >= 1),
            "value GC rewrote a file: {}",
            s.to_text()
        );
        assert_eq!(table_handles(&db, &fs), 300);
        check_all(&db, &model, "all separated");
        db.close().unwrap();
    }
    // Everything small now: compact_range brings every value into the tree, including
    // those in files value GC rewrote, and the value files die.
    {
        let db = Db::open("/db", options(&fs, 1 << 20, 1 << 20)).unwrap();
        check_all(&db, &model, "reopened small");
        db.compact_range(None, None).unwrap();
        assert_eq!(table_handles(&db, &fs), 0);
        check_all(&db, &model, "all inline");
        let s = db.stats().unwrap();
        assert!(s.replaced_inline_bytes > 0);
        assert!(
            s.value_files.iter().all(|f| f.is_log),
            "only the active log stays: {}",
            s.to_text()
        );
        db.close().unwrap();
    }
    // Everything large: compaction separates the inline values into a file it writes.
    {
        let db = Db::open("/db", options(&fs, 64, 64)).unwrap();
        db.compact_range(None, None).unwrap();
        assert_eq!(table_handles(&db, &fs), 300);
        check_all(&db, &model, "re-separated");
        let s = db.stats().unwrap();
        assert!(s.replaced_separated_bytes > 0);
        assert_eq!(s.transient_files, 0, "a compaction's file is not transient");
        db.close().unwrap();
    }
    // Medium: merged into the last level by the next compaction there.
    {
        let db = Db::open("/db", options(&fs, 16, 1 << 20)).unwrap();
        db.compact_range(None, None).unwrap();
        assert_eq!(table_handles(&db, &fs), 0);
        check_all(&db, &model, "medium, merged at the last level");
        assert!(db.stats().unwrap().medium_bytes_merged > 0);
        db.close().unwrap();
    }
    let db = Db::open("/db", options(&fs, 16, 1 << 20)).unwrap();
    check_all(&db, &model, "after the last reopen");
}
