//! RocksDB (leveled) and RocksDB with integrated BlobDB, with the fair settings of
//! `shared/PEERS.md`.

use rocksdb::statistics::Ticker;
use rocksdb::{BlockBasedOptions, Cache, DB, DBCompressionType, Options, WriteOptions};
use std::path::{Path, PathBuf};
use twain_bench::{BenchError, BenchResult, Engine, EngineCounters};

/// Settings shared by the peers.
#[derive(Debug, Clone, Copy)]
pub struct PeerSettings {
    /// Memtable (write buffer) bytes.
    pub memtable_size: usize,
    /// Background threads for flushes and compactions.
    pub background_jobs: usize,
    /// Key-range parts a compaction may be split into (twain's `max_subcompactions`).
    pub subcompactions: usize,
    /// Values at least this large go to blob files (BlobDB, fjall).
    pub separation_threshold: u64,
    /// Bloom filter bits per key (0: none).
    pub bloom_bits_per_key: u32,
    /// Block cache bytes.
    pub block_cache_size: usize,
    /// Sync every write.
    pub sync: bool,
    /// LZ4 on table blocks and separated values (off: no compression anywhere).
    pub lz4: bool,
}

impl PeerSettings {
    fn rocks_compression(&self) -> DBCompressionType {
        if self.lz4 {
            DBCompressionType::Lz4
        } else {
            DBCompressionType::None
        }
    }
}

/// A RocksDB database under benchmark. Thread-safe.
pub struct RocksEngine {
    name: &'static str,
    db: DB,
    opts: Options,
    write_opts: WriteOptions,
    dir: PathBuf,
}

impl RocksEngine {
    /// Opens RocksDB in `dir`; `blob` turns on integrated BlobDB with blob GC.
    pub fn open(dir: &Path, s: &PeerSettings, blob: bool) -> BenchResult<RocksEngine> {
        let name = if blob { "blobdb" } else { "rocksdb" };
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.set_compression_type(s.rocks_compression());
        opts.set_write_buffer_size(s.memtable_size);
        opts.set_max_background_jobs(s.background_jobs as i32);
        opts.set_max_subcompactions(u32::try_from(s.subcompactions).unwrap_or(u32::MAX));
        opts.enable_statistics();
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&Cache::new_lru_cache(s.block_cache_size));
        if s.bloom_bits_per_key > 0 {
            table.set_bloom_filter(s.bloom_bits_per_key as f64, false);
        }
        opts.set_block_based_table_factory(&table);
        if blob {
            opts.set_enable_blob_files(true);
            opts.set_min_blob_size(s.separation_threshold);
            opts.set_blob_compression_type(s.rocks_compression());
            opts.set_enable_blob_gc(true);
            opts.set_blob_gc_age_cutoff(0.25);
        }
        let db = DB::open(&opts, dir).map_err(|e| BenchError::engine(name, e))?;
        let mut write_opts = WriteOptions::default();
        write_opts.set_sync(s.sync);
        Ok(RocksEngine {
            name,
            db,
            opts,
            write_opts,
            dir: dir.to_path_buf(),
        })
    }

    fn err(&self, e: rocksdb::Error) -> BenchError {
        BenchError::engine(self.name, e)
    }
}

impl Engine for RocksEngine {
    fn name(&self) -> &str {
        self.name
    }

    fn dir(&self) -> &Path {
        &self.dir
    }

    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()> {
        self.db
            .put_opt(key, value, &self.write_opts)
            .map_err(|e| self.err(e))
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>> {
        Ok(self
            .db
            .get_pinned(key)
            .map_err(|e| self.err(e))?
            .map(|v| v.len()))
    }

    fn multi_get(&self, keys: &[&[u8]]) -> BenchResult<(usize, u64)> {
        let (mut found, mut bytes) = (0, 0u64);
        for (key, value) in keys.iter().zip(self.db.multi_get(keys)) {
            if let Some(v) = value.map_err(|e| self.err(e))? {
                found += 1;
                bytes += (key.len() + v.len()) as u64;
            }
        }
        Ok((found, bytes))
    }

    fn delete(&self, key: &[u8]) -> BenchResult<()> {
        self.db
            .delete_opt(key, &self.write_opts)
            .map_err(|e| self.err(e))
    }

    fn scan(&self, start: &[u8], n: usize) -> BenchResult<(usize, u64)> {
        let mut it = self.db.raw_iterator();
        it.seek(start);
        let (mut count, mut bytes) = (0, 0u64);
        while count < n && it.valid() {
            let k = it.key().map_or(0, <[u8]>::len);
            let v = it.value().map_or(0, <[u8]>::len);
            bytes += (k + v) as u64;
            count += 1;
            it.next();
        }
        it.status().map_err(|e| self.err(e))?;
        Ok((count, bytes))
    }

    /// Keys alone: the value is never asked for. rust-rocksdb 0.25 cannot set
    /// `allow_unprepared_value`, so with blob files (BlobDB) the iterator still reads the
    /// blob of every key it passes; without them the values sit in the same blocks.
    fn scan_keys(&self, start: &[u8], n: usize) -> BenchResult<Option<(usize, u64)>> {
        let mut it = self.db.raw_iterator();
        it.seek(start);
        let (mut count, mut bytes) = (0, 0u64);
        while count < n && it.valid() {
            bytes += it.key().map_or(0, <[u8]>::len) as u64;
            count += 1;
            it.next();
        }
        it.status().map_err(|e| self.err(e))?;
        Ok(Some((count, bytes)))
    }

    fn flush(&self) -> BenchResult<()> {
        self.db.flush().map_err(|e| self.err(e))
    }

    /// From RocksDB's statistics tickers. Flush and compaction bytes are measured by
    /// RocksDB's I/O statistics, so they include blob files written by flushes and by
    /// blob GC during compaction.
    fn counters(&self) -> BenchResult<EngineCounters> {
        // RocksDB's own per-level compaction table, for comparing level shapes by hand.
        if std::env::var_os("TWAIN_PEERS_ROCKSDB_STATS").is_some()
            && let Ok(Some(stats)) = self.db.property_value("rocksdb.stats")
        {
            eprintln!("{stats}");
        }
        let t = |k: Ticker| self.opts.get_ticker_count(k);
        let wal = t(Ticker::WalFileBytes);
        let flush = t(Ticker::FlushWriteBytes);
        let compact_w = t(Ticker::CompactWriteBytes);
        let compact_r = t(Ticker::CompactReadBytes);
        Ok(EngineCounters {
            bytes_written: Some(wal + flush + compact_w),
            // These tickers count every file read, compactions' too: subtract those.
            user_read_file_bytes: Some(
                (t(Ticker::LastLevelReadBytes)
                    + t(Ticker::NonLastLevelReadBytes)
                    + t(Ticker::BlobDbBlobFileBytesRead))
                .saturating_sub(compact_r),
            ),
            log_bytes: Some(wal),
            flush_bytes: Some(flush),
            compaction_read_bytes: Some(compact_r),
            compaction_write_bytes: Some(compact_w),
            gc_read_bytes: None,
            gc_write_bytes: Some(t(Ticker::BlobDbGcBytesRelocated)),
            stall_micros: Some(t(Ticker::StallMicros)),
            ..EngineCounters::default()
        })
    }
}
