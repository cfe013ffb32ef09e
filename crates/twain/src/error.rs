//! The one error type of the engine.

use std::io;
use std::path::{Path, PathBuf};

/// Everything that can go wrong in twain.
///
/// Corruption always names the file and the byte offset where the damage was found; it is
/// never returned as data.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O call failed.
    #[error("I/O error during {op} of {}: {source}", path.display())]
    Io {
        /// The operation that failed (`"read"`, `"append"`, `"sync"`, ...).
        op: &'static str,
        /// The file or directory it was applied to.
        path: PathBuf,
        /// What the operating system reported.
        #[source]
        source: io::Error,
    },
    /// Stored bytes failed a check: a checksum, a magic number, a length, a decode.
    #[error("corruption in {} at offset {offset}: {what}", file.display())]
    Corruption {
        /// The damaged file.
        file: PathBuf,
        /// Byte offset in that file where the damaged unit starts.
        offset: u64,
        /// What check failed.
        what: String,
    },
    /// The caller passed something the engine does not accept (too large, empty, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The feature exists in the design but is not built yet.
    #[error("not supported yet: {0}")]
    NotSupported(&'static str),
    /// The database refuses writes: it was opened read-only (explicitly, or because its
    /// file system refused writes), or an earlier write or fsync failed and it refuses
    /// writes until it is reopened. The message says which.
    #[error("database is read-only: {0}")]
    ReadOnly(String),
    /// Another process (or another `Db` in this one) has the database open.
    #[error("database at {} is locked by another user", .0.display())]
    Locked(PathBuf),
    /// The database does not exist and `create_if_missing` is off.
    #[error("no database at {}", .0.display())]
    NotFound(PathBuf),
    /// The database exists and `error_if_exists` is on.
    #[error("a database already exists at {}", .0.display())]
    AlreadyExists(PathBuf),
}

/// Result with twain's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds a [`Error::Corruption`].
    pub fn corruption(file: &Path, offset: u64, what: impl Into<String>) -> Error {
        Error::Corruption {
            file: file.to_path_buf(),
            offset,
            what: what.into(),
        }
    }

    /// Whether this is a [`Error::Corruption`].
    pub fn is_corruption(&self) -> bool {
        matches!(self, Error::Corruption { .. })
    }
}

/// Attaches the operation and path to an `io::Error`.
pub(crate) trait IoContext<T> {
    /// Converts the error into [`Error::Io`] naming `op` and `path`.
    fn ctx(self, op: &'static str, path: &Path) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn ctx(self, op: &'static str, path: &Path) -> Result<T> {
        self.map_err(|source| Error::Io {
            op,
            path: path.to_path_buf(),
            source,
        })
    }
}
