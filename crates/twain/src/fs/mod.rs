//! The file-system seam: every byte the engine reads or writes goes through [`Fs`].
//!
//! Three implementations:
//! - [`RealFs`]: the operating system, with positional reads and buffered appends;
//! - [`MemFs`]: in memory, with a power-loss model (what was synced survives a crash);
//! - [`FaultFs`]: wraps any `Fs` and injects failures (failing fsync, EIO, no space, ...).
//!
//! The engine only ever creates files, appends to them, reads them at offsets (or through
//! a read-only mapping, [`ReadableFile::map`]), truncates them, renames, deletes and syncs
//! files and directories. It never overwrites bytes in place
//! (a [`Fs::punch_hole`], which zeroes a range and frees its blocks, is the one exception; the
//! engine does not call it yet).
//!
//! `MemFs` and `FaultFs` are what the engine's crash tests run on: run a workload on a
//! `FaultFs` over a `MemFs`, fail some operation, take [`MemFs::crash`] at any instant and
//! reopen the engine on the image. Their exact semantics — what survives a crash, how rules
//! count and what a failed operation leaves behind — are in the docs of [`MemFs`] and
//! [`FaultFs`]; `tests/fs_conformance.rs` checks that all three agree. Files opened on any of the three follow POSIX: a removed or renamed
//! file stays usable through handles already open, and `create` of an existing name empties
//! that file in place.

mod closer;
mod fault;
mod mem;
mod real;
#[cfg(target_os = "linux")]
mod uring;

pub use fault::{FaultFs, FaultKind, FaultRule, InjectedFault, Observer, OpEvent, OpKind, OpPhase};
pub use mem::{CrashOptions, MemFs, MemOpCounts};
pub use real::RealFs;

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

/// A file system as the engine sees it. Thread-safe.
pub trait Fs: Send + Sync + fmt::Debug {
    /// Creates `path` and its missing parents.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Creates a file for appending, replacing any file of that name.
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;
    /// Creates a file for appending that must not exist yet (`AlreadyExists` if it does):
    /// what a compaction writes its outputs with, so that no output ever replaces a file.
    /// The default checks, then creates (atomic only for a file system with one user, as
    /// the in-memory ones are); the real file system creates with `O_EXCL`.
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        if self.exists(path)? {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists", path.display()),
            ));
        }
        self.create(path)
    }
    /// Opens an existing file for appending at its current end.
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;
    /// Opens an existing file for positional reads.
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>>;
    /// Removes a file. Its name is gone when this returns; its blocks may be freed later
    /// ([`RealFs`] frees them on a background thread once no descriptor of this process
    /// holds the file, so that no caller waits for the device's discard).
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    /// Atomically renames `from` to `to`, replacing `to` if it exists.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// The names (not paths) of the entries of a directory, in no particular order.
    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>>;
    /// Makes the directory's entries (creations, renames, removals) durable.
    fn sync_dir(&self, path: &Path) -> io::Result<()>;
    /// Whether a file or directory exists at `path`.
    fn exists(&self, path: &Path) -> io::Result<bool>;
    /// Whether `path` is a regular file (following symbolic links): false for a directory,
    /// FIFO, socket or device; `NotFound` if nothing is there. Tools check it before they
    /// open a file someone named, since opening a FIFO blocks.
    fn is_file(&self, path: &Path) -> io::Result<bool>;
    /// The size of a file in bytes.
    fn file_size(&self, path: &Path) -> io::Result<u64>;
    /// Bytes of storage the file occupies: its allocated blocks, which is what `du`
    /// reports and what a disk fills up with. [`RealFs`] asks the operating system
    /// (`st_blocks * 512`); [`MemFs`] models it as the length rounded up to
    /// [`ALLOCATION_BLOCK`], less the blocks punched holes freed. The default counts the
    /// length rounded up, from [`Fs::file_size`].
    fn allocated_bytes(&self, path: &Path) -> io::Result<u64> {
        self.file_size(path).map(allocated_for_len)
    }
    /// Shortens a file to `len` bytes. The caller syncs the file afterwards.
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;
    /// Frees the storage of the bytes `offset..offset + len` of a file and keeps its size,
    /// like `fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)`: later reads of the range,
    /// through any handle, return zeros. Whole [`ALLOCATION_BLOCK`]s inside the range are
    /// freed; the bytes of partial blocks at its ends are zeroed and stay allocated. A range
    /// reaching past the end stops there (the end's partial block is freed, as on Linux);
    /// one starting at or past the end does nothing. `len == 0` is `InvalidInput`.
    ///
    /// Durable like written data: at the next [`WritableFile::sync_data`] of the file (a
    /// handle from [`Fs::open_append`] will do); until then a crash may show the range
    /// punched or not. Fails with `io::ErrorKind::Unsupported` where the file system cannot
    /// punch holes (the caller then copies instead); that is what the default does.
    fn punch_hole(&self, path: &Path, offset: u64, len: u64) -> io::Result<()> {
        let _ = (offset, len);
        Err(punch_unsupported(path))
    }
    /// Makes `to` a second name of the file `from` (a hard link): both names reach the same
    /// bytes, and a change through one shows through the other. `to` must not exist
    /// (`AlreadyExists`). Like a creation, the new entry is durable once its directory is
    /// synced. Fails with `io::ErrorKind::Unsupported` where the file system has no hard
    /// links, or across devices (the caller then copies); that is what the default does.
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let _ = to;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("hard links are not supported: {}", from.display()),
        ))
    }
    /// How many names the file at `path` has (its hard-link count). A file with more than
    /// one may be shared with a checkpoint or another database, so the engine never changes
    /// it in place (no hole punching). The default, for a file system without
    /// [`hard_link`](Self::hard_link), is 1: an implementation that overrides one must
    /// override both.
    fn link_count(&self, path: &Path) -> io::Result<u64> {
        let _ = path;
        Ok(1)
    }
    /// Takes an exclusive advisory lock on `path` (created if missing), held until the
    /// returned guard is dropped. Fails with `WouldBlock` if someone else holds it.
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>>;
    /// Waits until the blocks of the files removed so far are freed, for a file system
    /// that frees them in the background ([`RealFs`]: its closer thread). The default
    /// has nothing to wait for.
    fn settle(&self) {}
}

/// The block size of the allocation model of [`MemFs`] (and of the default
/// [`Fs::allocated_bytes`]): 4 KiB, the common file-system block.
pub const ALLOCATION_BLOCK: u64 = 4096;

/// The bytes a file of `len` bytes occupies in the allocation model: whole blocks of
/// [`ALLOCATION_BLOCK`]. Ranges a later change frees inside a file are subtracted by the
/// caller.
pub fn allocated_for_len(len: u64) -> u64 {
    len.div_ceil(ALLOCATION_BLOCK) * ALLOCATION_BLOCK
}

/// The error of a file system that cannot punch holes (see [`Fs::punch_hole`]).
pub fn punch_unsupported(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("the file system cannot punch holes: {}", path.display()),
    )
}

/// A file being appended to. Owned by one writer at a time.
pub trait WritableFile: Send {
    /// Appends bytes. They may sit in a buffer until [`flush`](Self::flush) or
    /// [`sync_data`](Self::sync_data).
    fn append(&mut self, data: &[u8]) -> io::Result<()>;
    /// Hands buffered bytes to the operating system: afterwards readers of the file see
    /// them, but they are not durable yet.
    fn flush(&mut self) -> io::Result<()>;
    /// Flushes, then makes every appended byte durable (fdatasync).
    fn sync_data(&mut self) -> io::Result<()>;
    /// The file's length counting every appended byte, buffered or not.
    fn len(&self) -> u64;
    /// Whether nothing has been appended and the file was empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A file read at offsets. Thread-safe: many readers share one handle.
#[expect(
    clippy::len_without_is_empty,
    reason = "len is fallible here; no reader asks whether a file is empty"
)]
pub trait ReadableFile: Send + Sync {
    /// Fills `buf` from `offset`; fails with `UnexpectedEof` if the file is shorter.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// The file's current length.
    fn len(&self) -> io::Result<u64>;
    /// Reads `len` bytes at `offset` into a new vector.
    fn read_vec(&self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.read_exact_at(&mut buf, offset)?;
        Ok(buf)
    }
    /// Tells the operating system that this handle's reads fall at random offsets, so it
    /// reads only the pages a read asks for and no read-ahead around them. A hint: it
    /// changes no result, and where the system has no such hint it does nothing.
    fn advise_random(&self) {}
    /// Tells the operating system that `len` bytes at `offset` will be read soon, so that
    /// it starts reading them into its cache now (a reader that reads a file in explicit
    /// chunks, read-ahead off, overlaps the next chunk's I/O with its work on this one). A
    /// hint, as [`ReadableFile::advise_random`] is.
    fn will_need(&self, _offset: u64, _len: u64) {}
    /// The operating system's descriptor of the file, for reads submitted in batches
    /// ([`read_batch`]); `None` where each read must go through
    /// [`ReadableFile::read_exact_at`] (files in memory, files that inject faults).
    fn raw_fd(&self) -> Option<i32> {
        None
    }
    /// The file's bytes as they are now, mapped into memory for reads that copy from it
    /// instead of making a system call each ([`Mapping`]); `None` where the file system
    /// maps nothing (files in memory, files that inject faults) or the system refuses.
    ///
    /// REQUIRES: nobody shrinks the file or rewrites its mapped bytes while the mapping
    /// lives (a read of a page cut off the file ends the process; see [`Mapping`]). The
    /// engine maps only value files it no longer appends to.
    fn map(&self) -> Option<Mapping> {
        None
    }
}

/// A file's leading bytes mapped read-only into memory ([`ReadableFile::map`]).
///
/// A read from it is a copy from memory when the page is in the operating system's cache,
/// and a page fault that reads it from the disk otherwise. What a mapping cannot do is
/// report an I/O error: a page the disk fails to read, or one that was cut off the file
/// after it was mapped, raises `SIGBUS` and ends the process. That is why mapped reads
/// are an option (`Options::mmap_reads`) and the engine maps only files it never shrinks.
pub struct Mapping {
    map: memmap2::Mmap,
}

impl Mapping {
    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}

impl fmt::Debug for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mapping")
            .field("len", &self.map.len())
            .finish()
    }
}

/// One read of a [`read_batch`]: fill `buf` from `offset` of `file`. It owns its buffer
/// and a handle on its file so that no read in flight can outlive either.
pub struct BatchRead {
    /// The file to read.
    pub file: Arc<dyn ReadableFile>,
    /// Where in it.
    pub offset: u64,
    /// The bytes to fill, all of them.
    pub buf: Vec<u8>,
    /// The read's outcome, as [`ReadableFile::read_exact_at`] would return it.
    pub result: io::Result<()>,
}

impl BatchRead {
    /// A read of `len` bytes at `offset` of `file`, not done yet.
    pub fn new(file: Arc<dyn ReadableFile>, offset: u64, len: usize) -> BatchRead {
        BatchRead {
            file,
            offset,
            buf: vec![0u8; len],
            result: Ok(()),
        }
    }
}

/// Does every read of `reads`, leaving each one's outcome in its `result`. On Linux the
/// reads of files with a descriptor are submitted together through io_uring, so the
/// device sees them all at once without a thread per read; every other read, and every
/// read where the kernel refuses io_uring, is a [`ReadableFile::read_exact_at`].
pub fn read_batch(reads: &mut [BatchRead]) {
    #[cfg(target_os = "linux")]
    uring::read_batch(reads);
    #[cfg(not(target_os = "linux"))]
    for r in reads {
        r.result = r.file.read_exact_at(&mut r.buf, r.offset);
    }
}

/// Holds a file lock; dropping it releases the lock.
pub trait FileLock: Send + Sync {
    /// Whether the lock file's path still names the file this guard locks. `false` once the
    /// file was removed or replaced: an advisory lock lives on the file, not on its name, so
    /// another opener may then lock a new file of the same name.
    fn still_held(&self) -> io::Result<bool>;
}
