//! Where the file system cannot punch holes, `Fs::punch_hole` fails with `Unsupported` and
//! changes nothing: a `MemFs` set to lack it (and its crash images, and a `FaultFs` over
//! it), and any `Fs` that does not implement it (the trait's default).

use std::io;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{CrashOptions, FaultFs, FileLock, Fs, MemFs, ReadableFile, WritableFile};

fn assert_unsupported(fs: &dyn Fs, path: &Path) {
    let before = fs.allocated_bytes(path).unwrap();
    let err = fs.punch_hole(path, 0, 8192).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::Unsupported, "{err}");
    assert_eq!(fs.allocated_bytes(path).unwrap(), before);
    let r = fs.open_read(path).unwrap();
    assert_eq!(r.read_vec(0, 3).unwrap(), b"abc");
}

/// A `MemFs` holding `/d/f`: "abc" and 20,000 more bytes, synced.
fn fixture() -> (MemFs, &'static Path) {
    let mem = MemFs::new();
    mem.create_dir_all(Path::new("/d")).unwrap();
    let path = Path::new("/d/f");
    let bytes = [b"abc".as_slice(), &[9u8; 20_000]].concat();
    mem.write_file(path, &bytes).unwrap();
    (mem, path)
}

#[test]
fn memfs_without_punch_support_refuses_and_changes_nothing() {
    let (mem, path) = fixture();
    mem.set_punch_hole_support(false);
    assert_unsupported(&mem, path);
    assert_unsupported(&FaultFs::over_mem(&mem), path);
    assert_unsupported(&mem.crash(&CrashOptions::drop_unsynced()), path);
    assert_eq!(mem.op_counts().punches, 0);
    mem.set_punch_hole_support(true);
    mem.punch_hole(path, 0, 8192).unwrap();
    assert_eq!(mem.op_counts().punches, 1);
}

/// An `Fs` that forwards everything but `punch_hole`, so it gets the trait's default.
#[derive(Debug)]
struct NoPunch(MemFs);

impl Fs for NoPunch {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.0.create_dir_all(path)
    }
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.0.create(path)
    }
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.0.open_append(path)
    }
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        self.0.open_read(path)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.0.remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.0.rename(from, to)
    }
    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        self.0.list_dir(path)
    }
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        self.0.sync_dir(path)
    }
    fn exists(&self, path: &Path) -> io::Result<bool> {
        self.0.exists(path)
    }
    fn is_file(&self, path: &Path) -> io::Result<bool> {
        self.0.is_file(path)
    }
    fn file_size(&self, path: &Path) -> io::Result<u64> {
        self.0.file_size(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        self.0.truncate(path, len)
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        self.0.lock(path)
    }
}

#[test]
fn an_fs_without_punch_hole_is_unsupported_by_default() {
    let (mem, path) = fixture();
    assert_unsupported(&NoPunch(mem), path);
}
