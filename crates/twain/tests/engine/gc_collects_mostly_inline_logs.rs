//! A sealed value log whose bytes are mostly inline entries is garbage once flushed, even
//! with every separated entry in it live: value GC collects it (into an SVTable holding only
//! the separated entries), the space comes back, nothing is lost, and the SVTable is not
//! collected again.

use std::collections::BTreeMap;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .value_file_size(64 << 10)
        .memtable_size(32 << 10)
        .inline_threshold(256)
        // The test drives GC itself.
        .gc_enabled(false)
}

fn value_file_bytes(db: &Db) -> u64 {
    let s = db.stats().unwrap();
    s.value_files
        .iter()
        .map(|f| f.total_bytes - f.punched_bytes)
        .sum()
}

#[test]
fn a_log_of_mostly_inline_entries_is_collected_with_every_separated_entry_live() {
    let fs = MemFs::new();
    let db = Db::open("/db", options(&fs)).unwrap();
    let mut model = BTreeMap::new();
    // Distinct keys only: nothing is ever dropped. Nine inline values for each separated
    // one: about two thirds of each log's bytes are inline entries.
    for i in 0..3000u32 {
        let key = format!("key{i:06}").into_bytes();
        let value = if i % 10 == 0 {
            vec![(i % 251) as u8; 1000]
        } else {
            vec![(i % 251) as u8; 200]
        };
        db.put(&key, &value).unwrap();
        model.insert(key, value);
    }
    db.flush().unwrap();
    let stats = db.stats().unwrap();
    assert!(
        stats
            .value_files
            .iter()
            .all(|f| f.dropped_bytes == 0 && f.valid_rate == 1.0),
        "nothing is dropped: every separated entry is live"
    );
    let before = value_file_bytes(&db);

    let report = db.gc_report().unwrap();
    assert!(report.collected >= 2, "{report}");
    let after = value_file_bytes(&db);
    assert!(
        after * 2 < before,
        "value files held {before} bytes before GC and {after} after"
    );
    for (k, v) in &model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }

    // The SVTables hold live entries only: a second GC has nothing to gain.
    let again = db.gc_report().unwrap();
    assert_eq!(again.collected, 0, "{again}");

    db.close().unwrap();
    let db = Db::open("/db", options(&fs)).unwrap();
    let got: BTreeMap<Vec<u8>, Vec<u8>> = db.iter().map(|kv| kv.unwrap()).collect();
    assert!(
        got == model,
        "the database differs from the model after reopening"
    );
}
