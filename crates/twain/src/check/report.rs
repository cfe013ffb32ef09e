//! What [`check`](super::check) reports: findings, counts, and how it reads the database.

use crate::Error;
use crate::fs::{Fs, RealFs};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How [`check`](fn@super::check) reads the database.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The file system holding the database. Default: the real one.
    pub fs: Arc<dyn Fs>,
    /// Number of levels the database was created with. Default: 7 (the engine's default).
    pub num_levels: usize,
    /// The clock expiry is judged by (the one the database runs with). Default: the
    /// system's.
    pub clock: Arc<dyn crate::Clock>,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            fs: Arc::new(RealFs::new()),
            num_levels: crate::Options::default().num_levels,
            clock: Arc::new(crate::SystemClock),
        }
    }
}

/// One finding: a file, where in it, and what is wrong (or worth knowing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file concerned.
    pub file: PathBuf,
    /// Byte offset in it, when the finding is about one place.
    pub offset: Option<u64>,
    /// What was found.
    pub what: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.offset {
            Some(o) => write!(f, "{} at offset {o}: {}", self.file.display(), self.what),
            None => write!(f, "{}: {}", self.file.display(), self.what),
        }
    }
}

impl Finding {
    pub(super) fn from_error(e: Error, fallback: &Path) -> Finding {
        match e {
            Error::Corruption { file, offset, what } => Finding {
                file,
                offset: Some(offset),
                what,
            },
            Error::Io { op, path, source } => Finding {
                file: path,
                offset: None,
                what: format!("I/O error during {op}: {source}"),
            },
            other => Finding {
                file: fallback.to_path_buf(),
                offset: None,
                what: other.to_string(),
            },
        }
    }
}

/// What [`check`](fn@super::check) found and counted.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CheckReport {
    /// Damage or inconsistencies: the database is not sound if any.
    pub problems: Vec<Finding>,
    /// Things that are fine but worth knowing (a torn log tail, orphans, uncounted drops).
    pub notes: Vec<Finding>,
    /// Files the manifest does not name (removed by the next open).
    pub orphans: Vec<PathBuf>,
    /// Directory entries that are not the engine's files, and why (open never reads nor
    /// removes them).
    pub unexpected: Vec<Finding>,
    /// Files read.
    pub files_checked: usize,
    /// Bytes in those files.
    pub bytes_checked: u64,
    /// Manifest edits read.
    pub manifest_edits: usize,
    /// SSTables checked.
    pub tables: usize,
    /// Entries in them.
    pub table_entries: u64,
    /// Value handles that resolved to a matching entry.
    pub handles_resolved: u64,
    /// Value files checked.
    pub value_files: usize,
    /// Batch records in them.
    pub value_records: u64,
    /// Separated entries in them.
    pub separated_entries: u64,
    /// Drop files checked.
    pub drop_files: usize,
    /// Drop records in them (distinct).
    pub drop_records: u64,
    /// Damaged value files that value GC sets aside (damage where a live record may lie);
    /// each is among the problems too.
    pub set_aside: Vec<Finding>,
}

impl CheckReport {
    /// Whether no problem was found (notes and orphans are not problems).
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// One line of figures.
    pub fn summary_line(&self) -> String {
        format!(
            "files {}, bytes {}, manifest edits {}, tables {}, entries {}, handles resolved {}, value files {}, records {}, drop files {}, drop records {}, orphans {}, problems {}",
            self.files_checked,
            self.bytes_checked,
            self.manifest_edits,
            self.tables,
            self.table_entries,
            self.handles_resolved,
            self.value_files,
            self.value_records,
            self.drop_files,
            self.drop_records,
            self.orphans.len(),
            self.problems.len()
        )
    }

    /// The readable report: problems, notes, then the figures.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for p in &self.problems {
            let _ = writeln!(s, "PROBLEM {p}");
        }
        for f in &self.set_aside {
            let _ = writeln!(s, "set-aside by value GC: {f}");
        }
        for n in &self.notes {
            let _ = writeln!(s, "note    {n}");
        }
        for o in &self.orphans {
            let _ = writeln!(s, "orphan  {}", o.display());
        }
        for u in &self.unexpected {
            let _ = writeln!(s, "unexpected {u}");
        }
        let verdict = if self.is_ok() { "OK" } else { "DAMAGED" };
        let _ = write!(s, "{verdict}: {}", self.summary_line());
        s
    }

    pub(super) fn problem(&mut self, file: &Path, offset: Option<u64>, what: impl Into<String>) {
        self.problems.push(Finding {
            file: file.to_path_buf(),
            offset,
            what: what.into(),
        });
    }

    pub(super) fn note(&mut self, file: &Path, offset: Option<u64>, what: impl Into<String>) {
        self.notes.push(Finding {
            file: file.to_path_buf(),
            offset,
            what: what.into(),
        });
    }

    pub(super) fn count_file(&mut self, fs: &dyn Fs, path: &Path) {
        self.files_checked += 1;
        self.bytes_checked += fs.file_size(path).unwrap_or(0);
    }
}
