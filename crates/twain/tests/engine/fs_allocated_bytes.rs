//! `Fs::allocated_bytes` counts allocated blocks, not lengths: `MemFs` (and a `FaultFs`
//! over it) model whole 4 KiB blocks; `RealFs` reports `st_blocks * 512`, so a sparse file
//! occupies less than its length. A missing file is `NotFound` on all three.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{ALLOCATION_BLOCK, FaultFs, Fs, MemFs, RealFs};

fn write(fs: &dyn Fs, path: &Path, len: usize) {
    let mut w = fs.create(path).unwrap();
    w.append(&vec![7u8; len]).unwrap();
    w.sync_data().unwrap();
}

fn check_model(fs: &dyn Fs, root: &Path) {
    fs.create_dir_all(root).unwrap();
    for (len, want) in [
        (0, 0),
        (1, 4096),
        (4096, 4096),
        (4097, 8192),
        (10_000, 12_288),
    ] {
        let path = root.join(format!("{len}.vlog"));
        write(fs, &path, len);
        assert_eq!(fs.allocated_bytes(&path).unwrap(), want, "length {len}");
        assert_eq!(fs.file_size(&path).unwrap(), len as u64);
    }
    let missing = fs.allocated_bytes(&root.join("none")).unwrap_err();
    assert_eq!(missing.kind(), io::ErrorKind::NotFound);
}

#[test]
fn allocated_bytes_count_blocks() {
    assert_eq!(ALLOCATION_BLOCK, 4096);
    let mem = MemFs::new();
    check_model(&mem, &PathBuf::from("/db"));
    let fault = FaultFs::new(Arc::new(MemFs::new()));
    check_model(&fault, &PathBuf::from("/db"));

    let tmp = tempfile::tempdir().unwrap();
    let fs = RealFs::new();
    let data = tmp.path().join("data");
    write(&fs, &data, 64 << 10);
    let allocated = fs.allocated_bytes(&data).unwrap();
    assert_eq!(allocated % 512, 0);
    assert!(allocated > 0);
    // A hole allocates nothing: a file extended to 1 MiB without writing stays small.
    let sparse = tmp.path().join("sparse");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    assert_eq!(fs.file_size(&sparse).unwrap(), 1 << 20);
    assert!(fs.allocated_bytes(&sparse).unwrap() < 1 << 20);
    let missing = fs.allocated_bytes(&tmp.path().join("none")).unwrap_err();
    assert_eq!(missing.kind(), io::ErrorKind::NotFound);
}
