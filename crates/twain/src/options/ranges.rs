//! The accepted range of every numeric option.
//!
//! [`OPTION_RANGES`] is the one list: [`Options::validate`] and [`Options::set`] check it,
//! the doc comment of each field repeats it, and the README's "Limits" table shows it
//! (`tests/options_ranges.rs` checks that every row there matches [`OptionRange::describe`]).
//!
//! The bounds follow what RocksDB accepts for the analogous options where it has a bound
//! (`write_buffer_size` is clipped to 64 GiB, bloom filters to 100 bits per key) and
//! otherwise keep a misconfiguration from costing unbounded memory, threads or time: a
//! value outside its range is a typo or a unit mistake, never a tuning choice. The lower
//! bounds admit the tiny sizes the test suite runs with.

use super::{GcMode, Options, ValueLayout};
use crate::options::{MAX_KEY_SIZE, MAX_VALUE_SIZE};
use crate::{Error, Result};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const TIB: u64 = 1 << 40;

/// The accepted values of one numeric option: `min..=max`, and also 0 when `zero_off` (0
/// switches the feature off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionRange {
    /// The option's name, as [`Options::set`] takes it.
    pub name: &'static str,
    /// The smallest value (apart from 0 when `zero_off`).
    pub min: u64,
    /// The largest value.
    pub max: u64,
    /// Whether 0 is accepted too, below `min`, meaning "off" or "unlimited".
    pub zero_off: bool,
}

impl OptionRange {
    /// Whether `value` is accepted.
    pub fn contains(&self, value: u64) -> bool {
        (self.zero_off && value == 0) || (self.min..=self.max).contains(&value)
    }

    /// The range as error messages and the README show it, e.g. `4 KiB ..= 4 GiB` or
    /// `0, or 1 MiB ..= 1 TiB`.
    pub fn describe(&self) -> String {
        let range = format!("{} ..= {}", show(self.min), show(self.max));
        if self.zero_off {
            format!("0, or {range}")
        } else {
            range
        }
    }

    /// Fails with `InvalidArgument` naming the option, `value` and the range unless
    /// `value` is accepted.
    pub fn check(&self, value: u64) -> Result<()> {
        if self.contains(value) {
            return Ok(());
        }
        Err(Error::InvalidArgument(format!(
            "option {} = {} is out of range: allowed {}",
            self.name,
            show(value),
            self.describe()
        )))
    }
}

/// `n` in the largest binary unit that divides it (`4 KiB`, `16 MiB`) if that reads as a
/// small number, otherwise as a plain number.
fn show(n: u64) -> String {
    for (unit, name) in [(TIB, "TiB"), (GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")] {
        if n >= unit && n.is_multiple_of(unit) && n / unit < 1024 {
            return format!("{} {name}", n / unit);
        }
    }
    n.to_string()
}

const fn range(name: &'static str, min: u64, max: u64) -> OptionRange {
    OptionRange {
        name,
        min,
        max,
        zero_off: false,
    }
}

/// Every numeric option's range, in the order of the fields of [`Options`].
/// `gc_threshold` and `space_amp_target`, fractional, are not listed: see
/// [`GC_THRESHOLD_RANGE`] and [`SPACE_AMP_TARGET_RANGE`].
pub const OPTION_RANGES: &[OptionRange] = &[
    // Above the largest key plus the largest value, every entry stays inline anyway.
    range(
        "inline_threshold",
        0,
        (MAX_KEY_SIZE + MAX_VALUE_SIZE) as u64,
    ),
    // At or above inline_threshold there is no medium class; 0 leaves no small class.
    range(
        "medium_threshold",
        0,
        (MAX_KEY_SIZE + MAX_VALUE_SIZE) as u64,
    ),
    // 0 is the last level; a level at or past num_levels merges only at the last level.
    range("medium_merge_level", 0, 15),
    // GC rewrites a value file in one run; 4 GiB keeps a run (and its SVTable) bounded.
    range("value_file_size", 4 * KIB, 4 * GIB),
    // RocksDB clips write_buffer_size to 64 GiB; the low end is for tests.
    range("memtable_size", 4 * KIB, 64 * GIB),
    // Each frozen memtable holds up to memtable_size bytes of memory.
    range("max_immutable_memtables", 1, 64),
    // 0 froze the memtable at every write (91 ops/s); 64 GiB bounds the log replayed on open.
    range("memtable_max_log_bytes", 64 * KIB, 64 * GIB),
    // The most a process crash can lose of unsynced writes, held in memory.
    range("log_buffer_size", 0, 64 * MIB),
    // A point lookup reads a whole block; the table format allows up to 1 GiB.
    range("block_size", 256, 16 * MIB),
    // RocksDB caps bloom filters at 100 bits per key; the filter takes bits/8 bytes a key.
    range("bloom_bits_per_key", 0, 100),
    // 0 disables the cache.
    range("block_cache_size", 0, TIB),
    // Every read consults every L0 table, so L0 stays below a thousand files.
    range("l0_compaction_trigger", 1, 1000),
    range("l0_slowdown_trigger", 1, 1000),
    range("l0_stop_trigger", 1, 1000),
    // 0 made every level "too big" and compaction never stopped.
    range("l1_target_size", 4 * KIB, TIB),
    range("level_size_ratio", 2, 100),
    range("num_levels", 2, 16),
    // A table is built in one pass; 4 GiB bounds one compaction output.
    range("target_file_size", 4 * KIB, 4 * GIB),
    // Sixteen levels give no more than a few dozen disjoint compactions to run at once.
    range("compaction_threads", 1, 64),
    // Each part is a thread of its own; parts are cut at table boundaries, and a compaction
    // rarely spans more than a few dozen tables.
    range("max_subcompactions", 1, 64),
    // Under 100 ms a busy machine's scheduling gaps would pass for a dead worker; an hour
    // of silence is no worker at all.
    range("compaction_offload_timeout_ms", 100, 3_600_000),
    // Each thread holds one read in flight; the disk saturates at a queue depth of ~32.
    range("prefetch_threads", 0, 64),
    // Past a second per value there is nothing left to tell apart.
    range("prefetch_min_read_micros", 0, 1_000_000),
    // 19 is the lowest priority Linux has.
    range("background_nice", 0, 19),
    // A flush writes up to one segment per group; past a thousand, a flush of a 64 MiB
    // memtable would write files of a few KiB.
    range("hash_groups", 1, 1000),
    // Below 1 MiB/s a run over one value file would take hours; 0 means unlimited.
    OptionRange {
        name: "gc_bytes_per_sec",
        min: MIB,
        max: TIB,
        zero_off: true,
    },
];

/// The range of the numeric option `name`, if it has one.
pub(crate) fn range_of(name: &str) -> Option<&'static OptionRange> {
    OPTION_RANGES.iter().find(|r| r.name == name)
}

/// How `gc_threshold`'s range is shown.
pub const GC_THRESHOLD_RANGE: &str = "(0, 1]";

/// How `space_amp_target`'s range is shown. Below 1.1 no background work could keep to it:
/// value GC leaves files up to a tenth dead (a complete GC ends at about 1.1).
pub const SPACE_AMP_TARGET_RANGE: &str = "1.1 ..= 10";

impl Options {
    /// The value of the numeric option `name` (as listed in [`OPTION_RANGES`]).
    fn numeric(&self, name: &str) -> Option<u64> {
        let n = |v: usize| v as u64;
        Some(match name {
            "inline_threshold" => n(self.inline_threshold),
            "medium_threshold" => n(self.medium_threshold),
            "medium_merge_level" => n(self.medium_merge_level),
            "value_file_size" => self.value_file_size,
            "memtable_size" => n(self.memtable_size),
            "max_immutable_memtables" => n(self.max_immutable_memtables),
            "memtable_max_log_bytes" => self.memtable_max_log_bytes,
            "log_buffer_size" => n(self.log_buffer_size),
            "block_size" => n(self.block_size),
            "bloom_bits_per_key" => u64::from(self.bloom_bits_per_key),
            "block_cache_size" => self.block_cache_size,
            "l0_compaction_trigger" => n(self.l0_compaction_trigger),
            "l0_slowdown_trigger" => n(self.l0_slowdown_trigger),
            "l0_stop_trigger" => n(self.l0_stop_trigger),
            "l1_target_size" => self.l1_target_size,
            "level_size_ratio" => self.level_size_ratio,
            "num_levels" => n(self.num_levels),
            "target_file_size" => self.target_file_size,
            "compaction_threads" => n(self.compaction_threads),
            "max_subcompactions" => n(self.max_subcompactions),
            "prefetch_threads" => n(self.prefetch_threads),
            "compaction_offload_timeout_ms" => self.compaction_offload_timeout_ms,
            "prefetch_min_read_micros" => self.prefetch_min_read_micros,
            "background_nice" => u64::from(self.background_nice),
            "gc_bytes_per_sec" => self.gc_bytes_per_sec,
            "hash_groups" => u64::from(self.hash_groups),
            _ => return None,
        })
    }

    /// Checks every option against its range, then the rules between options.
    pub(super) fn check_ranges(&self) -> Result<()> {
        for r in OPTION_RANGES {
            if let Some(v) = self.numeric(r.name) {
                r.check(v)?;
            }
        }
        check_gc_threshold(self.gc_threshold)?;
        check_space_amp_target(self.space_amp_target)?;
        let bad = |what: String| Err(Error::InvalidArgument(format!("options {what}")));
        if !(self.l0_compaction_trigger <= self.l0_slowdown_trigger
            && self.l0_slowdown_trigger <= self.l0_stop_trigger)
        {
            return bad(format!(
                "l0_compaction_trigger = {}, l0_slowdown_trigger = {}, l0_stop_trigger = {}: \
                 they must satisfy compaction <= slowdown <= stop",
                self.l0_compaction_trigger, self.l0_slowdown_trigger, self.l0_stop_trigger
            ));
        }
        if self.block_size as u64 > self.target_file_size {
            return bad(format!(
                "block_size = {} exceeds target_file_size = {}: a table holds at least one block",
                show(self.block_size as u64),
                show(self.target_file_size)
            ));
        }
        if self.value_layout == ValueLayout::Hash {
            let unsupported = |what: &str| {
                Err(Error::InvalidArgument(format!(
                    "options value_layout = hash with {what}: not supported yet"
                )))
            };
            if self.medium_threshold < self.inline_threshold {
                return unsupported("a medium class (medium_threshold below inline_threshold)");
            }
            if self.gc_mode != GcMode::DropRecords {
                return unsupported(&format!("gc_mode = {}", self.gc_mode.as_str()));
            }
            if self.compaction_offload.is_some() {
                return unsupported("compaction_offload");
            }
        }
        // No rule ties inline_threshold to value_file_size: a threshold above the file size
        // is how a user keeps every value inline, and a larger separated value only makes
        // its file roll at the next write.
        Ok(())
    }
}

/// Fails unless `t` is in `(0, 1]` (NaN is not).
pub(super) fn check_gc_threshold(t: f64) -> Result<()> {
    if t > 0.0 && t <= 1.0 {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "option gc_threshold = {t} is out of range: allowed {GC_THRESHOLD_RANGE}"
    )))
}

/// Fails unless `t` is in `1.1 ..= 10` (NaN is not).
pub(super) fn check_space_amp_target(t: f64) -> Result<()> {
    if (1.1..=10.0).contains(&t) {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "option space_amp_target = {t} is out of range: allowed {SPACE_AMP_TARGET_RANGE}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_names_a_numeric_option() {
        let o = Options::default();
        for r in OPTION_RANGES {
            assert!(o.numeric(r.name).is_some(), "{}", r.name);
            assert!(r.min <= r.max, "{}", r.name);
        }
    }

    #[test]
    fn ranges_show_in_binary_units() {
        assert_eq!(
            range_of("value_file_size").unwrap().describe(),
            "4 KiB ..= 4 GiB"
        );
        assert_eq!(
            range_of("gc_bytes_per_sec").unwrap().describe(),
            "0, or 1 MiB ..= 1 TiB"
        );
        assert_eq!(show(256), "256");
        assert_eq!(show(3 * MIB + 1), "3145729");
    }
}
