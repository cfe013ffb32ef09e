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
    /// Lists `dir`, checking that every entry with a twain name is a regular file.
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
            if fs.is_file(&path).ctx("stat", &path)? {
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
    use crate::fs::MemFs;

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
}
