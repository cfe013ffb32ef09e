//! The database directory as `open` and `check` see it: the regular files with twain names
//! ([`crate::format::names`]), and every other entry, which is reported and never touched.
//!
//! A directory named like a table (`000300.sst`), a FIFO named like a value file, or a
//! stranger's `notes.txt` are not the engine's files: open neither reads nor removes them,
//! and `twain check` lists them.

use crate::Result;
use crate::error::IoContext;
use crate::format::names::{FileType, parse_file_name_with_epoch};
use crate::fs::Fs;
use std::path::Path;

/// A directory entry the engine does not own, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unexpected {
    /// The entry's name.
    pub name: String,
    /// Why it is not one of the engine's files.
    pub why: &'static str,
}

/// The entries of a database directory, sorted by name.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// Regular files with a twain name: name, kind, number and epoch.
    pub files: Vec<(String, FileType, u64, u32)>,
    /// Every other entry.
    pub unexpected: Vec<Unexpected>,
}

impl Listing {
    /// Lists `dir`, checking that every entry with a twain name is a regular file. An entry
    /// gone by the time it is checked is left out: a writer beside a read-only open deletes
    /// obsolete files after the manifest edit that dropped them, so the listing may name a
    /// file the manifest already forgot.
    pub fn read(fs: &dyn Fs, dir: &Path) -> Result<Listing> {
        let mut names = fs.list_dir(dir).ctx("list", dir)?;
        names.sort();
        let mut out = Listing::default();
        for name in names {
            let Some((kind, number, epoch)) = parse_file_name_with_epoch(&name) else {
                out.unexpected.push(Unexpected {
                    name,
                    why: "not a twain file name (left alone)",
                });
                continue;
            };
            let path = dir.join(&name);
            let is_file = match fs.is_file(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                other => other.ctx("stat", &path)?,
            };
            if is_file {
                out.files.push((name, kind, number, epoch));
            } else {
                out.unexpected.push(Unexpected {
                    name,
                    why: "named like a twain file but not a regular file (left alone)",
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileLock, MemFs, ReadableFile, WritableFile};
    use std::io;
    use std::sync::Arc;

    #[test]
    fn directories_and_strangers_are_unexpected() {
        let fs = MemFs::new();
        let dir = Path::new("/db");
        fs.create_dir_all(&dir.join("000300.sst")).unwrap();
        fs.create(&dir.join("000001.vlog")).unwrap();
        fs.create(&dir.join("notes.txt")).unwrap();
        let l = Listing::read(&fs, dir).unwrap();
        let files: Vec<&str> = l.files.iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(files, ["000001.vlog"]);
        let names: Vec<&str> = l.unexpected.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["000300.sst", "notes.txt"]);
    }

    /// A `MemFs` whose listing also names a file that is no longer there, as a listing
    /// taken just before a writer deleted an obsolete table.
    #[derive(Debug)]
    struct Vanished(MemFs);

    impl Fs for Vanished {
        fn create_dir_all(&self, p: &Path) -> io::Result<()> {
            self.0.create_dir_all(p)
        }
        fn create(&self, p: &Path) -> io::Result<Box<dyn WritableFile>> {
            self.0.create(p)
        }
        fn open_append(&self, p: &Path) -> io::Result<Box<dyn WritableFile>> {
            self.0.open_append(p)
        }
        fn open_read(&self, p: &Path) -> io::Result<Arc<dyn ReadableFile>> {
            self.0.open_read(p)
        }
        fn remove_file(&self, p: &Path) -> io::Result<()> {
            self.0.remove_file(p)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.0.rename(from, to)
        }
        fn list_dir(&self, p: &Path) -> io::Result<Vec<String>> {
            let mut names = self.0.list_dir(p)?;
            names.push("000074.sst".to_string());
            Ok(names)
        }
        fn sync_dir(&self, p: &Path) -> io::Result<()> {
            self.0.sync_dir(p)
        }
        fn exists(&self, p: &Path) -> io::Result<bool> {
            self.0.exists(p)
        }
        fn is_file(&self, p: &Path) -> io::Result<bool> {
            self.0.is_file(p)
        }
        fn file_size(&self, p: &Path) -> io::Result<u64> {
            self.0.file_size(p)
        }
        fn truncate(&self, p: &Path, len: u64) -> io::Result<()> {
            self.0.truncate(p, len)
        }
        fn lock(&self, p: &Path) -> io::Result<Box<dyn FileLock>> {
            self.0.lock(p)
        }
    }

    #[test]
    fn a_file_deleted_after_the_listing_is_left_out() {
        let fs = Vanished(MemFs::new());
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        fs.create(&dir.join("000001.vlog")).unwrap();
        let l = Listing::read(&fs, dir).unwrap();
        let files: Vec<&str> = l.files.iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(files, ["000001.vlog"]);
        assert!(l.unexpected.is_empty());
    }
}
