//! The database directory's layout: which file names mean what.
//! Specified in `docs/format/README.md`.
//!
//! ```text
//! NNNNNN.vlog      value file N (the value log; later GC epochs keep the number)
//! NNNNNN.drop      drop records of value file N
//! NNNNNN.sst       SSTable N
//! NNNNNN.manifest  manifest N
//! CURRENT          names the live manifest: "NNNNNN.manifest\n"
//! LOCK             advisory lock held while the database is open
//! *.tmp            a file being written; removed on open
//! ```
//! Numbers are decimal, zero-padded to at least 6 digits; all kinds share one counter.

use std::path::{Path, PathBuf};

/// Kinds of files in a database directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    /// A value file.
    ValueLog,
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
    /// A temporary file.
    Temp,
}

impl FileType {
    fn extension(self) -> &'static str {
        match self {
            FileType::ValueLog => "vlog",
            FileType::Drops => "drop",
            FileType::Table => "sst",
            FileType::Manifest => "manifest",
            FileType::Current | FileType::Lock => "",
            FileType::Temp => "tmp",
        }
    }
}

/// The path of numbered file `number` of kind `kind` in `dir`.
pub fn file_path(dir: &Path, kind: FileType, number: u64) -> PathBuf {
    dir.join(format!("{number:06}.{}", kind.extension()))
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
    match name {
        "CURRENT" => return Some((FileType::Current, 0)),
        "LOCK" => return Some((FileType::Lock, 0)),
        _ => {}
    }
    if name.ends_with(".tmp") {
        return Some((FileType::Temp, 0));
    }
    let (stem, ext) = name.split_once('.')?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let number = stem.parse().ok()?;
    let kind = match ext {
        "vlog" => FileType::ValueLog,
        "drop" => FileType::Drops,
        "sst" => FileType::Table,
        "manifest" => FileType::Manifest,
        _ => return None,
    };
    Some((kind, number))
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
    fn current_round_trips() {
        assert_eq!(parse_current(current_contents(7).as_bytes()), Some(7));
        assert_eq!(parse_current(b"000007.manifest"), None);
        assert_eq!(parse_current(b"000007.sst\n"), None);
    }
}
