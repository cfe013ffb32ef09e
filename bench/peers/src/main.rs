//! `twain-peers`: runs the same workloads, with the same generators and phase code as
//! `twain bench` (the `twain-bench` crate), on twain, RocksDB, RocksDB with BlobDB and
//! fjall, one engine after the other in one process, and compares them.

mod fjall_engine;
mod rocks;
mod space_targets;
mod worker;

use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use twain_bench::args::{BenchArgs, Scale, command_line};
use twain_bench::report::{self, PhaseResult};
use twain_bench::runner::Runner;
use twain_bench::{BenchError, BenchResult, Engine, TwainEngine};

/// Compare twain with RocksDB, RocksDB+BlobDB and fjall on db_bench / YCSB workloads.
#[derive(Debug, Parser)]
#[command(name = "twain-peers")]
struct Cli {
    #[command(flatten)]
    bench: BenchArgs,
    /// Engines to run, in this order: twain, rocksdb, blobdb, fjall, twain-ms / twain-ml
    /// (twain with medium pairs folded into small or large: Parallax's MS and ML) and
    /// twain-lookup (twain with `gc_mode = lsm-lookup`: drop-picked files, validity by
    /// lookup), twain-vlog (twain with `gc_mode = vlog`: the WiscKey baseline) and
    /// twain-worker (twain offloading half of each split compaction's parts to a
    /// `twain compaction-worker` process; needs --twain-exe and max_subcompactions >= 2).
    #[arg(long, default_value = "twain,rocksdb,blobdb,fjall")]
    engines: String,
    /// The `twain` binary that runs the compaction worker of the twain-worker engine.
    #[arg(long, value_name = "PATH")]
    twain_exe: Option<PathBuf>,
    /// Directory under which each engine gets a fresh subdirectory (default: a temporary
    /// directory, removed afterwards unless --keep).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Keep the databases.
    #[arg(long)]
    keep: bool,
    /// A twain option, e.g. `--set inline_threshold=64` (repeatable). The peers get the
    /// same memtable size, block cache size and bloom filter bits.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write every phase of every engine as JSON lines to this file.
    #[arg(long, value_name = "FILE.jsonl")]
    out: Option<PathBuf>,
    /// Background threads of the peers (twain: one flush and one compaction thread).
    #[arg(long, default_value_t = 2)]
    background_jobs: usize,
    /// Values at least this large are separated by BlobDB and fjall.
    #[arg(long, default_value_t = 64)]
    separation_threshold: u64,
    /// Compression of the peers: `none` (the default, the fair settings of PEERS.md) or
    /// `lz4` (RocksDB and BlobDB: table blocks and blob files; fjall: data blocks and
    /// blobs). Give twain the same with `--set compression=lz4 --set value_compression=lz4`.
    #[arg(long, default_value = "none", value_parser = ["none", "lz4"])]
    peer_compression: String,
    /// Draw throughput, space amplification, cumulative write amplification and memory
    /// use over time, one panel per metric, every engine, into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot_over_time: Option<PathBuf>,
    /// Run nothing: read these JSON-lines files (comma-separated, written by `--out`) and
    /// print the tables and draw `--plot` / `--plot-over-time` from them.
    #[arg(long, value_name = "FILE.jsonl,...")]
    replot: Option<String>,
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("twain-peers: {e}");
        std::process::exit(1);
    }
}

/// Every engine `twain-peers` can run.
const ENGINES: [&str; 9] = [
    "twain",
    "twain-ms",
    "twain-ml",
    "twain-lookup",
    "twain-vlog",
    "twain-worker",
    "rocksdb",
    "blobdb",
    "fjall",
];

fn run(cli: Cli) -> BenchResult<()> {
    if let Some(files) = &cli.replot {
        return replot(&cli, files);
    }
    let plan = cli.bench.plan(Scale::OneK)?;
    // Held for the whole run: every engine runs inside the same limit, one after the
    // other, and the process leaves the group when it is dropped.
    let cgroup = plan
        .memory_limit
        .map(twain_bench::cgroup::MemoryCgroup::enter)
        .transpose()?;
    let mut twain_opts = twain::Options::default();
    for s in &cli.set {
        let (k, v) = s.split_once('=').ok_or_else(|| {
            BenchError::InvalidArgument(format!("--set {s:?}: expected KEY=VALUE"))
        })?;
        twain_opts
            .set(k.trim(), v.trim())
            .map_err(|e| BenchError::InvalidArgument(e.to_string()))?;
    }
    let settings = rocks::PeerSettings {
        memtable_size: twain_opts.memtable_size,
        background_jobs: cli.background_jobs,
        subcompactions: twain_opts.max_subcompactions,
        separation_threshold: cli.separation_threshold,
        bloom_bits_per_key: twain_opts.bloom_bits_per_key,
        block_cache_size: twain_opts.block_cache_size as usize,
        sync: cli.bench.sync,
        lz4: cli.peer_compression == "lz4",
    };
    let engines: Vec<String> = cli
        .engines
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    for e in &engines {
        if !ENGINES.contains(&e.as_str()) {
            return Err(BenchError::InvalidArgument(format!("unknown engine {e:?}")));
        }
    }
    let temp = match &cli.dir {
        Some(_) => None,
        None => Some(
            tempfile::Builder::new()
                .prefix("twain-peers-")
                .tempdir()
                .map_err(|e| BenchError::io("creating a temporary directory", e))?,
        ),
    };
    let base = match (&cli.dir, &temp) {
        (Some(d), _) => d.clone(),
        (None, Some(t)) => t.path().to_path_buf(),
        (None, None) => std::env::temp_dir(),
    };

    println!("# {}", command_line());
    println!("# {}", plan.describe().replace('\n', "\n# "));
    println!(
        "# engines: {}; base directory {}",
        engines.join(", "),
        base.display()
    );
    println!(
        "# peers: compression {}, memtable {} B, {} background jobs, max_subcompactions {}, bloom {} bits/key, block cache {} B, sync {}, BlobDB min_blob_size {} with blob GC (age cutoff 0.25), fjall separation threshold {}",
        if settings.lz4 { "lz4" } else { "off" },
        settings.memtable_size,
        settings.background_jobs,
        settings.subcompactions,
        settings.bloom_bits_per_key,
        settings.block_cache_size,
        settings.sync,
        settings.separation_threshold,
        settings.separation_threshold
    );
    println!(
        "# twain: medium_threshold {}, inline_threshold {} (key + value; twain-ms folds medium into small, twain-ml into large), memtable {} B, compaction_threads {} + 1 flush thread, max_subcompactions {}, value_file_size {} B",
        twain_opts.medium_threshold,
        twain_opts.inline_threshold,
        twain_opts.memtable_size,
        twain_opts.compaction_threads,
        twain_opts.max_subcompactions,
        twain_opts.value_file_size
    );
    println!(
        "# caches: every engine gets a {} B block cache and {} B memtables (RocksDB and BlobDB: block-based table LRU cache; fjall: its block cache; twain: block_cache_size, plus up to memtable_max_log_bytes {} B of log per memtable); value and blob files are read through the OS page cache by every engine{}",
        settings.block_cache_size,
        settings.memtable_size,
        twain_opts.memtable_max_log_bytes,
        match &cgroup {
            Some(g) => format!(
                "; memory cgroup {} limited to {} MiB (memory + page cache), caches dropped before each phase: {}",
                g.path().display(),
                g.limit() >> 20,
                plan.run.drop_caches
            ),
            None => String::new(),
        }
    );

    let mut out_file = match &cli.out {
        Some(p) => Some(
            std::fs::File::create(p)
                .map_err(|e| BenchError::io(format!("creating {}", p.display()), e))?,
        ),
        None => None,
    };
    let mut all: Vec<PhaseResult> = Vec::new();
    for name in &engines {
        let dir = base.join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| BenchError::io(format!("removing {}", dir.display()), e))?;
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| BenchError::io(format!("creating {}", dir.display()), e))?;
        // Let the previous engine's dirty pages reach the disk before timing the next.
        let _ = std::process::Command::new("sync").status();
        eprintln!("== {name}");
        let mut worker = None;
        let engine: Box<dyn Engine> = match name.as_str() {
            "twain-worker" => {
                let exe = cli.twain_exe.as_deref().ok_or_else(|| {
                    BenchError::InvalidArgument("twain-worker needs --twain-exe".into())
                })?;
                let socket = base.join("twain-worker.sock");
                let (engine, w) = worker::open(exe, &dir, &socket, &twain_opts, settings.sync)?;
                worker = Some(w);
                Box::new(engine)
            }
            "twain" => Box::new(TwainEngine::open(&dir, twain_opts.clone(), settings.sync)?),
            // Parallax's baselines: medium pairs folded into small (MS: inline below
            // inline_threshold) or into large (ML: separated from medium_threshold on).
            "twain-ms" => {
                let opts = twain_opts
                    .clone()
                    .medium_threshold(twain_opts.inline_threshold);
                Box::new(TwainEngine::open_named(
                    &dir,
                    opts,
                    settings.sync,
                    "twain-ms",
                )?)
            }
            "twain-ml" => {
                let opts = twain_opts
                    .clone()
                    .inline_threshold(twain_opts.medium_threshold);
                Box::new(TwainEngine::open_named(
                    &dir,
                    opts,
                    settings.sync,
                    "twain-ml",
                )?)
            }
            // Value GC that picks files by drop records and asks the tree which values
            // are live.
            "twain-lookup" => {
                let opts = twain_opts.clone().gc_mode(twain::GcMode::LsmLookup);
                Box::new(TwainEngine::open_named(
                    &dir,
                    opts,
                    settings.sync,
                    "twain-lookup",
                )?)
            }
            // The WiscKey baseline: a circular log collected from its tail by lookups.
            "twain-vlog" => {
                let opts = twain_opts.clone().gc_mode(twain::GcMode::Vlog);
                Box::new(TwainEngine::open_named(
                    &dir,
                    opts,
                    settings.sync,
                    "twain-vlog",
                )?)
            }
            "rocksdb" => Box::new(rocks::RocksEngine::open(&dir, &settings, false)?),
            "blobdb" => Box::new(rocks::RocksEngine::open(&dir, &settings, true)?),
            _ => Box::new(fjall_engine::FjallEngine::open(&dir, &settings)?),
        };
        let mut runner = Runner::new(plan.run.clone(), &plan.phases)?;
        let results = runner.run_all(engine.as_ref(), &plan.phases, |r| {
            eprintln!(
                "   {:<18} {:>10.0} ops/s  p99 {:>8.1} us  p99.9 {:>8.1} us  max {:>9.0} us  wamp {}  samp {}",
                r.phase,
                r.ops_per_sec,
                r.p99_us,
                r.p999_us,
                r.max_us,
                fmt(r.write_amp_io, 2),
                fmt(r.space_amp, 2)
            );
            if let Some(f) = out_file.as_mut() {
                writeln!(f, "{}", r.to_json())
                    .map_err(|e| BenchError::io("writing the JSON lines", e))?;
            }
            if cli.bench.json {
                println!("{}", r.to_json());
            }
            Ok(())
        })?;
        if let Some(w) = worker {
            let (cpu, written) = w.finish()?;
            let host: f64 = results.iter().map(|r| r.cpu_secs).sum();
            println!(
                "# {name}: compaction worker CPU {cpu:.1} s and {:.1} MiB written, beside this process's {host:.1} s of CPU in its phases",
                written as f64 / (1u64 << 20) as f64
            );
        }
        drop(engine);
        if let Some(g) = &cgroup {
            println!(
                "# {name}: memory cgroup peak {} MiB of {} MiB, limit reached {} times",
                g.max_usage().map_or("-".into(), |b| (b >> 20).to_string()),
                g.limit() >> 20,
                g.failcnt().map_or("-".into(), |n| n.to_string())
            );
            g.reset_peak();
        }
        if !cli.keep {
            let _ = std::fs::remove_dir_all(&dir);
        }
        all.extend(results);
    }

    let title = format!(
        "{}: {} keys, values {} B",
        engines.join(" vs "),
        plan.counts.num,
        plan.run.value_dist
    );
    report_all(&cli, &all, &engines, &title)?;
    if cli.keep
        && let Some(t) = temp
    {
        eprintln!("kept {}", t.keep().display());
    }
    Ok(())
}

/// The tables and plots of a run's results.
fn report_all(cli: &Cli, all: &[PhaseResult], engines: &[String], title: &str) -> BenchResult<()> {
    println!("\n{}", comparison(all, engines));
    println!("{}", targets(all));
    println!("{}", tail_targets(all));
    println!("{}", space_targets::whole_run(all, engines));
    println!("{}", space_targets::targets(all));
    if let Some(plot) = &cli.bench.plot {
        twain_bench::plot::plot(all, title, plot)?;
        println!("plot written to {}", plot.display());
    }
    if let Some(plot) = &cli.plot_over_time {
        twain_bench::plot_time::plot_over_time(all, title, plot)?;
        println!("over-time plot written to {}", plot.display());
    }
    Ok(())
}

/// `--replot`: the tables and plots of earlier runs' JSON lines.
fn replot(cli: &Cli, files: &str) -> BenchResult<()> {
    let mut all = Vec::new();
    for f in files.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        let text =
            std::fs::read_to_string(f).map_err(|e| BenchError::io(format!("reading {f}"), e))?;
        all.extend(report::parse_json_lines(&text));
    }
    let mut engines: Vec<String> = Vec::new();
    for r in &all {
        if !engines.contains(&r.engine) {
            engines.push(r.engine.clone());
        }
    }
    if engines.is_empty() {
        return Err(BenchError::InvalidArgument(format!(
            "--replot {files}: no results in these files"
        )));
    }
    report_all(
        cli,
        &all,
        &engines,
        &format!("{} ({files})", engines.join(" vs ")),
    )
}

fn fmt(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => "-".into(),
    }
}

/// The side-by-side tables: one row per phase, one column per engine, and ratios to
/// twain.
fn comparison(all: &[PhaseResult], engines: &[String]) -> String {
    let mut phases: Vec<(usize, String)> = Vec::new();
    for r in all {
        if !phases.iter().any(|(i, _)| *i == r.index) {
            phases.push((r.index, r.phase.clone()));
        }
    }
    phases.sort();
    let find =
        |engine: &str, index: usize| all.iter().find(|r| r.engine == engine && r.index == index);
    let peers: Vec<&String> = engines.iter().filter(|e| *e != "twain").collect();
    let has_twain = engines.iter().any(|e| e == "twain");
    type Metric = fn(&PhaseResult) -> Option<f64>;
    let sections: [(&str, Metric, usize, bool); 14] = [
        ("ops/s", |r| Some(r.ops_per_sec), 0, true),
        (
            "CPU us per op (all threads; less sensitive to a busy machine)",
            |r| Some(r.cpu_us_per_op),
            1,
            false,
        ),
        (
            "machine load average at phase end",
            |r| Some(r.load_avg),
            1,
            false,
        ),
        ("p99 latency, us", |r| Some(r.p99_us), 1, false),
        ("p99.9 latency, us", |r| Some(r.p999_us), 1, false),
        ("max latency, us", |r| Some(r.max_us), 0, false),
        (
            "write stalls, ms (the engine's counter)",
            |r| r.stall_micros.map(|s| s as f64 / 1000.0),
            1,
            false,
        ),
        (
            "write amplification (/proc write_bytes / user bytes)",
            |r| r.write_amp_io,
            2,
            false,
        ),
        (
            "write amplification (engine counters)",
            |r| r.write_amp_engine,
            2,
            false,
        ),
        (
            "cumulative write amplification (/proc, all phases so far)",
            |r| r.cum_write_amp_io,
            2,
            false,
        ),
        (
            "space amplification at phase end (du / live key+value bytes)",
            |r| r.space_amp,
            2,
            false,
        ),
        (
            "space amplification over the phase, time-weighted mean of the samples",
            |r| r.space_amp_mean,
            2,
            false,
        ),
        (
            "space amplification over the phase, highest sample",
            |r| r.space_amp_max,
            2,
            false,
        ),
        (
            "idle CPU, % of one core over the last 5 s of an idle phase (all threads)",
            |r| r.idle_cpu_pct,
            2,
            false,
        ),
    ];
    let mut text = String::new();
    for (title, metric, digits, ratios) in sections {
        let mut header = vec!["phase".to_string()];
        header.extend(engines.iter().cloned());
        if ratios && has_twain {
            header.extend(peers.iter().map(|p| format!("twain/{p}")));
        }
        let mut rows = vec![header];
        for (index, name) in &phases {
            let mut row = vec![name.clone()];
            let value = |e: &str| find(e, *index).and_then(metric);
            for e in engines {
                row.push(fmt(value(e), digits));
            }
            if ratios && has_twain {
                for p in &peers {
                    let r = match (value("twain"), value(p)) {
                        (Some(t), Some(v)) if v > 0.0 => Some(t / v),
                        _ => None,
                    };
                    row.push(fmt(r, 2));
                }
            }
            rows.push(row);
        }
        text.push_str(&format!("## {title}\n{}\n", report::render(&rows)));
    }
    text
}

/// Issue 3's targets, each as a measured ratio and whether it is met. Targets whose
/// engines or phases are not in the run are skipped.
fn targets(all: &[PhaseResult]) -> String {
    let get = |engine: &str, pred: &dyn Fn(&PhaseResult) -> bool| {
        all.iter().find(|r| r.engine == engine && pred(r))
    };
    let ops_ratio = |peer: &str, index: usize| {
        let t = get("twain", &|r| r.index == index)?;
        let p = get(peer, &|r| r.index == index)?;
        (p.ops_per_sec > 0.0).then(|| t.ops_per_sec / p.ops_per_sec)
    };
    let mut rows = vec![vec![
        "target".to_string(),
        "measured".to_string(),
        "met".to_string(),
    ]];
    let mut add = |what: String, value: Option<f64>, ok: &dyn Fn(f64) -> bool| {
        if let Some(v) = value {
            let met = if ok(v) { "yes" } else { "NO" };
            rows.push(vec![what, format!("{v:.2}"), met.to_string()]);
        }
    };
    let Some(first) = all.iter().find(|r| r.engine == "twain") else {
        return String::new();
    };
    let small_values = first.value_dist.parse::<usize>().is_ok_and(|v| v <= 128);
    let mut phases: Vec<(usize, String)> = Vec::new();
    for r in all.iter().filter(|r| r.engine == "twain") {
        phases.push((r.index, r.phase.clone()));
    }
    let updated_at = phases
        .iter()
        .find(|(_, n)| n == "updatezipf")
        .map(|(i, _)| *i);
    for (index, name) in &phases {
        let index = *index;
        let twain = get("twain", &|r| r.index == index);
        if !small_values {
            match name.as_str() {
                "fillrandom" => {
                    add(
                        format!("{name}: twain/rocksdb ops/s >= 2.0"),
                        ops_ratio("rocksdb", index),
                        &|v| v >= 2.0,
                    );
                    add(
                        format!("{name}: twain/blobdb ops/s >= 1.3"),
                        ops_ratio("blobdb", index),
                        &|v| v >= 1.3,
                    );
                    add(
                        format!("{name}: twain write amp (/proc) <= 1.2"),
                        twain.and_then(|t| t.write_amp_io),
                        &|v| v <= 1.2,
                    );
                    add(
                        format!("{name}: twain write amp (engine) <= 1.2"),
                        twain.and_then(|t| t.write_amp_engine),
                        &|v| v <= 1.2,
                    );
                }
                "updatezipf" => {
                    add(
                        format!("{name}: twain/rocksdb ops/s >= 2.0"),
                        ops_ratio("rocksdb", index),
                        &|v| v >= 2.0,
                    );
                    add(
                        format!("{name}: twain/blobdb ops/s >= 1.5"),
                        ops_ratio("blobdb", index),
                        &|v| v >= 1.5,
                    );
                    add(
                        format!("{name}: twain space amp at its end <= 1.5"),
                        twain.and_then(|t| t.space_amp),
                        &|v| v <= 1.5,
                    );
                }
                "readrandom" if updated_at.is_some_and(|u| index > u) => {
                    add(
                        format!("{name} #{index} (after updates): twain/rocksdb >= 1.0"),
                        ops_ratio("rocksdb", index),
                        &|v| v >= 1.0,
                    );
                }
                "scan" => {
                    add(
                        format!("{name}: twain/rocksdb >= 0.8"),
                        ops_ratio("rocksdb", index),
                        &|v| v >= 0.8,
                    );
                }
                _ => {}
            }
        } else {
            add(
                format!("{name} #{index} (small values): twain/rocksdb >= 0.9"),
                ops_ratio("rocksdb", index),
                &|v| v >= 0.9,
            );
        }
        add(
            format!("{name} #{index}: twain/fjall >= 1.2"),
            ops_ratio("fjall", index),
            &|v| v >= 1.2,
        );
        if let Some(t) = twain.filter(|t| t.user_bytes > 0) {
            let best = all
                .iter()
                .filter(|r| r.engine != "twain" && r.index == index)
                .map(|r| r.p99_us)
                .reduce(f64::min);
            add(
                format!(
                    "{name} #{index}: twain p99 / best peer p99 <= 1.0 (twain {:.1} us)",
                    t.p99_us
                ),
                best.filter(|b| *b > 0.0).map(|b| t.p99_us / b),
                &|v| v <= 1.0,
            );
        }
    }
    if let Some(last) = all.iter().rfind(|r| r.engine == "twain") {
        add(
            format!("twain space amp at the end of the run ({})", last.phase),
            last.space_amp,
            &|v| v <= 1.5,
        );
    }
    format!("## issue 3 targets\n{}", report::render(&rows))
}

/// Adds a row for a measured `value` and whether it meets `ok` (none if not measured).
fn target_row(rows: &mut Vec<Vec<String>>, what: String, value: Option<f64>, ok: fn(f64) -> bool) {
    if let Some(v) = value {
        let met = if ok(v) { "yes" } else { "NO" };
        rows.push(vec![what, format!("{v:.2}"), met.to_string()]);
    }
}

/// Issue 20's targets for every phase that writes: fillrandom at least 3× RocksDB and
/// BlobDB, p99.9 at most RocksDB's, the maximum at most 20 ms when twain reports no
/// stall in the phase, and with values of 128 B or less net write amplification at most
/// RocksDB's. Targets whose engines are not in the run are skipped.
fn tail_targets(all: &[PhaseResult]) -> String {
    let get =
        |engine: &str, index: usize| all.iter().find(|r| r.engine == engine && r.index == index);
    let mut rows = vec![vec![
        "target".to_string(),
        "measured".to_string(),
        "met".to_string(),
    ]];
    let per = |a: f64, b: f64| (b > 0.0).then(|| a / b);
    for t in all
        .iter()
        .filter(|r| r.engine == "twain" && r.user_bytes > 0)
    {
        let (name, index) = (&t.phase, t.index);
        let rocks = get("rocksdb", index);
        if name == "fillrandom" {
            for peer in ["rocksdb", "blobdb"] {
                target_row(
                    &mut rows,
                    format!("{name}: twain/{peer} ops/s >= 3.0"),
                    get(peer, index).and_then(|p| per(t.ops_per_sec, p.ops_per_sec)),
                    |v| v >= 3.0,
                );
            }
        }
        target_row(
            &mut rows,
            format!(
                "{name} #{index}: twain p99.9 / rocksdb p99.9 <= 1.0 (twain {:.1} us)",
                t.p999_us
            ),
            rocks.and_then(|r| per(t.p999_us, r.p999_us)),
            |v| v <= 1.0,
        );
        let stalled = t.stall_micros.is_some_and(|s| s > 0) || t.stalls.values().any(|n| *n > 0);
        if stalled {
            rows.push(vec![
                format!(
                    "{name} #{index}: twain max, ms (stalls reported: {:.1} ms)",
                    t.stall_micros.unwrap_or(0) as f64 / 1000.0
                ),
                format!("{:.2}", t.max_us / 1000.0),
                "-".to_string(),
            ]);
        } else {
            target_row(
                &mut rows,
                format!("{name} #{index}: twain max, ms <= 20 (no stall reported)"),
                Some(t.max_us / 1000.0),
                |v| v <= 20.0,
            );
        }
        if t.value_dist.parse::<usize>().is_ok_and(|v| v <= 128) {
            target_row(
                &mut rows,
                format!("{name} #{index}: twain/rocksdb net write amp (/proc) <= 1.0"),
                rocks.and_then(|r| per(t.write_amp_io_net?, r.write_amp_io_net?)),
                |v| v <= 1.0,
            );
        }
    }
    format!("## issue 20 targets\n{}", report::render(&rows))
}
