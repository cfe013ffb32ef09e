//! The value store: value files (the value log), reading values through handles, drop
//! files, and scanning the log for recovery.

mod drop_index;
mod drops;
mod hints;
mod holes;
mod scan;
mod svtable;
mod sync;
mod writer;

pub use drop_index::{DropIndex, FileDrops};
pub use drops::{DropFileContents, DropWriter, Dropped, read_drop_file, read_drop_set};
pub use hints::ScanHints;
pub use scan::{MARKER_FRAME_LEN, ScanOutcome, scan_value_file};
pub(crate) use scan::{closed_cleanly, scan_value_file_past_holes, scan_value_file_skipping};
pub use svtable::{SvTableIndex, SvTableSummary, SvTableWriter, SvtItem};
pub use sync::{LogSync, SpareLog};
pub use writer::LogWriter;

use crate::error::IoContext;
use crate::format::compression::decompress_value;
use crate::format::handle::ValueHandle;
use crate::format::names::{drop_file_path, value_file_path};
use crate::format::vlog::{SeparatedValue, decode_separated};
use crate::fs::{Fs, Mapping, ReadableFile};
use crate::key::SeqNo;
use crate::{Error, Result};
use bytes::Bytes;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

/// A position in the value log: file number and byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct LogPosition {
    /// The value file's number.
    pub file: u64,
    /// Byte offset in it.
    pub offset: u64,
}

/// One physical value file, shared by every version and reader that may dereference a
/// handle into it. Thread-safe.
///
/// Owns the counters of what was written into it (maintained by the log writer while the
/// file is active, and by recovery when it is replayed). When the file is marked obsolete,
/// the last holder to let go deletes it and its drop file.
pub struct ValueFile {
    number: u64,
    epoch: u32,
    path: PathBuf,
    drop_path: PathBuf,
    fs: Arc<dyn Fs>,
    reader: OnceLock<Arc<dyn ReadableFile>>,
    /// The file mapped into memory once the log stopped appending to it (`None`: the file
    /// system maps nothing); see [`ValueFile::mapped`].
    mapping: OnceLock<Option<Mapping>>,
    obsolete: AtomicBool,
    /// Bytes in the file (header included).
    total_bytes: AtomicU64,
    /// Bytes of separated entries.
    separated_bytes: AtomicU64,
    /// Number of separated entries.
    separated_count: AtomicU64,
    /// Bytes appended by the log writer but not yet handed to the operating system,
    /// readable here until they are (only the active value file has any).
    tail: RwLock<Tail>,
    /// Every byte before this offset is in the operating system's file (`u64::MAX`: all).
    /// Readers below it skip the tail lock.
    tail_start: AtomicU64,
    /// Every byte before this offset is known durable (maintained for the log's files).
    durable: AtomicU64,
    /// The index of an SVTable (epoch >= 1), loaded on first search.
    svt: OnceLock<SvTableIndex>,
}

/// The unflushed end of the active value file.
#[derive(Debug, Default)]
pub(crate) struct Tail {
    /// File offset of `data[0]`.
    pub start: u64,
    /// The bytes.
    pub data: Vec<u8>,
}

impl std::fmt::Debug for ValueFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValueFile")
            .field("number", &self.number)
            .field("epoch", &self.epoch)
            .field("total_bytes", &self.total_bytes())
            .field("separated_bytes", &self.separated_bytes())
            .field("obsolete", &self.obsolete.load(Ordering::Relaxed))
            .finish()
    }
}

impl ValueFile {
    /// Describes epoch 0 (the value log file) of value file `number` in directory `dir`.
    pub fn new(fs: Arc<dyn Fs>, dir: &Path, number: u64) -> ValueFile {
        ValueFile::with_epoch(fs, dir, number, 0)
    }

    /// Describes epoch `epoch` of value file `number` in directory `dir`.
    pub fn with_epoch(fs: Arc<dyn Fs>, dir: &Path, number: u64, epoch: u32) -> ValueFile {
        ValueFile {
            number,
            epoch,
            path: value_file_path(dir, number, epoch),
            drop_path: drop_file_path(dir, number, epoch),
            fs,
            reader: OnceLock::new(),
            mapping: OnceLock::new(),
            obsolete: AtomicBool::new(false),
            total_bytes: AtomicU64::new(0),
            separated_bytes: AtomicU64::new(0),
            separated_count: AtomicU64::new(0),
            tail: RwLock::new(Tail::default()),
            tail_start: AtomicU64::new(u64::MAX),
            durable: AtomicU64::new(0),
            svt: OnceLock::new(),
        }
    }

    /// The epoch: 0 for a file written by the value log, n for the n-th GC rewrite.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The SVTable index of an epoch >= 1 file.
    pub fn svtable(&self) -> Result<&SvTableIndex> {
        if let Some(i) = self.svt.get() {
            return Ok(i);
        }
        if self.epoch == 0 {
            return Err(Error::InvalidArgument(format!(
                "value file {} at epoch 0 is a log, not an SVTable",
                self.number
            )));
        }
        let index =
            SvTableIndex::open(self.reader()?.as_ref(), &self.path, self.number, self.epoch)?;
        Ok(self.svt.get_or_init(|| index))
    }

    /// Finds the entry of `key@seq` in this SVTable and returns a handle to it.
    pub fn find(&self, key: &[u8], seq: SeqNo) -> Result<Option<ValueHandle>> {
        self.find_near(key, seq, &mut None)
    }

    /// Like [`find`](Self::find), for searches in ascending key order: `hint` (from
    /// [`ScanHints`]) says where the previous search in this file ended.
    pub fn find_near(
        &self,
        key: &[u8],
        seq: SeqNo,
        hint: &mut Option<usize>,
    ) -> Result<Option<ValueHandle>> {
        Ok(self
            .svtable()?
            .find_near(&self.path, key, seq, hint)?
            .map(|(offset, len)| ValueHandle {
                file: self.number,
                epoch: self.epoch,
                offset,
                len,
            }))
    }

    /// The file number.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of its drop file.
    pub fn drop_path(&self) -> &Path {
        &self.drop_path
    }

    /// Bytes written to the file.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes.load(Ordering::Relaxed)
    }

    /// Bytes of separated entries.
    pub fn separated_bytes(&self) -> u64 {
        self.separated_bytes.load(Ordering::Relaxed)
    }

    /// Number of separated entries.
    pub fn separated_count(&self) -> u64 {
        self.separated_count.load(Ordering::Relaxed)
    }

    /// Sets the byte count of the file (after appending or recovering).
    pub(crate) fn set_total_bytes(&self, n: u64) {
        self.total_bytes.store(n, Ordering::Relaxed);
    }

    /// Counts separated entries appended or recovered.
    pub(crate) fn add_separated(&self, count: u64, bytes: u64) {
        self.separated_count.fetch_add(count, Ordering::Relaxed);
        self.separated_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Sets the counters from a manifest record.
    pub(crate) fn set_counts(&self, total: u64, separated_bytes: u64, separated_count: u64) {
        self.total_bytes.store(total, Ordering::Relaxed);
        self.separated_bytes
            .store(separated_bytes, Ordering::Relaxed);
        self.separated_count
            .store(separated_count, Ordering::Relaxed);
    }

    /// Marks the file for deletion once nothing holds it any more.
    pub(crate) fn mark_obsolete(&self) {
        self.obsolete.store(true, Ordering::Release);
    }

    pub(crate) fn reader(&self) -> Result<&Arc<dyn ReadableFile>> {
        if let Some(r) = self.reader.get() {
            return Ok(r);
        }
        let r = self.fs.open_read(&self.path).ctx("open", &self.path)?;
        // Gets and scans read single values at scattered offsets; read-ahead around them
        // would fetch pages nobody asked for. Value GC reads through this handle too, in
        // chunks of megabytes, which need no read-ahead.
        r.advise_random();
        Ok(self.reader.get_or_init(|| r))
    }

    /// The `len` bytes at `offset` in the file's memory mapping, mapping the file on first
    /// use: `None` when they are not in a mapping (the log still appends to the file, the
    /// file system maps nothing, or they lie past what was mapped), and the caller reads
    /// them with a system call. A file is mapped only once nothing is appended to it any
    /// more, and the engine never shrinks a value file it reads, so a mapped byte never
    /// leaves the file (see [`Mapping`]).
    pub(crate) fn mapped(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let mapping = match self.mapping.get() {
            Some(m) => m.as_ref()?,
            // Appended to by the log writer: its end still moves.
            None if self.tail_start.load(Ordering::Acquire) != u64::MAX => return None,
            None => {
                let reader = self.reader().ok()?;
                self.mapping.get_or_init(|| reader.map()).as_ref()?
            }
        };
        let start = usize::try_from(offset).ok()?;
        mapping.bytes().get(start..start.checked_add(len)?)
    }

    /// The stored value of the entry `handle` points at, verified as
    /// [`read_value`](Self::read_value) does and copied out of the file's memory mapping
    /// (the value alone, in a buffer of its own), and whether it is compressed: `None`
    /// when the entry is not in a mapping (see [`mapped`](Self::mapped)).
    pub(crate) fn stored_mapped(
        &self,
        handle: &ValueHandle,
        key: &[u8],
        seq: SeqNo,
    ) -> Option<Result<(Vec<u8>, bool)>> {
        let entry = self.mapped(handle.offset, handle.len as usize)?;
        Some(
            decode_separated(entry, key, seq)
                .map_err(|e| e.into_corruption(&self.path, handle.offset))
                .map(|v| (entry[v.range].to_vec(), v.compressed)),
        )
    }

    /// The tail buffer (for the log writer).
    pub(crate) fn tail(&self) -> &RwLock<Tail> {
        &self.tail
    }

    /// Publishes that every byte before `offset` is in the operating system's file.
    pub(crate) fn set_tail_start(&self, offset: u64) {
        self.tail_start.store(offset, Ordering::Release);
    }

    /// How many leading bytes of the file were handed to the operating system.
    pub(crate) fn written_len(&self) -> u64 {
        self.tail_start
            .load(Ordering::Acquire)
            .min(self.total_bytes())
    }

    /// Records that every byte before `offset` is durable.
    pub(crate) fn mark_durable(&self, offset: u64) {
        self.durable.fetch_max(offset, Ordering::AcqRel);
    }

    /// How many leading bytes of the file are known durable.
    pub(crate) fn durable_len(&self) -> u64 {
        self.durable.load(Ordering::Acquire)
    }

    /// Copies `buf.len()` bytes at `offset` from the unflushed tail, if they are there.
    fn read_tail(&self, offset: u64, buf: &mut [u8]) -> bool {
        if offset + buf.len() as u64 <= self.tail_start.load(Ordering::Acquire) {
            return false;
        }
        let tail = self.tail.read().unwrap_or_else(|e| e.into_inner());
        let Some(from) = offset.checked_sub(tail.start) else {
            return false;
        };
        match tail.data.get(from as usize..from as usize + buf.len()) {
            Some(bytes) => {
                buf.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    }

    /// Reads the value a handle points at, verifying the entry's checksum, that it holds
    /// `key`, and that it is the version `seq`; a compressed value comes back
    /// decompressed.
    pub fn read_value(&self, handle: &ValueHandle, key: &[u8], seq: SeqNo) -> Result<Vec<u8>> {
        let (mut buf, v) = self.read_entry(handle, key, seq)?;
        if v.compressed {
            return self.decompress(handle, buf.get(v.range).unwrap_or_default());
        }
        buf.truncate(v.range.end);
        buf.drain(..v.range.start);
        Ok(buf)
    }

    /// As [`read_value`](Self::read_value), the value shared with the buffer the entry was
    /// read into instead of moved to its start.
    /// With `mapped`, the value is copied out of the file's memory mapping where it can be
    /// (see [`stored_mapped`](Self::stored_mapped)).
    pub fn read_value_bytes(
        &self,
        handle: &ValueHandle,
        key: &[u8],
        seq: SeqNo,
        mapped: bool,
    ) -> Result<Bytes> {
        if let Some(stored) = mapped
            .then(|| self.stored_mapped(handle, key, seq))
            .flatten()
        {
            return match stored? {
                (stored, true) => self.decompress(handle, &stored).map(Bytes::from),
                // The value fills its buffer: turning it into a `Vec` again is free.
                (value, false) => Ok(Bytes::from(value)),
            };
        }
        let (buf, v) = self.read_entry(handle, key, seq)?;
        if v.compressed {
            let stored = buf.get(v.range).unwrap_or_default();
            return self.decompress(handle, stored).map(Bytes::from);
        }
        Ok(Bytes::from(buf).slice(v.range))
    }

    /// Reads the value a handle points at as its entry stores it (compressed or not),
    /// verified as [`read_value`](Self::read_value) does: for copies that keep the stored
    /// form. Returns the stored bytes and whether they are compressed.
    pub fn read_stored(
        &self,
        handle: &ValueHandle,
        key: &[u8],
        seq: SeqNo,
    ) -> Result<(Vec<u8>, bool)> {
        let (mut buf, v) = self.read_entry(handle, key, seq)?;
        buf.truncate(v.range.end);
        buf.drain(..v.range.start);
        Ok((buf, v.compressed))
    }

    /// The verified entry `handle` points at, and where its value lies in it.
    fn read_entry(
        &self,
        handle: &ValueHandle,
        key: &[u8],
        seq: SeqNo,
    ) -> Result<(Vec<u8>, SeparatedValue)> {
        let mut buf = vec![0u8; handle.len as usize];
        if !self.read_tail(handle.offset, &mut buf) {
            self.read_span(handle.offset, &mut buf)?;
        }
        let v = decode_separated(&buf, key, seq)
            .map_err(|e| e.into_corruption(&self.path, handle.offset))?;
        Ok((buf, v))
    }

    /// The value of the entry `handle` points at, whose bytes start at `start` in `buf`
    /// (a read that may hold other entries too), verified as
    /// [`read_value`](Self::read_value) does: a slice of `buf`, or the value decompressed.
    pub(crate) fn value_in(
        &self,
        handle: &ValueHandle,
        buf: &Bytes,
        start: usize,
        key: &[u8],
        seq: SeqNo,
    ) -> Result<Bytes> {
        let (stored, compressed) = self.stored_in(handle, buf, start, key, seq)?;
        if compressed {
            return self.decompress(handle, &stored).map(Bytes::from);
        }
        Ok(stored)
    }

    /// As [`value_in`](Self::value_in), the value as stored (a slice of `buf`) and whether
    /// it is compressed.
    pub(crate) fn stored_in(
        &self,
        handle: &ValueHandle,
        buf: &Bytes,
        start: usize,
        key: &[u8],
        seq: SeqNo,
    ) -> Result<(Bytes, bool)> {
        let end = start.saturating_add(handle.len as usize);
        let Some(entry) = buf.get(start..end) else {
            return Err(Error::corruption(
                &self.path,
                handle.offset,
                "value entry outside the bytes read for it",
            ));
        };
        let v = decode_separated(entry, key, seq)
            .map_err(|e| e.into_corruption(&self.path, handle.offset))?;
        Ok((
            buf.slice(start + v.range.start..start + v.range.end),
            v.compressed,
        ))
    }

    /// Decompresses the stored value of the entry `handle` points at; damage is corruption
    /// at the entry.
    fn decompress(&self, handle: &ValueHandle, stored: &[u8]) -> Result<Vec<u8>> {
        decompress_value(stored).map_err(|e| {
            Error::corruption(
                &self.path,
                handle.offset,
                format!("compressed value does not decode: {}", e.what),
            )
        })
    }

    /// Reads `buf.len()` bytes at `offset` from the operating system's file.
    /// REQUIRES: they end at or before [`written_len`](Self::written_len) (they are not in
    /// the unflushed tail).
    pub(crate) fn read_span(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let reader = self.reader()?;
        reader
            .read_exact_at(buf, offset)
            .map_err(|e| self.read_error(offset, e))
    }

    /// The error of a failed positional read at `offset` of this file: one that ends early
    /// is corruption (a handle points past the file's end), any other an I/O error.
    pub(crate) fn read_error(&self, offset: u64, e: std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Error::corruption(
                &self.path,
                offset,
                "value handle points past the end of the file",
            )
        } else {
            Error::Io {
                op: "read",
                path: self.path.clone(),
                source: e,
            }
        }
    }
}

impl Drop for ValueFile {
    fn drop(&mut self) {
        if self.obsolete.load(Ordering::Acquire) {
            // The manifest no longer names this file; a leftover is removed on next open.
            let _ = self.fs.remove_file(&self.path);
            let _ = self.fs.remove_file(&self.drop_path);
        }
    }
}

#[cfg(test)]
#[path = "mapped_tests.rs"]
mod mapped_tests;
