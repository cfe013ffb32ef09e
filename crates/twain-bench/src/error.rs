//! The benchmark's error type.

/// What can go wrong while benchmarking.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// An engine operation failed.
    #[error("{engine}: {what}")]
    Engine {
        /// The engine's name.
        engine: String,
        /// Its error, as text (engines have different error types).
        what: String,
    },
    /// Reading `/proc`, the database directory or writing a report failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A bad option or workload name.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// Drawing the plot failed.
    #[error("plot: {0}")]
    Plot(String),
}

impl BenchError {
    /// Wraps an engine's error.
    pub fn engine(engine: &str, err: impl std::fmt::Display) -> BenchError {
        BenchError::Engine {
            engine: engine.to_string(),
            what: err.to_string(),
        }
    }

    /// Wraps an I/O error with what was being done.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> BenchError {
        BenchError::Io {
            what: what.into(),
            source,
        }
    }
}

/// Result of benchmark operations.
pub type BenchResult<T> = std::result::Result<T, BenchError>;
