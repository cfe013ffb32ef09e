//! `twain repair` cannot rebuild the manifest of a hash-layout database yet (it would take
//! the segments for plain SVTables and lose the records group GC forwarded handles to): it
//! refuses with "not supported yet" before it changes anything. With the manifest intact,
//! repair keeps it, as for any database.

use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options, ValueLayout, repair};

fn opts(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .inline_threshold(64)
        .medium_threshold(64)
        .value_layout(ValueLayout::Hash)
        .hash_groups(2)
        .gc_enabled(false)
}

fn listing(fs: &MemFs) -> Vec<(String, Vec<u8>)> {
    let mut names = fs.list_dir(Path::new("/db")).unwrap();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let data = fs.read_file(&Path::new("/db").join(&n)).unwrap();
            (n, data)
        })
        .collect()
}

#[test]
fn a_lost_manifest_of_a_hash_layout_is_refused_untouched() {
    let fs = MemFs::new();
    let db = Db::open("/db", opts(&fs)).unwrap();
    for k in 0..50u32 {
        db.put(format!("k{k:02}"), vec![b'v'; 200]).unwrap();
    }
    db.flush().unwrap();
    db.gc().unwrap();
    db.close().unwrap();
    // With the manifest: repair keeps it.
    repair(Path::new("/db"), &opts(&fs)).unwrap();
    let manifest = fs
        .list_dir(Path::new("/db"))
        .unwrap()
        .into_iter()
        .find(|n| n.ends_with(".manifest"))
        .unwrap();
    fs.remove_file(&Path::new("/db").join(manifest)).unwrap();
    let before = listing(&fs);
    match repair(Path::new("/db"), &opts(&fs)) {
        Err(Error::NotSupported(what)) => assert!(what.contains("hash-layout"), "{what}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(listing(&fs), before, "repair changed the directory");
}
