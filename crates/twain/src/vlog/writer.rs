//! Appending to the active value file.

use super::{LogPosition, ValueFile};
use crate::Result;
use crate::error::IoContext;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, encode_header};
use crate::fs::{Fs, WritableFile};
use std::path::Path;
use std::sync::Arc;

/// The writer of the active value file. Owned by the group-commit leader (not shared).
pub struct LogWriter {
    file: Box<dyn WritableFile>,
    value_file: Arc<ValueFile>,
    synced_upto: u64,
}

impl std::fmt::Debug for LogWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogWriter")
            .field("file", &self.value_file.number())
            .field("len", &self.file.len())
            .field("synced_upto", &self.synced_upto)
            .finish()
    }
}

impl LogWriter {
    /// Creates value file `value_file` with its header, durably: the file is synced and
    /// then its directory, so records appended later can be made durable by a file sync.
    pub fn create(fs: &dyn Fs, dir: &Path, value_file: Arc<ValueFile>) -> Result<LogWriter> {
        let path = value_file.path().to_path_buf();
        let mut file = fs.create(&path).ctx("create", &path)?;
        file.append(&encode_header(FileKind::ValueLog, value_file.number()))
            .ctx("append", &path)?;
        file.sync_data().ctx("sync", &path)?;
        // IMPORTANT: the directory entry must be durable before any record in the file is
        // acknowledged as durable.
        fs.sync_dir(dir).ctx("sync directory", dir)?;
        value_file.set_total_bytes(FILE_HEADER_LEN as u64);
        Ok(LogWriter {
            file,
            value_file,
            synced_upto: FILE_HEADER_LEN as u64,
        })
    }

    /// Continues appending to a recovered value file whose durable length is `len`.
    pub fn reopen(fs: &dyn Fs, value_file: Arc<ValueFile>, len: u64) -> Result<LogWriter> {
        let path = value_file.path().to_path_buf();
        let file = fs.open_append(&path).ctx("open", &path)?;
        value_file.set_total_bytes(len);
        Ok(LogWriter {
            file,
            value_file,
            synced_upto: len,
        })
    }

    /// The file being written.
    pub fn value_file(&self) -> &Arc<ValueFile> {
        &self.value_file
    }

    /// Where the next record will start.
    pub fn position(&self) -> LogPosition {
        LogPosition {
            file: self.value_file.number(),
            offset: self.file.len(),
        }
    }

    /// The offset up to which the file is known durable.
    pub fn synced_upto(&self) -> u64 {
        self.synced_upto
    }

    /// Appends encoded records and hands them to the operating system, so that readers
    /// of the file see them. Not durable until [`sync`](Self::sync).
    pub fn append(&mut self, records: &[u8]) -> Result<()> {
        let path = self.value_file.path();
        self.file.append(records).ctx("append", path)?;
        self.file.flush().ctx("write", path)?;
        self.value_file.set_total_bytes(self.file.len());
        Ok(())
    }

    /// Makes everything appended durable (fdatasync).
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync_data().ctx("sync", self.value_file.path())?;
        self.synced_upto = self.file.len();
        Ok(())
    }
}
