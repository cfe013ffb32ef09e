//! The error type of the server: what can stop it from starting or from shutting down
//! cleanly. Errors of single commands are replies, not `ServerError`s.

use std::io;

/// Why the server could not start, or did not stop cleanly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The engine failed to open, flush or close the database.
    #[error("database: {0}")]
    Engine(#[from] twain::Error),
    /// An option has a value that makes no sense.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The listen address does not resolve.
    #[error("cannot resolve {addr}: {source}")]
    Resolve {
        /// The address as given.
        addr: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Binding the listen address failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address as given.
        addr: String,
        /// What the operating system reported.
        #[source]
        source: io::Error,
    },
    /// The address is not loopback, no password is set and `--unprotected` was not given.
    #[error(
        "refusing to listen on {addr}, which is not a loopback address, without --requirepass \
         (pass --unprotected to do it anyway)"
    )]
    Unprotected {
        /// The address as given.
        addr: String,
    },
    /// The async runtime or a signal handler could not be set up.
    #[error("runtime: {0}")]
    Runtime(#[source] io::Error),
    /// Connections or engine calls still held the database when the shutdown deadline
    /// passed; the log was synced but the database not closed.
    #[error("shutdown: {0}")]
    Shutdown(String),
}
