//! Space amplification over time: samples of the database directory's allocated bytes
//! against the live key + value bytes the workload knows of, taken about once a second
//! while a phase runs and once at its end.

use crate::report::{PhaseResult, ratio};
use serde::{Deserialize, Serialize};

/// One sample of a phase's space.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SpaceSample {
    /// Seconds since the phase began.
    pub secs: f64,
    /// Key + value bytes written since the run began (all phases, this one so far).
    pub user_bytes: u64,
    /// Allocated bytes of the database directory (`du`: blocks × 512, recursive).
    pub db_bytes: u64,
    /// Key + value bytes of the live keys (the workload's model).
    pub live_bytes: u64,
    /// Bytes the process caused to be written to storage since the run began
    /// (`/proc/self/io` `write_bytes`, cumulative over phases; 0 in older lines).
    #[serde(default)]
    pub write_bytes: u64,
    /// Memory and page cache the process's memory cgroup uses (absent outside one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_bytes: Option<u64>,
}

impl SpaceSample {
    /// `db_bytes / live_bytes`, or `None` when nothing is live.
    pub fn space_amp(&self) -> Option<f64> {
        ratio(self.db_bytes, self.live_bytes)
    }

    /// Cumulative write amplification so far: `write_bytes / user_bytes`.
    pub fn write_amp(&self) -> Option<f64> {
        ratio(self.write_bytes, self.user_bytes)
    }
}

/// One engine's space amplification against cumulative user bytes written, over every
/// phase of `results` that is that engine's, in phase order: `(user bytes, space amp)`.
/// Samples taken while nothing was live are left out.
pub fn engine_series(results: &[PhaseResult], engine: &str) -> Vec<(u64, f64)> {
    let mut phases: Vec<&PhaseResult> = results.iter().filter(|r| r.engine == engine).collect();
    phases.sort_by_key(|r| r.index);
    phases
        .iter()
        .flat_map(|r| r.space_over_time.iter())
        .filter_map(|s| Some((s.user_bytes, s.space_amp()?)))
        .collect()
}

/// Where each phase of `engine` began, as cumulative user bytes written before it:
/// `(user bytes, phase name)` in phase order. The first sample of a phase that has none
/// ends the previous phase; phases without samples are placed where the previous ended.
pub fn phase_starts(results: &[PhaseResult], engine: &str) -> Vec<(u64, String)> {
    let mut phases: Vec<&PhaseResult> = results.iter().filter(|r| r.engine == engine).collect();
    phases.sort_by_key(|r| r.index);
    let mut at = 0;
    let mut starts = Vec::new();
    for r in phases {
        starts.push((at, r.phase.clone()));
        if let Some(last) = r.space_over_time.last() {
            at = last.user_bytes;
        } else {
            at += r.user_bytes;
        }
    }
    starts
}

/// A phase's space amplification over its duration: each sample stands for the time since
/// the one before it (the first for the time since the phase began), so the mean weighs a
/// figure by how long the database held it, not by where the phase happened to end.
/// Compaction makes space a sawtooth (garbage builds up in the upper levels until a
/// compaction into the level below drops it), and the figure at a phase's end is one
/// point on it; the mean and the highest sample say what a disk must hold meanwhile.
/// `(time-weighted mean, highest sample)`; `None` without a sample with live data.
pub fn phase_space_amp(r: &PhaseResult) -> Option<(f64, f64)> {
    let (mut weighted, mut secs, mut highest) = (0.0, 0.0, None::<f64>);
    let mut since = 0.0;
    for s in &r.space_over_time {
        let span = (s.secs - since).max(0.0);
        since = since.max(s.secs);
        let Some(amp) = s.space_amp() else {
            continue;
        };
        weighted += amp * span;
        secs += span;
        highest = Some(highest.map_or(amp, |h| h.max(amp)));
    }
    let highest = highest?;
    // Samples all at the phase's start (an instant phase): their plain mean.
    let mean = match secs > 0.0 {
        true => weighted / secs,
        false => {
            let amps: Vec<f64> = r
                .space_over_time
                .iter()
                .filter_map(|s| s.space_amp())
                .collect();
            amps.iter().sum::<f64>() / amps.len() as f64
        }
    };
    Some((mean, highest))
}

/// The whole run's net write amplification of `engine`: the sum over its phases of
/// (`write_bytes` − `cancelled_write_bytes`) divided by the sum of their `user_bytes`
/// (`None` if it wrote nothing). Cancelled bytes are subtracted from the run's sum, not
/// per phase, since a file deleted in one phase cancels writes counted in another.
pub fn whole_run_write_amp_net(results: &[PhaseResult], engine: &str) -> Option<f64> {
    let (mut written, mut cancelled, mut user) = (0u64, 0u64, 0u64);
    for r in results.iter().filter(|r| r.engine == engine) {
        written += r.write_bytes;
        cancelled += r.cancelled_write_bytes;
        user += r.user_bytes;
    }
    ratio(written.saturating_sub(cancelled), user)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::parse_json_lines;

    /// A phase result with only what these functions read; the rest from a minimal line.
    fn phase(engine: &str, index: usize, name: &str, samples: &[(u64, u64, u64)]) -> PhaseResult {
        let line = r#"{"engine":"x","phase":"x","ops":0,"secs":1.0,"ops_per_sec":0.0,"user_bytes":0,"wchar":0,"write_bytes":0,"read_bytes":0,"db_bytes":0,"p50_us":0.0,"p99_us":0.0,"index":0,"threads":1,"value_dist":"100","start_secs":0.0,"user_read_bytes":0,"found":0,"mb_per_sec":0.0,"p999_us":0.0,"max_us":0.0,"rchar":0,"cancelled_write_bytes":0,"live_keys":0,"live_bytes":0,"write_amp_io":null,"write_amp_io_net":null,"write_amp_wchar":null,"write_amp_engine":null,"read_amp_io":null,"read_amp_rchar":null,"read_amp_engine":null,"space_amp":null,"engine_bytes_written":null,"engine_user_read_bytes":null,"log_bytes":null,"flush_bytes":null,"compaction_read_bytes":null,"compaction_write_bytes":null,"gc_read_bytes":null,"gc_write_bytes":null,"stall_micros":null,"gc_runs":null,"gc_lsm_lookups":null,"svtable_searches":null,"handle_fixups":null,"cum_write_amp_io":null,"cum_write_amp_engine":null,"min_sample_ops_per_sec":null,"cpu_secs":0.0,"cpu_us_per_op":0.0,"load_avg":0.0,"throughput":[]}"#;
        let mut r = parse_json_lines(line).remove(0);
        r.engine = engine.into();
        r.index = index;
        r.phase = name.into();
        r.space_over_time = samples
            .iter()
            .enumerate()
            .map(|(k, &(user_bytes, db_bytes, live_bytes))| SpaceSample {
                secs: k as f64,
                user_bytes,
                db_bytes,
                live_bytes,
                ..SpaceSample::default()
            })
            .collect();
        r
    }

    #[test]
    fn series_follow_phase_order_and_skip_empty_databases() {
        let results = vec![
            phase("b", 0, "fill", &[(0, 10, 0), (100, 300, 100)]),
            phase("a", 1, "update", &[(250, 500, 200), (400, 400, 200)]),
            phase("a", 0, "fill", &[(100, 150, 100), (200, 400, 200)]),
            phase("a", 2, "idle5", &[(400, 300, 200), (400, 220, 200)]),
        ];
        assert_eq!(
            engine_series(&results, "a"),
            [
                (100, 1.5),
                (200, 2.0),
                (250, 2.5),
                (400, 2.0),
                (400, 1.5),
                (400, 1.1)
            ]
        );
        assert_eq!(engine_series(&results, "b"), [(100, 3.0)]);
        assert!(engine_series(&results, "c").is_empty());
        let starts = phase_starts(&results, "a");
        let names: Vec<(u64, &str)> = starts.iter().map(|(b, n)| (*b, n.as_str())).collect();
        assert_eq!(names, [(0, "fill"), (200, "update"), (400, "idle5")]);
    }

    #[test]
    fn phase_space_is_weighted_by_how_long_each_figure_held() {
        // Samples at 1 s, 2 s, 4 s and 4.5 s (the phase's end): 2.0 for one second, 1.0
        // for one, 3.0 for two, 1.5 for half of one.
        let mut r = phase(
            "a",
            0,
            "update",
            &[(0, 200, 100), (0, 100, 100), (0, 300, 100), (0, 150, 100)],
        );
        for (s, at) in r.space_over_time.iter_mut().zip([1.0, 2.0, 4.0, 4.5]) {
            s.secs = at;
        }
        let (mean, highest) = phase_space_amp(&r).unwrap();
        assert!(
            (mean - (2.0 + 1.0 + 6.0 + 0.75) / 4.5).abs() < 1e-9,
            "{mean}"
        );
        assert_eq!(highest, 3.0);
        // Nothing live: no figure; samples only at the start: their plain mean.
        assert_eq!(phase_space_amp(&phase("a", 0, "x", &[(0, 10, 0)])), None);
        let mut instant = phase("a", 0, "x", &[(0, 100, 100), (0, 300, 100)]);
        instant
            .space_over_time
            .iter_mut()
            .for_each(|s| s.secs = 0.0);
        assert_eq!(phase_space_amp(&instant), Some((2.0, 3.0)));
        // A line written before the fields existed gets them on parsing.
        let old_line = r
            .to_json()
            .replace(",\"space_amp_mean\":null,\"space_amp_max\":null", "");
        assert!(!old_line.contains("space_amp_mean"), "{old_line}");
        let parsed = parse_json_lines(&old_line).remove(0);
        assert_eq!(parsed.space_amp_max, Some(3.0));
        assert!((parsed.space_amp_mean.unwrap() - mean).abs() < 1e-9);
    }

    #[test]
    fn whole_run_write_amp_subtracts_cancelled_bytes_over_the_run() {
        let mut fill = phase("a", 0, "fill", &[]);
        (fill.user_bytes, fill.write_bytes) = (1000, 1500);
        let mut idle = phase("a", 1, "idle60", &[]);
        // Background work in a phase without user bytes still counts for the run, and a
        // file deleted later cancels bytes written earlier.
        (idle.write_bytes, idle.cancelled_write_bytes) = (700, 200);
        let mut other = phase("b", 0, "fill", &[]);
        (other.user_bytes, other.write_bytes) = (1000, 9000);
        let all = [fill, idle, other];
        assert_eq!(whole_run_write_amp_net(&all, "a"), Some(2.0));
        assert_eq!(whole_run_write_amp_net(&all, "b"), Some(9.0));
        assert_eq!(whole_run_write_amp_net(&all, "c"), None);
        let starts = phase_starts(&all, "a");
        assert_eq!(starts[1].0, 1000, "no samples: placed by user bytes");
    }
}
