//! Options of a database, of writes and of reads.

mod builder;
mod kinds;
mod ranges;

pub use kinds::{CompactionPriority, GcEvent, GcListener, GcMode, LevelSizing, ValueLayout};
use ranges::range_of;
pub use ranges::{GC_THRESHOLD_RANGE, OPTION_RANGES, OptionRange, SPACE_AMP_TARGET_RANGE};

use crate::fs::{Fs, RealFs};
use crate::{Error, Result};
use std::sync::Arc;

/// The longest key accepted: 64 KiB.
pub const MAX_KEY_SIZE: usize = 64 * 1024;
/// The largest value accepted: 64 MiB.
pub const MAX_VALUE_SIZE: usize = 64 * 1024 * 1024;
/// The largest write batch accepted, in encoded bytes: 512 MiB.
pub const MAX_BATCH_SIZE: usize = 512 * 1024 * 1024;

/// How a database is opened and run. `Options::default()` is a good start; change it with
/// the chained setters named like the fields, by assigning a field, or by name with
/// [`Options::set`]:
///
/// ```
/// use twain::Options;
///
/// let mut opts = Options::default().memtable_size(8 << 20).gc_threshold(0.4);
/// opts.bloom_bits_per_key = 12;
/// opts.set("block_cache_size", "256M")?;
/// opts.validate()?;
/// # Ok::<(), twain::Error>(())
/// ```
///
/// It is `#[non_exhaustive]`: new options are added without breaking code built this way,
/// and a struct literal does not compile outside this crate:
///
/// ```compile_fail
/// let opts = twain::Options { memtable_size: 8 << 20, ..Default::default() };
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Options {
    /// Create the database if the directory holds none. Default: true.
    pub create_if_missing: bool,
    /// Fail if a database already exists. Default: false.
    pub error_if_exists: bool,
    /// The file system everything goes through. Default: the real one.
    pub fs: Arc<dyn Fs>,
    /// The clock expiry is judged by (see [`WriteBatch::put_with_expiry`](crate::WriteBatch::put_with_expiry)).
    /// Default: the system's wall clock.
    pub clock: Arc<dyn crate::Clock>,
    /// Entries whose key + value size is at least this many bytes are *large*: their value
    /// is separated into the value log when written, and the key store holds a handle.
    /// Smaller ones stay inline (small) or are medium (see `medium_threshold`).
    /// Range: 0 ..= 67174400 (`MAX_KEY_SIZE + MAX_VALUE_SIZE`); above `value_file_size`
    /// it keeps every value inline.
    /// Default: 128 (measured against 1024 with medium pairs, `docs/benchmarks-history.md`, Run 9).
    pub inline_threshold: usize,
    /// Entries of at least this many bytes (key + value) and below `inline_threshold` are
    /// *medium* (Parallax): the log holds them inline for recovery only, the flush moves
    /// their values into a sorted transient value file, and the compaction that writes them
    /// into the merge level (`medium_merge_level`) writes them inline again, so the
    /// transient file is freed whole without value GC. At or above `inline_threshold`
    /// there is no medium class. Range: 0 ..= 67174400. Default: 128, equal to
    /// `inline_threshold`: no medium class (Parallax's "ML"), which ran faster and wrote
    /// less than three classes (128 / 1024) on every mix of `docs/benchmarks-history.md`, Run 9;
    /// set `inline_threshold` above it (e.g. 1024) for three classes.
    pub medium_threshold: usize,
    /// The level from which compaction writes medium values inline: 0 means the last level
    /// (where no deeper level holds the key), n >= 1 level n and deeper (and the last level
    /// above it; at or past `num_levels`, the last level only). Range: 0 ..= 15.
    /// Default: 0.
    pub medium_merge_level: usize,
    /// A value file is sealed and a new one started when it reaches this size.
    /// Range: 4 KiB ..= 4 GiB. Default: 128 MiB.
    pub value_file_size: u64,
    /// A memtable is frozen and flushed when its entries take this many bytes.
    /// Range: 4 KiB ..= 64 GiB. Default: 64 MiB.
    pub memtable_size: usize,
    /// Frozen memtables waiting for flush before writes stall. Range: 1 ..= 64. Default: 2.
    pub max_immutable_memtables: usize,
    /// A memtable is also frozen once this many value-log bytes were written while it was
    /// active. This bounds the log replayed on open to about
    /// `(max_immutable_memtables + 1) * memtable_max_log_bytes`. Range: 64 KiB ..= 64 GiB.
    /// Default: 256 MiB.
    pub memtable_max_log_bytes: u64,
    /// Bytes of value-log records kept in memory (readable at once) before they are
    /// handed to the operating system. Synced writes, rolls and close write them out
    /// first; a crash of the process can lose at most this much of the newest unsynced
    /// writes. 0 hands every group commit to the operating system. Range: 0 ..= 64 MiB.
    /// Default: 32 KiB (a larger buffer makes fewer, longer `write` calls on the writing
    /// thread: 1 MiB set the 1 KiB fill's p99.9 at about 220 µs, 64 KiB at 35 µs; under
    /// the 1 KiB update burst, with GC and compaction writing beside it, 64 KiB set the
    /// p99.9 at 100–125 µs and 32 KiB at 62–65 µs, at the same throughput; 8 KiB cost a
    /// fifth of it. docs/benchmarks.md, "The log buffer under an update burst").
    pub log_buffer_size: usize,
    /// Target data block size of SSTables. Range: 256 ..= 16 MiB, and at most
    /// `target_file_size`. Default: 4096.
    pub block_size: usize,
    /// Bloom filter bits per key (0 disables filters). Range: 0 ..= 100. Default: 10.
    pub bloom_bits_per_key: u32,
    /// How the data blocks of SSTables are compressed (`none`, `lz4`, `zstd`), at every
    /// level `compression_per_level` does not name. A block is stored compressed only if
    /// that saves an eighth of it. Changing it affects tables written from then on; every
    /// table reads whatever it holds. Default: none (measured in `docs/benchmarks.md`,
    /// "Compression": with values separated from 128 B, the tables hold keys and handles,
    /// and LZ4 cost 7–16% of throughput on two cores; it saves 20% of the disk for small
    /// inline values).
    pub compression: crate::Compression,
    /// Compression per level, overriding `compression`: entry `i` for the tables of level
    /// `i` (0: what flushes write), the last entry for every deeper level. At most
    /// `num_levels` entries. Empty (the default): `compression` everywhere.
    pub compression_per_level: Vec<crate::Compression>,
    /// How separated values of the large class are compressed (`none`, `lz4`, `zstd`),
    /// each value on its own, by the writer's thread before the write joins the log (and
    /// by flushes into hash segments, compactions that separate). A value is stored
    /// compressed only if that saves an eighth and leaves it large; copies by value GC
    /// keep it as it is. Default: none (see `docs/benchmarks.md`, "Value compression").
    pub value_compression: crate::Compression,
    /// The same for medium values, compressed by the flush that moves them into a
    /// transient file (Parallax). Default: none.
    pub medium_value_compression: crate::Compression,
    /// Bytes of decoded blocks kept in the block cache (0 disables it). Range: 0 ..= 1 TiB.
    /// Default: 64 MiB.
    pub block_cache_size: u64,
    /// L0 file count that triggers an L0 -> L1 compaction. Range: 1 ..= 1000, and at most
    /// `l0_slowdown_trigger`. Default: 8 (with the 256 MiB L1, half the compaction bytes
    /// of 4 and 64 MiB on a random fill; docs/benchmarks.md, "Compaction defaults").
    pub l0_compaction_trigger: usize,
    /// L0 file count at which each write is delayed by a millisecond. Range: 1 ..= 1000,
    /// and at most `l0_stop_trigger`. Default: 20.
    pub l0_slowdown_trigger: usize,
    /// L0 file count at which writes wait for compaction. Range: 1 ..= 1000. Default: 36.
    pub l0_stop_trigger: usize,
    /// Target size of L1; each deeper level is `level_size_ratio` times larger.
    /// Range: 4 KiB ..= 1 TiB. Default: 256 MiB.
    pub l1_target_size: u64,
    /// Size ratio between adjacent levels. Range: 2 ..= 100. Default: 10.
    pub level_size_ratio: u64,
    /// How levels are sized ([`LevelSizing`]): `static` (from L1 down) or `dynamic` (from
    /// the biggest level up, L0 compacting into the highest level that has a target; then
    /// `l1_target_size` is the most that base level targets, unless one L0 compaction
    /// brings more). Default: dynamic.
    pub level_sizing: LevelSizing,
    /// Which table of a level a size compaction takes ([`CompactionPriority`]):
    /// `min-overlap` (the least overlap below for its size) or `round-robin`.
    /// Default: min-overlap.
    pub compaction_priority: CompactionPriority,
    /// Number of levels, L0 included. Range: 2 ..= 16. Default: 7.
    pub num_levels: usize,
    /// Compaction output files are cut at this size. Range: 4 KiB ..= 4 GiB.
    /// Default: 64 MiB.
    pub target_file_size: u64,
    /// Background threads running compactions (a separate thread flushes).
    /// Range: 1 ..= 64. Default: 1.
    pub compaction_threads: usize,
    /// A compaction is split at table boundaries into at most this many key-range parts,
    /// merged in parallel, each on its own thread, and installed together (Co-KV's
    /// sub-compactions; `compaction::split`), and into no more parts than a quarter of
    /// `target_file_size` goes into its input bytes. Range: 1 ..= 64. Default: 1.
    pub max_subcompactions: usize,
    /// Where a compaction worker (`twain compaction-worker`) listens, to run parts of
    /// split compactions (Co-KV offload, `compaction::remote`): `None` runs every part in
    /// this process. Of a compaction split into n parts the host keeps the first half
    /// (rounded up) and sends the rest to the worker (Co-KV's CSA rule: with two parts,
    /// one each); a compaction of one part stays here. A part the worker cannot finish,
    /// or whose outcome fails the host's check, is run here instead. By name:
    /// `unix:PATH`, `tcp:HOST:PORT` or `off`. Default: `None`.
    pub compaction_offload: Option<crate::compaction::remote::Address>,
    /// The token the worker was started with; required over TCP. Default: empty.
    pub compaction_offload_token: Vec<u8>,
    /// How long the worker may stay silent (it sends progress a few times within it)
    /// before the host gives its part up and runs it itself, in milliseconds.
    /// Range: 100 ..= 3600000. Default: 30000.
    pub compaction_offload_timeout_ms: u64,
    /// Check a worker's outcome entry by entry against the merge the host would have made
    /// (`compaction::validate::verify_merge`: the host reads the part's inputs, writes
    /// nothing), besides reading every output back. Off, the host checks the outputs
    /// alone (checksums, key range, records, handles, drops, counts), which cannot tell a
    /// worker that left entries out. Default: true.
    pub compaction_offload_full_check: bool,
    /// Threads that read separated values ahead of iterators walking forward (0: none;
    /// each iterator then reads its values one at a time). Shared by the database's
    /// iterators, started by the first; on Linux each submits its share of a window's
    /// reads at once through io_uring. Range: 0 ..= 64. Default: 8.
    pub prefetch_threads: usize,
    /// The prefetch threads read an iterator's window only while reading one separated
    /// value takes at least this many microseconds on average over the database's reads
    /// (a page-cache hit takes about 1, a read from an SSD 50 or more); below, handing
    /// reads to threads costs more than it saves, and the iterator's own thread reads its
    /// window in one batch. 0 hands every window to the threads. Range: 0 ..= 1000000.
    /// Default: 10.
    pub prefetch_min_read_micros: u64,
    /// Gets, and iterators reading their own prefetch windows, copy separated values out of
    /// a read-only memory mapping of each value file the log no longer appends to, instead
    /// of making a system call per read. Measured (docs/benchmarks.md, "Mapped reads"):
    /// gets 1.07-1.24x and long scans up to 1.56x, but scans of 10 pairs right after an
    /// update burst 0.80x, and scans' p99.9 higher (a first read of each page is a page
    /// fault). Off by default for that, and for its failure mode: a mapped page the disk
    /// fails to read, or one cut off the file by someone else while the database is open,
    /// ends the process with `SIGBUS` instead of returning an I/O error. Only on file
    /// systems that map files (the operating system's; never the in-memory or
    /// fault-injecting ones). Default: false.
    pub mmap_reads: bool,
    /// How far below the foreground the threads that run compactions, value GC and the
    /// live-data pass are scheduled, as an increment of their nice value (Linux, where
    /// the nice value is per thread; elsewhere ignored). When the foreground keeps every
    /// core busy, its reads and writes take the CPU first; the background still gets a
    /// share, and all of it while the foreground waits (a write stall waits for it). The
    /// flush and log threads keep the foreground's priority: writes wait for them. The
    /// cost is space: value GC falls behind a write burst further (docs/benchmarks.md,
    /// "Background threads at a lower CPU priority"), and an unprivileged thread cannot
    /// raise its priority again when the space target needs it, so the default is off.
    /// 0 is off. Range: 0 ..= 19. Default: 0.
    pub background_nice: u32,
    /// Run value GC in a background thread, and the garbage compactions that feed it
    /// (`Db::gc` and `Db::gc_report` work either way). Default: true.
    pub gc_enabled: bool,
    /// How value GC finds live records. Default: drop records.
    pub gc_mode: GcMode,
    /// Value files whose live separated records make up less than this fraction of their
    /// bytes on disk are collected (inline entries of a sealed log count as dead: they are
    /// in tables). Range: (0, 1]. Default: 0.5.
    pub gc_threshold: f64,
    /// Bytes per second value GC may read plus write (0: unlimited), so that foreground
    /// latency stays bounded. A close does not wait it out: the run in progress finishes
    /// at the disk's pace. Range: 0, or 1 MiB ..= 1 TiB. Default: 0.
    pub gc_bytes_per_sec: u64,
    /// The space amplification (allocated disk bytes / live bytes) the background keeps
    /// to: value GC and garbage compaction get more of the machine as the figure nears it
    /// and back off below it (see `docs/architecture.md`, "The space target");
    /// `Stats::space_target` says whether it is met, being worked on, or out of reach.
    /// `gc_bytes_per_sec` stays a ceiling. Range: 1.1 ..= 10. Default: 1.3.
    pub space_amp_target: f64,
    /// Called at every step of a value GC run (tests use it to pause GC at a step).
    pub gc_listener: Option<GcListener>,
    /// Where separated values live ([`ValueLayout`]); used when the database is created,
    /// after that the manifest's choice holds. Default: the log.
    pub value_layout: ValueLayout,
    /// Hash layout: the number of segment groups, used when the database is created.
    /// More groups make each group's GC smaller and each flush write more files. (In this
    /// layout the value log is only a write-ahead log: its files roll at `memtable_size`
    /// when that is below `value_file_size`.) Range: 1 ..= 1000. Default: 32.
    pub hash_groups: u32,
    /// Hash layout: hotness awareness. A group GC moves the records that survive a second
    /// GC to cold segments, which later GCs judge without copying (`gc::group`). Off, every
    /// survivor stays in the group's main segment and is copied by every GC of the group.
    /// May change at any open. Default: on.
    pub hash_hotness: bool,
    /// Also write the engine's events (flushes, compactions, GC runs, long stalls, damage,
    /// background errors) to the `LOG` file in the database directory (`LOG.old` keeps
    /// the previous one; each is rotated past 16 MiB). They always go to the `log` facade,
    /// target `twain`. Default: off (`twain serve` turns it on).
    pub info_log: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            create_if_missing: true,
            error_if_exists: false,
            fs: Arc::new(RealFs::new()),
            clock: Arc::new(crate::SystemClock),
            inline_threshold: 128,
            medium_threshold: 128,
            medium_merge_level: 0,
            value_file_size: 128 << 20,
            memtable_size: 64 << 20,
            max_immutable_memtables: 2,
            memtable_max_log_bytes: 256 << 20,
            log_buffer_size: 32 << 10,
            block_size: 4096,
            bloom_bits_per_key: 10,
            compression: crate::Compression::None,
            compression_per_level: Vec::new(),
            value_compression: crate::Compression::None,
            medium_value_compression: crate::Compression::None,
            block_cache_size: 64 << 20,
            l0_compaction_trigger: 8,
            l0_slowdown_trigger: 20,
            l0_stop_trigger: 36,
            l1_target_size: 256 << 20,
            level_size_ratio: 10,
            level_sizing: LevelSizing::Dynamic,
            compaction_priority: CompactionPriority::MinOverlap,
            num_levels: 7,
            target_file_size: 64 << 20,
            compaction_threads: 1,
            max_subcompactions: 1,
            compaction_offload: None,
            compaction_offload_token: Vec::new(),
            compaction_offload_timeout_ms: 30_000,
            compaction_offload_full_check: true,
            prefetch_threads: 8,
            prefetch_min_read_micros: 10,
            mmap_reads: false,
            background_nice: 0,
            gc_enabled: true,
            gc_mode: GcMode::DropRecords,
            gc_threshold: 0.5,
            gc_bytes_per_sec: 0,
            space_amp_target: 1.3,
            gc_listener: None,
            value_layout: ValueLayout::Log,
            hash_groups: crate::hash_layout::DEFAULT_GROUPS,
            hash_hotness: true,
            info_log: false,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("create_if_missing", &self.create_if_missing)
            .field("error_if_exists", &self.error_if_exists)
            .field("fs", &self.fs)
            .field("clock", &self.clock)
            .field("inline_threshold", &self.inline_threshold)
            .field("medium_threshold", &self.medium_threshold)
            .field("medium_merge_level", &self.medium_merge_level)
            .field("value_file_size", &self.value_file_size)
            .field("memtable_size", &self.memtable_size)
            .field("max_immutable_memtables", &self.max_immutable_memtables)
            .field("memtable_max_log_bytes", &self.memtable_max_log_bytes)
            .field("log_buffer_size", &self.log_buffer_size)
            .field("block_size", &self.block_size)
            .field("bloom_bits_per_key", &self.bloom_bits_per_key)
            .field("compression", &self.compression)
            .field("compression_per_level", &self.compression_per_level)
            .field("value_compression", &self.value_compression)
            .field("medium_value_compression", &self.medium_value_compression)
            .field("block_cache_size", &self.block_cache_size)
            .field("l0_compaction_trigger", &self.l0_compaction_trigger)
            .field("l0_slowdown_trigger", &self.l0_slowdown_trigger)
            .field("l0_stop_trigger", &self.l0_stop_trigger)
            .field("l1_target_size", &self.l1_target_size)
            .field("level_size_ratio", &self.level_size_ratio)
            .field("level_sizing", &self.level_sizing)
            .field("compaction_priority", &self.compaction_priority)
            .field("num_levels", &self.num_levels)
            .field("target_file_size", &self.target_file_size)
            .field("compaction_threads", &self.compaction_threads)
            .field("max_subcompactions", &self.max_subcompactions)
            .field("compaction_offload", &self.compaction_offload)
            .field(
                "compaction_offload_token",
                &if self.compaction_offload_token.is_empty() {
                    "<none>"
                } else {
                    "<set>"
                },
            )
            .field(
                "compaction_offload_timeout_ms",
                &self.compaction_offload_timeout_ms,
            )
            .field(
                "compaction_offload_full_check",
                &self.compaction_offload_full_check,
            )
            .field("prefetch_threads", &self.prefetch_threads)
            .field("prefetch_min_read_micros", &self.prefetch_min_read_micros)
            .field("mmap_reads", &self.mmap_reads)
            .field("background_nice", &self.background_nice)
            .field("gc_enabled", &self.gc_enabled)
            .field("gc_mode", &self.gc_mode)
            .field("gc_threshold", &self.gc_threshold)
            .field("gc_bytes_per_sec", &self.gc_bytes_per_sec)
            .field("space_amp_target", &self.space_amp_target)
            .field("gc_listener", &self.gc_listener.is_some())
            .field("value_layout", &self.value_layout)
            .field("hash_groups", &self.hash_groups)
            .field("hash_hotness", &self.hash_hotness)
            .field("info_log", &self.info_log)
            .finish()
    }
}

impl Options {
    /// Checks that every option is within its range (see [`OPTION_RANGES`] and each
    /// field's doc) and that the options make sense together. Fails with
    /// `Error::InvalidArgument` naming the option, its value and the range.
    pub fn validate(&self) -> Result<()> {
        self.check_ranges()?;
        if self.compression_per_level.len() > self.num_levels {
            return Err(Error::InvalidArgument(format!(
                "option compression_per_level: {} entries for {} levels",
                self.compression_per_level.len(),
                self.num_levels
            )));
        }
        if matches!(
            self.compaction_offload,
            Some(crate::compaction::remote::Address::Tcp(_))
        ) && self.compaction_offload_token.is_empty()
        {
            return Err(Error::InvalidArgument(
                "option compaction_offload: a worker over TCP needs compaction_offload_token"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Where and how compaction parts are offloaded, if they are.
    pub(crate) fn offload_target(&self) -> Option<crate::compaction::remote::OffloadTarget> {
        self.compaction_offload
            .as_ref()
            .map(|address| crate::compaction::remote::OffloadTarget {
                address: address.clone(),
                token: self.compaction_offload_token.clone(),
                timeout: std::time::Duration::from_millis(self.compaction_offload_timeout_ms),
            })
    }

    /// Sets one option from its name and a string value, as the CLI's `--set key=value`
    /// does. Sizes accept suffixes `K`, `M`, `G` (powers of 1024).
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let size = || {
            parse_size(value).map_err(|_| {
                Error::InvalidArgument(format!(
                    "option {name}: {value:?} is not a size (a number, optionally with K, M or G)"
                ))
            })
        };
        let num = || {
            value.parse::<u64>().map_err(|_| {
                Error::InvalidArgument(format!("option {name}: {value:?} is not a number"))
            })
        };
        let flag = || match value {
            "true" | "1" | "on" | "yes" => Ok(true),
            "false" | "0" | "off" | "no" => Ok(false),
            _ => Err(Error::InvalidArgument(format!(
                "option {name}: {value:?} is not a boolean"
            ))),
        };
        if let Some(range) = range_of(name) {
            let sizes = [
                "inline_threshold",
                "medium_threshold",
                "value_file_size",
                "memtable_size",
                "memtable_max_log_bytes",
                "log_buffer_size",
                "block_size",
                "block_cache_size",
                "l1_target_size",
                "target_file_size",
                "gc_bytes_per_sec",
            ];
            let v = if sizes.contains(&name) {
                size()?
            } else {
                num()?
            };
            range.check(v)?;
            return self.set_numeric(name, v);
        }
        match name {
            "create_if_missing" => self.create_if_missing = flag()?,
            "error_if_exists" => self.error_if_exists = flag()?,
            "gc" | "gc_enabled" => self.gc_enabled = flag()?,
            "compression" | "value_compression" | "medium_value_compression" => {
                let codec = crate::Compression::parse(value).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "option {name}: {value:?} is not none, lz4 or zstd"
                    ))
                })?;
                match name {
                    "compression" => self.compression = codec,
                    "value_compression" => self.value_compression = codec,
                    _ => self.medium_value_compression = codec,
                }
            }
            "compression_per_level" => {
                let mut per = Vec::new();
                for v in value.split(',').filter(|v| !v.trim().is_empty()) {
                    per.push(crate::Compression::parse(v).ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "option {name}: {v:?} is not none, lz4 or zstd \
                             (a comma-separated list, one per level)"
                        ))
                    })?);
                }
                self.compression_per_level = per;
            }
            "hash_hotness" => self.hash_hotness = flag()?,
            "info_log" => self.info_log = flag()?,
            "gc_mode" => {
                self.gc_mode = match value {
                    "drop-records" | "drop_records" => GcMode::DropRecords,
                    "lsm-lookup" | "lsm_lookup" => GcMode::LsmLookup,
                    "vlog" => GcMode::Vlog,
                    _ => {
                        return Err(Error::InvalidArgument(format!(
                            "option gc_mode: {value:?} is not drop-records, lsm-lookup or vlog"
                        )));
                    }
                }
            }
            "gc_threshold" => {
                let t = value.trim().parse::<f64>().map_err(|_| {
                    Error::InvalidArgument(format!("option {name}: {value:?} is not a number"))
                })?;
                ranges::check_gc_threshold(t)?;
                self.gc_threshold = t;
            }
            "compaction_offload" => {
                self.compaction_offload = match value {
                    "" | "off" | "none" => None,
                    v => Some(crate::compaction::remote::Address::parse(v).map_err(|e| {
                        Error::InvalidArgument(format!("option compaction_offload: {e}"))
                    })?),
                }
            }
            "compaction_offload_full_check" => self.compaction_offload_full_check = flag()?,
            "mmap_reads" => self.mmap_reads = flag()?,
            "level_sizing" => {
                self.level_sizing = match value {
                    "static" => LevelSizing::Static,
                    "dynamic" => LevelSizing::Dynamic,
                    _ => {
                        return Err(Error::InvalidArgument(format!(
                            "option level_sizing: {value:?} is not static or dynamic"
                        )));
                    }
                }
            }
            "compaction_priority" => {
                self.compaction_priority = match value {
                    "min-overlap" => CompactionPriority::MinOverlap,
                    "round-robin" => CompactionPriority::RoundRobin,
                    _ => {
                        return Err(Error::InvalidArgument(format!(
                            "option compaction_priority: {value:?} is not min-overlap or \
                             round-robin"
                        )));
                    }
                }
            }
            "value_layout" => {
                self.value_layout = match value {
                    "log" => ValueLayout::Log,
                    "hash" => ValueLayout::Hash,
                    _ => {
                        return Err(Error::InvalidArgument(format!(
                            "option value_layout: {value:?} is not log or hash"
                        )));
                    }
                }
            }
            "compaction_offload_token" => {
                self.compaction_offload_token = value.as_bytes().to_vec();
            }
            "space_amp_target" => {
                let t = value.trim().parse::<f64>().map_err(|_| {
                    Error::InvalidArgument(format!("option {name}: {value:?} is not a number"))
                })?;
                ranges::check_space_amp_target(t)?;
                self.space_amp_target = t;
            }
            other => {
                return Err(Error::InvalidArgument(format!("unknown option {other:?}")));
            }
        }
        Ok(())
    }
}

impl Options {
    /// The layout of the SSTables flushes (`level` 0) and compactions write at `level`.
    pub(crate) fn table_options(&self, level: usize) -> crate::table::TableOptions {
        crate::table::TableOptions {
            block_size: self.block_size,
            bloom_bits_per_key: self.bloom_bits_per_key,
            compression: self.compression_at(level),
            ..crate::table::TableOptions::default()
        }
    }

    /// How tables of `level` are compressed.
    pub fn compression_at(&self, level: usize) -> crate::Compression {
        let per = &self.compression_per_level;
        per.get(level)
            .or(per.last())
            .copied()
            .unwrap_or(self.compression)
    }

    /// The placement thresholds (Parallax's classes).
    pub(crate) fn placement(&self) -> crate::placement::Placement {
        crate::placement::Placement {
            medium_threshold: self.medium_threshold,
            inline_threshold: self.inline_threshold,
            merge_level: self.medium_merge_level,
        }
    }

    /// Stores `v` into the numeric option `name`.
    ///
    /// REQUIRES: `v` is within `name`'s range (every range fits the field's type).
    fn set_numeric(&mut self, name: &str, v: u64) -> Result<()> {
        let too_big =
            || Error::InvalidArgument(format!("option {name} = {v} does not fit this platform"));
        let us = || usize::try_from(v).map_err(|_| too_big());
        match name {
            "inline_threshold" => self.inline_threshold = us()?,
            "medium_threshold" => self.medium_threshold = us()?,
            "medium_merge_level" => self.medium_merge_level = us()?,
            "value_file_size" => self.value_file_size = v,
            "memtable_size" => self.memtable_size = us()?,
            "max_immutable_memtables" => self.max_immutable_memtables = us()?,
            "memtable_max_log_bytes" => self.memtable_max_log_bytes = v,
            "log_buffer_size" => self.log_buffer_size = us()?,
            "block_size" => self.block_size = us()?,
            "bloom_bits_per_key" => {
                self.bloom_bits_per_key = u32::try_from(v).map_err(|_| too_big())?
            }
            "block_cache_size" => self.block_cache_size = v,
            "l0_compaction_trigger" => self.l0_compaction_trigger = us()?,
            "l0_slowdown_trigger" => self.l0_slowdown_trigger = us()?,
            "l0_stop_trigger" => self.l0_stop_trigger = us()?,
            "l1_target_size" => self.l1_target_size = v,
            "level_size_ratio" => self.level_size_ratio = v,
            "num_levels" => self.num_levels = us()?,
            "target_file_size" => self.target_file_size = v,
            "compaction_threads" => self.compaction_threads = us()?,
            "max_subcompactions" => self.max_subcompactions = us()?,
            "prefetch_threads" => self.prefetch_threads = us()?,
            "compaction_offload_timeout_ms" => self.compaction_offload_timeout_ms = v,
            "prefetch_min_read_micros" => self.prefetch_min_read_micros = v,
            "background_nice" => self.background_nice = u32::try_from(v).map_err(|_| too_big())?,
            "gc_bytes_per_sec" => self.gc_bytes_per_sec = v,
            "hash_groups" => self.hash_groups = u32::try_from(v).map_err(|_| too_big())?,
            other => {
                return Err(Error::InvalidArgument(format!("unknown option {other:?}")));
            }
        }
        Ok(())
    }
}

/// Parses `123`, `64K`, `8M`, `1G` (powers of 1024).
pub fn parse_size(s: &str) -> Result<u64> {
    let s = s.trim();
    let (digits, mult) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&s[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| Error::InvalidArgument(format!("{s:?} is not a size")))
}

/// Options of one read: a point read ([`Db::get_opt`](crate::Db::get_opt),
/// [`Snapshot::get_opt`](crate::Snapshot::get_opt)) or an iterator
/// ([`Db::range_opt`](crate::Db::range_opt), [`Snapshot::range_opt`](crate::Snapshot::range_opt)).
/// Start from `ReadOptions::default()` and its setters:
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// # let db = twain::Db::open(dir.path(), twain::Options::default())?;
/// use twain::ReadOptions;
/// // A one-off scan that must not evict the working set from the block cache.
/// let once = ReadOptions::default().fill_cache(false);
/// for kv in db.range_opt::<&str, _>(.., &once) {
///     let (key, value) = kv?;
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// There is no switch to skip checksums: every block and value read is verified, so
/// damage is reported ([`Error::Corruption`]), never returned as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Whether table blocks this read loads from disk enter the block cache. Default
    /// true. Blocks already cached are used either way; a scan over much cold data sets
    /// it false so it does not evict the blocks of the working set.
    pub fill_cache: bool,
    /// Whether an iterator may read separated values ahead of its cursor with the
    /// prefetcher (when `prefetch_threads` is not 0; see `Options::prefetch_threads`).
    /// Default true. Point reads ignore it.
    pub prefetch: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            fill_cache: true,
            prefetch: true,
        }
    }
}

impl ReadOptions {
    /// Sets [`ReadOptions::fill_cache`].
    pub fn fill_cache(mut self, on: bool) -> ReadOptions {
        self.fill_cache = on;
        self
    }

    /// Sets [`ReadOptions::prefetch`].
    pub fn prefetch(mut self, on: bool) -> ReadOptions {
        self.prefetch = on;
        self
    }
}

/// Options of one write: `WriteOptions::default()` (not synced), [`WriteOptions::synced`],
/// or `WriteOptions::default().sync(on)`. `#[non_exhaustive]`, like [`Options`]:
///
/// ```compile_fail
/// let opts = twain::WriteOptions { sync: true };
/// ```
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Make the write durable (fdatasync of the value log) before it is acknowledged.
    pub sync: bool,
}

impl WriteOptions {
    /// A write that is synced before it returns.
    pub fn synced() -> WriteOptions {
        WriteOptions { sync: true }
    }

    /// Sets [`WriteOptions::sync`].
    #[must_use]
    pub fn sync(mut self, on: bool) -> WriteOptions {
        self.sync = on;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("64K").unwrap(), 65536);
        assert_eq!(parse_size("3m").unwrap(), 3 << 20);
        assert_eq!(parse_size("12").unwrap(), 12);
        assert!(parse_size("x").is_err());
        assert!(parse_size("99999999999999G").is_err());
    }

    #[test]
    fn set_rejects_unknown_and_malformed() {
        let mut o = Options::default();
        o.set("memtable_size", "8M").unwrap();
        assert_eq!(o.memtable_size, 8 << 20);
        assert!(o.set("nope", "1").is_err());
        assert!(o.set("num_levels", "many").is_err());
    }

    #[test]
    fn defaults_validate() {
        Options::default().validate().unwrap();
        let o = Options {
            l0_stop_trigger: 1,
            ..Options::default()
        };
        assert!(o.validate().is_err());
    }
}
