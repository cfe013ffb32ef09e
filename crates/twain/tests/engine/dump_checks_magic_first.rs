//! `twain dump` read whole files before checking their magic (issue 19, finding 10): a
//! 10 GiB sparse file reached 7.8-10.4 GB of RSS, and a FIFO blocked it forever.
//!
//! Now `dump_file` refuses anything but a regular file before opening it, checks the
//! header or footer first, and reads a frame or block at a time. Guarded here: a 10 GiB
//! sparse file of every file kind with a bad magic is refused after reading a few bytes
//! (counted through the `Fs` seam) and with a small peak RSS (measured in a child process);
//! a table whose intact footer names a 10 GiB index block is refused before that block is
//! read; a directory and a FIFO are refused, the FIFO without blocking.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;
use twain::Error;
use twain::fs::{FileLock, Fs, MemFs, ReadableFile, RealFs, WritableFile};

/// A file of every kind `dump` knows, by name.
const NAMES: [&str; 6] = [
    "000007.sst",
    "000008.vlog",
    "000009-1.svt",
    "000010.manifest",
    "000011.drop",
    "CURRENT",
];

/// Ten GiB: far more than the test machine's memory allows reading into a buffer.
const SPARSE_LEN: u64 = 10 << 30;

/// The real file system, counting the bytes read through it.
#[derive(Debug, Default)]
struct CountingFs {
    read: Arc<AtomicU64>,
}

struct CountingFile {
    inner: Arc<dyn ReadableFile>,
    read: Arc<AtomicU64>,
}

impl ReadableFile for CountingFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.read.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.inner.read_exact_at(buf, offset)
    }

    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
}

impl Fs for CountingFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        RealFs.create_dir_all(path)
    }
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        RealFs.create(path)
    }
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        RealFs.open_append(path)
    }
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        Ok(Arc::new(CountingFile {
            inner: RealFs.open_read(path)?,
            read: Arc::clone(&self.read),
        }))
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        RealFs.remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        RealFs.rename(from, to)
    }
    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        RealFs.list_dir(path)
    }
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        RealFs.sync_dir(path)
    }
    fn exists(&self, path: &Path) -> io::Result<bool> {
        RealFs.exists(path)
    }
    fn is_file(&self, path: &Path) -> io::Result<bool> {
        RealFs.is_file(path)
    }
    fn file_size(&self, path: &Path) -> io::Result<u64> {
        RealFs.file_size(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        RealFs.truncate(path, len)
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        RealFs.lock(path)
    }
}

/// Sparse files of `SPARSE_LEN` zero bytes (so a bad magic) under every name in `NAMES`.
fn sparse_files(dir: &Path) -> Vec<PathBuf> {
    NAMES
        .iter()
        .map(|name| {
            let path = dir.join(name);
            std::fs::File::create(&path)
                .unwrap()
                .set_len(SPARSE_LEN)
                .unwrap();
            path
        })
        .collect()
}

#[test]
fn a_10_gib_sparse_file_with_a_bad_magic_is_refused_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    for path in sparse_files(dir.path()) {
        let counting = CountingFs::default();
        let read = Arc::clone(&counting.read);
        let fs: Arc<dyn Fs> = Arc::new(counting);
        let mut out = Vec::new();
        let err = twain::dump::dump_file(&fs, &path, &mut out).unwrap_err();
        assert!(
            matches!(err, Error::Corruption { .. }),
            "{}: {err:?}",
            path.display()
        );
        let read = read.load(Ordering::Relaxed);
        assert!(read <= 4096, "{}: read {read} bytes", path.display());
        assert!(
            out.len() < 4096,
            "{}: dumped {} bytes",
            path.display(),
            out.len()
        );
    }
}

/// Set in the child process that dumps the sparse files of the directory it names.
const CHILD_ENV: &str = "TWAIN_DUMP_SPARSE_DIR";

/// The child's half of the RSS test: dump every sparse file, then print the peak RSS.
fn dump_then_report_peak_rss(dir: &str) {
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    for name in NAMES {
        let r = twain::dump::dump_file(&fs, &Path::new(dir).join(name), &mut io::sink());
        assert!(r.is_err(), "{name} dumped");
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .unwrap()
        .to_string();
    println!("peak {hwm}");
}

#[test]
fn dumping_a_10_gib_sparse_file_keeps_the_peak_rss_small() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        dump_then_report_peak_rss(&dir);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    sparse_files(dir.path());
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "dump_checks_magic_first::dumping_a_10_gib_sparse_file_keeps_the_peak_rss_small",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}");
    let kib: u64 = stdout
        .lines()
        .find_map(|l| l.split_once("peak VmHWM:").map(|(_, v)| v))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in {stdout:?}"));
    // The test harness itself takes a few MiB; reading one of the files would take 10 GiB.
    assert!(kib < 64 * 1024, "peak RSS {kib} KiB");
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("000300.sst");
    std::fs::create_dir(&path).unwrap();
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let err = twain::dump::dump_file(&fs, &path, &mut Vec::new()).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument(m) if m.contains("not a regular file")),
        "{err:?}"
    );

    let mem = MemFs::new();
    mem.create_dir_all(Path::new("/db/000300.sst")).unwrap();
    let fs: Arc<dyn Fs> = Arc::new(mem);
    let err =
        twain::dump::dump_file(&fs, Path::new("/db/000300.sst"), &mut Vec::new()).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument(m) if m.contains("not a regular file")),
        "{err:?}"
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("000008.vlog");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo failed");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
        let r = twain::dump::dump_file(&fs, &path, &mut Vec::new());
        let _ = tx.send(r);
    });
    // No writer ever opens the FIFO: an open of it would block forever.
    let r = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("dump blocked on a FIFO");
    let err = r.unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument(m) if m.contains("not a regular file")),
        "{err:?}"
    );
}

#[test]
fn a_missing_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let err =
        twain::dump::dump_file(&fs, &dir.path().join("000001.sst"), &mut Vec::new()).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
}

#[test]
fn a_table_footer_naming_a_10_gib_index_is_refused_before_reading_it() {
    use twain::format::block::BLOCK_TRAILER_LEN;
    use twain::format::table::{BlockHandle, FOOTER_LEN, Footer};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("000012.sst");
    let footer_at = SPARSE_LEN - FOOTER_LEN as u64;
    let index = BlockHandle {
        offset: 0,
        size: footer_at - BLOCK_TRAILER_LEN as u64,
    };
    let footer = Footer::new(BlockHandle::default(), BlockHandle::default(), index).encode();
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(footer_at).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&file, &footer, footer_at).unwrap();

    let counting = CountingFs::default();
    let read = Arc::clone(&counting.read);
    let fs: Arc<dyn Fs> = Arc::new(counting);
    let err = twain::dump::dump_file(&fs, &path, &mut Vec::new()).unwrap_err();
    assert!(
        matches!(&err, Error::Corruption { what, .. } if what.contains("index block")),
        "{err:?}"
    );
    let read = read.load(Ordering::Relaxed);
    assert!(read <= 4096, "read {read} bytes");
}
