//! Every `Fs` behaves alike: the same checks run on `RealFs` (in a temporary directory),
//! `MemFs`, and a `FaultFs` with no rules over a `MemFs`.
//!
//! Each check flushes before reading what it appended, since `RealFs` buffers appends.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::fs::{FaultFs, Fs, MemFs, RealFs};

/// A file system and an existing, empty directory in it.
struct Backend {
    fs: Arc<dyn Fs>,
    root: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

impl Backend {
    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn write(&self, name: &str, bytes: &[u8]) {
        let mut w = self.fs.create(&self.path(name)).unwrap();
        w.append(bytes).unwrap();
        w.sync_data().unwrap();
    }

    fn read(&self, name: &str) -> Vec<u8> {
        read_all(&*self.fs, &self.path(name))
    }

    fn names(&self) -> Vec<String> {
        let mut names = self.fs.list_dir(&self.root).unwrap();
        names.sort();
        names
    }
}

fn read_all(fs: &dyn Fs, path: &Path) -> Vec<u8> {
    let r = fs.open_read(path).unwrap();
    let len = usize::try_from(r.len().unwrap()).unwrap();
    r.read_vec(0, len).unwrap()
}

fn kind<T>(result: io::Result<T>) -> Option<io::ErrorKind> {
    result.err().map(|e| e.kind())
}

fn real() -> Backend {
    let tmp = tempfile::tempdir().unwrap();
    Backend {
        fs: Arc::new(RealFs::new()),
        root: tmp.path().to_path_buf(),
        _tmp: Some(tmp),
    }
}

fn mem() -> Backend {
    let fs = MemFs::new();
    let root = PathBuf::from("/conformance/db");
    fs.create_dir_all(&root).unwrap();
    Backend {
        fs: Arc::new(fs),
        root,
        _tmp: None,
    }
}

fn fault_over_mem() -> Backend {
    let inner = mem();
    Backend {
        fs: Arc::new(FaultFs::new(inner.fs)),
        root: inner.root,
        _tmp: None,
    }
}

fn create_append_flush_read(b: &Backend) {
    let mut w = b.fs.create(&b.path("f")).unwrap();
    w.append(b"hello").unwrap();
    w.append(b" world").unwrap();
    assert_eq!(w.len(), 11);
    w.flush().unwrap();
    let r = b.fs.open_read(&b.path("f")).unwrap();
    assert_eq!(r.len().unwrap(), 11);
    assert_eq!(r.read_vec(0, 11).unwrap(), b"hello world");
    assert_eq!(r.read_vec(6, 5).unwrap(), b"world");
    let mut buf = [0u8; 3];
    r.read_exact_at(&mut buf, 2).unwrap();
    assert_eq!(&buf, b"llo");
}

fn open_readers_see_flushed_appends(b: &Backend) {
    let mut w = b.fs.create(&b.path("f")).unwrap();
    let r = b.fs.open_read(&b.path("f")).unwrap();
    assert_eq!(r.len().unwrap(), 0);
    w.append(b"late").unwrap();
    w.flush().unwrap();
    assert_eq!(r.len().unwrap(), 4);
    assert_eq!(r.read_vec(0, 4).unwrap(), b"late");
}

fn new_file_is_empty(b: &Backend) {
    let w = b.fs.create(&b.path("f")).unwrap();
    assert!(w.is_empty());
    assert_eq!(b.fs.file_size(&b.path("f")).unwrap(), 0);
}

fn open_append_continues_at_the_end(b: &Backend) {
    b.write("f", b"abc");
    let mut w = b.fs.open_append(&b.path("f")).unwrap();
    assert_eq!(w.len(), 3);
    w.append(b"de").unwrap();
    assert_eq!(w.len(), 5);
    w.flush().unwrap();
    assert_eq!(b.read("f"), b"abcde");
}

fn create_replaces_an_existing_file(b: &Backend) {
    b.write("f", b"old content");
    let mut w = b.fs.create(&b.path("f")).unwrap();
    assert_eq!(b.fs.file_size(&b.path("f")).unwrap(), 0);
    w.append(b"new").unwrap();
    w.flush().unwrap();
    assert_eq!(b.read("f"), b"new");
}

fn create_new_never_replaces_a_file(b: &Backend) {
    b.write("f", b"old content");
    assert_eq!(
        kind(b.fs.create_new(&b.path("f"))),
        Some(io::ErrorKind::AlreadyExists)
    );
    assert_eq!(b.read("f"), b"old content");
    let mut w = b.fs.create_new(&b.path("g")).unwrap();
    w.append(b"new").unwrap();
    w.flush().unwrap();
    assert_eq!(b.read("g"), b"new");
}

fn rename_replaces_the_target(b: &Backend) {
    b.write("a", b"from a");
    b.write("b", b"from b");
    b.fs.rename(&b.path("a"), &b.path("b")).unwrap();
    assert!(!b.fs.exists(&b.path("a")).unwrap());
    assert_eq!(b.read("b"), b"from a");
    assert_eq!(b.names(), ["b"]);
}

fn rename_to_a_new_name_moves_the_file(b: &Backend) {
    b.write("a", b"x");
    b.fs.rename(&b.path("a"), &b.path("c")).unwrap();
    assert_eq!(b.names(), ["c"]);
    assert_eq!(b.read("c"), b"x");
}

fn renamed_file_keeps_its_open_handles(b: &Backend) {
    let mut w = b.fs.create(&b.path("a")).unwrap();
    w.append(b"one ").unwrap();
    w.flush().unwrap();
    let r = b.fs.open_read(&b.path("a")).unwrap();
    b.fs.rename(&b.path("a"), &b.path("b")).unwrap();
    w.append(b"two").unwrap();
    w.flush().unwrap();
    assert_eq!(r.read_vec(0, 7).unwrap(), b"one two");
    assert_eq!(b.read("b"), b"one two");
}

fn remove_deletes_the_name(b: &Backend) {
    b.write("f", b"x");
    b.fs.remove_file(&b.path("f")).unwrap();
    assert!(!b.fs.exists(&b.path("f")).unwrap());
    assert_eq!(b.names(), Vec::<String>::new());
    assert_eq!(
        kind(b.fs.open_read(&b.path("f"))),
        Some(io::ErrorKind::NotFound)
    );
}

fn removed_file_stays_usable_through_open_handles(b: &Backend) {
    let mut w = b.fs.create(&b.path("f")).unwrap();
    w.append(b"kept").unwrap();
    w.flush().unwrap();
    let r = b.fs.open_read(&b.path("f")).unwrap();
    b.fs.remove_file(&b.path("f")).unwrap();
    w.append(b"!").unwrap();
    w.flush().unwrap();
    assert_eq!(r.len().unwrap(), 5);
    assert_eq!(r.read_vec(0, 5).unwrap(), b"kept!");
}

fn list_dir_names_files_and_subdirectories(b: &Backend) {
    b.write("f1", b"");
    b.write("f2", b"");
    b.fs.create_dir_all(&b.path("sub/deeper")).unwrap();
    b.write("sub/inner", b"");
    assert_eq!(b.names(), ["f1", "f2", "sub"]);
    let mut inner = b.fs.list_dir(&b.path("sub")).unwrap();
    inner.sort();
    assert_eq!(inner, ["deeper", "inner"]);
}

fn create_dir_all_makes_parents_and_is_idempotent(b: &Backend) {
    let deep = b.path("x/y/z");
    b.fs.create_dir_all(&deep).unwrap();
    b.fs.create_dir_all(&deep).unwrap();
    assert!(b.fs.exists(&b.path("x")).unwrap());
    assert!(b.fs.exists(&deep).unwrap());
    b.fs.sync_dir(&deep).unwrap();
}

fn file_size_reports_the_length(b: &Backend) {
    b.write("f", &[7u8; 1234]);
    assert_eq!(b.fs.file_size(&b.path("f")).unwrap(), 1234);
}

fn truncate_shortens_and_appends_continue_at_the_new_end(b: &Backend) {
    b.write("f", b"0123456789");
    b.fs.truncate(&b.path("f"), 4).unwrap();
    assert_eq!(b.fs.file_size(&b.path("f")).unwrap(), 4);
    assert_eq!(b.read("f"), b"0123");
    let mut w = b.fs.open_append(&b.path("f")).unwrap();
    w.append(b"ab").unwrap();
    w.flush().unwrap();
    assert_eq!(b.read("f"), b"0123ab");
}

fn exists_tells_files_dirs_and_missing_apart(b: &Backend) {
    b.write("f", b"");
    assert!(b.fs.exists(&b.path("f")).unwrap());
    assert!(b.fs.exists(&b.root).unwrap());
    assert!(!b.fs.exists(&b.path("missing")).unwrap());
    assert!(!b.fs.exists(&b.path("missing/child")).unwrap());
}

fn lock_is_exclusive_until_dropped(b: &Backend) {
    let first = b.fs.lock(&b.path("LOCK")).unwrap();
    assert_eq!(
        kind(b.fs.lock(&b.path("LOCK"))),
        Some(io::ErrorKind::WouldBlock)
    );
    drop(first);
    let again = b.fs.lock(&b.path("LOCK"));
    assert!(again.is_ok());
}

fn lock_creates_the_file(b: &Backend) {
    let _lock = b.fs.lock(&b.path("LOCK")).unwrap();
    assert!(b.fs.exists(&b.path("LOCK")).unwrap());
}

fn lock_is_held_while_its_name_names_the_locked_file(b: &Backend) {
    let lock = b.fs.lock(&b.path("LOCK")).unwrap();
    assert!(lock.still_held().unwrap());
    b.fs.remove_file(&b.path("LOCK")).unwrap();
    assert!(!lock.still_held().unwrap());
    // A second lock succeeds on the new file: the first one no longer protects anything.
    let second = b.fs.lock(&b.path("LOCK")).unwrap();
    assert!(second.still_held().unwrap());
    assert!(!lock.still_held().unwrap());
    drop(second);
    b.write("other", b"x");
    b.fs.rename(&b.path("other"), &b.path("LOCK")).unwrap();
    let third = b.fs.lock(&b.path("LOCK")).unwrap();
    b.write("other", b"y");
    b.fs.rename(&b.path("other"), &b.path("LOCK")).unwrap();
    assert!(!third.still_held().unwrap(), "replaced by another file");
}

fn is_file_tells_regular_files_apart(b: &Backend) {
    b.write("f", b"x");
    b.fs.create_dir_all(&b.path("000300.sst")).unwrap();
    assert!(b.fs.is_file(&b.path("f")).unwrap());
    assert!(!b.fs.is_file(&b.path("000300.sst")).unwrap());
    assert_eq!(
        b.fs.is_file(&b.path("missing")).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
}

fn missing_files_are_not_found(b: &Backend) {
    let missing = b.path("missing");
    let not_found = Some(io::ErrorKind::NotFound);
    assert_eq!(kind(b.fs.open_read(&missing)), not_found);
    assert_eq!(kind(b.fs.open_append(&missing)), not_found);
    assert_eq!(kind(b.fs.remove_file(&missing)), not_found);
    assert_eq!(kind(b.fs.file_size(&missing)), not_found);
    assert_eq!(kind(b.fs.truncate(&missing, 0)), not_found);
    assert_eq!(kind(b.fs.rename(&missing, &b.path("x"))), not_found);
}

fn missing_directories_are_not_found(b: &Backend) {
    let dir = b.path("no-such-dir");
    let not_found = Some(io::ErrorKind::NotFound);
    assert_eq!(kind(b.fs.create(&dir.join("f"))), not_found);
    assert_eq!(kind(b.fs.lock(&dir.join("LOCK"))), not_found);
    assert_eq!(kind(b.fs.list_dir(&dir)), not_found);
    assert_eq!(kind(b.fs.sync_dir(&dir)), not_found);
    b.write("f", b"x");
    assert_eq!(kind(b.fs.rename(&b.path("f"), &dir.join("f"))), not_found);
    assert!(b.fs.exists(&b.path("f")).unwrap());
}

fn reading_past_the_end_is_unexpected_eof(b: &Backend) {
    b.write("f", b"12345");
    let r = b.fs.open_read(&b.path("f")).unwrap();
    let eof = Some(io::ErrorKind::UnexpectedEof);
    assert_eq!(kind(r.read_vec(3, 3)), eof);
    assert_eq!(kind(r.read_vec(6, 1)), eof);
    assert_eq!(r.read_vec(5, 0).unwrap(), b"");
}

macro_rules! conformance {
    ($($check:ident),* $(,)?) => {
        mod real_fs {
            $( #[test] fn $check() { super::$check(&super::real()) } )*
        }
        mod mem_fs {
            $( #[test] fn $check() { super::$check(&super::mem()) } )*
        }
        mod fault_fs_without_rules {
            $( #[test] fn $check() { super::$check(&super::fault_over_mem()) } )*
        }
    };
}

conformance!(
    create_append_flush_read,
    open_readers_see_flushed_appends,
    new_file_is_empty,
    open_append_continues_at_the_end,
    create_replaces_an_existing_file,
    create_new_never_replaces_a_file,
    rename_replaces_the_target,
    rename_to_a_new_name_moves_the_file,
    renamed_file_keeps_its_open_handles,
    remove_deletes_the_name,
    removed_file_stays_usable_through_open_handles,
    list_dir_names_files_and_subdirectories,
    create_dir_all_makes_parents_and_is_idempotent,
    file_size_reports_the_length,
    truncate_shortens_and_appends_continue_at_the_new_end,
    exists_tells_files_dirs_and_missing_apart,
    lock_is_exclusive_until_dropped,
    lock_creates_the_file,
    lock_is_held_while_its_name_names_the_locked_file,
    is_file_tells_regular_files_apart,
    missing_files_are_not_found,
    missing_directories_are_not_found,
    reading_past_the_end_is_unexpected_eof,
);
