//! When one part of a split compaction fails, the whole compaction fails: nothing is
//! installed, every output any part wrote is removed, the database refuses writes until it
//! is reopened, and the reopened database holds everything that was written.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{FaultFs, FaultRule, Fs, MemFs, OpKind};
use twain::{Db, Error, Options};

fn options(faults: &FaultFs) -> Options {
    Options::default()
        .fs(Arc::new(faults.clone()) as Arc<dyn Fs>)
        .target_file_size(4 << 10)
        .l0_compaction_trigger(100)
        .l0_slowdown_trigger(200)
        .l0_stop_trigger(300)
        .max_subcompactions(4)
        .gc_enabled(false)
}

fn tables(faults: &FaultFs) -> BTreeSet<String> {
    faults
        .list_dir(Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .collect()
}

#[test]
fn a_failed_part_fails_the_compaction_and_leaves_no_output() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open("/db", options(&faults)).unwrap();
    let mut expect = Vec::new();
    for t in 0..4u32 {
        for i in 0..200u32 {
            let k = format!("k{t}-{i:04}");
            let v = vec![(t + i) as u8; if i % 4 == 0 { 700 } else { 90 }];
            db.put(&k, &v).unwrap();
            expect.push((k.into_bytes(), v));
        }
        db.flush().unwrap();
    }
    let before = tables(&faults);
    assert_eq!(before.len(), 4);
    let creates = faults.ops_of(OpKind::Create);
    // The third table sync the compaction makes fails: by then at least one part has
    // finished a table, and others are writing theirs.
    faults.add_rule(FaultRule::on(OpKind::Sync).with_path(".sst").with_nth(3));
    let err = db.compact_range(None, None).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert!(
        faults.ops_of(OpKind::Create) >= creates + 3,
        "the compaction created outputs before failing"
    );
    assert_eq!(
        tables(&faults),
        before,
        "outputs of the failed compaction remain"
    );
    assert_eq!(db.stats().unwrap().split_compactions, 0);
    assert!(matches!(
        db.put("after", "failure"),
        Err(Error::ReadOnly(_))
    ));
    drop(db);
    faults.clear_rules();
    let db = Db::open("/db", options(&faults)).unwrap();
    let got: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(|kv| kv.unwrap()).collect();
    assert_eq!(got, expect);
    // With the fault gone, the same compaction runs in parts and installs.
    db.compact_range(None, None).unwrap();
    assert!(db.stats().unwrap().split_compactions >= 1);
    let got: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(|kv| kv.unwrap()).collect();
    assert_eq!(got, expect);
}
