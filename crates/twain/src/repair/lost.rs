//! The `lost/` directory: where repair puts files it cannot use, instead of deleting them.

use super::report::SetAside;
use crate::error::IoContext;
use crate::fs::Fs;
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The name of the directory, inside the database directory, that holds set-aside files.
pub const LOST_DIR: &str = "lost";

/// Bytes copied at a time when a file's original is kept before it is cut.
const COPY_CHUNK: usize = 1 << 20;

/// Moves or copies files of one database directory into its `lost/` subdirectory and
/// records each move. Not thread-safe; repair runs single-threaded under the `LOCK`.
pub(super) struct LostDir<'a> {
    fs: &'a dyn Fs,
    dir: PathBuf,
    lost: PathBuf,
    created: bool,
    /// Everything set aside so far, in order.
    pub moved: Vec<SetAside>,
}

impl<'a> LostDir<'a> {
    pub(super) fn new(fs: &'a dyn Fs, dir: &Path) -> LostDir<'a> {
        LostDir {
            fs,
            dir: dir.to_path_buf(),
            lost: dir.join(LOST_DIR),
            created: false,
            moved: Vec::new(),
        }
    }

    /// A path in `lost/` for `name` that no earlier repair used.
    fn target(&mut self, name: &str) -> Result<PathBuf> {
        if !self.created {
            self.fs
                .create_dir_all(&self.lost)
                .ctx("create directory", &self.lost)?;
            self.created = true;
        }
        let mut candidate = self.lost.join(name);
        let mut n = 1u32;
        while self.fs.exists(&candidate).ctx("stat", &candidate)? {
            candidate = self.lost.join(format!("{name}.{n}"));
            n = n.checked_add(1).ok_or_else(|| {
                Error::InvalidArgument(format!("too many copies of {name} in lost/"))
            })?;
        }
        Ok(candidate)
    }

    /// Moves file `name` of the database directory into `lost/`.
    pub(super) fn move_aside(&mut self, name: &str, reason: String, damaged: bool) -> Result<()> {
        let from = self.dir.join(name);
        let to = self.target(name)?;
        self.fs.rename(&from, &to).ctx("rename", &from)?;
        // IMPORTANT: both directories are synced before repair writes anything that relies
        // on the file being gone from the database directory.
        self.sync()?;
        self.moved.push(SetAside {
            file: from,
            moved_to: to,
            reason,
            damaged,
            kept_prefix: None,
        });
        Ok(())
    }

    /// Copies file `name` whole into `lost/`, then cuts the file in place to its first
    /// `keep` bytes (the intact prefix), synced.
    pub(super) fn copy_and_cut(&mut self, name: &str, keep: u64, reason: String) -> Result<()> {
        let from = self.dir.join(name);
        let to = self.target(name)?;
        let src = self.fs.open_read(&from).ctx("open", &from)?;
        let len = src.len().ctx("stat", &from)?;
        let mut dst = self.fs.create(&to).ctx("create", &to)?;
        let mut at = 0u64;
        while at < len {
            let n = (len - at).min(COPY_CHUNK as u64) as usize;
            let bytes = src.read_vec(at, n).ctx("read", &from)?;
            dst.append(&bytes).ctx("append", &to)?;
            at += n as u64;
        }
        // IMPORTANT: the copy is durable before the original loses any byte.
        dst.sync_data().ctx("sync", &to)?;
        self.sync()?;
        self.fs.truncate(&from, keep).ctx("truncate", &from)?;
        let mut f = self.fs.open_append(&from).ctx("open", &from)?;
        f.sync_data().ctx("sync", &from)?;
        self.moved.push(SetAside {
            file: from,
            moved_to: to,
            reason,
            damaged: true,
            kept_prefix: Some(keep),
        });
        Ok(())
    }

    fn sync(&self) -> Result<()> {
        self.fs
            .sync_dir(&self.lost)
            .ctx("sync directory", &self.lost)?;
        self.fs.sync_dir(&self.dir).ctx("sync directory", &self.dir)
    }
}
