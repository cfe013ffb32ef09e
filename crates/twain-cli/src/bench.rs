//! `twain bench`: db_bench / YCSB-style workloads on a fresh twain database.

use crate::say::{note, note_text};
use crate::units::Sizes;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use twain::Options;
use twain_bench::args::{BenchArgs, Scale, command_line};
use twain_bench::runner::Runner;
use twain_bench::{BenchError, TwainEngine, report};

/// Options of `twain bench`.
#[derive(Debug, Args)]
pub struct BenchCmd {
    #[command(flatten)]
    args: BenchArgs,
    /// Database directory; must be empty or absent unless --use-existing. Default: a
    /// fresh temporary directory, removed afterwards unless --keep.

    #[arg(long)]
    dir: Option<PathBuf>,
    /// Keep the temporary database directory.
    #[arg(long)]
    keep: bool,
    /// Run on the database already in --dir (db_bench's --use_existing_db), e.g. to
    /// profile reads apart from the fill. It must hold a fill of the same --num and
    /// --value-size: space amplification assumes so.
    #[arg(long, requires = "dir")]
    use_existing: bool,
    /// Start a `twain compaction-worker` process for the database and offload parts of
    /// split compactions to it (Co-KV; needs --set max_subcompactions=2 or more). The
    /// worker's CPU seconds and bytes written are printed at the end beside this
    /// process's.
    #[arg(long)]
    compaction_worker: bool,
    /// Read values shared with the table block or read buffer they lie in instead of
    /// copied (`Db::get_pinned`, `Db::range_pinned`) in gets and scans.
    #[arg(long)]
    pinned_reads: bool,
}

/// Runs the benchmark, printing the configuration, then a table (or JSON lines); the
/// sizes of the statistics at the end as `sizes` says.
pub fn run(
    cmd: &BenchCmd,
    sets: &[String],
    sizes: Sizes,
    out: &mut dyn Write,
) -> twain::Result<()> {
    let shown = cmd.dir.clone().unwrap_or_else(std::env::temp_dir);
    bench(cmd, sets, sizes, out).map_err(|e| match e {
        BenchError::InvalidArgument(s) => twain::Error::InvalidArgument(s),
        other => twain::Error::Io {
            op: "bench",
            path: shown,
            source: std::io::Error::other(other.to_string()),
        },
    })
}

fn bench(
    cmd: &BenchCmd,
    sets: &[String],
    sizes: Sizes,
    out: &mut dyn Write,
) -> Result<(), BenchError> {
    let plan = cmd.args.plan(Scale::Small)?;
    // Held for the whole run: the process leaves the group when it is dropped.
    let _cgroup = plan
        .memory_limit
        .map(twain_bench::cgroup::MemoryCgroup::enter)
        .transpose()?;
    let mut opts = Options::default();
    crate::commands::apply_sets(&mut opts, sets)
        .map_err(|e| BenchError::InvalidArgument(e.to_string()))?;
    opts.validate()
        .map_err(|e| BenchError::InvalidArgument(e.to_string()))?;

    let (dir, temp) = match &cmd.dir {
        Some(d) => {
            let empty = match std::fs::read_dir(d) {
                Ok(mut entries) => entries.next().is_none(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                Err(e) => return Err(BenchError::io(format!("reading {}", d.display()), e)),
            };
            if !empty && !cmd.use_existing {
                return Err(BenchError::InvalidArgument(format!(
                    "--dir {} is not empty; benchmarks start from an empty database",
                    d.display()
                )));
            }
            (d.clone(), None)
        }
        None => {
            let t = tempfile::Builder::new()
                .prefix("twain-bench-")
                .tempdir()
                .map_err(|e| BenchError::io("creating a temporary directory", e))?;
            (t.path().to_path_buf(), Some(t))
        }
    };

    let header = format!(
        "# {}\n# database: {}{}\n# {}\n# engine options: {}\n{}",
        command_line(),
        dir.display(),
        if temp.is_some() && !cmd.keep {
            " (temporary, removed afterwards)"
        } else {
            ""
        },
        plan.describe().replace('\n', "\n# "),
        engine_options(&opts),
        if cmd.pinned_reads {
            "# reads: pinned (Db::get_pinned, Db::range_pinned: values shared, not copied)\n"
        } else {
            ""
        },
    );
    let w = |e: std::io::Error| BenchError::io("writing stdout", e);
    let w_err = w;
    if cmd.args.json {
        note_text!("{header}");
    } else {
        write!(out, "{header}").map_err(w)?;
    }

    let sockets = match cmd.compaction_worker {
        true => Some(crate::bench_worker::prepare(&mut opts)?),
        false => None,
    };
    let engine = TwainEngine::open(&dir, opts, cmd.args.sync)?.with_pinned_reads(cmd.pinned_reads);
    let worker = match &sockets {
        Some(s) => Some(crate::bench_worker::BenchWorker::start(&dir, s)?),
        None => None,
    };
    let mut runner = Runner::new(plan.run.clone(), &plan.phases)?;
    let json = cmd.args.json;
    let results = runner.run_all(&engine, &plan.phases, |r| {
        if json {
            writeln!(out, "{}", r.to_json()).map_err(w)?;
            out.flush().map_err(w)
        } else {
            Ok(())
        }
    })?;
    if !json {
        writeln!(out, "\n{}", report::table(&results)).map_err(w)?;
        let stats = engine
            .db()
            .stats()
            .map_err(|e| BenchError::engine("twain", e))?;
        let text = crate::stats::to_text(&stats, sizes);
        writeln!(out, "twain statistics at the end:\n{text}").map_err(w)?;
    }
    if let Some(w) = worker {
        let stats = engine
            .db()
            .stats()
            .map_err(|e| BenchError::engine("twain", e))?;
        let line = w.finish(&stats, sizes)?;
        if json {
            note_text!("{line}\n");
        } else {
            writeln!(out, "{line}").map_err(w_err)?;
        }
    }
    if let Some(plot) = &cmd.args.plot {
        let title = format!(
            "twain bench: {} keys, values {} B, {} thread(s)",
            plan.counts.num, plan.run.value_dist, plan.run.threads
        );
        twain_bench::plot::plot(&results, &title, plot)?;
        if !json {
            writeln!(out, "plot written to {}", plot.display()).map_err(w)?;
        }
    }
    drop(engine);
    finish(temp, cmd.keep, &dir)
}

/// Removes the temporary directory, or says where it was kept.
fn finish(temp: Option<tempfile::TempDir>, keep: bool, dir: &Path) -> Result<(), BenchError> {
    match temp {
        Some(t) if keep => {
            let kept = t.keep();
            note!("kept {}", kept.display());
            Ok(())
        }
        Some(t) => t
            .close()
            .map_err(|e| BenchError::io(format!("removing {}", dir.display()), e)),
        None => Ok(()),
    }
}

/// The engine options that matter for performance, as one line.
fn engine_options(o: &Options) -> String {
    format!(
        "inline_threshold={} memtable_size={} value_file_size={} block_size={} bloom_bits_per_key={} block_cache_size={} l0_compaction_trigger={} l1_target_size={} level_size_ratio={} target_file_size={} compaction_threads={} prefetch_threads={}",
        o.inline_threshold,
        o.memtable_size,
        o.value_file_size,
        o.block_size,
        o.bloom_bits_per_key,
        o.block_cache_size,
        o.l0_compaction_trigger,
        o.l1_target_size,
        o.level_size_ratio,
        o.target_file_size,
        o.compaction_threads,
        o.prefetch_threads
    )
}
