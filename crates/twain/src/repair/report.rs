//! What a repair did: [`RepairReport`].

use crate::key::SeqNo;
use std::fmt::Write as _;
use std::path::PathBuf;

/// How many lost keys a report names; the rest are only counted (bounds the report's
/// memory whatever the damage).
pub const MAX_LISTED_KEYS: usize = 100;

/// A file repair moved into the database's `lost/` directory, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Where the file was.
    pub file: PathBuf,
    /// Where it is now (or where its original bytes were copied).
    pub moved_to: PathBuf,
    /// Why it was set aside.
    pub reason: String,
    /// Whether it was set aside because it is damaged (rather than replaced or superseded).
    pub damaged: bool,
    /// For a value file cut at damage: the intact bytes it kept in place. The whole
    /// original is in `moved_to`.
    pub kept_prefix: Option<u64>,
}

/// What [`repair`](super::repair) recovered, and what it could not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// Set when the database's own manifest was intact and complete, so that only
    /// `CURRENT` had to be (re)written to name it; nothing else changed.
    pub reused_manifest: Option<PathBuf>,
    /// The manifest `CURRENT` names after the repair.
    pub manifest: PathBuf,
    /// SSTables that were read in full (their entries are in `tables_written`).
    pub tables_recovered: Vec<PathBuf>,
    /// SSTables the rebuild wrote, all in the deepest level.
    pub tables_written: Vec<PathBuf>,
    /// Value files (value logs and SVTables) the rebuilt manifest or the log replay names.
    pub value_files: Vec<PathBuf>,
    /// Drop files kept with their value files.
    pub drop_files: Vec<PathBuf>,
    /// Files moved into `lost/`, with the reason.
    pub set_aside: Vec<SetAside>,
    /// Files the newest readable old manifest names that are not in the directory.
    pub missing: Vec<PathBuf>,
    /// Entries written to the rebuilt tables.
    pub entries: u64,
    /// Smallest and largest sequence number in the rebuilt tables.
    pub table_seqs: Option<(SeqNo, SeqNo)>,
    /// The last sequence number the rebuilt manifest records.
    pub last_sequence: SeqNo,
    /// The flushed point chosen (value file, offset): the log is replayed from there on.
    pub flushed_point: (u64, u64),
    /// Keys whose newest version's value could not be read (its value file is missing or
    /// damaged). Each now reads as deleted: a tombstone with the same sequence number keeps
    /// older versions from resurfacing.
    pub lost_entries: u64,
    /// The first [`MAX_LISTED_KEYS`] of those keys.
    pub lost_keys: Vec<Vec<u8>>,
    /// Older versions (shadowed by a newer one) whose values could not be read, left out.
    pub shadowed_dropped: u64,
    /// Anything else worth knowing (sequence gaps in the log, torn tails left for open).
    pub notes: Vec<String>,
}

impl RepairReport {
    /// Whether the repair lost nothing: no damaged file and no unreadable value.
    pub fn is_lossless(&self) -> bool {
        self.lost_entries == 0
            && self.missing.is_empty()
            && !self.set_aside.iter().any(|s| s.damaged)
    }

    /// A human-readable account, one item per line.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if let Some(m) = &self.reused_manifest {
            let _ = writeln!(
                s,
                "manifest {} is intact: CURRENT now names it",
                m.display()
            );
        } else {
            let _ = writeln!(s, "rebuilt manifest {}", self.manifest.display());
        }
        let _ = writeln!(
            s,
            "tables: {} recovered, {} written ({} entries{})",
            self.tables_recovered.len(),
            self.tables_written.len(),
            self.entries,
            match self.table_seqs {
                Some((lo, hi)) => format!(", sequences {lo}..={hi}"),
                None => String::new(),
            }
        );
        let _ = writeln!(
            s,
            "value files: {}; drop files: {}",
            self.value_files.len(),
            self.drop_files.len()
        );
        if self.reused_manifest.is_none() {
            let _ = writeln!(
                s,
                "flushed point: file {} offset {}; last sequence {}",
                self.flushed_point.0, self.flushed_point.1, self.last_sequence
            );
        }
        for a in &self.set_aside {
            let what = if a.damaged { "damaged" } else { "set aside" };
            let kept = match a.kept_prefix {
                Some(n) => format!(" (original copied; the file keeps its first {n} bytes)"),
                None => String::new(),
            };
            let _ = writeln!(
                s,
                "{what}: {} -> {}{kept}: {}",
                a.file.display(),
                a.moved_to.display(),
                a.reason
            );
        }
        for m in &self.missing {
            let _ = writeln!(s, "missing: {} (named by the old manifest)", m.display());
        }
        if self.lost_entries > 0 {
            let listed: Vec<String> = self
                .lost_keys
                .iter()
                .map(|k| k.escape_ascii().to_string())
                .collect();
            let _ = writeln!(
                s,
                "lost: {} keys whose newest value is unreadable now read as deleted: {}{}",
                self.lost_entries,
                listed.join(", "),
                if self.lost_entries > listed.len() as u64 {
                    ", ..."
                } else {
                    ""
                }
            );
        }
        if self.shadowed_dropped > 0 {
            let _ = writeln!(
                s,
                "left out: {} older versions whose values are unreadable",
                self.shadowed_dropped
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        let _ = write!(
            s,
            "{}",
            if self.is_lossless() {
                "repair complete: nothing lost"
            } else {
                "repair complete: see the damaged and missing files and lost keys above"
            }
        );
        s
    }
}
