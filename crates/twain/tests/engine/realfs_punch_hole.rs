//! `RealFs::punch_hole` on the temporary directory's file system: the range reads as zeros
//! through a handle already open, the size stays, allocation shrinks, and the bytes read
//! the same as a `MemFs` given the same punches. Where that file system cannot punch holes
//! the error is `Unsupported` and the test says it checked nothing else.

use std::io;
use std::path::Path;
use twain::fs::{Fs, MemFs, RealFs};

const PUNCHES: [(u64, u64); 3] = [(100, 5000), (16 << 10, 32 << 10), (60 << 10, 1 << 20)];

fn write(fs: &dyn Fs, path: &Path) {
    let mut w = fs.create(path).unwrap();
    let bytes: Vec<u8> = (0..64 * 1024 + 300).map(|i| (i % 253) as u8 + 1).collect();
    w.append(&bytes).unwrap();
    w.sync_data().unwrap();
}

fn read_all(fs: &dyn Fs, path: &Path) -> Vec<u8> {
    let r = fs.open_read(path).unwrap();
    r.read_vec(0, r.len().unwrap() as usize).unwrap()
}

#[test]
fn realfs_punch_frees_blocks_and_reads_zeros() {
    let tmp = tempfile::tempdir().unwrap();
    let fs = RealFs::new();
    let path = tmp.path().join("000001.vlog");
    write(&fs, &path);
    let size = fs.file_size(&path).unwrap();
    let allocated = fs.allocated_bytes(&path).unwrap();
    let reader = fs.open_read(&path).unwrap();
    let (offset, len) = PUNCHES[0];
    match fs.punch_hole(&path, offset, len) {
        Err(e) if e.kind() == io::ErrorKind::Unsupported => {
            eprintln!(
                "NOTE: not checked: {} cannot punch holes ({e})",
                tmp.path().display()
            );
            return;
        }
        other => other.unwrap(),
    }
    for &(offset, len) in &PUNCHES[1..] {
        fs.punch_hole(&path, offset, len).unwrap();
    }
    let empty = fs.punch_hole(&path, 0, 0).unwrap_err();
    assert_eq!(empty.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(fs.file_size(&path).unwrap(), size);
    assert!(
        fs.allocated_bytes(&path).unwrap() <= allocated - (32 << 10),
        "the whole blocks of 16..48 KiB are freed"
    );

    let mem = MemFs::new();
    mem.create_dir_all(Path::new("/d")).unwrap();
    let model = Path::new("/d/000001.vlog");
    write(&mem, model);
    for &(offset, len) in &PUNCHES {
        mem.punch_hole(model, offset, len).unwrap();
    }
    let want = read_all(&mem, model);
    let mut seen = vec![0u8; size as usize];
    reader.read_exact_at(&mut seen, 0).unwrap();
    assert_eq!(seen, want, "an open handle reads what MemFs models");
    assert_eq!(read_all(&fs, &path), want);
    assert!(want[(16 << 10)..(48 << 10)].iter().all(|&b| b == 0));
}
