//! [`Engine`] for twain.

use crate::engine::{Engine, EngineCounters};
use crate::error::{BenchError, BenchResult};
use std::path::{Path, PathBuf};
use twain::{Db, Options, Stats, WriteOptions};

/// A twain database under benchmark. Thread-safe.
#[derive(Debug)]
pub struct TwainEngine {
    name: &'static str,
    db: Db,
    dir: PathBuf,
    write_opts: WriteOptions,
    block_size: u64,
    /// Reads with `Db::get_pinned` and `Db::range_pinned` (values shared, not copied).
    pinned: bool,
}

impl TwainEngine {
    /// Opens (creating) a twain database in `dir` with `opts`; `sync` makes every write
    /// durable before it returns.
    pub fn open(dir: &Path, opts: Options, sync: bool) -> BenchResult<TwainEngine> {
        TwainEngine::open_named(dir, opts, sync, "twain")
    }

    /// The same, reported as `name` (a variant's options, e.g. placement folded).
    pub fn open_named(
        dir: &Path,
        opts: Options,
        sync: bool,
        name: &'static str,
    ) -> BenchResult<TwainEngine> {
        let block_size = opts.block_size as u64;
        let db = Db::open(dir, opts).map_err(|e| BenchError::engine(name, e))?;
        Ok(TwainEngine {
            name,
            db,
            dir: dir.to_path_buf(),
            write_opts: WriteOptions::default().sync(sync),
            block_size,
            pinned: false,
        })
    }

    /// Makes gets and scans read values shared with the block or read buffer they lie in
    /// (`Db::get_pinned`, `Db::range_pinned`) instead of copied out.
    pub fn with_pinned_reads(mut self, on: bool) -> TwainEngine {
        self.pinned = on;
        self
    }

    /// The database, e.g. for its full statistics.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// twain's write-stall counters, each under the name it gets in a phase's `stalls`
    /// (JSON) and as a column of the table. A stall counter `Stats` gains is reported by
    /// adding its line here.
    pub fn stall_counters(s: &Stats) -> Vec<(&'static str, u64)> {
        vec![
            ("slowdowns", s.slowdowns),
            ("stalls_memtables", s.stalls_memtables),
            ("stall_memtables_ms", s.stall_memtables_micros / 1000),
            ("stalls_l0", s.stalls_l0),
            ("stall_l0_ms", s.stall_l0_micros / 1000),
            ("stalls_log_file", s.stalls_log_file),
            ("stall_log_file_ms", s.stall_log_file_micros / 1000),
            ("stalls_space", s.stalls_space),
            ("stall_space_ms", s.stall_space_micros / 1000),
        ]
    }

    /// twain's read-path counters, each under the name it gets in a phase's `reads`
    /// (JSON): how many values were read and in how many positional reads, by whom.
    pub fn read_counters(s: &Stats) -> Vec<(&'static str, u64)> {
        vec![
            ("value_reads", s.value_reads),
            ("value_bytes_read", s.value_bytes_read),
            ("prefetch_reads", s.prefetch_reads),
            ("prefetch_bytes", s.prefetch_bytes),
            ("prefetch_wasted_bytes", s.prefetch_wasted_bytes),
            ("prefetch_stale_reads", s.prefetch_stale_reads),
            ("multi_get_reads", s.multi_get_reads),
            ("block_cache_misses", s.block_cache_misses),
        ]
    }
}

fn err(e: twain::Error) -> BenchError {
    BenchError::engine("twain", e)
}

impl Engine for TwainEngine {
    fn name(&self) -> &str {
        self.name
    }

    fn dir(&self) -> &Path {
        &self.dir
    }

    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()> {
        self.db.put_opt(key, value, &self.write_opts).map_err(err)
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>> {
        if self.pinned {
            return Ok(self.db.get_pinned(key).map_err(err)?.map(|v| v.len()));
        }
        Ok(self.db.get(key).map_err(err)?.map(|v| v.len()))
    }

    fn multi_get(&self, keys: &[&[u8]]) -> BenchResult<(usize, u64)> {
        let values = self.db.multi_get(keys).map_err(err)?;
        let (mut found, mut bytes) = (0, 0u64);
        for (key, value) in keys.iter().zip(&values) {
            if let Some(v) = value {
                found += 1;
                bytes += (key.len() + v.len()) as u64;
            }
        }
        Ok((found, bytes))
    }

    fn delete(&self, key: &[u8]) -> BenchResult<()> {
        self.db.delete_opt(key, &self.write_opts).map_err(err)
    }

    fn delete_range(&self, start: &[u8], end: &[u8]) -> BenchResult<Option<()>> {
        self.db
            .delete_range_opt(start, end, &self.write_opts)
            .map(Some)
            .map_err(err)
    }

    fn scan(&self, start: &[u8], n: usize) -> BenchResult<(usize, u64)> {
        let (mut count, mut bytes) = (0, 0u64);
        if self.pinned {
            for kv in self.db.range_pinned(start..).take(n) {
                let (k, v) = kv.map_err(err)?;
                count += 1;
                bytes += (k.len() + v.len()) as u64;
            }
            return Ok((count, bytes));
        }
        for kv in self.db.range(start..).take(n) {
            let (k, v) = kv.map_err(err)?;
            count += 1;
            bytes += (k.len() + v.len()) as u64;
        }
        Ok((count, bytes))
    }

    /// Keys alone (`Db::keys`): no value file is read.
    fn scan_keys(&self, start: &[u8], n: usize) -> BenchResult<Option<(usize, u64)>> {
        let (mut count, mut bytes) = (0, 0u64);
        for k in self.db.keys(start..).take(n) {
            bytes += k.map_err(err)?.len() as u64;
            count += 1;
        }
        Ok(Some((count, bytes)))
    }

    fn flush(&self) -> BenchResult<()> {
        self.db.flush().map_err(err)
    }

    /// twain counts what it writes to every kind of file. It has no counter of SSTable
    /// bytes read by user reads, so that is estimated as block cache misses times the
    /// block size, plus the value bytes read through handles.
    fn counters(&self) -> BenchResult<EngineCounters> {
        let s = self.db.stats().map_err(err)?;
        Ok(EngineCounters {
            bytes_written: Some(s.engine_bytes_written()),
            user_read_file_bytes: Some(s.value_bytes_read + s.block_cache_misses * self.block_size),
            log_bytes: Some(s.log_bytes_written),
            flush_bytes: Some(s.flush_bytes_written),
            compaction_read_bytes: Some(s.compaction_bytes_read),
            compaction_write_bytes: Some(s.compaction_bytes_written),
            gc_read_bytes: Some(s.gc_bytes_read),
            gc_write_bytes: Some(s.gc_bytes_written),
            stall_micros: Some(s.stall_micros),
            gc_runs: Some(s.gc_runs),
            gc_lsm_lookups: Some(s.gc_lsm_lookups),
            svtable_searches: Some(s.svtable_searches),
            handle_fixups: Some(s.handle_fixups),
            gc_bytes_not_copied: Some(s.hash_gc_bytes_not_copied),
            stalls: TwainEngine::stall_counters(&s)
                .into_iter()
                .map(|(name, n)| (name.to_string(), n))
                .collect(),
            reads: TwainEngine::read_counters(&s)
                .into_iter()
                .map(|(name, n)| (name.to_string(), n))
                .collect(),
        })
    }
}
