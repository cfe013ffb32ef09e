//! fjall 3 with key-value separation (blob GC runs inside its compactions).

use crate::rocks::PeerSettings;
use fjall::config::CompressionPolicy;
use fjall::{
    CompressionType, Database, Keyspace, KeyspaceCreateOptions, KvSeparationOptions, PersistMode,
};
use std::path::{Path, PathBuf};
use twain_bench::{BenchError, BenchResult, Engine, EngineCounters};

/// A fjall database with one KV-separated keyspace. Thread-safe.
pub struct FjallEngine {
    db: Database,
    ks: Keyspace,
    sync: bool,
    dir: PathBuf,
}

fn err(e: impl std::fmt::Display) -> BenchError {
    BenchError::engine("fjall", e)
}

impl FjallEngine {
    /// Opens fjall in `dir`.
    pub fn open(dir: &Path, s: &PeerSettings) -> BenchResult<FjallEngine> {
        let db = Database::builder(dir)
            .journal_compression(CompressionType::None)
            .worker_threads(s.background_jobs.max(1))
            .cache_size(s.block_cache_size as u64)
            .open()
            .map_err(err)?;
        let threshold = u32::try_from(s.separation_threshold).unwrap_or(u32::MAX);
        let memtable = s.memtable_size as u64;
        let codec = if s.lz4 {
            CompressionType::Lz4
        } else {
            CompressionType::None
        };
        let ks = db
            .keyspace("bench", move || {
                KeyspaceCreateOptions::default()
                    .max_memtable_size(memtable)
                    .data_block_compression_policy(CompressionPolicy::all(codec))
                    .with_kv_separation(Some(
                        KvSeparationOptions::default()
                            .separation_threshold(threshold)
                            .compression(codec),
                    ))
            })
            .map_err(err)?;
        Ok(FjallEngine {
            db,
            ks,
            sync: s.sync,
            dir: dir.to_path_buf(),
        })
    }

    fn persist(&self) -> BenchResult<()> {
        if self.sync {
            self.db.persist(PersistMode::SyncData).map_err(err)?;
        }
        Ok(())
    }
}

impl Engine for FjallEngine {
    fn name(&self) -> &str {
        "fjall"
    }

    fn dir(&self) -> &Path {
        &self.dir
    }

    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()> {
        self.ks.insert(key, value).map_err(err)?;
        self.persist()
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>> {
        Ok(self.ks.get(key).map_err(err)?.map(|v| v.len()))
    }

    fn delete(&self, key: &[u8]) -> BenchResult<()> {
        self.ks.remove(key).map_err(err)?;
        self.persist()
    }

    fn scan(&self, start: &[u8], n: usize) -> BenchResult<(usize, u64)> {
        let (mut count, mut bytes) = (0, 0u64);
        for guard in self.ks.range(start..).take(n) {
            let (k, v) = guard.into_inner().map_err(err)?;
            count += 1;
            bytes += (k.len() + v.len()) as u64;
        }
        Ok((count, bytes))
    }

    /// Keys alone: `Guard::key` leaves a separated value unread.
    fn scan_keys(&self, start: &[u8], n: usize) -> BenchResult<Option<(usize, u64)>> {
        let (mut count, mut bytes) = (0, 0u64);
        for guard in self.ks.range(start..).take(n) {
            bytes += guard.key().map_err(err)?.len() as u64;
            count += 1;
        }
        Ok(Some((count, bytes)))
    }

    fn flush(&self) -> BenchResult<()> {
        self.ks.rotate_memtable_and_wait().map_err(err)
    }

    /// fjall counts no bytes without its `metrics` feature (which would add work to its
    /// hot paths), so its amplification comes from `/proc/self/io` only.
    fn counters(&self) -> BenchResult<EngineCounters> {
        Ok(EngineCounters::default())
    }
}
