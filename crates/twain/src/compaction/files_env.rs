//! A [`PartEnv`] that reaches the database through its file system alone, as a compaction
//! worker in another process does: input tables and value files are opened by number,
//! drop sets are read from the drop files (a block whose edit has not landed yet counts as
//! dropped too, which only makes re-pointing skip a handle), and only the job's reserved
//! file numbers are used.

use super::job::PartEnv;
use crate::cache::BlockCache;
use crate::format::manifest::TableRecord;
use crate::format::names::drop_file_path;
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::version::TableFile;
use crate::vlog::{ValueFile, read_drop_file};
use crate::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Block cache bytes of one worker environment: the merge reads each block once.
const CACHE_BYTES: u64 = 8 << 20;

/// The dropped sequence numbers of one value file epoch, with their lengths.
type DropSet = Arc<BTreeMap<SeqNo, u32>>;

/// A part's view of a database directory through `fs`.
pub struct FilesEnv {
    fs: Arc<dyn Fs>,
    dir: PathBuf,
    cache: Arc<BlockCache>,
    value_files: Mutex<HashMap<(u64, u32), Arc<ValueFile>>>,
    drops: Mutex<HashMap<(u64, u32), DropSet>>,
    stop: AtomicBool,
}

impl FilesEnv {
    /// The database in `dir` of `fs`.
    pub fn new(fs: Arc<dyn Fs>, dir: &Path) -> FilesEnv {
        FilesEnv {
            fs,
            dir: dir.to_path_buf(),
            cache: Arc::new(BlockCache::new(CACHE_BYTES)),
            value_files: Mutex::default(),
            drops: Mutex::default(),
            stop: AtomicBool::new(false),
        }
    }

    /// Makes running parts stop at their next check.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl PartEnv for FilesEnv {
    fn fs(&self) -> &Arc<dyn Fs> {
        &self.fs
    }

    fn dir(&self) -> &Path {
        &self.dir
    }

    fn table(&self, record: &TableRecord) -> Result<Arc<TableFile>> {
        // Opening checks the size the manifest recorded; blocks are checked as read.
        TableFile::open(&self.fs, &self.dir, record.clone(), &self.cache).map(Arc::new)
    }

    fn value_file(&self, number: u64, epoch: u32) -> Result<Option<Arc<ValueFile>>> {
        let mut files = self
            .value_files
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let file = files.entry((number, epoch)).or_insert_with(|| {
            Arc::new(ValueFile::with_epoch(
                Arc::clone(&self.fs),
                &self.dir,
                number,
                epoch,
            ))
        });
        Ok(Some(Arc::clone(file)))
    }

    fn is_dropped(&self, number: u64, epoch: u32, seq: SeqNo) -> Result<bool> {
        let set = {
            let drops = self.drops.lock().unwrap_or_else(PoisonError::into_inner);
            drops.get(&(number, epoch)).cloned()
        };
        let set = match set {
            Some(s) => s,
            None => {
                let path = drop_file_path(&self.dir, number, epoch);
                let set = Arc::new(read_drop_file(self.fs.as_ref(), &path, number)?.set);
                let mut drops = self.drops.lock().unwrap_or_else(PoisonError::into_inner);
                Arc::clone(drops.entry((number, epoch)).or_insert(set))
            }
        };
        Ok(set.contains_key(&seq))
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn extra_file_number(&self) -> Result<u64> {
        Err(Error::InvalidArgument(
            "the compaction part used every file number reserved for it".into(),
        ))
    }
}
