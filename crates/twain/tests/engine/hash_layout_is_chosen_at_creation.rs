//! The value layout is the database's, chosen when it is created and recorded in its
//! manifest: later opens keep it whatever their options say, statistics report it, and the
//! options the hash layout does not support yet are refused with a clear error.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, GcMode, Options, ValueLayout};

fn opts(fs: &MemFs, layout: ValueLayout) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .value_layout(layout)
        .hash_groups(8)
}

#[test]
fn an_existing_database_keeps_its_layout() {
    let fs = MemFs::new();
    let db = Db::open("/hash", opts(&fs, ValueLayout::Hash)).unwrap();
    db.put("k", vec![7u8; 500]).unwrap();
    db.close().unwrap();
    // Opened with the log layout's options: still hash, with its 8 groups.
    let mut log = opts(&fs, ValueLayout::Log);
    log.hash_groups = 2;
    let db = Db::open("/hash", log.clone()).unwrap();
    assert_eq!(db.stats().unwrap().hash_layout.unwrap().groups, 8);
    assert_eq!(db.get("k").unwrap(), Some(vec![7u8; 500]));
    db.flush().unwrap();
    assert_eq!(db.stats().unwrap().hash_layout.unwrap().segments, 1);
    db.close().unwrap();
    // And a log-layout database stays one when opened with the hash layout's options.
    let db = Db::open("/log", log).unwrap();
    db.put("k", vec![7u8; 500]).unwrap();
    db.close().unwrap();
    let db = Db::open("/log", opts(&fs, ValueLayout::Hash)).unwrap();
    assert!(db.stats().unwrap().hash_layout.is_none());
    db.close().unwrap();
}

#[test]
fn what_the_hash_layout_does_not_support_is_refused() {
    let fs = MemFs::new();
    let cases = [
        (opts(&fs, ValueLayout::Hash)).medium_threshold(32),
        (opts(&fs, ValueLayout::Hash)).gc_mode(GcMode::LsmLookup),
        (opts(&fs, ValueLayout::Hash)).gc_mode(GcMode::Vlog),
    ];
    for o in cases {
        match Db::open("/db", o) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains("not supported yet"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    // By name, as the CLI sets them.
    let mut o = Options::default();
    o.set("value_layout", "hash").unwrap();
    o.set("hash_groups", "64").unwrap();
    assert_eq!((o.value_layout, o.hash_groups), (ValueLayout::Hash, 64));
    assert!(o.set("value_layout", "tree").is_err());
    assert!(o.set("hash_groups", "0").is_err());
    assert!(o.set("hash_groups", "1001").is_err());
    // Options are checked as given: a combination the hash layout refuses is refused even
    // by a log-layout database, which would have kept its own layout.
    let db = Db::open("/log", opts(&fs, ValueLayout::Log)).unwrap();
    db.close().unwrap();
    let o = (opts(&fs, ValueLayout::Hash)).gc_mode(GcMode::LsmLookup);
    assert!(matches!(
        Db::open("/log", o),
        Err(Error::InvalidArgument(_))
    ));
}
