//! The subcommands.

use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use twain::{Db, Options, WriteOptions};

/// twain: an embeddable key-value store for SSDs (LSM-tree with key-value separation).
#[derive(Debug, Parser)]
#[command(name = "twain", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct DbArgs {
    /// The database directory.
    db: PathBuf,
    /// Set an engine option, e.g. `--set memtable_size=8M` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl DbArgs {
    fn open(&self, create: bool) -> twain::Result<Db> {
        let mut opts = Options {
            create_if_missing: create,
            ..Options::default()
        };
        apply_sets(&mut opts, &self.set)?;
        Db::open(&self.db, opts)
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
        #[command(flatten)]
        db: DbArgs,
        key: String,
        value: String,
        /// Sync the write to disk before returning.
        #[arg(long)]
        sync: bool,
    },
    /// Print the value of a key (exit status 1 if it is absent).
    Get {
        #[command(flatten)]
        db: DbArgs,
        key: String,
    },
    /// Delete a key.
    Delete {
        #[command(flatten)]
        db: DbArgs,
        key: String,
        /// Sync the write to disk before returning.
        #[arg(long)]
        sync: bool,
    },
    /// List keys and values in order.
    Scan {
        #[command(flatten)]
        db: DbArgs,
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
    },
    /// Print statistics.
    Stats {
        #[command(flatten)]
        db: DbArgs,
        /// As one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Flush the memtable to an SSTable.
    Flush {
        #[command(flatten)]
        db: DbArgs,
    },
    /// Compact the whole key space down to the last level.
    Compact {
        #[command(flatten)]
        db: DbArgs,
    },
    /// Run value GC until no value file's live fraction is below gc_threshold.
    Gc {
        #[command(flatten)]
        db: DbArgs,
    },
    /// Print a readable form of a database file (.sst, .vlog, .svt, .manifest, .drop, CURRENT).
    Dump {
        /// The file.
        file: PathBuf,
    },
    /// Benchmark twain with db_bench / YCSB workloads on a fresh database.
    Bench(crate::bench::BenchCmd),
    /// Verify a closed database offline: every checksum, every value handle, the manifest
    /// against the files present (exit status 1 on any problem).
    Check {
        #[command(flatten)]
        db: DbArgs,
    },
    /// Random multi-threaded operations, checked as they run, with an expected-state file
    /// (the child process of `twain crashtest`).
    Stress(crate::stress::StressArgs),
    /// The kill loop: run `twain stress`, SIGKILL it at random moments, verify every key.
    Crashtest(crate::crashtest::CrashtestArgs),
    /// Serve a database over the Redis protocol (RESP2/RESP3); see docs/server.md.
    Serve(twain_server::ServeArgs),
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
    match cli.command {
        Command::Put {
            db,
            key,
            value,
            sync,
        } => db.open(true)?.put_opt(key, value, &WriteOptions { sync }),
        Command::Get { db, key } => match db.open(false)?.get(key)? {
            Some(v) => {
                out.write_all(&v).map_err(w)?;
                writeln!(out).map_err(w)
            }
            None => {
                eprintln!("not found");
                std::process::exit(1);
            }
        },
        Command::Delete { db, key, sync } => {
            db.open(false)?.delete_opt(key, &WriteOptions { sync })
        }
        Command::Scan {
            db,
            from,
            to,
            prefix,
            reverse,
            limit,
        } => {
            let db = db.open(false)?;
            let iter = match (prefix, from, to) {
                (Some(p), _, _) => db.prefix(p),
                (None, Some(a), Some(b)) => db.range(a..b),
                (None, Some(a), None) => db.range(a..),
                (None, None, Some(b)) => db.range(..b),
                (None, None, None) => db.iter(),
            };
            let iter: Box<dyn Iterator<Item = twain::Result<twain::KvPair>>> = if reverse {
                Box::new(iter.rev())
            } else {
                Box::new(iter)
            };
            for kv in iter.take(limit.unwrap_or(usize::MAX)) {
                let (k, v) = kv?;
                writeln!(
                    out,
                    "{}\t{}",
                    twain::dump::escape(&k),
                    twain::dump::escape(&v)
                )
                .map_err(w)?;
            }
            Ok(())
        }
        Command::Stats { db, json } => {
            let s = db.open(false)?.stats()?;
            let text = if json { s.to_json() } else { s.to_text() };
            writeln!(out, "{text}").map_err(w)
        }
        Command::Flush { db } => db.open(false)?.flush(),
        Command::Compact { db } => db.open(false)?.compact_range(None, None),
        Command::Gc { db } => {
            let db = db.open(false)?;
            let runs = db.gc()?;
            let s = db.stats()?;
            writeln!(
                out,
                "collected {runs} value files: read {} bytes, wrote {} bytes, {} files deleted unread; space amplification {:.2}",
                s.gc_bytes_read,
                s.gc_bytes_written,
                s.gc_files_deleted_unread,
                s.space_amplification()
            )
            .map_err(w)
        }
        Command::Check { db } => crate::check::run(&db.db, &db.set, &mut out),
        Command::Stress(args) => crate::stress::run(&args),
        Command::Crashtest(args) => crate::crashtest::run(&args),
        Command::Dump { file } => {
            let fs: Arc<dyn twain::fs::Fs> = Arc::new(twain::fs::RealFs::new());
            twain::dump::dump_file(&fs, &file, &mut out)
        }
        Command::Bench(cmd) => crate::bench::run(cmd),
        Command::Serve(args) => {
            if let Err(e) = twain_server::serve(&args) {
                eprintln!("twain serve: {e}");
                std::process::exit(1);
            }
            Ok(())
        }
    }
}
