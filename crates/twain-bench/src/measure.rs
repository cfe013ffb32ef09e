//! Measurements outside the engine: `/proc/self/io`, the database directory's allocated
//! size, and latency histograms.

use crate::error::{BenchError, BenchResult};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The I/O counters of `/proc/self/io` (whole process, every thread).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ProcIo {
    /// Bytes passed to read-like system calls (page cache hits included).
    pub rchar: u64,
    /// Bytes passed to write-like system calls.
    pub wchar: u64,
    /// Bytes this process caused to be fetched from the storage layer.
    pub read_bytes: u64,
    /// Bytes this process caused to be sent to the storage layer (counted when the page
    /// is dirtied, so it is attributed to the phase that wrote it).
    pub write_bytes: u64,
    /// Dirty bytes that were never written back because their file was truncated or
    /// deleted first.
    pub cancelled_write_bytes: u64,
}

impl ProcIo {
    /// Reads the counters now.
    pub fn read() -> BenchResult<ProcIo> {
        let text = std::fs::read_to_string("/proc/self/io")
            .map_err(|e| BenchError::io("reading /proc/self/io", e))?;
        Ok(ProcIo::parse(&text))
    }

    /// Reads the counters of process `pid` now.
    pub fn read_of(pid: u32) -> BenchResult<ProcIo> {
        let path = format!("/proc/{pid}/io");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| BenchError::io(format!("reading {path}"), e))?;
        Ok(ProcIo::parse(&text))
    }

    /// Parses the text of `/proc/self/io` (missing fields are 0).
    pub fn parse(text: &str) -> ProcIo {
        let mut io = ProcIo::default();
        for line in text.lines() {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let Ok(v) = value.trim().parse::<u64>() else {
                continue;
            };
            match name.trim() {
                "rchar" => io.rchar = v,
                "wchar" => io.wchar = v,
                "read_bytes" => io.read_bytes = v,
                "write_bytes" => io.write_bytes = v,
                "cancelled_write_bytes" => io.cancelled_write_bytes = v,
                _ => {}
            }
        }
        io
    }

    /// `self - earlier`, field by field.
    pub fn delta(&self, earlier: &ProcIo) -> ProcIo {
        ProcIo {
            rchar: self.rchar.saturating_sub(earlier.rchar),
            wchar: self.wchar.saturating_sub(earlier.wchar),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
            cancelled_write_bytes: self
                .cancelled_write_bytes
                .saturating_sub(earlier.cancelled_write_bytes),
        }
    }
}

/// CPU seconds (user + system) used so far by this process, every thread included.
pub fn process_cpu_secs() -> BenchResult<f64> {
    let text = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| BenchError::io("reading /proc/self/stat", e))?;
    Ok(parse_stat_cpu_ticks(&text) as f64 / CLOCK_TICKS_PER_SEC)
}

/// CPU seconds (user + system) used so far by process `pid`, every thread included.
pub fn process_cpu_secs_of(pid: u32) -> BenchResult<f64> {
    let path = format!("/proc/{pid}/stat");
    let text =
        std::fs::read_to_string(&path).map_err(|e| BenchError::io(format!("reading {path}"), e))?;
    Ok(parse_stat_cpu_ticks(&text) as f64 / CLOCK_TICKS_PER_SEC)
}

/// `USER_HZ`: the unit of the times in `/proc/<pid>/stat`, 100 on Linux.
pub(crate) const CLOCK_TICKS_PER_SEC: f64 = 100.0;

/// utime + stime of a `/proc/<pid>/stat` line (0 if it does not parse).
fn parse_stat_cpu_ticks(text: &str) -> u64 {
    crate::threads::parse_stat(text).map_or(0, |(_, ticks)| ticks)
}

/// Sleeps for `duration` with no foreground work and returns the process's CPU time
/// (user + system, every thread) over its last `window` (the whole of it if shorter), in
/// percent of one core: ≈ 0 when no background thread was busy. Sleeps in short steps
/// and returns early, with the CPU use measured so far, once `stop` is set.
pub fn idle_for(duration: Duration, window: Duration, stop: &AtomicBool) -> BenchResult<f64> {
    let start = Instant::now();
    let window_start = duration.saturating_sub(window);
    let sleep_until = |until: Duration| {
        while !stop.load(Ordering::Relaxed) {
            let elapsed = start.elapsed();
            if elapsed >= until {
                break;
            }
            std::thread::sleep((until - elapsed).min(Duration::from_millis(100)));
        }
    };
    sleep_until(window_start);
    let (cpu0, t0) = (process_cpu_secs()?, Instant::now());
    sleep_until(duration);
    let (cpu, secs) = (process_cpu_secs()? - cpu0, t0.elapsed().as_secs_f64());
    Ok(if secs > 0.0 { cpu / secs * 100.0 } else { 0.0 })
}

/// The machine's one-minute load average (0 if unreadable): how busy the shared machine
/// was, to judge noise.
pub fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// Allocated bytes of every file under `dir` (like `du`: blocks × 512). Files that vanish
/// while it walks (compaction deletes them) are skipped.
pub fn dir_bytes(dir: &Path) -> BenchResult<u64> {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(BenchError::io(format!("listing {}", dir.display()), e)),
    };
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            total += dir_bytes(&entry.path())?;
        } else {
            total += meta.blocks() * 512;
        }
    }
    Ok(total)
}

/// Latencies in nanoseconds, 3 significant digits, from 1 ns to 1 hour.
#[derive(Debug, Clone)]
pub struct Latencies {
    hist: Histogram<u64>,
}

const MAX_NANOS: u64 = 3_600_000_000_000;

impl Default for Latencies {
    fn default() -> Latencies {
        Latencies::new()
    }
}

impl Latencies {
    /// An empty histogram.
    pub fn new() -> Latencies {
        let hist = Histogram::new_with_bounds(1, MAX_NANOS, 3);
        // The bounds are constants that `new_with_bounds` accepts.
        #[expect(clippy::expect_used, reason = "constant, valid bounds")]
        let hist = hist.expect("valid histogram bounds");
        Latencies { hist }
    }

    /// Records one operation's latency.
    pub fn record(&mut self, nanos: u64) {
        // Saturating: values are clamped into the bounds, so this cannot fail.
        self.hist.saturating_record(nanos.clamp(1, MAX_NANOS));
    }

    /// Adds another histogram's samples.
    pub fn merge(&mut self, other: &Latencies) {
        // Same bounds on both sides, so adding cannot fail; ignore the impossible error.
        let _ = self.hist.add(&other.hist);
    }

    /// Number of samples.
    pub fn len(&self) -> u64 {
        self.hist.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.hist.is_empty()
    }

    /// The latency at quantile `q` (0..=1), in microseconds.
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.hist.is_empty() {
            return 0.0;
        }
        self.hist.value_at_quantile(q) as f64 / 1000.0
    }

    /// The largest latency, in microseconds.
    pub fn max_us(&self) -> f64 {
        self.hist.max() as f64 / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_io_parses_and_subtracts() {
        let a = ProcIo::parse(
            "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n",
        );
        assert_eq!(a.rchar, 100);
        assert_eq!(a.write_bytes, 8192);
        let b = ProcIo { wchar: 250, ..a };
        assert_eq!(b.delta(&a).wchar, 50);
        assert_eq!(a.delta(&b).wchar, 0);
        let now = ProcIo::read().unwrap();
        assert!(now.rchar > 0);
    }

    #[test]
    fn cpu_time_and_load_are_read() {
        let line = "42 (a b) c) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0";
        assert_eq!(parse_stat_cpu_ticks(line), 300);
        assert!(process_cpu_secs().unwrap() >= 0.0);
        assert!(load_average() >= 0.0);
    }

    #[test]
    fn idle_measures_cpu_over_its_last_window() {
        let stop = AtomicBool::new(false);
        let began = Instant::now();
        let pct = idle_for(
            Duration::from_millis(400),
            Duration::from_millis(200),
            &stop,
        )
        .unwrap();
        assert!(began.elapsed() >= Duration::from_millis(400));
        assert!(pct.is_finite() && pct >= 0.0, "{pct}");
        stop.store(true, Ordering::Relaxed);
        let began = Instant::now();
        idle_for(Duration::from_secs(60), Duration::from_secs(5), &stop).unwrap();
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "stop ends it early"
        );
    }

    #[test]
    fn dir_bytes_counts_allocated_blocks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), vec![1u8; 10_000]).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b"), vec![1u8; 5_000]).unwrap();
        let n = dir_bytes(dir.path()).unwrap();
        assert!(n >= 15_000, "{n}");
        assert_eq!(dir_bytes(&dir.path().join("missing")).unwrap(), 0);
    }

    #[test]
    fn latency_quantiles() {
        let mut l = Latencies::new();
        for i in 1..=1000u64 {
            l.record(i * 1000);
        }
        let mut m = Latencies::new();
        m.record(5_000_000);
        l.merge(&m);
        assert_eq!(l.len(), 1001);
        assert!((l.quantile_us(0.5) - 500.0).abs() < 2.0);
        assert!((l.quantile_us(0.99) - 990.0).abs() < 2.0);
        assert!((l.max_us() - 5000.0).abs() < 5.0);
        assert_eq!(Latencies::new().quantile_us(0.5), 0.0);
    }
}
