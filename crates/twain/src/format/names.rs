//! The database directory's layout: which file names mean what.
//! Specified in `docs/format/README.md`.
//!
//! ```text
//! NNNNNN.vlog      value file N, epoch 0 (written by the value log)
//! NNNNNN-E.svt     value file N, epoch E >= 1 (an SVTable written by value GC)
//! NNNNNN.drop      drop records of value file N, epoch 0
//! NNNNNN-E.drop    drop records of value file N, epoch E >= 1
//! NNNNNN.sst       SSTable N
//! NNNNNN.manifest  manifest N
//! CURRENT          names the live manifest: "NNNNNN.manifest\n"
//! LOCK             advisory lock held while the database is open
//! IDENTITY         the database's random id (`format::identity`)
//! LOG, LOG.old     the engine's events as text, with `info_log` (`event_log`)
//! *.tmp            a file being written; removed on open
//! ```
//! Numbers are decimal, zero-padded to at least 6 digits; all kinds share one counter.

use std::path::{Path, PathBuf};

/// Kinds of files in a database directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    /// A value file of epoch 0 (the value log).
    ValueLog,
    /// A value file of epoch >= 1 (an SVTable).
    SvTable,
    /// A drop file.
    Drops,
    /// An SSTable.
    Table,
    /// A manifest.
    Manifest,
    /// The pointer to the live manifest.
    Current,
    /// The lock file.
    Lock,
    /// The database's identity (`format::identity`).
    Identity,
    /// The info log or its predecessor (`event_log`): text for operators, never read.
    InfoLog,
    /// A temporary file.
    Temp,
}

impl FileType {
    fn extension(self) -> &'static str {
        match self {
            FileType::ValueLog => "vlog",
            FileType::SvTable => "svt",
            FileType::Drops => "drop",
            FileType::Table => "sst",
            FileType::Manifest => "manifest",
            FileType::Current | FileType::Lock | FileType::Identity | FileType::InfoLog => "",
            FileType::Temp => "tmp",
        }
    }
}

/// The path of numbered file `number` of kind `kind` in `dir`.
pub fn file_path(dir: &Path, kind: FileType, number: u64) -> PathBuf {
    dir.join(format!("{number:06}.{}", kind.extension()))
}

/// The path of epoch `epoch` of value file `number`.
pub fn value_file_path(dir: &Path, number: u64, epoch: u32) -> PathBuf {
    match epoch {
        0 => file_path(dir, FileType::ValueLog, number),
        e => dir.join(format!("{number:06}-{e}.svt")),
    }
}

/// The path of the drop file of epoch `epoch` of value file `number`.
pub fn drop_file_path(dir: &Path, number: u64, epoch: u32) -> PathBuf {
    match epoch {
        0 => file_path(dir, FileType::Drops, number),
        e => dir.join(format!("{number:06}-{e}.drop")),
    }
}

/// The path of the `CURRENT` pointer file.
pub fn current_path(dir: &Path) -> PathBuf {
    dir.join("CURRENT")
}

/// The path of the lock file.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join("LOCK")
}

/// Classifies a file name; numbered kinds come with their number.
pub fn parse_file_name(name: &str) -> Option<(FileType, u64)> {
    parse_file_name_with_epoch(name).map(|(k, n, _)| (k, n))
}

/// Classifies a file name into kind, number and epoch (0 for kinds without epochs).
pub fn parse_file_name_with_epoch(name: &str) -> Option<(FileType, u64, u32)> {
    match name {
        "CURRENT" => return Some((FileType::Current, 0, 0)),
        "LOCK" => return Some((FileType::Lock, 0, 0)),
        "IDENTITY" => return Some((FileType::Identity, 0, 0)),
        "LOG" | "LOG.old" => return Some((FileType::InfoLog, 0, 0)),
        _ => {}
    }
    if name.ends_with(".tmp") {
        return Some((FileType::Temp, 0, 0));
    }
    let (stem, ext) = name.split_once('.')?;
    let (digits, epoch) = match stem.split_once('-') {
        Some((d, e)) => {
            if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (d, e.parse::<u32>().ok().filter(|&e| e > 0)?)
        }
        None => (stem, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let number = digits.parse().ok()?;
    let kind = match (ext, epoch) {
        ("vlog", 0) => FileType::ValueLog,
        ("svt", e) if e > 0 => FileType::SvTable,
        ("drop", _) => FileType::Drops,
        ("sst", 0) => FileType::Table,
        ("manifest", 0) => FileType::Manifest,
        _ => return None,
    };
    Some((kind, number, epoch))
}

/// The contents of `CURRENT` naming manifest `number`.
pub fn current_contents(number: u64) -> String {
    format!("{number:06}.manifest\n")
}

/// Parses `CURRENT`'s contents into the manifest number.
pub fn parse_current(contents: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(contents).ok()?;
    let name = text.strip_suffix('\n')?;
    match parse_file_name(name)? {
        (FileType::Manifest, n) => Some(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let dir = Path::new("/db");
        for kind in [
            FileType::ValueLog,
            FileType::Drops,
            FileType::Table,
            FileType::Manifest,
        ] {
            let p = file_path(dir, kind, 42);
            let name = p.file_name().unwrap().to_str().unwrap();
            assert_eq!(parse_file_name(name), Some((kind, 42)));
        }
        assert_eq!(parse_file_name("CURRENT"), Some((FileType::Current, 0)));
        assert_eq!(parse_file_name("x.tmp"), Some((FileType::Temp, 0)));
        assert_eq!(parse_file_name("12a.sst"), None);
        assert_eq!(parse_file_name("notes.txt"), None);
        assert_eq!(
            parse_file_name("1234567.sst"),
            Some((FileType::Table, 1234567))
        );
    }

    #[test]
    fn epochs_are_part_of_value_and_drop_file_names() {
        let dir = Path::new("/db");
        let name = |p: PathBuf| p.file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(name(value_file_path(dir, 7, 0)), "000007.vlog");
        assert_eq!(name(value_file_path(dir, 7, 3)), "000007-3.svt");
        assert_eq!(name(drop_file_path(dir, 7, 3)), "000007-3.drop");
        assert_eq!(
            parse_file_name_with_epoch("000007-3.svt"),
            Some((FileType::SvTable, 7, 3))
        );
        assert_eq!(
            parse_file_name_with_epoch("000007-3.drop"),
            Some((FileType::Drops, 7, 3))
        );
        assert_eq!(
            parse_file_name_with_epoch("000007.drop"),
            Some((FileType::Drops, 7, 0))
        );
        assert_eq!(parse_file_name_with_epoch("000007-0.svt"), None);
        assert_eq!(parse_file_name_with_epoch("000007.svt"), None);
        assert_eq!(parse_file_name_with_epoch("000007-2.sst"), None);
        assert_eq!(parse_file_name_with_epoch("000007-x.svt"), None);
    }

    #[test]
    fn current_round_trips() {
        assert_eq!(parse_current(current_contents(7).as_bytes()), Some(7));
        assert_eq!(parse_current(b"000007.manifest"), None);
        assert_eq!(parse_current(b"000007.sst\n"), None);
    }
}
