//! After group GC merged the segments the tables' handles name, reads find the records in
//! the groups' main segments by search; a compaction that rewrites the tables re-points the
//! handles at the main segments, so a scan afterwards makes no search.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options, ValueLayout};

#[test]
fn compaction_repoints_handles_at_the_main_segments() {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .inline_threshold(64)
        .medium_threshold(64)
        .value_layout(ValueLayout::Hash)
        .hash_groups(4)
        .gc_enabled(false);
    let db = Db::open("/db", opts.clone()).unwrap();
    let value = |k: u32, r: u32| format!("k{k:03} round {r} ").repeat(10).into_bytes();
    for round in 0..3 {
        for k in 0..300u32 {
            db.put(format!("k{k:03}"), value(k, round)).unwrap();
        }
        db.flush().unwrap();
    }
    // Merge every group: the handles now name merged segments.
    assert!(db.gc().unwrap() > 0);
    db.close().unwrap();
    let db = Db::open("/db", opts.clone()).unwrap();
    // One read finds its record by search (and fixes that one handle lazily).
    assert_eq!(db.get("k007").unwrap(), Some(value(7, 2)));
    assert_eq!(db.stats().unwrap().svtable_searches, 1);
    db.compact_range(None, None).unwrap();
    assert!(db.stats().unwrap().totals.compaction_handle_refreshes > 0);
    db.close().unwrap();
    let db = Db::open("/db", opts).unwrap();
    for (i, kv) in db.iter().enumerate() {
        let (k, v) = kv.unwrap();
        assert_eq!(k, format!("k{i:03}").into_bytes());
        assert_eq!(v, value(i as u32, 2));
    }
    assert_eq!(
        db.stats().unwrap().scan_svtable_searches,
        0,
        "a handle survived the compaction unrefreshed"
    );
    db.close().unwrap();
}
