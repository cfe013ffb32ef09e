//! The subcommands.

use crate::say::note;
use crate::text::Text;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use twain::{Db, Options, WriteOptions};

/// twain: an embeddable key-value store for SSDs (LSM-tree with key-value separation).
#[derive(Debug, Parser)]
#[command(name = "twain", version, about)]
pub struct Cli {
    /// The database directory.
    #[arg(long, global = true, default_value = "twain-db")]
    db: PathBuf,
    /// Set an engine option, e.g. `--set memtable_size=8M` (repeatable).
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Keys and values on the command line, in `scan` output and in `import` input are hex.
    #[arg(long, global = true)]
    hex: bool,
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    fn open(&self, create: bool) -> twain::Result<Db> {
        let mut opts = Options {
            create_if_missing: create,
            ..Options::default()
        };
        apply_sets(&mut opts, &self.set)?;
        Db::open(&self.db, opts)
    }

    /// Opens the database for an inspecting command: read-only, so it writes nothing and
    /// works while another process (`twain serve`) has the database open.
    fn open_read_only(&self) -> twain::Result<Db> {
        let mut opts = Options::default();
        apply_sets(&mut opts, &self.set)?;
        Db::open_read_only(&self.db, opts)
    }

    fn text(&self) -> Text {
        Text { hex: self.hex }
    }
}

/// Applies `key=value` option settings.
pub fn apply_sets(opts: &mut Options, sets: &[String]) -> twain::Result<()> {
    for s in sets {
        let (k, v) = s.split_once('=').ok_or_else(|| {
            twain::Error::InvalidArgument(format!("--set {s:?}: expected KEY=VALUE"))
        })?;
        opts.set(k.trim(), v.trim())?;
    }
    Ok(())
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Set a key to a value (creates the database if missing).
    Put {
        key: String,
        value: String,
        /// Sync the write to disk before returning.
        #[arg(long)]
        sync: bool,
    },
    /// Print the value of a key (exit status 1 if it is absent).
    Get { key: String },
    /// Delete a key.
    Delete {
        key: String,
        /// Sync the write to disk before returning.
        #[arg(long)]
        sync: bool,
    },
    /// List keys and values in order, one `key<TAB>value` line each (bytes that are not
    /// printable ASCII, and the backslash, as `\xNN`; everything hex with --hex).
    Scan {
        /// First key (inclusive).
        #[arg(long)]
        from: Option<String>,
        /// Last key (exclusive).
        #[arg(long)]
        to: Option<String>,
        /// Only keys with this prefix (overrides --from/--to).
        #[arg(long)]
        prefix: Option<String>,
        /// Walk backwards.
        #[arg(long)]
        reverse: bool,
        /// Stop after this many pairs.
        #[arg(long)]
        limit: Option<usize>,
        /// Print keys only, one a line; no value file is read.
        #[arg(long, conflicts_with = "count")]
        keys_only: bool,
        /// Print only how many keys there are (no value file is read).
        #[arg(long)]
        count: bool,
    },
    /// Read `key<TAB>value` lines as `scan` prints them from stdin and write them in
    /// batches (creates the database if missing).
    Import {
        /// Pairs per write batch.
        #[arg(long, default_value_t = 1000)]
        batch: usize,
        /// Sync every batch before the next.
        #[arg(long)]
        sync: bool,
    },
    /// Write random 16-byte keys in a random order with random values, then flush; prints
    /// ops/s, MB/s and write amplification (creates the database if missing).
    Load {
        /// Number of keys.
        #[arg(long, default_value_t = 100_000)]
        num: u64,
        /// Value size: `1024`, `4K`, `100..1000` (uniform), or the mixes `sd`, `md`, `ld`.
        #[arg(long, default_value = "1K")]
        value_size: String,
        /// Pairs per write batch.
        #[arg(long, default_value_t = 1)]
        batch: usize,
        /// Random seed (key order and value bytes).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Sync every batch.
        #[arg(long)]
        sync: bool,
    },
    /// Print statistics, with the exact live-data figure (one pass over every table's keys)
    /// unless --fast.
    Stats {
        /// As one JSON object.
        #[arg(long)]
        json: bool,
        /// Skip the pass over every table's keys: the live-data figure (and so the space
        /// amplification) is then the referenced bytes, an upper bound.
        #[arg(long)]
        fast: bool,
    },
    /// Flush the memtable to an SSTable.
    Flush,
    /// Compact the whole key space down to the last level.
    Compact,
    /// Run value GC until no value file's live fraction is below gc_threshold.
    Gc,
    /// Print a readable form of a database file (.sst, .vlog, .svt, .manifest, .drop, CURRENT, IDENTITY).
    Dump {
        /// The file.
        file: PathBuf,
    },
    /// Benchmark twain with db_bench / YCSB workloads on a fresh database (its own --dir;
    /// --set applies).
    Bench(crate::bench::BenchCmd),
    /// Verify a closed database offline: every checksum, every value handle, the manifest
    /// against the files present (exit status 1 on any problem).
    Check,
    /// Rebuild a closed database's manifest from its tables, value files and drop files
    /// (after CURRENT or the manifest was lost or damaged); unusable files go to lost/.
    Repair,
    /// Random multi-threaded operations, checked as they run, with an expected-state file
    /// (the child process of `twain crashtest`).
    Stress(crate::stress::StressArgs),
    /// The kill loop: run `twain stress`, SIGKILL it at random moments, verify every key.
    Crashtest(crate::crashtest::CrashtestArgs),
    /// Serve a database over the Redis protocol (RESP2/RESP3); see docs/server.md.
    Serve(twain_server::ServeArgs),
    /// Serve compaction parts of the database to the process that has it open (Co-KV
    /// offload: the host sets compaction_offload to this address).
    CompactionWorker(crate::worker::WorkerArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> twain::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let w = |e: std::io::Error| twain::Error::Io {
        op: "write",
        path: "stdout".into(),
        source: e,
    };
    let text = cli.text();
    match &cli.command {
        Command::Put { key, value, sync } => {
            let (key, value) = (text.arg("key", key)?, text.arg("value", value)?);
            cli.open(true)?
                .put_opt(key, value, &WriteOptions { sync: *sync })
        }
        Command::Get { key } => match cli.open_read_only()?.get(text.arg("key", key)?)? {
            Some(v) if cli.hex => writeln!(out, "{}", text.show(&v)).map_err(w),
            Some(v) => {
                out.write_all(&v).map_err(w)?;
                writeln!(out).map_err(w)
            }
            None => {
                note!("not found");
                std::process::exit(1);
            }
        },
        Command::Delete { key, sync } => cli
            .open(false)?
            .delete_opt(text.arg("key", key)?, &WriteOptions { sync: *sync }),
        Command::Scan {
            from,
            to,
            prefix,
            reverse,
            limit,
            keys_only,
            count,
        } => {
            let db = cli.open_read_only()?;
            let bound = |k: &Option<String>| k.as_deref().map(|k| text.arg("key", k)).transpose();
            let iter = match (prefix, bound(from)?, bound(to)?) {
                (Some(p), _, _) => db.prefix(text.arg("prefix", p)?),
                (None, Some(a), Some(b)) => db.range(a..b),
                (None, Some(a), None) => db.range(a..),
                (None, None, Some(b)) => db.range(..b),
                (None, None, None) => db.iter(),
            };
            let limit = limit.unwrap_or(usize::MAX);
            if *keys_only || *count {
                let keys = iter.into_keys();
                let keys: Box<dyn Iterator<Item = twain::Result<Vec<u8>>>> = if *reverse {
                    Box::new(keys.rev())
                } else {
                    Box::new(keys)
                };
                let mut n = 0u64;
                for k in keys.take(limit) {
                    let k = k?;
                    n += 1;
                    if !*count {
                        writeln!(out, "{}", text.show(&k)).map_err(w)?;
                    }
                }
                if *count {
                    writeln!(out, "{n}").map_err(w)?;
                }
                return Ok(());
            }
            let iter: Box<dyn Iterator<Item = twain::Result<twain::KvPair>>> = if *reverse {
                Box::new(iter.rev())
            } else {
                Box::new(iter)
            };
            for kv in iter.take(limit) {
                let (k, v) = kv?;
                writeln!(out, "{}\t{}", text.show(&k), text.show(&v)).map_err(w)?;
            }
            Ok(())
        }
        Command::Import { batch, sync } => {
            let db = cli.open(true)?;
            let stdin = std::io::stdin();
            let opts = WriteOptions { sync: *sync };
            let n = crate::bulk::import(&db, text, &mut stdin.lock(), *batch, &opts)?;
            note!("imported {n} pairs");
            Ok(())
        }
        Command::Load {
            num,
            value_size,
            batch,
            seed,
            sync,
        } => {
            let spec = crate::bulk::LoadSpec {
                num: *num,
                value_size: value_size.clone(),
                batch: *batch,
                seed: *seed,
                sync: *sync,
            };
            crate::bulk::load(&cli.open(true)?, &spec, &mut out)
        }
        Command::Stats { json, fast } => {
            let db = cli.open_read_only()?;
            if !*fast {
                // A failed pass shows in the statistics (`live_bytes_error`).
                let _ = db.refresh_live_bytes();
            }
            let s = db.stats()?;
            let text = if *json { s.to_json() } else { s.to_text() };
            writeln!(out, "{text}").map_err(w)
        }
        Command::Flush => cli.open(false)?.flush(),
        Command::Compact => cli.open(false)?.compact_range(None, None),
        Command::Gc => {
            let db = cli.open(false)?;
            let report = db.gc_report()?;
            let s = db.stats()?;
            for f in db.gc_set_aside() {
                writeln!(out, "set aside value file {}: {f}", f.number).map_err(w)?;
            }
            write!(out, "{report}").map_err(w)?;
            writeln!(
                out,
                "read {} bytes, wrote {} bytes, {} files deleted unread; space amplification {}",
                s.gc_bytes_read,
                s.gc_bytes_written,
                s.gc_files_deleted_unread,
                s.space_amplification().map_or_else(
                    || format!("n/a (nothing live, {} bytes on disk)", s.disk.total()),
                    |a| format!("{a:.2}")
                )
            )
            .map_err(w)
        }
        Command::Check => crate::check::run(&cli.db, &cli.set, &mut out),
        Command::Repair => crate::repair::run(&cli.db, &cli.set, &mut out),
        Command::Stress(args) => crate::stress::run(args, &cli.set),
        Command::Crashtest(args) => crate::crashtest::run(args),
        Command::CompactionWorker(args) => crate::worker::run(&cli.db, args),
        Command::Dump { file } => {
            let fs: Arc<dyn twain::fs::Fs> = Arc::new(twain::fs::RealFs::new());
            twain::dump::dump_file(&fs, file, &mut out)
        }
        Command::Bench(cmd) => crate::bench::run(cmd, &cli.set),
        Command::Serve(args) => {
            let args = twain_server::ServeArgs {
                db: cli.db.clone(),
                set: cli.set.clone(),
                ..args.clone()
            };
            if let Err(e) = twain_server::serve(&args) {
                note!("twain serve: {e}");
                std::process::exit(1);
            }
            Ok(())
        }
    }
}
