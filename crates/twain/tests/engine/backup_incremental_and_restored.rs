//! Issue 16, item 2: incremental backups. Each backup shares unchanged files with the
//! earlier ones (only new bytes are copied), every listed backup restores to exactly the
//! database it was taken of, verification finds damage in the store and names the file,
//! a restore never turns damage into data, and deleting a backup frees what only it held.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options, backup};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Background GC off: its rewrites (and the refresh compactions that follow them) change
/// files between two backups, and what an incremental backup shares is measured here.
fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(32)
        .gc_enabled(false)
}

fn write(db: &Db, model: &mut Model, range: std::ops::Range<u32>, round: u32) {
    for k in range {
        let (key, value) = (
            format!("k{k:05}"),
            vec![b'a' + (round % 26) as u8; 40 + k as usize % 200],
        );
        db.put(&key, &value).unwrap();
        model.insert(key.into_bytes(), value);
    }
}

fn restored(fs: &Arc<dyn Fs>, id: u64, to: &str) -> Model {
    backup::restore(fs.as_ref(), Path::new("/bk"), id, Path::new(to)).unwrap();
    let db = Db::open(to, options(Arc::clone(fs))).unwrap();
    db.iter().map(|r| r.unwrap()).collect()
}

#[test]
fn backups_share_unchanged_files_and_each_restores_its_own_state() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    let mut model = Model::new();
    write(&db, &mut model, 0..2000, 0);
    db.compact_range(None, None).unwrap();
    let first = db.backup("/bk").unwrap();
    assert_eq!((first.id, first.new_bytes), (1, first.bytes), "{first:?}");
    let model1 = model.clone();

    write(&db, &mut model, 2000..2300, 1);
    let second = db.backup("/bk").unwrap();
    assert_eq!(second.id, 2);
    assert!(
        second.new_bytes * 2 < second.bytes,
        "an incremental backup copied {} of {} bytes",
        second.new_bytes,
        second.bytes
    );
    assert!(second.sequence > first.sequence);

    let listed = backup::list(fs.as_ref(), Path::new("/bk")).unwrap();
    assert_eq!(listed.iter().map(|b| b.id).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(listed[1].bytes, second.bytes);
    for id in [1, 2] {
        let (_, problems) = backup::verify(fs.as_ref(), Path::new("/bk"), id).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
    }
    assert_eq!(restored(&fs, 1, "/r1"), model1);
    assert_eq!(restored(&fs, 2, "/r2"), model);
    assert!(mem.file_names(Path::new("/bk/staging")).is_empty());

    // Deleting the first backup frees only what the second does not share.
    let freed = backup::delete(fs.as_ref(), Path::new("/bk"), 1).unwrap();
    assert!(freed < first.bytes, "freed {freed} of {}", first.bytes);
    assert_eq!(restored(&fs, 2, "/r2b"), model);
    let e = backup::restore(fs.as_ref(), Path::new("/bk"), 1, Path::new("/r1b")).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}

#[test]
fn damage_in_the_store_is_found_and_never_restored() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    let mut model = Model::new();
    write(&db, &mut model, 0..1500, 0);
    db.backup("/bk").unwrap();
    let store = Path::new("/bk/files");
    let victim = mem
        .file_names(store)
        .into_iter()
        .find(|n| n.contains(".sst."))
        .expect("a table in the store");
    let path = store.join(&victim);
    let mut bytes = mem.read_file(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    mem.write_file(&path, &bytes).unwrap();

    let (_, problems) = backup::verify(fs.as_ref(), Path::new("/bk"), 1).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].to_string().contains(&victim), "{}", problems[0]);
    let e = backup::restore(fs.as_ref(), Path::new("/bk"), 1, Path::new("/r")).unwrap_err();
    assert!(e.is_corruption() && e.to_string().contains(&victim), "{e}");
    assert!(
        !mem.file_names(Path::new("/r"))
            .contains(&"CURRENT".to_string()),
        "a failed restore is not a database"
    );

    // A damaged description is corruption with its file, not a panic or an empty list.
    let meta = Path::new("/bk/meta/000001");
    let mut bytes = mem.read_file(meta).unwrap();
    bytes.truncate(bytes.len() - 3);
    mem.write_file(meta, &bytes).unwrap();
    let e = backup::list(fs.as_ref(), Path::new("/bk")).unwrap_err();
    assert!(e.is_corruption() && e.to_string().contains("000001"), "{e}");
}
