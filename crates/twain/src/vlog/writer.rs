//! Appending to the active value file.
//!
//! Records go first into the file's in-memory tail (where readers find them at once) and
//! are handed to the operating system when the tail reaches the buffer size, and whenever
//! the log is synced, sealed or closed. A crash of the process loses at most the tail — a
//! suffix of unsynced writes; a synced write is never in it.
//!
//! Batches that follow one another join the batch record still open at the end of the
//! tail ([`OpenBatchRecord`]) unless they hold separated values: a stream of small one-put
//! batches pays for one frame header per buffer, not one per put. The open record is
//! closed before its bytes leave the tail.

use super::{LogPosition, ValueFile};
use crate::Result;
use crate::error::IoContext;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, encode_header};
use crate::format::vlog::OpenBatchRecord;
use crate::fs::{Fs, WritableFile};
use crate::key::SeqNo;
use std::path::Path;
use std::sync::Arc;

/// The writer of the active value file. Owned by the group-commit leader (not shared).
pub struct LogWriter {
    file: Box<dyn WritableFile>,
    value_file: Arc<ValueFile>,
    /// Bytes appended, tail included.
    len: u64,
    synced_upto: u64,
    buffer_size: usize,
    /// The batch record at the end of the tail that the next batch may join.
    open: Option<OpenBatchRecord>,
}

impl std::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogWriter")
            .field("file", &self.value_file.number())
            .field("len", &self.len)
            .field("synced_upto", &self.synced_upto)
            .finish()
    }
}

impl LogWriter {
    /// Creates value file `value_file` with its header, durably: the file is synced and
    /// then its directory, so records appended later can be made durable by a file sync.
    /// Up to `buffer_size` bytes of records wait in memory before they are written out.
    pub fn create(
        fs: &dyn Fs,
        dir: &Path,
        value_file: Arc<ValueFile>,
        buffer_size: usize,
    ) -> Result<LogWriter> {
        let path = value_file.path().to_path_buf();
        let mut file = fs.create(&path).ctx("create", &path)?;
        file.append(&encode_header(FileKind::ValueLog, value_file.number()))
            .ctx("append", &path)?;
        file.sync_data().ctx("sync", &path)?;
        // IMPORTANT: the directory entry must be durable before any record in the file is
        // acknowledged as durable.
        fs.sync_dir(dir).ctx("sync directory", dir)?;
        Ok(LogWriter::start(
            file,
            value_file,
            FILE_HEADER_LEN as u64,
            buffer_size,
        ))
    }

    /// Continues appending to a recovered value file whose durable length is `len`.
    pub fn reopen(
        fs: &dyn Fs,
        value_file: Arc<ValueFile>,
        len: u64,
        buffer_size: usize,
    ) -> Result<LogWriter> {
        let path = value_file.path().to_path_buf();
        let file = fs.open_append(&path).ctx("open", &path)?;
        Ok(LogWriter::start(file, value_file, len, buffer_size))
    }

    /// A writer that refuses every write, for a database opened read-only: it writes
    /// nothing, and readers keep reading `value_file` from the file.
    pub fn refusing(value_file: Arc<ValueFile>) -> LogWriter {
        let len = value_file.total_bytes();
        LogWriter {
            file: Box::new(Refusing),
            value_file,
            len,
            synced_upto: len,
            buffer_size: 0,
            open: None,
        }
    }

    fn start(
        file: Box<dyn WritableFile>,
        value_file: Arc<ValueFile>,
        len: u64,
        buffer_size: usize,
    ) -> LogWriter {
        value_file.set_total_bytes(len);
        {
            let mut tail = value_file.tail().write().unwrap_or_else(|e| e.into_inner());
            tail.start = len;
            tail.data = Vec::with_capacity(buffer_size.min(8 << 20));
        }
        value_file.set_tail_start(len);
        // Created files are synced with their header; recovered files were read back and
        // are synced by recovery before writing resumes.
        value_file.mark_durable(len);
        LogWriter {
            file,
            value_file,
            len,
            synced_upto: len,
            buffer_size,
            open: None,
        }
    }

    /// The file being written.
    pub fn value_file(&self) -> &Arc<ValueFile> {
        &self.value_file
    }

    /// Where the next record will start.
    pub fn position(&self) -> LogPosition {
        LogPosition {
            file: self.value_file.number(),
            offset: self.len,
        }
    }

    /// The offset up to which the file is known durable (synced by this writer, or by
    /// the log's background syncs through another handle).
    pub fn synced_upto(&self) -> u64 {
        self.synced_upto.max(self.value_file.durable_len())
    }

    /// Appends encoded records (never a batch record: see
    /// [`append_batch`](Self::append_batch)). Readers of the value file see them at once;
    /// they reach the operating system when the buffer fills, and the device at the next
    /// sync.
    pub fn append(&mut self, records: &[u8]) -> Result<()> {
        let buffered = {
            let mut tail = self
                .value_file
                .tail()
                .write()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(open) = self.open.take() {
                open.close(&mut tail.data);
            }
            tail.data.extend_from_slice(records);
            tail.data.len()
        };
        self.appended(records.len() as u64, buffered)
    }

    /// Appends `record`, one batch record of `count` entries from sequence number
    /// `first_seq` as `BatchRecordWriter` began it, not finished (`separated`: it holds a
    /// separated entry), joining the batch record still open in the tail as
    /// [`OpenBatchRecord::append`] allows. Returns the file offset where `record`'s first
    /// entry landed and the bytes appended (fewer than `record.len()` when it joined).
    pub fn append_batch(
        &mut self,
        record: &[u8],
        first_seq: SeqNo,
        count: u32,
        separated: bool,
    ) -> Result<(u64, u64)> {
        let (entries_at, added, buffered) = {
            let mut tail = self
                .value_file
                .tail()
                .write()
                .unwrap_or_else(|e| e.into_inner());
            let before = tail.data.len();
            let (open, at) = OpenBatchRecord::append(
                self.open.take(),
                &mut tail.data,
                record,
                first_seq,
                count,
                separated,
            );
            self.open = Some(open);
            let added = (tail.data.len() - before) as u64;
            (tail.start + at as u64, added, tail.data.len())
        };
        self.appended(added, buffered)?;
        Ok((entries_at, added))
    }

    /// Accounts for `added` bytes appended to the tail, which now holds `buffered`, and
    /// writes the tail out when it reached the buffer size.
    fn appended(&mut self, added: u64, buffered: usize) -> Result<()> {
        self.len += added;
        self.value_file.set_total_bytes(self.len);
        if buffered >= self.buffer_size {
            self.write_out()?;
        }
        Ok(())
    }

    /// Hands the tail to the operating system (a write, never a sync), closing the open
    /// batch record first. Readers keep finding the bytes in the tail until the write
    /// completed; then the tail is emptied.
    pub fn write_out(&mut self) -> Result<()> {
        if let Some(open) = self.open.take() {
            let mut tail = self
                .value_file
                .tail()
                .write()
                .unwrap_or_else(|e| e.into_inner());
            open.close(&mut tail.data);
        }
        let path = self.value_file.path();
        {
            let tail = self
                .value_file
                .tail()
                .read()
                .unwrap_or_else(|e| e.into_inner());
            if tail.data.is_empty() {
                return Ok(());
            }
            self.file.append(&tail.data).ctx("append", path)?;
            self.file.flush().ctx("write", path)?;
        }
        let mut tail = self
            .value_file
            .tail()
            .write()
            .unwrap_or_else(|e| e.into_inner());
        tail.start += tail.data.len() as u64;
        tail.data.clear();
        self.value_file.set_tail_start(tail.start);
        Ok(())
    }

    /// Makes everything appended durable (write out, then fdatasync).
    pub fn sync(&mut self) -> Result<()> {
        self.write_out()?;
        self.file.sync_data().ctx("sync", self.value_file.path())?;
        self.synced_upto = self.len;
        self.value_file.mark_durable(self.len);
        Ok(())
    }

    /// Ends the file for the writer: appends a seal record naming `next_file`, where the
    /// log continues, and hands everything to the operating system. Does not sync: the
    /// caller queues the file for a background sync (see [`LogSync`](super::LogSync)).
    pub fn seal(&mut self, next_file: u64) -> Result<()> {
        let mut seal = Vec::with_capacity(32);
        crate::format::vlog::put_seal(&mut seal, self.synced_upto(), next_file);
        self.append(&seal)?;
        self.write_out()
    }

    /// Gives up the file after [`seal`](Self::seal): readers read it from the operating
    /// system from now on; the returned handle is what syncs it.
    /// REQUIRES: every appended byte was written out.
    pub fn into_sealed(self) -> (Arc<ValueFile>, Box<dyn WritableFile>) {
        debug_assert_eq!(self.value_file.written_len(), self.len);
        self.value_file.set_tail_start(u64::MAX);
        self.value_file
            .tail()
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .data = Vec::new();
        (self.value_file, self.file)
    }

    /// Syncs, then appends a sync marker recording that everything before it is durable
    /// and syncs again. Done on clean close (so that damage anywhere in the file is
    /// recognised as corruption rather than taken for a torn tail) and when the file is
    /// sealed by a roll (so that recovery can tell a complete sealed file from one that
    /// lost records at its end).
    pub fn sync_and_mark(&mut self) -> Result<()> {
        self.sync()?;
        let mut marker = Vec::with_capacity(32);
        crate::format::vlog::put_sync_marker(&mut marker, self.len);
        self.append(&marker)?;
        self.sync()
    }
}

/// The file behind [`LogWriter::refusing`]: every write fails as on a read-only file system.
struct Refusing;

impl Refusing {
    fn refuse() -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::ReadOnlyFilesystem,
            "the database was opened read-only",
        )
    }
}

impl WritableFile for Refusing {
    fn append(&mut self, _: &[u8]) -> std::io::Result<()> {
        Err(Refusing::refuse())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Err(Refusing::refuse())
    }

    fn sync_data(&mut self) -> std::io::Result<()> {
        Err(Refusing::refuse())
    }

    fn len(&self) -> u64 {
        0
    }
}
