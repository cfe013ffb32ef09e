//! `twain debug crashtest`: the kill loop (db_crashtest style).
//!
//! Runs `twain debug stress` as a child process with random engine options, kills it with
//! SIGKILL at a random moment, then — in this process — checks the database offline
//! (`twain::check`), reopens it with new random options and verifies every key against the
//! expected-state file: a settled key must hold exactly its acknowledged value, a key with
//! a write in flight its old or its new value, and a key whose value's id says it expires
//! (one put in four, at a time far past the run) its expiry time. A full scan must agree
//! with the point reads.
//! Each key's slot is then settled to what was found, and the loop goes on.
//!
//! In half the runs (once the database exists) a compaction worker process serves the
//! child (`compaction_offload`), and is itself SIGKILLed at a random moment of the run,
//! before the child or at the same time.
//!
//! A process kill loses nothing the operating system already has, so the children run
//! with `log_buffer_size=0` (every group commit is handed to the OS before it is
//! acknowledged) or, when they buffer the log, with every write synced: an acknowledged
//! write must then survive the kill.

use crate::say::{note, say};
use crate::stress::{Expected, Rng, expiry_of, id_of, index_of, key_of, open_db};
use clap::Args;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use twain::check::{CheckOptions, check};
use twain::{Error, Result};

/// Arguments of `twain debug crashtest`.
#[derive(Debug, Clone, Args)]
pub struct CrashtestArgs {
    /// Stop after this many kills (default 30 unless --duration is given).
    #[arg(long)]
    pub kills: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    pub duration: Option<f64>,
    /// Working directory (default: a new directory under the system's temp dir, removed
    /// at the end unless the test fails or --keep is given).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Keep the working directory.
    #[arg(long)]
    pub keep: bool,
    /// Number of keys.
    #[arg(long, default_value_t = 2000)]
    pub keys: u32,
    /// Shortest run of a child before it is killed, in milliseconds.
    #[arg(long, default_value_t = 200)]
    pub min_run_ms: u64,
    /// Longest run of a child before it is killed, in milliseconds.
    #[arg(long, default_value_t = 3000)]
    pub max_run_ms: u64,
    /// Random seed (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Percentage of runs (once the database exists) served by a compaction worker.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(0..=100))]
    pub worker_percent: u64,
}

/// What the loop found.
#[derive(Debug, Default)]
struct Tally {
    kills: u64,
    worker_runs: u64,
    /// The database's persisted totals as of the last reopen: what the background and
    /// the complete GCs did across every run (offloaded parts, refresh and garbage
    /// compactions, log seals, value GC runs and hole punches).
    totals: twain::Totals,
    clean_exits: u64,
    keys_verified: u64,
    pending_old: u64,
    pending_new: u64,
    lost: u64,
    wrong: u64,
    scan_mismatches: u64,
    check_problems: u64,
    failures: Vec<String>,
}

/// How a database keeps its values, for all its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// The value log, value GC in drop-records or lsm-lookup mode (switching between runs).
    Log,
    /// The value log, value GC in vlog mode (the other modes refuse such a database).
    Vlog,
    /// The hash layout (`value_layout=hash`): group GC, no medium class, no worker.
    Hash,
}

/// Random engine options for one run, as `--set` arguments, and the sync percentage.
fn random_options(rng: &mut Rng, layout: Layout) -> (Vec<String>, u64) {
    let buffer = rng.pick(&["0", "0", "4K", "64K"]);
    let sync = if buffer == "0" {
        rng.pick(&[0, 1, 10, 50])
    } else {
        100
    };
    let sets = vec![
        format!("log_buffer_size={buffer}"),
        format!("memtable_size={}", rng.pick(&["16K", "64K", "256K", "1M"])),
        format!("value_file_size={}", rng.pick(&["64K", "256K", "1M", "8M"])),
        format!(
            "inline_threshold={}",
            rng.pick(&["16", "64", "256", "1024"])
        ),
        // Values of 8..48 and 100..2000 bytes: most runs have all three placement classes,
        // and a key's class changes from write to write.
        format!(
            "medium_threshold={}",
            match layout {
                // The hash layout has no medium class yet.
                Layout::Hash => "4096",
                _ => rng.pick(&["16", "32", "64", "4096"]),
            }
        ),
        format!("medium_merge_level={}", rng.pick(&["0", "0", "1", "2"])),
        format!("l0_compaction_trigger={}", rng.pick(&["2", "4", "8"])),
        format!("block_size={}", rng.pick(&["256", "1K", "4K"])),
        format!("target_file_size={}", rng.pick(&["64K", "256K", "2M"])),
        format!("l1_target_size={}", rng.pick(&["256K", "1M", "8M"])),
        format!("compaction_threads={}", rng.pick(&["1", "2"])),
        format!("max_subcompactions={}", rng.pick(&["1", "2", "4"])),
        format!("max_immutable_memtables={}", rng.pick(&["1", "2", "4"])),
        format!(
            "gc_mode={}",
            match layout {
                Layout::Vlog => "vlog",
                Layout::Hash => "drop-records",
                Layout::Log => rng.pick(&["drop-records", "drop-records", "lsm-lookup"]),
            }
        ),
        format!(
            "value_layout={}",
            if layout == Layout::Hash {
                "hash"
            } else {
                "log"
            }
        ),
        format!("hash_groups={}", rng.pick(&["1", "4", "16"])),
        format!("gc_threshold={}", rng.pick(&["0.3", "0.5", "0.9"])),
        format!("gc={}", rng.pick(&["on", "on", "on", "off"])),
        // Drawn last, so a seed draws the rest as before.
        format!("compression={}", rng.pick(&["none", "lz4", "zstd"])),
        // The stress values' letters compress with zstd, not with LZ4.
        format!("value_compression={}", rng.pick(&["none", "zstd", "zstd"])),
        format!("level_sizing={}", rng.pick(&["static", "dynamic"])),
        format!(
            "compaction_priority={}",
            rng.pick(&["min-overlap", "round-robin"])
        ),
        // Reads through value files' memory mappings, or by system call.
        format!("mmap_reads={}", rng.pick(&["false", "true"])),
    ];

    (sets, sync)
}

fn with_commas(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Runs `twain debug crashtest`; prints one line per kill on stderr and the figures at the end.
pub fn run(args: &CrashtestArgs) -> Result<()> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let kills = match (args.kills, args.duration) {
        (Some(k), _) => k,
        (None, Some(_)) => u64::MAX,
        (None, None) => 30,
    };
    let deadline = args
        .duration
        .map(|s| Instant::now() + Duration::from_secs_f64(s));
    let dir = args.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("twain-crashtest-{}-{seed}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
        op: "create directory",
        path: dir.clone(),
        source,
    })?;
    let db = dir.join("db");
    let expected_path = dir.join("expected");
    let expected = Expected::open(&expected_path, args.keys)?;
    let exe = std::env::current_exe().map_err(|source| Error::Io {
        op: "find",
        path: "the twain executable".into(),
        source,
    })?;
    let mut rng = Rng(seed);
    // A quarter of the databases run value GC in vlog mode, a quarter of the others keep
    // their values in the hash layout; each for good.
    let layout = match (rng.below(4), rng.below(4)) {
        (0, _) => Layout::Vlog,
        (_, 0) => Layout::Hash,
        _ => Layout::Log,
    };
    note!(
        "crashtest: seed {seed}, directory {}, layout {layout:?}",
        dir.display()
    );
    let mut t = Tally::default();
    let started = Instant::now();
    while t.kills + t.clean_exits < kills && deadline.is_none_or(|d| Instant::now() < d) {
        let (mut sets, sync) = random_options(&mut rng, layout);
        let threads = 1 + rng.below(4);
        let socket = dir.join("worker.sock");
        let mut worker = match db.join("IDENTITY").exists()
            && rng.below(100) < args.worker_percent
            && layout != Layout::Hash
        {
            true => Some(start_worker(&exe, &db, &socket)?),
            false => None,
        };
        if worker.is_some() {
            t.worker_runs += 1;
            sets.push(format!("compaction_offload=unix:{}", socket.display()));
            sets.push("compaction_offload_timeout_ms=2000".into());
        }
        let mut cmd = Command::new(&exe);
        cmd.args(["debug", "stress"])
            .arg(&db)
            .arg("--expected")
            .arg(&expected_path)
            .args(["--keys", &args.keys.to_string()])
            .args(["--threads", &threads.to_string()])
            .args(["--duration", "3600"])
            .args(["--sync-percent", &sync.to_string()])
            .args(["--seed", &rng.next().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for s in &sets {
            cmd.arg("--set").arg(s);
        }
        let mut child = cmd.spawn().map_err(|source| Error::Io {
            op: "spawn",
            path: exe.clone(),
            source,
        })?;
        let span = args.max_run_ms.saturating_sub(args.min_run_ms);
        let run_for = Duration::from_millis(args.min_run_ms + rng.below(span + 1));
        let until = Instant::now() + run_for;
        let worker_dies =
            Instant::now() + Duration::from_millis(rng.below(run_for.as_millis() as u64 + 1));
        let mut exited = None;
        while Instant::now() < until {
            if let Ok(Some(status)) = child.try_wait() {
                exited = Some(status);
                break;
            }
            if Instant::now() >= worker_dies {
                stop_worker(&mut worker);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        stop_worker(&mut worker);
        let killed = exited.is_none();
        if killed {
            // SIGKILL: no destructor, no final sync.
            let _ = child.kill();
        }
        let status = child.wait().map_err(|source| Error::Io {
            op: "wait for",
            path: exe.clone(),
            source,
        })?;
        let mut stderr = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut stderr);
        }
        if killed {
            t.kills += 1;
        } else if status.success() {
            t.clean_exits += 1;
        } else {
            t.failures.push(format!(
                "stress exited by itself with {status} ({threads} threads, sync {sync}%, {}): {}",
                sets.join(" "),
                stderr.trim()
            ));

            break;
        }
        let (reopen_sets, _) = random_options(&mut rng, layout);
        verify(&db, &expected, &reopen_sets, &mut t)?;
        note!(
            "kill {} after {} ms ({} threads, sync {sync}%, {}): keys {}, failures {}",
            t.kills,
            run_for.as_millis(),
            threads,
            sets.join(" "),
            args.keys,
            t.failures.len()
        );
        if !t.failures.is_empty() {
            break;
        }
    }
    say!(
        "kills {}, reopens {}, runs with a compaction worker {} (parts offloaded {}, taken back {}), refresh compactions {}, garbage compactions {}, logs sealed for GC {}, value GC runs {} ({} punching holes), keys verified {}, pending writes found old {} / new {}, acknowledged writes lost {}, wrong values {}, scan mismatches {}, check problems {} ({:.0} s)",
        with_commas(t.kills),
        with_commas(t.kills + t.clean_exits),
        with_commas(t.worker_runs),
        with_commas(t.totals.parts_offloaded),
        with_commas(t.totals.parts_taken_back),
        with_commas(t.totals.refresh_compactions),
        with_commas(t.totals.garbage_compactions),
        with_commas(t.totals.logs_sealed_for_gc),
        with_commas(t.totals.gc_runs),
        with_commas(t.totals.gc_punch_runs),
        with_commas(t.keys_verified),
        t.pending_old,
        t.pending_new,
        t.lost,
        t.wrong,
        t.scan_mismatches,
        t.check_problems,
        started.elapsed().as_secs_f64()
    );
    if !t.failures.is_empty() {
        for f in t.failures.iter().take(20) {
            note!("FAILURE {f}");
        }
        note!("crashtest: the database is kept in {}", dir.display());
        return Err(Error::InvalidArgument(format!(
            "crashtest failed ({} failures, seed {seed})",
            t.failures.len()
        )));
    }
    if !args.keep && args.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// Starts `twain compaction-worker` for `db` on `socket` and waits until it listens.
fn start_worker(exe: &Path, db: &Path, socket: &Path) -> Result<crate::worker::WorkerChild> {
    crate::worker::spawn(exe, db, socket, Stdio::null()).map_err(|source| Error::Io {
        op: "start",
        path: exe.to_path_buf(),
        source,
    })
}

/// SIGKILLs the worker, if it runs.
fn stop_worker(worker: &mut Option<crate::worker::WorkerChild>) {
    drop(worker.take());
}

/// Checks the killed database offline, reopens it and verifies every key; settles the
/// expected state to what it found.
fn verify(db_path: &Path, expected: &Expected, sets: &[String], t: &mut Tally) -> Result<()> {
    if db_path.exists() {
        let report = check(db_path, &CheckOptions::default())?;
        if !report.is_ok() {
            t.check_problems += report.problems.len() as u64;
            t.failures
                .push(format!("twain check after the kill:\n{}", report.to_text()));
        }
    }
    let db = open_db(db_path, sets)?;
    t.totals = db.stats()?.totals;
    let mut found = vec![0u32; expected.keys() as usize];
    for i in 0..expected.keys() {
        let (acked, pending) = expected.get(i)?;
        let got = match db.get(key_of(i)) {
            Ok(v) => v,
            Err(e) => {
                t.wrong += 1;
                t.failures.push(format!("get k{i:08} failed: {e}"));
                continue;
            }
        };
        let id = match &got {
            None => 0,
            Some(v) => match id_of(i, v) {
                Some(id) => id,
                None => {
                    t.wrong += 1;
                    t.failures
                        .push(format!("k{i:08} holds bytes that no write wrote"));
                    continue;
                }
            },
        };
        let expiry = match expiry_of(id) {
            _ if id == 0 => twain::KeyExpiry::Missing,
            Some(at) => twain::KeyExpiry::At(at),
            None => twain::KeyExpiry::Never,
        };
        match db.expiry(key_of(i)) {
            Ok(e) if e == expiry => {}
            Ok(e) => {
                t.wrong += 1;
                t.failures
                    .push(format!("k{i:08} (id {id}) expires {e:?}, not {expiry:?}"));
            }
            Err(e) => {
                t.wrong += 1;
                t.failures.push(format!("expiry of k{i:08} failed: {e}"));
            }
        }
        t.keys_verified += 1;
        found[i as usize] = id;
        if id == acked && acked == pending {
            continue;
        }
        if acked != pending && id == acked {
            t.pending_old += 1;
        } else if acked != pending && id == pending {
            t.pending_new += 1;
        } else {
            t.lost += 1;
            t.failures.push(format!(
                "k{i:08}: acknowledged id {acked}, pending id {pending}, found {id}"
            ));
        }
    }
    let mut scanned = vec![0u32; expected.keys() as usize];
    for kv in db.iter() {
        let (k, v) = kv?;
        match index_of(&k).filter(|&i| i < expected.keys()) {
            Some(i) => scanned[i as usize] = id_of(i, &v).unwrap_or(u32::MAX),
            None => t.scan_mismatches += 1,
        }
    }
    for (i, (&s, &f)) in scanned.iter().zip(&found).enumerate() {
        if s != f {
            t.scan_mismatches += 1;
            t.failures.push(format!(
                "k{i:08}: the scan shows id {s}, a point read id {f}"
            ));
        }
    }
    db.close()?;
    for (i, &id) in found.iter().enumerate() {
        expected.set(i as u32, id, id)?;
    }
    Ok(())
}
