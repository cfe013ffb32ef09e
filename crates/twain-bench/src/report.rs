//! Per-phase results, the readable table and JSON lines.

use crate::space::SpaceSample;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything measured in one phase. Serialized as one JSON line by `--json`; the fields
/// of issue 3's schema come first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    /// Engine name.
    pub engine: String,
    /// Phase name.
    pub phase: String,
    /// Operations completed.
    pub ops: u64,
    /// Wall-clock seconds of the phase.
    pub secs: f64,
    /// `ops / secs`.
    pub ops_per_sec: f64,
    /// Key + value bytes written by the phase (key bytes for deletes).
    pub user_bytes: u64,
    /// `/proc/self/io` `wchar` delta.
    pub wchar: u64,
    /// `/proc/self/io` `write_bytes` delta.
    pub write_bytes: u64,
    /// `/proc/self/io` `read_bytes` delta.
    pub read_bytes: u64,
    /// Allocated bytes of the database directory at the end of the phase.
    pub db_bytes: u64,
    /// Median latency, microseconds.
    pub p50_us: f64,
    /// 99th percentile latency, microseconds.
    pub p99_us: f64,

    /// Position of the phase in the run (0-based).
    pub index: usize,
    /// Foreground threads.
    pub threads: usize,
    /// Value size distribution.
    pub value_dist: String,
    /// Seconds from the start of the run to the start of this phase.
    pub start_secs: f64,
    /// Key + value bytes read by the phase.
    pub user_read_bytes: u64,
    /// Gets and seeks that found a key.
    pub found: u64,
    /// `(user_bytes + user_read_bytes) / secs` in MB/s (10^6 bytes).
    pub mb_per_sec: f64,
    /// 99.9th percentile latency, microseconds.
    pub p999_us: f64,
    /// Largest latency, microseconds.
    pub max_us: f64,
    /// `/proc/self/io` `rchar` delta.
    pub rchar: u64,
    /// `/proc/self/io` `cancelled_write_bytes` delta.
    pub cancelled_write_bytes: u64,
    /// Keys live at the end of the phase.
    pub live_keys: u64,
    /// Their key + value bytes.
    pub live_bytes: u64,
    /// `write_bytes / user_bytes`.
    pub write_amp_io: Option<f64>,
    /// `(write_bytes - cancelled_write_bytes) / user_bytes`.
    pub write_amp_io_net: Option<f64>,
    /// `wchar / user_bytes`.
    pub write_amp_wchar: Option<f64>,
    /// Engine's bytes written / `user_bytes`.
    pub write_amp_engine: Option<f64>,
    /// `read_bytes / user_read_bytes` (near 0 when the data is in the page cache).
    pub read_amp_io: Option<f64>,
    /// `rchar / user_read_bytes` (file bytes read through system calls, cache hits too).
    pub read_amp_rchar: Option<f64>,
    /// Engine's bytes read from files by user reads / `user_read_bytes`.
    pub read_amp_engine: Option<f64>,
    /// `db_bytes / live_bytes`.
    pub space_amp: Option<f64>,
    /// Engine's bytes written by the phase.
    pub engine_bytes_written: Option<u64>,
    /// Engine's bytes read from files by user reads in the phase.
    pub engine_user_read_bytes: Option<u64>,
    /// Value log / WAL bytes written.
    pub log_bytes: Option<u64>,
    /// Flush bytes written.
    pub flush_bytes: Option<u64>,
    /// Compaction bytes read.
    pub compaction_read_bytes: Option<u64>,
    /// Compaction bytes written.
    pub compaction_write_bytes: Option<u64>,
    /// Value GC bytes read.
    pub gc_read_bytes: Option<u64>,
    /// Value GC bytes written.
    pub gc_write_bytes: Option<u64>,
    /// Microseconds writers stalled.
    pub stall_micros: Option<u64>,
    /// Value GC runs finished.
    pub gc_runs: Option<u64>,
    /// LSM-tree lookups made by value GC.
    pub gc_lsm_lookups: Option<u64>,
    /// Stale-handle reads that searched a value file's newer copy.
    pub svtable_searches: Option<u64>,
    /// Stale handles fixed lazily.
    pub handle_fixups: Option<u64>,
    /// Live bytes GC left in place instead of copying (twain's hash layout: cold segments).
    #[serde(default)]
    pub gc_bytes_not_copied: Option<u64>,

    /// `write_bytes` of all phases so far / their `user_bytes`.
    pub cum_write_amp_io: Option<f64>,
    /// Engine bytes written in all phases so far / their `user_bytes`.
    pub cum_write_amp_engine: Option<f64>,
    /// Lowest one-second throughput sample (ops/s); shows stalls.
    pub min_sample_ops_per_sec: Option<f64>,
    /// CPU seconds (user + system, all threads, background work included) the process
    /// used during the phase: less sensitive than `secs` to a busy shared machine.
    pub cpu_secs: f64,
    /// `cpu_secs` per operation, in microseconds.
    pub cpu_us_per_op: f64,
    /// The machine's one-minute load average at the end of the phase.
    pub load_avg: f64,
    /// Operations per second, sampled each second of the phase.
    pub throughput: Vec<f64>,
    /// The engine's write-stall counters over the phase, by name (twain: `slowdowns`;
    /// see `TwainEngine::stall_counters`). Empty for engines that report none.
    #[serde(default)]
    pub stalls: BTreeMap<String, u64>,
    /// The engine's read-path counters over the phase, by name (twain: value reads,
    /// prefetch reads and bytes, multi-get reads, block cache misses; see
    /// `TwainEngine::read_counters`). Empty for engines that report none.
    #[serde(default)]
    pub reads: BTreeMap<String, u64>,
    /// p99 and maximum latency per interval of the phase (see [`crate::timeline`]).
    #[serde(default)]
    pub latency_over_time: LatencySeries,
    /// Space over the phase: a sample about each second and one at its end (see
    /// [`crate::space`]). Empty in runs written before it existed.
    #[serde(default)]
    pub space_over_time: Vec<SpaceSample>,
    /// Space amplification over the phase, each sample weighted by how long it held
    /// (`crate::space::phase_space_amp`): the figure at the phase's end is one point of a
    /// sawtooth. Absent without samples; filled in on parsing for lines written before it.
    #[serde(default)]
    pub space_amp_mean: Option<f64>,
    /// The highest space amplification sampled over the phase.
    #[serde(default)]
    pub space_amp_max: Option<f64>,
    /// For an idle phase: the process's CPU time (all threads) over the last 5 s of the
    /// phase, in percent of one core (≈ 0 means no engine thread was busy). `None` for
    /// other phases.
    #[serde(default)]
    pub idle_cpu_pct: Option<f64>,
    /// Seconds of the `--settle` flush after the phase (0 without it, or for a phase that
    /// does not write): not in `secs`, but in the CPU and I/O figures. 0 in runs written
    /// before it existed.
    #[serde(default)]
    pub settle_secs: f64,
    /// `cpu_secs` by thread group (`crate::threads`): `foreground` (the benchmark's
    /// workers), `main`, `bench` (its progress reporter), each engine thread's name
    /// without its number (`twain-gc`, `twain-compact`, `rocksdb:low`, ...), and `other`
    /// (threads that ended within the phase). Empty in runs written before it existed.
    #[serde(default)]
    pub cpu_secs_by_thread: BTreeMap<String, f64>,
}

/// Latency over time: the operations that completed in each interval of a phase, from its
/// start. The three lists have one entry per interval; an interval in which no operation
/// completed (a stall, for instance) has 0 ops and `null` latencies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySeries {
    /// Seconds each interval covers: 0.1, doubled as often as needed to keep at most
    /// [`crate::timeline::MAX_POINTS`] intervals.
    pub interval_secs: f64,
    /// Operations that completed in each interval.
    pub ops: Vec<u64>,
    /// Their 99th percentile latency, microseconds (2 significant digits).
    pub p99_us: Vec<Option<f64>>,
    /// Their largest latency, microseconds.
    pub max_us: Vec<Option<f64>>,
}

/// `a / b`, or `None` when `b` is 0.
pub fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

impl PhaseResult {
    /// Sets `space_amp_mean` and `space_amp_max` from `space_over_time`.
    pub fn set_space_over_phase(&mut self) {
        let over = crate::space::phase_space_amp(self);
        self.space_amp_mean = over.map(|(mean, _)| mean);
        self.space_amp_max = over.map(|(_, highest)| highest);
    }

    /// The result as one line of JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain numbers, strings and vectors cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => "-".into(),
    }
}

fn mib(v: Option<u64>) -> String {
    match v {
        Some(b) => format!("{:.0}", b as f64 / (1 << 20) as f64),
        None => "-".into(),
    }
}

/// Formats the readable table of results, one row per phase.
pub fn table(results: &[PhaseResult]) -> String {
    let header = [
        "phase",
        "ops",
        "secs",
        "ops/s",
        "MB/s",
        "cpu us/op",
        "p50us",
        "p99us",
        "p99.9us",
        "max us",
        "wamp-io",
        "wamp-eng",
        "ramp-rchar",
        "ramp-eng",
        "samp",
        "compR/W MiB",
        "gc MiB",
        "stall ms",
        "db MiB",
    ];
    // One column per stall counter any phase reports, after "stall ms".
    let mut stall_names: Vec<&str> = Vec::new();
    for name in results.iter().flat_map(|r| r.stalls.keys()) {
        if !stall_names.contains(&name.as_str()) {
            stall_names.push(name);
        }
    }
    let stall_at = header.len() - 1;
    let mut head: Vec<String> = header.iter().map(|s| s.to_string()).collect();
    head.splice(
        stall_at..stall_at,
        stall_names.iter().map(|s| s.to_string()),
    );
    let mut rows = vec![head];
    for r in results {
        let mut row = vec![
            r.phase.clone(),
            r.ops.to_string(),
            format!("{:.2}", r.secs),
            format!("{:.0}", r.ops_per_sec),
            format!("{:.1}", r.mb_per_sec),
            format!("{:.1}", r.cpu_us_per_op),
            format!("{:.1}", r.p50_us),
            format!("{:.1}", r.p99_us),
            format!("{:.1}", r.p999_us),
            format!("{:.0}", r.max_us),
            opt(r.write_amp_io, 2),
            opt(r.write_amp_engine, 2),
            opt(r.read_amp_rchar, 2),
            opt(r.read_amp_engine, 2),
            opt(r.space_amp, 2),
            format!(
                "{}/{}",
                mib(r.compaction_read_bytes),
                mib(r.compaction_write_bytes)
            ),
            match (r.gc_read_bytes, r.gc_write_bytes) {
                (None, None) => "-".into(),
                (a, b) => format!("{}/{}", mib(a), mib(b)),
            },
            r.stall_micros
                .map_or("-".into(), |s| (s / 1000).to_string()),
            format!("{:.0}", r.db_bytes as f64 / (1 << 20) as f64),
        ];
        let stalls = stall_names
            .iter()
            .map(|n| r.stalls.get(*n).map_or("-".into(), u64::to_string));
        row.splice(stall_at..stall_at, stalls);
        rows.push(row);
    }
    render(&rows)
}

/// Renders rows as aligned columns: the first left-aligned, the rest right-aligned.
pub fn render(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let w = widths.get(c).copied().unwrap_or(0);
            if c == 0 {
                line.push_str(&format!("{cell:<w$}"));
            } else {
                line.push_str(&format!("  {cell:>w$}"));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Parses JSON lines written by `--json` (blank lines and non-JSON lines are skipped).
pub fn parse_json_lines(text: &str) -> Vec<PhaseResult> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<PhaseResult>(l.trim()).ok())
        .map(|mut r| {
            if r.space_amp_mean.is_none() {
                r.set_space_over_phase();
            }
            r
        })
        .collect()
}
