//! Command-line options shared by `twain bench` and the peer comparison, and the scales
//! they default to.
// The options' doc comments are clap's help text, where `[scale]` notes which defaults a
// scale sets: not links.
#![allow(rustdoc::broken_intra_doc_links)]

use crate::error::{BenchError, BenchResult};
use crate::runner::{Progress, RunConfig};
use crate::values::ValueDist;
use crate::workload::{Counts, PhaseSpec, parse_workloads};
use clap::{Args, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Named scales. Explicit options override the scale's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scale {
    /// 200,000 keys × 1 KiB, 100,000 reads, one zipfian overwrite per key, 2,000 scans:
    /// a run of seconds.
    Small,
    /// Issue 3's default scale: 1,000,000 keys × 1 KiB, 200,000 reads, 2,000,000
    /// scrambled-zipfian overwrites, 2,000 scans of 100 keys.
    #[value(name = "1k")]
    OneK,
    /// Issue 3's small-value scale: 2,000,000 keys × 100 B, 200,000 reads, 2,000,000
    /// overwrites, 2,000 scans of 100 keys.
    #[value(name = "100b")]
    HundredB,
}

impl Scale {
    /// (num, value size, reads, overwrites per key loaded, scans).
    fn numbers(self) -> (u64, usize, u64, u64, u64) {
        match self {
            Scale::Small => (200_000, 1024, 100_000, 1, 2_000),
            Scale::OneK => (1_000_000, 1024, 200_000, 2, 2_000),
            Scale::HundredB => (2_000_000, 100, 200_000, 1, 2_000),
        }
    }
}

/// The default workload list of `--scale small`.
pub const DEFAULT_WORKLOADS: &str = "fillrandom,readrandom,updatezipf,readrandom,scan";

/// The default workload list of `--scale 1k` and `--scale 100b` (issue 10): a minute
/// without foreground work after the updates, to see whether space comes back.
pub const DEFAULT_WORKLOADS_IDLE: &str = "fillrandom,readrandom,updatezipf,idle60,readrandom,scan";

impl Scale {
    /// The phases run when `--workloads` is not given.
    pub fn default_workloads(self) -> &'static str {
        match self {
            Scale::Small => DEFAULT_WORKLOADS,
            Scale::OneK | Scale::HundredB => DEFAULT_WORKLOADS_IDLE,
        }
    }
}

/// Workload and measurement options.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Comma-separated phases: fillseq, fillrandom, readrandom, readrandomsame, overwrite,
    /// updatezipf, seekrandom, multiget / multigetN (--reads keys, N per request, default
    /// 100), scan (scanN: N pairs per scan), scankeys / scankeysN (keys
    /// without values), deleterandom, deleterange / deleterangeN (range deletions of N keys
    /// each, default 1000), ycsb-load, ycsb-a … ycsb-f, and idleN (N seconds
    /// without foreground work) [scale: small runs
    /// fillrandom,readrandom,updatezipf,readrandom,scan; 1k and 100b add idle60 after
    /// updatezipf].
    #[arg(long)]
    pub workloads: Option<String>,
    /// Numbers to start from: small (seconds), 1k (issue 3: 1 M × 1 KiB) or 100b
    /// (issue 3: 2 M × 100 B).
    #[arg(long, value_enum)]
    pub scale: Option<Scale>,
    /// Keys loaded by fills [scale].
    #[arg(long)]
    pub num: Option<u64>,
    /// Value size: `1024`, `4K`, `uniform:100..1000`, or a Parallax mix `sd`, `md`, `ld`,
    /// `mix:S/M/L` (small 16–100 B, medium 101–1024 B, large 1025–4096 B) [scale].
    #[arg(long, visible_alias = "value-dist")]
    pub value_size: Option<String>,
    /// Gets of readrandom / readrandomsame, seeks of seekrandom [scale].
    #[arg(long)]
    pub reads: Option<u64>,
    /// Puts of overwrite and updatezipf [scale: 1 or 2 per key loaded].
    #[arg(long)]
    pub overwrites: Option<u64>,
    /// Scans of scan [scale].
    #[arg(long)]
    pub scans: Option<u64>,
    /// Pairs per scan (and the largest YCSB-E scan).
    #[arg(long, default_value_t = 100)]
    pub scan_length: usize,
    /// Deletes of deleterandom, keys deleted by deleterange [num].
    #[arg(long)]
    pub deletes: Option<u64>,
    /// Operations of each YCSB run phase (ycsb-a … ycsb-f) [reads].
    #[arg(long)]
    pub ops: Option<u64>,
    /// Foreground threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Sync every write before it returns.
    #[arg(long)]
    pub sync: bool,
    /// Seeds keys, values and request choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Make values compress to about this fraction of their size, as db_bench's
    /// `--compression_ratio` does (each 100-byte piece is a random run of that share,
    /// repeated); 1, the default, makes them incompressible. Range: 0.05 ..= 1.
    #[arg(long, default_value_t = 1.0)]
    pub compressible: f64,
    /// Flush the memtable after each write phase (not timed; its I/O counts in the phase).
    #[arg(long)]
    pub settle: bool,
    /// Print one JSON object per phase instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw throughput over time, latency over time (p99 and max per interval),
    /// per-phase bars and space amplification against bytes written into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
    /// Run inside a new memory cgroup limited to this size (memory and page cache, e.g.
    /// `1G`; at least 64M): larger than memory. Needs root and cgroup v1.
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<String>,
    /// Write dirty pages out and empty the page cache before each phase (not timed; needs
    /// root).
    #[arg(long)]
    pub drop_caches: bool,
}

/// The options alone, parsed from `argv` (its first item is the program name): for
/// programs and tests that embed no other options.
pub fn parse_bench_args<I, T>(argv: I) -> BenchResult<BenchArgs>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        args: BenchArgs,
    }
    <Only as clap::Parser>::try_parse_from(argv)
        .map(|o| o.args)
        .map_err(|e| BenchError::InvalidArgument(e.to_string()))
}

/// A run resolved from [`BenchArgs`].
#[derive(Debug, Clone)]
pub struct Plan {
    /// Settings shared by the phases.
    pub run: RunConfig,
    /// Operation counts.
    pub counts: Counts,
    /// The phases in order.
    pub phases: Vec<PhaseSpec>,
    /// The memory cgroup limit the run asks for, in bytes (`--memory-limit`).
    pub memory_limit: Option<u64>,
}

impl BenchArgs {
    /// Resolves the options, filling what is not given from `scale` (or `default_scale`).
    pub fn plan(&self, default_scale: Scale) -> BenchResult<Plan> {
        let scale = self.scale.unwrap_or(default_scale);
        let (num, vsize, reads, overwrites_per_key, scans) = scale.numbers();
        let value_dist = match &self.value_size {
            Some(s) => ValueDist::parse(s)?,
            None => ValueDist::Fixed(vsize),
        };
        let num = self.num.unwrap_or(num);
        let reads = self.reads.unwrap_or(reads);
        if num == 0 {
            return Err(BenchError::InvalidArgument(
                "--num must be at least 1".into(),
            ));
        }
        if !(0.05..=1.0).contains(&self.compressible) {
            return Err(BenchError::InvalidArgument(format!(
                "--compressible {}: between 0.05 and 1",
                self.compressible
            )));
        }
        if self.threads == 0 {
            return Err(BenchError::InvalidArgument(
                "--threads must be at least 1".into(),
            ));
        }
        let counts = Counts {
            num,
            reads,
            overwrites: self
                .overwrites
                .unwrap_or(num.saturating_mul(overwrites_per_key)),
            scans: self.scans.unwrap_or(scans),
            scan_length: self.scan_length.max(1),
            deletes: self.deletes.unwrap_or(num),
            ycsb_ops: self.ops.unwrap_or(reads),
        };
        if let Some(p) = &self.plot
            && p.extension().and_then(|e| e.to_str()) != Some("svg")
        {
            return Err(BenchError::InvalidArgument(format!(
                "--plot {}: only .svg is supported",
                p.display()
            )));
        }
        let memory_limit = match &self.memory_limit {
            Some(s) => {
                let bytes = twain::parse_size(s).map_err(|e| {
                    BenchError::InvalidArgument(format!("--memory-limit {s:?}: {e}"))
                })?;
                if bytes < crate::cgroup::MIN_LIMIT {
                    return Err(BenchError::InvalidArgument(format!(
                        "--memory-limit {s}: at least {} MiB",
                        crate::cgroup::MIN_LIMIT >> 20
                    )));
                }
                Some(bytes)
            }
            None => None,
        };
        let progress = if self.quiet {
            Progress::Quiet
        } else if std::io::stderr().is_terminal() {
            Progress::Bar
        } else {
            Progress::Lines
        };
        Ok(Plan {
            phases: parse_workloads(
                self.workloads
                    .as_deref()
                    .unwrap_or(scale.default_workloads()),
                &counts,
            )?,
            run: RunConfig {
                num,
                value_dist,
                compressible: self.compressible,
                threads: self.threads,
                seed: self.seed,
                scan_length: counts.scan_length,
                settle: self.settle,
                drop_caches: self.drop_caches,
                progress,
            },
            counts,
            memory_limit,
        })
    }
}

impl Plan {
    /// The configuration as readable lines, printed before a run.
    pub fn describe(&self) -> String {
        let c = &self.counts;
        let r = &self.run;
        format!(
            "workloads: {}\nkeys: {} x 16 B, values: {} B, compressible to {}\nreads: {}, overwrites: {}, scans: {} x {}, deletes: {}, ycsb ops: {}\nthreads: {}, seed: {}, settle: {}, drop caches before each phase: {}, memory limit: {}",
            self.phases
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(","),
            c.num,
            r.value_dist,
            r.compressible,
            c.reads,
            c.overwrites,
            c.scans,
            c.scan_length,
            c.deletes,
            c.ycsb_ops,
            r.threads,
            r.seed,
            r.settle,
            r.drop_caches,
            self.memory_limit.map_or("none".to_string(), |b| format!(
                "{} MiB (memory cgroup)",
                b >> 20
            )),
        )
    }
}

/// The command line of this process, shell-quoted where needed.
pub fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_=.,/:+@%".contains(c))
            {
                a
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phases(argv: &[&str], default: Scale) -> Vec<String> {
        let args = parse_bench_args(["bench"].iter().chain(argv)).unwrap();
        let plan = args.plan(default).unwrap();
        plan.phases.into_iter().map(|p| p.name).collect()
    }

    #[test]
    fn large_scales_idle_after_the_updates() {
        let idle = "fillrandom,readrandom,updatezipf,idle60,readrandom,scan";
        assert_eq!(phases(&["--scale", "1k"], Scale::Small).join(","), idle);
        assert_eq!(phases(&["--scale", "100b"], Scale::Small).join(","), idle);
        assert_eq!(phases(&[], Scale::OneK).join(","), idle);
        assert_eq!(phases(&[], Scale::Small).join(","), DEFAULT_WORKLOADS);
        let given = phases(
            &["--scale", "1k", "--workloads", "fillrandom,idle5"],
            Scale::Small,
        );
        assert_eq!(given, ["fillrandom", "idle5"]);
    }

    #[test]
    fn memory_limits_are_sizes_of_at_least_64_mib() {
        let plan = |limit: &str| {
            parse_bench_args(["bench", "--memory-limit", limit])
                .unwrap()
                .plan(Scale::Small)
        };
        assert_eq!(plan("1G").unwrap().memory_limit, Some(1 << 30));
        assert_eq!(plan("64M").unwrap().memory_limit, Some(64 << 20));
        let small = plan("63M").unwrap_err().to_string();
        assert!(small.contains("at least 64 MiB"), "{small}");
        let bad = plan("lots").unwrap_err().to_string();
        assert!(bad.contains("--memory-limit \"lots\""), "{bad}");
        let none = parse_bench_args(["bench"])
            .unwrap()
            .plan(Scale::Small)
            .unwrap();
        assert_eq!(none.memory_limit, None);
        assert!(!none.run.drop_caches);
        assert!(none.describe().contains("memory limit: none"));
    }
}
