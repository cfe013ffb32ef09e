//! With a space limit, an append that would take the space in use past it fails with
//! `StorageFull` and writes nothing; what counts as space in use depends on the probe.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use twain::fs::{FaultFs, Fs, MemFs};

fn dir() -> PathBuf {
    PathBuf::from("/db")
}

fn over_mem() -> (MemFs, FaultFs) {
    let mem = MemFs::new();
    let fs = FaultFs::over_mem(&mem);
    fs.create_dir_all(&dir()).unwrap();
    (mem, fs)
}

#[test]
fn append_past_the_limit_fails_and_writes_nothing() {
    let (mem, fs) = over_mem();
    fs.set_space_limit(Some(10));
    let mut f = fs.create(&dir().join("f")).unwrap();
    f.append(b"123456").unwrap();
    let err = f.append(b"12345").err().unwrap();
    assert_eq!(err.kind(), io::ErrorKind::StorageFull);
    assert!(FaultFs::is_injected(&err));
    assert_eq!(mem.read_file(&dir().join("f")).unwrap(), b"123456");
}

#[test]
fn append_up_to_the_limit_exactly_succeeds() {
    let (mem, fs) = over_mem();
    fs.set_space_limit(Some(10));
    let mut f = fs.create(&dir().join("f")).unwrap();
    f.append(b"123456").unwrap();
    f.append(b"7890").unwrap();
    assert_eq!(mem.total_bytes(), 10);
    assert!(f.append(b"x").is_err());
}

#[test]
fn limit_counts_every_live_file_of_the_mem_fs() {
    let (mem, fs) = over_mem();
    mem.write_file(&dir().join("fixture"), &[0; 8]).unwrap();
    fs.set_space_limit(Some(10));
    let mut f = fs.create(&dir().join("f")).unwrap();
    f.append(b"12").unwrap();
    assert!(f.append(b"3").is_err());
}

#[test]
fn removing_a_file_frees_space() {
    let (_mem, fs) = over_mem();
    fs.set_space_limit(Some(10));
    let mut old = fs.create(&dir().join("old")).unwrap();
    old.append(&[1; 10]).unwrap();
    let mut new = fs.create(&dir().join("new")).unwrap();
    assert!(new.append(b"x").is_err());
    fs.remove_file(&dir().join("old")).unwrap();
    new.append(b"x").unwrap();
}

#[test]
fn lifting_the_limit_lets_appends_through() {
    let (_mem, fs) = over_mem();
    fs.set_space_limit(Some(0));
    let mut f = fs.create(&dir().join("f")).unwrap();
    assert!(f.append(b"x").is_err());
    fs.set_space_limit(None);
    f.append(b"x").unwrap();
}

#[test]
fn without_a_probe_the_limit_counts_bytes_appended_through_the_wrapper() {
    let mem = MemFs::new();
    mem.create_dir_all(&dir()).unwrap();
    mem.write_file(&dir().join("not counted"), &[0; 100])
        .unwrap();
    let fs = FaultFs::new(Arc::new(mem.clone()));
    fs.set_space_limit(Some(5));
    let mut f = fs.create(&dir().join("f")).unwrap();
    f.append(b"123").unwrap();
    fs.remove_file(&dir().join("f")).unwrap();
    let mut g = fs.create(&dir().join("g")).unwrap();
    g.append(b"45").unwrap();
    assert!(g.append(b"6").is_err());
}

#[test]
fn custom_probe_decides_the_space_in_use() {
    let mem = MemFs::new();
    mem.create_dir_all(&dir()).unwrap();
    let used = Arc::new(AtomicU64::new(0));
    let probe = used.clone();
    let fs = FaultFs::with_space_probe(Arc::new(mem), move || probe.load(Ordering::Relaxed));
    fs.set_space_limit(Some(100));
    let mut f = fs.create(&dir().join("f")).unwrap();
    f.append(&[0; 50]).unwrap();
    used.store(99, Ordering::Relaxed);
    assert!(f.append(b"ab").is_err());
    f.append(b"a").unwrap();
}
