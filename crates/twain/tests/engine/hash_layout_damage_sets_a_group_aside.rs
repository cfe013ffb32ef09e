//! Damage in a live record of a hash-layout segment: the group's GC fails on it with the
//! file and offset, the group is set aside for this open (the database stays writable and
//! the other groups are still collected), the damaged value reads as corruption naming the
//! file, and everything else reads back.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options, ValueLayout};

#[test]
fn a_damaged_live_record_sets_its_group_aside() {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(64 << 10)
        .inline_threshold(64)
        .medium_threshold(64)
        .value_layout(ValueLayout::Hash)
        .hash_groups(2)
        .gc_enabled(false);
    let db = Db::open("/db", opts.clone()).unwrap();
    let value = |k: u32| format!("value of k{k:03} ").repeat(20).into_bytes();
    for k in 0..100u32 {
        db.put(format!("k{k:03}"), value(k)).unwrap();
    }
    db.flush().unwrap();
    db.close().unwrap();
    // Damage k007's record in its segment (each group's segment is an SVTable at epoch 1).
    let target = value(7);
    let (path, at) = fs
        .list_dir(std::path::Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with("-1.svt"))
        .find_map(|n| {
            let p = std::path::Path::new("/db").join(&n);
            let data = fs.read_file(&p).unwrap();
            data.windows(target.len())
                .position(|w| w == target)
                .map(|at| (p, at))
        })
        .expect("k007's record is in a segment");
    fs.corrupt(&path, (at + 5) as u64, 0x01).unwrap();

    let db = Db::open("/db", opts).unwrap();
    // Overwrite every key but k007, so that each group has garbage to collect and k007's
    // damaged record is live.
    for k in (0..100u32).filter(|&k| k != 7) {
        db.put(format!("k{k:03}"), value(k)).unwrap();
    }
    let report = db.gc_report().unwrap();
    let aside = db.gc_set_aside();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(aside[0].file, path);
    assert_eq!(
        report.collected, 1,
        "the other group is collected: {report:?}"
    );
    db.health().unwrap();
    match db.get("k007") {
        Err(Error::Corruption { file, .. }) => assert_eq!(file, path),
        other => panic!("{other:?}"),
    }
    for k in (0..100u32).filter(|&k| k != 7) {
        assert_eq!(db.get(format!("k{k:03}")).unwrap(), Some(value(k)));
    }
    // Later GCs leave the group alone; writes go on, and a new k007 reads back.
    db.put("k007", "small now").unwrap();
    db.gc().unwrap();
    assert_eq!(db.gc_set_aside().len(), 1);
    assert_eq!(db.get("k007").unwrap(), Some(b"small now".to_vec()));
    db.close().unwrap();
}

#[test]
fn a_damaged_record_reads_as_corruption_naming_its_file() {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .inline_threshold(64)
        .medium_threshold(64)
        .value_layout(ValueLayout::Hash)
        .hash_groups(2)
        .gc_enabled(false);
    let db = Db::open("/db", opts.clone()).unwrap();
    let value = b"a value long enough to be separated into a segment".repeat(4);
    db.put("k", &value).unwrap();
    db.flush().unwrap();
    db.close().unwrap();
    let dir = std::path::Path::new("/db");
    let name = fs
        .list_dir(dir)
        .unwrap()
        .into_iter()
        .find(|n| n.ends_with("-1.svt"))
        .unwrap();
    let path = dir.join(name);
    let data = fs.read_file(&path).unwrap();
    let at = data.windows(value.len()).position(|w| w == value).unwrap();
    fs.corrupt(&path, at as u64, 0x01).unwrap();
    let db = Db::open("/db", opts).unwrap();
    match db.get("k") {
        Err(Error::Corruption { file, .. }) => assert_eq!(file, path),
        other => panic!("{other:?}"),
    }
    db.close().unwrap();
}
