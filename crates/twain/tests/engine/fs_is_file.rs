//! `Fs::is_file`, which `twain dump` asks before it opens a file someone named (issue 19,
//! finding 10), answers alike on `RealFs`, `MemFs` and a `FaultFs` over a `MemFs`: true for
//! a file, false for a directory, `NotFound` for nothing.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{FaultFs, Fs, MemFs, RealFs};

fn check(fs: &dyn Fs, root: &Path) {
    let file = root.join("000001.sst");
    let mut w = fs.create(&file).unwrap();
    w.append(b"x").unwrap();
    w.sync_data().unwrap();
    let dir = root.join("000002.sst");
    fs.create_dir_all(&dir).unwrap();
    assert!(fs.is_file(&file).unwrap());
    assert!(!fs.is_file(&dir).unwrap());
    assert!(!fs.is_file(root).unwrap());
    let missing = fs.is_file(&root.join("000003.sst")).unwrap_err();
    assert_eq!(missing.kind(), io::ErrorKind::NotFound);
}

#[test]
fn is_file_agrees_on_every_fs() {
    let tmp = tempfile::tempdir().unwrap();
    check(&RealFs::new(), tmp.path());

    let root = PathBuf::from("/db");
    let mem = MemFs::new();
    mem.create_dir_all(&root).unwrap();
    check(&mem, &root);

    let mem = MemFs::new();
    mem.create_dir_all(&root).unwrap();
    let fault = FaultFs::new(Arc::new(mem));
    check(&fault, &root);
}
