//! The subcommands.

use crate::Outcome;
use crate::say::note;
use crate::text::Text;
use crate::units::{Sizes, counted};
use clap::{Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use twain::{Db, Options, WriteOptions};

/// The version `--version` shows: the package's, and the git commit of the build
/// ("unknown" when built outside a repository; see build.rs).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("TWAIN_COMMIT"),
    ")"
);

/// twain: an embeddable key-value store for SSDs (LSM-tree with key-value separation).
#[derive(Debug, Parser)]
#[command(name = "twain", version = VERSION, about)]
pub struct Cli {
    /// The database directory.
    #[arg(long, global = true, default_value = "twain-db")]
    db: PathBuf,
    /// Set an engine option, e.g. `--set memtable_size=8M` (repeatable).
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Keys and values on the command line, in `scan` output and in `import` input are hex
    /// (without it: UTF-8 with the `\xNN` escapes `scan` prints; a backslash is `\x5c`).
    #[arg(long, global = true)]
    hex: bool,
    /// Write sizes as exact byte counts (`122683392 B`) instead of `117.0 MiB`.
    #[arg(long, global = true)]
    bytes: bool,
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    fn open(&self, create: bool) -> twain::Result<Db> {
        let mut opts = Options::default().create_if_missing(create);
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

    fn sizes(&self) -> Sizes {
        Sizes { exact: self.bytes }
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
    #[command(
        after_help = "Examples:\n  twain --db DIR put user:1 alice\n  twain --db DIR put --sync \"key\\x00\" \"value with a\\x09tab\"\n  twain --db DIR --hex put 00ff 68656c6c6f"
    )]
    Put {
        /// The key (`\xNN` escapes as `scan` prints them; hex with --hex).
        key: String,
        /// The value (`\xNN` escapes as `scan` prints them; hex with --hex).
        value: String,
        /// Sync the write to disk before returning.
        #[arg(long)]
        sync: bool,
    },
    /// Print the value of a key: its bytes exactly, nothing added, when stdout is not a
    /// terminal (`twain get KEY > file`); on a terminal a newline follows. Exit status 1 if
    /// the key is absent.
    #[command(
        after_help = "Examples:\n  twain --db DIR get user:1\n  twain --db DIR get photo:7 > photo.jpg    # the bytes exactly\n  twain --db DIR get user:1 || echo \"absent (status 1) or an error (status 2)\""
    )]
    Get {
        /// The key (`\xNN` escapes as `scan` prints them; hex with --hex).
        key: String,
        /// Write the value's bytes exactly even to a terminal (and even with --hex, which
        /// then applies to the key only).
        #[arg(long)]
        raw: bool,
    },
    /// Delete a key.
    #[command(after_help = "Example:\n  twain --db DIR delete user:1")]
    Delete {
        /// The key (`\xNN` escapes as `scan` prints them; hex with --hex).
        key: String,
        /// Sync the write to disk before returning.
        #[arg(long)]
        sync: bool,
    },
    /// Delete every key from START (included) to END (excluded), in one write however
    /// many keys the range holds.
    #[command(
        name = "delete-range",
        after_help = "Example:\n  twain --db DIR delete-range user: 'user;'    # every key starting with user:"
    )]
    DeleteRange {
        /// The first key deleted (`\xNN` escapes as `scan` prints them; hex with --hex).
        start: String,
        /// The first key after the range, not deleted (escapes and --hex as START).
        end: String,
        /// Sync the write to disk before returning.
        #[arg(long)]
        sync: bool,
    },
    /// List keys and values in order, one `key<TAB>value` line each (bytes that are not
    /// printable ASCII, and the backslash, as `\xNN`; everything hex with --hex).
    #[command(
        after_help = "Examples:\n  twain --db DIR scan --prefix user: --limit 10\n  twain --db DIR scan --prefix user: --from user:5000 --keys-only\n  twain --db DIR scan --count\n  twain --db old scan | twain --db new import"
    )]
    Scan(crate::scan::ScanArgs),
    /// Read `key<TAB>value` lines as `scan` prints them from stdin, write them in batches
    /// and flush (creates the database if missing). The input is bytes, not necessarily
    /// UTF-8. At a malformed line it stops, saying how many pairs, every one before that
    /// line, were written.
    #[command(
        after_help = "Examples:\n  twain --db old scan | twain --db new import --sync\n  twain --db DIR import --skip-bad < pairs.tsv"
    )]
    Import {
        /// Pairs per write batch.
        #[arg(long, default_value_t = 1000)]
        batch: usize,
        /// Sync every batch before the next.
        #[arg(long)]
        sync: bool,
        /// Skip malformed lines (naming the first few) instead of stopping at the first.
        #[arg(long)]
        skip_bad: bool,
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
    /// unless --fast, and an estimate of the number of keys.
    #[command(
        after_help = "Examples:\n  twain --db DIR stats\n  twain --db DIR stats --json --fast\n  twain --db DIR --bytes stats"
    )]
    Stats(crate::stats::StatsArgs),
    /// Flush the memtable to an SSTable.
    Flush,
    /// Compact the whole key space down to the last level.
    Compact,
    /// Run value GC until no value file's live fraction is below gc_threshold.
    #[command(
        after_help = "Examples:\n  twain --db DIR gc --set gc_threshold=0.5\n  twain --db DIR gc --json"
    )]
    Gc(crate::gc::GcArgs),
    /// Print a readable form of a database file (.sst, .vlog, .svt, .manifest, .drop,
    /// CURRENT, IDENTITY), or a summary of every file of a database directory.
    #[command(
        after_help = "Examples:\n  twain dump DIR/000012.sst | less\n  twain dump DIR/000012.sst --from user:5 --to user:6 --limit 20\n  twain dump DIR/000012.sst --properties --json\n  twain dump DIR"
    )]
    Dump(crate::dump::DumpArgs),
    /// Benchmark twain with db_bench / YCSB workloads on a fresh database (its own --dir;
    /// --set applies).
    Bench(crate::bench::BenchCmd),
    /// Verify a closed database offline: every checksum, every value handle, the manifest
    /// against the files present (exit status 1 on any problem).
    #[command(
        after_help = "Examples:\n  twain --db DIR check && echo sound\n  twain --db DIR check --json"
    )]
    Check(crate::check::CheckArgs),
    /// Make an openable copy of the database in DIR, consistent at one sequence number:
    /// hard links for the files that never change, copies for the rest.
    #[command(
        after_help = "Examples:\n  twain --db DIR checkpoint /backups/db-monday\n  twain --db DIR checkpoint --copy /mnt/other-disk/db"
    )]
    Checkpoint(crate::backup::CheckpointArgs),
    /// Copy every pair (with its expiry time) into a new database in DIR opened with the
    /// options --to-set gives: the way to change what a database keeps from its creation,
    /// such as its value layout. The source is opened read-only.
    #[command(
        after_help = "Examples:\n  twain --db DIR copy NEWDIR --to-set value_layout=hash\n  twain --db DIR copy NEWDIR --to-set inline_threshold=1K --to-set compression=zstd"
    )]
    Copy(crate::backup::CopyArgs),
    /// Back the database up into a backup directory, incrementally (unchanged files are
    /// shared with earlier backups); or list, verify or delete its backups.
    #[command(
        after_help = "Examples:\n  twain --db DIR backup /backups/db\n  twain backup /backups/db --list\n  twain backup /backups/db --verify 3\n  twain backup /backups/db --delete 1"
    )]
    Backup(crate::backup::BackupArgs),
    /// Restore backup ID of a backup directory into the --db directory (new or empty).
    #[command(after_help = "Examples:\n  twain --db /srv/db-restored restore /backups/db 3")]
    Restore(crate::backup::RestoreArgs),
    /// Rebuild a closed database's manifest from its tables, value files and drop files
    /// (after CURRENT or the manifest was lost or damaged); unusable files go to lost/.
    Repair,
    /// Test harnesses of the engine (not for use on a database that matters).
    #[command(hide = true)]
    Debug {
        #[command(subcommand)]
        command: DebugCommand,
    },
    /// Print a shell's completion script for twain, e.g.
    /// `twain completions bash > ~/.local/share/bash-completion/completions/twain`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Serve a database over the Redis protocol (RESP2/RESP3); see docs/server.md.
    Serve(twain_server::ServeArgs),
    /// Serve compaction parts of the database to the process that has it open (Co-KV
    /// offload: the host sets compaction_offload to this address).
    CompactionWorker(crate::worker::WorkerArgs),
}

/// The subcommands of `twain debug`: test harnesses, hidden from the main help.
#[derive(Debug, Subcommand)]
enum DebugCommand {
    /// Random multi-threaded operations, checked as they run, with an expected-state file
    /// (the child process of `twain debug crashtest`).
    Stress(crate::stress::StressArgs),
    /// The kill loop: run `twain debug stress`, SIGKILL it at random moments, verify every
    /// key.
    Crashtest(crate::crashtest::CrashtestArgs),
}

/// Runs a parsed command line: its results go to stdout, flushed before it returns.
pub fn run(cli: Cli) -> twain::Result<Outcome> {
    let mut out = crate::out::stdout();
    let outcome = run_with(&cli, &mut out)?;
    out.flush().map_err(stdout_error)?;
    Ok(outcome)
}

/// The error of a failed write of a command's results.
fn stdout_error(source: std::io::Error) -> twain::Error {
    twain::Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    }
}

/// Runs one command, writing its results to `out`. Every database it opens is closed
/// before it returns: with [`Db::close`], whose error is the command's, when the command
/// succeeded; by the drop while an error unwinds it.
fn run_with(cli: &Cli, out: &mut dyn Write) -> twain::Result<Outcome> {
    let w = stdout_error;
    let text = cli.text();
    match &cli.command {
        Command::Put { key, value, sync } => {
            let (key, value) = (text.arg("key", key)?, text.arg("value", value)?);
            let db = cli.open(true)?;
            db.put_opt(key, value, &WriteOptions::default().sync(*sync))?;
            db.close()?;
        }
        Command::Get { key, raw } => {
            let db = cli.open_read_only()?;
            let value = db.get(text.arg("key", key)?)?;
            db.close()?;
            match value {
                Some(v) if *raw => out.write_all(&v).map_err(w)?,
                Some(v) if cli.hex => writeln!(out, "{}", text.show(&v)).map_err(w)?,
                Some(v) => {
                    out.write_all(&v).map_err(w)?;
                    if std::io::stdout().is_terminal() {
                        writeln!(out).map_err(w)?;
                    }
                }
                None => {
                    note!("twain: not found: {key}");
                    return Ok(Outcome::No);
                }
            }
        }
        Command::Delete { key, sync } => {
            let key = text.arg("key", key)?;
            let db = cli.open(false)?;
            db.delete_opt(key, &WriteOptions::default().sync(*sync))?;
            db.close()?;
        }
        Command::DeleteRange { start, end, sync } => {
            let start = text.arg("start", start)?;
            let end = text.arg("end", end)?;
            let db = cli.open(false)?;
            db.delete_range_opt(start, end, &WriteOptions::default().sync(*sync))?;
            db.close()?;
        }
        Command::Scan(args) => {
            let db = cli.open_read_only()?;
            crate::scan::run(&db, text, args, out, stdout_error)?;
            db.close()?;
        }
        Command::Import {
            batch,
            sync,
            skip_bad,
        } => return import(cli, *batch, *sync, *skip_bad),
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
            let db = cli.open(true)?;
            crate::bulk::load(&db, &spec, cli.sizes(), out)?;
            db.close()?;
        }
        Command::Stats(args) => {
            let db = cli.open_read_only()?;
            let s = crate::stats::collect(&db, args.fast)?;
            db.close()?;
            let text = crate::stats::render(&s, args.json, cli.sizes())?;
            writeln!(out, "{}", text.trim_end()).map_err(w)?;
        }
        Command::Flush => {
            let db = cli.open(false)?;
            db.flush()?;
            db.close()?;
        }
        Command::Compact => {
            let db = cli.open(false)?;
            db.compact_range(None, None)?;
            db.close()?;
        }
        Command::Gc(args) => {
            let db = cli.open(false)?;
            let outcome = crate::gc::collect(&db)?;
            db.close()?;
            let text = crate::gc::render(&outcome, args.json, cli.sizes());
            writeln!(out, "{}", text.trim_end()).map_err(w)?;
        }
        Command::Check(args) => {
            return crate::check::run(&cli.db, &cli.set, args, cli.sizes(), out);
        }
        Command::Repair => crate::repair::run(&cli.db, &cli.set, out)?,
        Command::Checkpoint(args) => {
            crate::backup::checkpoint(&cli.db, &cli.set, args, cli.sizes(), out)?;
        }
        Command::Copy(args) => {
            crate::backup::copy(&cli.db, &cli.set, args, cli.sizes(), out)?;
        }
        Command::Backup(args) => {
            return crate::backup::backup(&cli.db, &cli.set, args, cli.sizes(), out);
        }
        Command::Restore(args) => crate::backup::restore(&cli.db, args, cli.sizes(), out)?,
        Command::Debug { command } => match command {
            DebugCommand::Stress(args) => crate::stress::run(args, &cli.set)?,
            DebugCommand::Crashtest(args) => crate::crashtest::run(args)?,
        },
        Command::CompactionWorker(args) => crate::worker::run(&cli.db, args)?,
        Command::Dump(args) => return crate::dump::run(args, text, cli.sizes(), out),
        Command::Completions { shell } => {
            // Generated into memory: the generator panics when its writer fails.
            let mut script = Vec::new();
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(*shell, &mut cmd, "twain", &mut script);
            out.write_all(&script).map_err(w)?;
        }
        Command::Bench(cmd) => crate::bench::run(cmd, &cli.set, cli.sizes(), out)?,
        Command::Serve(args) => {
            let args = twain_server::ServeArgs {
                db: cli.db.clone(),
                set: cli.set.clone(),
                ..args.clone()
            };
            if let Err(e) = twain_server::serve(&args) {
                note!("twain: serve: {e}");
                return Ok(Outcome::Failed);
            }
        }
    }
    Ok(Outcome::Done)
}

/// `twain import`: reports on stderr what it wrote, and on failure how far it got.
fn import(cli: &Cli, batch: usize, sync: bool, skip_bad: bool) -> twain::Result<Outcome> {
    use crate::bulk::{BadLines, ImportError, Imported};
    let db = cli.open(true)?;
    let bad_lines = match skip_bad {
        true => BadLines::Skip,
        false => BadLines::Stop,
    };
    let mut imported = Imported::default();
    let result = crate::bulk::import(
        &db,
        cli.text(),
        &mut std::io::stdin().lock(),
        batch,
        bad_lines,
        &WriteOptions::default().sync(sync),
        &mut imported,
    );
    let closed = db.close();
    for (number, why) in &imported.first_skipped {
        note!("twain: skipped stdin line {number}: {why}");
    }
    let Imported {
        written,
        bytes,
        skipped,
        ..
    } = imported;
    let pairs = format!(
        "{} ({} of keys and values)",
        counted(written, "pair"),
        cli.sizes().show(bytes)
    );
    let error = match (result, closed) {
        (Ok(()), Ok(())) => {
            match skipped {
                0 => note!("imported {pairs}"),
                _ => note!(
                    "imported {pairs}, skipped {}",
                    counted(skipped, "malformed line")
                ),
            }
            return Ok(Outcome::Done);
        }
        (Err(ImportError::BadLine(number, why)), _) => format!(
            "stdin line {number}: {why}; {}, nothing after it (--skip-bad skips malformed \
             lines)",
            match written {
                1 => format!(
                    "the 1 pair before it ({}) was written",
                    cli.sizes().show(bytes)
                ),
                n => format!(
                    "the {n} pairs before it ({}) were written",
                    cli.sizes().show(bytes)
                ),
            }
        ),
        (Err(ImportError::Engine(e)), _) | (Ok(()), Err(e)) => {
            format!("{e}; {pairs} written before it")
        }
    };
    note!("twain: {error}");
    Ok(Outcome::Failed)
}
