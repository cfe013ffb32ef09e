//! [`Fs`] on the operating system's file system.

use super::{FileLock, Fs, ReadableFile, WritableFile};
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Append buffer of a [`RealFs`] writable file.
const WRITE_BUFFER: usize = 256 * 1024;

/// The operating system's file system: positional reads (`pread`), buffered appends,
/// `fdatasync` for file syncs and `fsync` of the directory for directory syncs. Holes are
/// punched with `fallocate` on Linux; elsewhere, and on Linux file systems without it,
/// [`Fs::punch_hole`] fails with `io::ErrorKind::Unsupported`.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealFs;

impl RealFs {
    /// A handle on the real file system.
    pub fn new() -> RealFs {
        RealFs
    }
}

struct RealWritable {
    writer: BufWriter<File>,
    len: u64,
}

impl WritableFile for RealWritable {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        self.writer.write_all(data)?;
        self.len += data.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.writer.flush()?;
        self.writer.get_ref().sync_data()
    }

    fn len(&self) -> u64 {
        self.len
    }
}

/// A file open for positional reads. `file` is `None` only inside `drop`.
struct RealReadable {
    file: Option<File>,
}

impl RealReadable {
    fn file(&self) -> io::Result<&File> {
        self.file
            .as_ref()
            .ok_or_else(|| io::Error::other("read of a closed file"))
    }
}

impl ReadableFile for RealReadable {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.file()?.read_exact_at(buf, offset)
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.file()?.metadata()?.len())
    }

    fn raw_fd(&self) -> Option<i32> {
        use std::os::fd::AsRawFd;
        self.file.as_ref().map(|f| f.as_raw_fd())
    }

    fn map(&self) -> Option<super::Mapping> {
        let file = self.file().ok()?;
        let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
        if len == 0 {
            return None;
        }
        // SAFETY: the mapping is read-only and private to this process's reads. Its
        // bytes change only if someone shrinks or rewrites the file, which
        // `ReadableFile::map` forbids: the engine maps only value files it no longer
        // appends to and never truncates (a hole punched in one reads as zeros, which the
        // entries' checksums reject).
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(file) }.ok()?;
        // Values are read at scattered offsets: fault in only the page a read touches.
        let _ = map.advise(memmap2::Advice::Random);
        Some(super::Mapping { map })
    }

    #[cfg(target_os = "linux")]
    fn advise_random(&self) {
        use std::os::fd::AsRawFd;
        if let Ok(file) = self.file() {
            // SAFETY: `file` owns the descriptor and outlives the call; the call reads no
            // memory. Its result is ignored: the advice is a hint, and reads are correct
            // with or without it.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
        }
    }

    #[cfg(target_os = "linux")]
    fn will_need(&self, offset: u64, len: u64) {
        use std::os::fd::AsRawFd;
        // A length of 0 would mean "to the end of the file".
        let (Ok(offset), Ok(len @ 1..)) =
            (libc::off_t::try_from(offset), libc::off_t::try_from(len))
        else {
            return;
        };
        if let Ok(file) = self.file() {
            // SAFETY: as in `advise_random`; the hint only starts reads into the cache.
            unsafe {
                libc::posix_fadvise(file.as_raw_fd(), offset, len, libc::POSIX_FADV_WILLNEED)
            };
        }
    }
}

impl Drop for RealReadable {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            super::closer::close(file);
        }
    }
}

struct RealLock {
    file: File,
    path: PathBuf,
}

impl FileLock for RealLock {
    fn still_held(&self) -> io::Result<bool> {
        let ours = self.file.metadata()?;
        match std::fs::metadata(&self.path) {
            Ok(now) => Ok(now.dev() == ours.dev() && now.ino() == ours.ino()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

impl Fs for RealFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let file = File::create(path)?;
        Ok(Box::new(RealWritable {
            writer: BufWriter::with_capacity(WRITE_BUFFER, file),
            len: 0,
        }))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new().write(true).create_new(true).open(path)?;
        Ok(Box::new(RealWritable {
            writer: BufWriter::with_capacity(WRITE_BUFFER, file),
            len: 0,
        }))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new().append(true).open(path)?;
        let len = file.metadata()?.len();
        Ok(Box::new(RealWritable {
            writer: BufWriter::with_capacity(WRITE_BUFFER, file),
            len,
        }))
    }

    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        Ok(Arc::new(RealReadable {
            file: Some(File::open(path)?),
        }))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        super::closer::remove(path)
    }

    fn settle(&self) {
        super::closer::drain();
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            if let Some(name) = entry.file_name().to_str() {
                names.push(name.to_string());
            }
        }
        Ok(names)
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        File::open(path)?.sync_all()
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        path.try_exists()
    }

    fn is_file(&self, path: &Path) -> io::Result<bool> {
        Ok(std::fs::metadata(path)?.is_file())
    }

    fn file_size(&self, path: &Path) -> io::Result<u64> {
        Ok(std::fs::metadata(path)?.len())
    }

    fn allocated_bytes(&self, path: &Path) -> io::Result<u64> {
        // st_blocks counts 512-byte units whatever the file system's block size.
        Ok(std::fs::metadata(path)?.blocks() * 512)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        OpenOptions::new().write(true).open(path)?.set_len(len)
    }

    #[cfg(target_os = "linux")]
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        const EXDEV: i32 = 18;
        std::fs::hard_link(from, to).map_err(|e| {
            if e.raw_os_error() == Some(EXDEV) {
                io::Error::new(io::ErrorKind::Unsupported, e)
            } else {
                e
            }
        })
    }

    fn link_count(&self, path: &Path) -> io::Result<u64> {
        use std::os::unix::fs::MetadataExt;
        Ok(std::fs::metadata(path)?.nlink())
    }

    fn punch_hole(&self, path: &Path, offset: u64, len: u64) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let invalid = |what: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{what}: {}", path.display()),
            )
        };
        if len == 0 {
            return Err(invalid("empty range to punch"));
        }
        let start = libc::off_t::try_from(offset).map_err(|_| invalid("offset too large"))?;
        let length = libc::off_t::try_from(len).map_err(|_| invalid("length too large"))?;
        start
            .checked_add(length)
            .ok_or_else(|| invalid("range past the largest file offset"))?;
        let file = OpenOptions::new().write(true).open(path)?;
        let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
        // SAFETY: `file` owns the descriptor and outlives the call; fallocate reads no memory.
        let rc = unsafe { libc::fallocate(file.as_raw_fd(), mode, start, length) };
        if rc == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        match error.raw_os_error() {
            Some(libc::EOPNOTSUPP | libc::ENOSYS) => Err(super::punch_unsupported(path)),
            _ => Err(error),
        }
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Box::new(RealLock {
                file,
                path: path.to_path_buf(),
            })),
            Err(std::fs::TryLockError::WouldBlock) => Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "lock held by another user",
            )),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }
}
