//! Exhaustive simulated crashes (ALICE / CrashMonkey style).
//!
//! Small workloads — tens of writes (sync and not), flushes, manual compactions, value-file
//! rolls (tiny `value_file_size`), tiny memtables and reopens — run on a `FaultFs` over a
//! `MemFs`. The `FaultFs` observer fires before and after **every** file sync, create,
//! rename, remove, truncate, hole punch and directory sync; at each such crash point the test builds
//! several power-loss states of the `MemFs`:
//!
//! - all unsynced data dropped;
//! - a random prefix of each file's unsynced tail kept (torn appends);
//! - the same, with one random 4 KiB sector of the kept unsynced bytes turned to garbage;
//!
//! and in every state, files created since their directory was last synced are gone and
//! unsynced renames and removals are undone (the `MemFs` crash model). Each state is opened
//! and checked against a model that knows which writes had been issued and which sync
//! writes had been acknowledged at that instant: the database must equal the state after
//! some prefix of the writes that includes every acknowledged sync write (nothing lost, no
//! holes, no deleted key back), a full scan and a point read of every key ever written
//! must agree with it without error, and `twain::check` must find every handle resolving.
//! One state per crash point is reopened with other options (log buffer, value file size),
//! then goes on working (writes, flush, compaction, reopen) and must hold the recovered
//! state plus the new writes.
//!
//! About one operation in 25 deletes a range of keys (up to the next 8 keys or so, from
//! a random start): the range deletion lives in the log and the memtable until its flush
//! writes a tombstone for each key it deleted, so crash points fall on both sides.
//!
//! One put in five expires (the clock is a `ManualClock` that stands still): half of them
//! already expired when written, so they act as deletes in the model and flushes and
//! compactions turn them into tombstones and drop their values; half expire far in the
//! future, their values start with `E`, and every read-back checks that such a key still
//! carries its expiry time (and that no other key has one).
//!
//! CI runs the default size (a few hundred crash points, several thousand states);
//! `TWAIN_CRASH_WORKLOADS=N` runs N workloads instead (e.g. 200 for a long run).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use twain::check::{CheckOptions, check};
use twain::fs::{CrashOptions, FaultFs, Fs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options, WriteBatch, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// The workloads' time: the clock never moves.
const NOW: u64 = 1_800_000_000_000;
/// When the puts that have not expired expire.
const LATER: u64 = NOW + 1_000_000_000;

const DIR: &str = "/db";
const KEYS: u64 = 40;
/// The key every write step also puts, with a value whose placement class changes each
/// time; out of reach of the workload's range deletions.
const CYCLING: u64 = KEYS + 100;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One operation of a workload's batch.
#[derive(Debug, Clone)]
enum WriteOp {
    /// `(key, value, expiry)`.
    Put(Vec<u8>, Vec<u8>, Option<u64>),
    Delete(Vec<u8>),
    /// `[start, end)`.
    DeleteRange(Vec<u8>, Vec<u8>),
}

#[derive(Debug, Clone)]
enum Step {
    /// Write a batch (synced if `true`).
    Write(Vec<WriteOp>, bool),
    Flush,
    Compact,
    /// Value GC on demand (crash states are taken at each of its file operations too).
    Gc,
    /// A complete GC (`Db::gc_report`): garbage compactions, a forced seal of the active
    /// log when it holds the garbage, then collection.
    CompleteGc,
    Reopen,
}

fn key(k: u64) -> Vec<u8> {
    format!("key{k:03}").into_bytes()
}

/// A workload and the model after each of its writes (`models[i]`: after `i` writes).
fn workload(seed: u64, steps: usize) -> (Vec<Step>, Vec<Model>) {
    let mut rng = Rng(seed);
    let sync_one_in = [2, 5, 20][(seed % 3) as usize];
    let mut out = Vec::new();
    let mut models = vec![Model::new()];
    let mut cycles = 0usize;
    for i in 0..steps {
        match rng.below(100) {
            0..=6 => out.push(Step::Flush),
            7..=9 => out.push(Step::Compact),
            10..=12 => out.push(Step::Reopen),
            13..=14 => out.push(Step::Gc),
            15..=16 => out.push(Step::CompleteGc),
            _ => {
                let mut model = models.last().cloned().unwrap_or_default();
                let mut ops = Vec::new();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(KEYS);
                    let k = key(at);
                    if rng.below(25) == 0 {
                        let end = key(at + 1 + rng.below(8));
                        model.retain(|x, _| *x < k || *x >= end);
                        ops.push(WriteOp::DeleteRange(k, end));
                    } else if rng.below(6) == 0 {
                        model.remove(&k);
                        ops.push(WriteOp::Delete(k));
                    } else {
                        let len = if rng.below(2) == 0 {
                            rng.below(40)
                        } else {
                            60 + rng.below(1500)
                        };
                        let mut v: Vec<u8> = (0..len)
                            .map(|j| (seed as u8) ^ (i as u8).wrapping_mul(7) ^ (j as u8))
                            .collect();
                        // Only the values of puts that expire later start with `E`.
                        if v.first() == Some(&b'E') {
                            v[0] = b'e';
                        }
                        match rng.below(10) {
                            0 => {
                                model.remove(&k);
                                ops.push(WriteOp::Put(k, v, Some(NOW - 1 - rng.below(1000))));
                            }
                            1 => {
                                v.insert(0, b'E');
                                model.insert(k.clone(), v.clone());
                                ops.push(WriteOp::Put(k, v, Some(LATER)));
                            }
                            _ => {
                                model.insert(k.clone(), v.clone());
                                ops.push(WriteOp::Put(k, v, None));
                            }
                        }
                    }
                }
                // One key changes class with each write that reaches it: small, medium
                // (or small again without a medium class), large.
                let cycled = cycles;
                cycles += 1;
                let len = [10, 200, 1000][cycled % 3];
                let mut v: Vec<u8> = (0..len).map(|j| (cycled as u8) ^ (j as u8)).collect();
                if v[0] == b'E' {
                    v[0] = b'e';
                }
                model.insert(key(CYCLING), v.clone());
                ops.push(WriteOp::Put(key(CYCLING), v, None));
                models.push(model);
                out.push(Step::Write(ops, rng.below(sync_one_in) == 0));
            }
        }
    }
    (out, models)
}

/// Options for a seed: tiny memtables and value files so flushes, rolls and compactions
/// all happen within tens of writes; even seeds hand each group commit to the file system
/// at once, odd ones buffer up to 4 KiB of log in memory.
/// Options for workload `base`'s database, varied by `seed` (`base`, or the later seeds a
/// reopen uses). A database in vlog GC mode stays in it (the other modes refuse it), so
/// that mode follows `base`: one workload in four.
///
/// One workload in four (`base` 3 mod 4) keeps its values in the hash layout (HashKV): a
/// flush writes one segment per group, value GC merges a group's segments, and a crash
/// state can fall inside either. The layout is the database's, chosen at its creation.
fn options(fs: Arc<dyn Fs>, seed: u64, base: u64) -> Options {
    let parts = [1, 2, 4][(seed / 2 % 3) as usize];
    let hash = base % 4 == 3;
    Options::default()
        .fs(fs)
        .clock(Arc::new(twain::ManualClock::new(NOW)))
        .log_buffer_size(if seed.is_multiple_of(2) { 0 } else { 4096 })
        .value_file_size(4096 + (seed % 3) * 4096)
        .memtable_size(4096)
        // Values of 0..40 and 60..1560 bytes cross both thresholds: small, medium (a
        // flush's transient file, merged at the last level) and large; a key's class
        // changes from write to write. Seeds 2 mod 4 have no medium class.
        .medium_threshold(if seed % 4 == 2 || hash { 400 } else { 24 })
        .inline_threshold(400)
        .l0_compaction_trigger(2)
        .l1_target_size(16 << 10)
        // Levels sized from the biggest level up (L0 then compacts past empty levels into
        // the base, which takes at least one L0 batch), or from L1 down; a reopen may
        // switch, and the levels then drain. Tables picked by overlap or round-robin.
        .level_sizing(if seed % 5 == 1 {
            twain::LevelSizing::Static
        } else {
            twain::LevelSizing::Dynamic
        })
        .compaction_priority(if seed % 3 == 2 {
            twain::CompactionPriority::RoundRobin
        } else {
            twain::CompactionPriority::MinOverlap
        })
        // Compactions in one part, or split into up to two or four parts merged at once
        // (with smaller tables, so that compactions of a few kilobytes split): crash
        // points then fall between the parts' operations.
        .max_subcompactions(parts)
        .target_file_size(if parts == 1 { 8 << 10 } else { 4 << 10 })
        .block_size(256)
        .block_cache_size(1 << 20)
        // Value GC runs as workload steps, so crash states fall inside it.
        .gc_enabled(false)
        .gc_threshold(0.9)
        .gc_mode(match (base % 4, seed % 4) {
            (1, _) => twain::GcMode::Vlog,
            (3, _) => twain::GcMode::DropRecords,
            (_, 3) => twain::GcMode::LsmLookup,
            _ => twain::GcMode::DropRecords,
        })
        .value_layout(if hash {
            twain::ValueLayout::Hash
        } else {
            twain::ValueLayout::Log
        })
        .hash_groups(3)
        // Tables compressed or not, by seed: a reopen may change the codec.
        .compression(
            [
                twain::Compression::None,
                twain::Compression::Lz4,
                twain::Compression::Zstd,
            ][(seed % 3) as usize],
        )
        // Separated values compressed or not, by seed (the workload's values compress).
        .value_compression(
            [
                twain::Compression::None,
                twain::Compression::Lz4,
                twain::Compression::Zstd,
            ][(seed / 3 % 3) as usize],
        )
}

/// Counts shared by the observer and the test.
#[derive(Default)]
struct Tally {
    points: AtomicUsize,
    states: AtomicUsize,
    lost: AtomicUsize,
    holes: AtomicUsize,
    corrupt_reads: AtomicUsize,
    dangling: AtomicUsize,
    open_failures: AtomicUsize,
    /// Value GC runs the workloads made (crash states were taken inside them too).
    gc_runs: AtomicUsize,
    /// Forced seals of the active log and garbage compactions the complete GCs made.
    seals: AtomicUsize,
    garbage_compactions: AtomicUsize,
    /// Expired puts flushes and compactions turned into tombstones or dropped.
    expired: AtomicUsize,
    /// Compactions the workloads ran as two or more parts.
    split_compactions: AtomicUsize,
    /// Hash-layout workloads whose group GCs made cold segments (hotness awareness).
    hot_and_cold: AtomicUsize,
    recovered_torn: AtomicUsize,
    lost_unsynced: AtomicUsize,
    failures: Mutex<Vec<String>>,
}

impl Tally {
    fn fail(&self, counter: &AtomicUsize, msg: String) {
        counter.fetch_add(1, Ordering::Relaxed);
        let mut f = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if f.len() < 20 {
            f.push(msg);
        }
    }
}

/// Where the workload is, as the observer reads it.
#[derive(Default)]
struct Progress {
    /// Writes started (the state may reflect up to this many).
    issued: AtomicUsize,
    /// Writes that must be durable: through the last acknowledged sync write, or every
    /// acknowledged write after a clean close.
    durable: AtomicUsize,
}

/// The crash states built at one crash point.
fn crash_modes(rng: &mut Rng) -> Vec<(&'static str, CrashOptions)> {
    let mut v = vec![("drop-unsynced", CrashOptions::drop_unsynced())];
    for _ in 0..3 {
        v.push(("torn", CrashOptions::torn(rng.next())));
        v.push(("torn+garbage", CrashOptions::torn_with_garbage(rng.next())));
    }
    v
}

/// Opens one crash state and checks the promise; records any failure in `tally`.
fn check_state(
    image: MemFs,
    seed: u64,
    label: &str,
    models: &[Model],
    (durable, issued): (usize, usize),
    continue_after: bool,
    tally: &Tally,
) {
    tally.states.fetch_add(1, Ordering::Relaxed);
    let fs: Arc<dyn Fs> = Arc::new(image);
    let ctx = format!("seed {seed} at {label}, durable {durable}, issued {issued}");
    // The states that go on working are also reopened with other options (log buffer,
    // value file size), as a restarted process may be.
    let reopen_seed = seed + u64::from(continue_after);
    let db = match Db::open(DIR, options(Arc::clone(&fs), reopen_seed, seed)) {
        Ok(db) => db,
        Err(e) => {
            return tally.fail(&tally.open_failures, format!("{ctx}: open failed: {e}"));
        }
    };
    if db.stats().is_ok_and(|s| s.recovered_torn_bytes > 0) {
        tally.recovered_torn.fetch_add(1, Ordering::Relaxed);
    }
    let state: Result<Model, twain::Error> = db.iter().collect();
    let state = match state {
        Ok(s) => s,
        Err(e) => return tally.fail(&tally.corrupt_reads, format!("{ctx}: scan failed: {e}")),
    };
    let newest = issued.min(models.len() - 1);
    let Some(prefix) = (durable..=newest).rev().find(|&p| models[p] == state) else {
        match (0..durable).rev().find(|&p| models[p] == state) {
            Some(p) => tally.fail(
                &tally.lost,
                format!("{ctx}: state is after {p} writes: acknowledged sync writes lost"),
            ),
            None => {
                // The closest prefix, and how the state differs from it.
                let (p, diff) = (0..=newest)
                    .map(|p| {
                        let m = &models[p];
                        let diff: Vec<String> = m
                            .keys()
                            .chain(state.keys())
                            .collect::<std::collections::BTreeSet<_>>()
                            .into_iter()
                            .filter(|k| m.get(*k) != state.get(*k))
                            .map(|k| {
                                // The writes after which the key held the state's value.
                                let when: Vec<usize> = (0..=newest)
                                    .filter(|&q| models[q].get(k) == state.get(k))
                                    .collect();
                                format!(
                                    "{} (state's value held after writes {:?})",
                                    String::from_utf8_lossy(k),
                                    when
                                )
                            })
                            .collect();
                        (p, diff)
                    })
                    .min_by_key(|(_, d)| d.len())
                    .unwrap_or_default();
                tally.fail(
                    &tally.holes,
                    format!(
                        "{ctx}: state matches no prefix of the writes (a hole or a resurrected \
                         key); closest: after {p} writes, differing in {diff:?}"
                    ),
                )
            }
        }
        return;
    };
    if prefix < newest {
        tally.lost_unsynced.fetch_add(1, Ordering::Relaxed);
    }
    for k in (0..KEYS).chain([CYCLING]).map(key) {
        let expected = match models[prefix].get(&k) {
            None => twain::KeyExpiry::Missing,
            Some(v) if v.first() == Some(&b'E') => twain::KeyExpiry::At(LATER),
            Some(_) => twain::KeyExpiry::Never,
        };
        match db.expiry(&k) {
            Ok(e) if e == expected => {}
            Ok(e) => tally.fail(
                &tally.corrupt_reads,
                format!(
                    "{ctx}: {} expires {e:?}, not {expected:?}",
                    String::from_utf8_lossy(&k)
                ),
            ),
            Err(e) => tally.fail(&tally.corrupt_reads, format!("{ctx}: expiry failed: {e}")),
        }
        match db.get(&k) {
            Ok(v) if v.as_ref() == models[prefix].get(&k) => {}
            Ok(v) => tally.fail(
                &tally.corrupt_reads,
                format!(
                    "{ctx}: get {} gave {:?}, scan showed {:?}",
                    String::from_utf8_lossy(&k),
                    v.map(|v| v.len()),
                    models[prefix].get(&k).map(Vec::len)
                ),
            ),
            Err(e) => tally.fail(&tally.corrupt_reads, format!("{ctx}: get failed: {e}")),
        }
    }
    if continue_after {
        // The recovered database keeps working: write, flush, compact, reopen, and find
        // the recovered state plus the new writes.
        let mut expect = models[prefix].clone();
        let mut work = || -> twain::Result<()> {
            for i in 0..6u8 {
                let k = key(u64::from(i) * 7);
                let v = vec![i; 30 + 200 * usize::from(i % 2)];
                db.put(&k, &v)?;
                expect.insert(k, v);
            }
            db.flush()?;
            db.compact_range(None, None)?;
            Ok(())
        };
        if let Err(e) = work() {
            return tally.fail(
                &tally.corrupt_reads,
                format!("{ctx}: work after recovery failed: {e}"),
            );
        }
        drop(db);
        let again = Db::open(DIR, options(Arc::clone(&fs), seed + 2, seed))
            .and_then(|db| db.iter().collect::<Result<Model, _>>());
        match again {
            Ok(state) if state == expect => {}
            Ok(_) => tally.fail(
                &tally.holes,
                format!("{ctx}: after more work and a reopen the state is wrong"),
            ),
            Err(e) => tally.fail(
                &tally.open_failures,
                format!("{ctx}: reopen after more work failed: {e}"),
            ),
        }
    } else {
        drop(db);
    }
    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs,
            clock: Arc::new(twain::ManualClock::new(NOW)),
            ..CheckOptions::default()
        },
    );
    match report {
        Ok(r) if r.is_ok() => {}
        Ok(r) => tally.fail(
            &tally.dangling,
            format!("{ctx}: twain check after recovery:\n{}", r.to_text()),
        ),
        Err(e) => tally.fail(&tally.dangling, format!("{ctx}: twain check failed: {e}")),
    }
}

/// Whether an operation is a crash point.
fn is_crash_point(op: OpKind) -> bool {
    matches!(
        op,
        OpKind::Sync
            | OpKind::Create
            | OpKind::Rename
            | OpKind::Remove
            | OpKind::SyncDir
            | OpKind::Truncate
            | OpKind::Punch
    )
}

/// Runs one workload, checking crash states at every crash point.
fn run(seed: u64, steps: usize, tally: &Arc<Tally>) {
    let (steps, models) = workload(seed, steps);
    let models = Arc::new(models);
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let progress = Arc::new(Progress::default());
    {
        let (mem, models, progress, tally) = (
            mem.clone(),
            Arc::clone(&models),
            Arc::clone(&progress),
            Arc::clone(tally),
        );
        let rng = Mutex::new(Rng(seed ^ 0x5eed));
        faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
            if !is_crash_point(e.op) || e.phase == (OpPhase::After { ok: false }) {
                return;
            }
            tally.points.fetch_add(1, Ordering::Relaxed);
            let modes = crash_modes(&mut rng.lock().unwrap_or_else(|e| e.into_inner()));
            // Read the durable bound before the image and the issued bound after it, so
            // both are conservative for the instant of the image.
            let durable = progress.durable.load(Ordering::SeqCst);
            let images: Vec<(&str, MemFs)> =
                modes.iter().map(|(m, o)| (*m, mem.crash(o))).collect();
            let issued = progress.issued.load(Ordering::SeqCst);
            let when = match e.phase {
                OpPhase::Before => "before",
                OpPhase::After { .. } => "after",
            };
            for (n, (mode, image)) in images.into_iter().enumerate() {
                let label = format!(
                    "{when} {:?} of {} (op {}), {mode}",
                    e.op,
                    e.path.display(),
                    e.number
                );
                // One torn+garbage state per point also goes on working after recovery.
                let continue_after = n == 2;
                check_state(
                    image,
                    seed,
                    &label,
                    &models,
                    (durable, issued),
                    continue_after,
                    &tally,
                );
            }
        })));
    }
    let fs: Arc<dyn Fs> = Arc::new(faults.clone());
    let mut db = Some(Db::open(DIR, options(Arc::clone(&fs), seed, seed)).unwrap());
    let mut written = 0;
    let mut gc_runs = 0u64;
    for step in steps {
        let d = db.as_ref().unwrap();
        match step {
            Step::Write(ops, sync) => {
                let mut b = WriteBatch::new();
                for op in ops {
                    match op {
                        WriteOp::Put(k, v, Some(at)) => b.put_with_expiry(k, v, at),
                        WriteOp::Put(k, v, None) => b.put(k, v),
                        WriteOp::Delete(k) => b.delete(k),
                        WriteOp::DeleteRange(start, end) => b.delete_range(start, end),
                    };
                }
                progress.issued.store(written + 1, Ordering::SeqCst);
                d.write(b, &WriteOptions::default().sync(sync)).unwrap();
                written += 1;
                if sync {
                    progress.durable.store(written, Ordering::SeqCst);
                }
            }
            Step::Flush => d.flush().unwrap(),
            Step::Compact => d.compact_range(None, None).unwrap(),
            Step::Gc => {
                gc_runs += d.gc().unwrap();
            }
            Step::CompleteGc => {
                let report = d.gc_report().unwrap();
                gc_runs += report.collected;
                tally
                    .seals
                    .fetch_add(report.logs_sealed as usize, Ordering::Relaxed);
                tally
                    .garbage_compactions
                    .fetch_add(report.garbage_compactions as usize, Ordering::Relaxed);
            }
            Step::Reopen => {
                let d = db.take().unwrap();
                let expired = d.stats().map_or(0, |s| s.expired_entries);
                tally.expired.fetch_add(expired as usize, Ordering::Relaxed);
                d.close().unwrap();
                // A clean close syncs the log: every acknowledged write is durable.
                progress.durable.store(written, Ordering::SeqCst);
                db = Some(Db::open(DIR, options(Arc::clone(&fs), seed, seed)).unwrap());
            }
        }
    }
    let last = db.take().unwrap();
    let stats = last.stats().ok();
    let split = stats.as_ref().map_or(0, |s| s.totals.split_compactions);
    let expired = stats.as_ref().map_or(0, |s| s.expired_entries);
    tally.expired.fetch_add(expired as usize, Ordering::Relaxed);
    tally
        .split_compactions
        .fetch_add(split as usize, Ordering::Relaxed);
    if stats.is_some_and(|s| {
        s.totals.hash_gc_bytes_not_copied > 0 || s.hash_layout.is_some_and(|h| h.cold_segments > 0)
    }) {
        tally.hot_and_cold.fetch_add(1, Ordering::Relaxed);
    }
    last.close().unwrap();
    progress.durable.store(written, Ordering::SeqCst);
    faults.set_observer(None);
    tally.gc_runs.fetch_add(gc_runs as usize, Ordering::Relaxed);
    // The final state, after a clean close.
    check_state(
        mem.crash(&CrashOptions::drop_unsynced()),
        seed,
        "the end",
        &models,
        (written, written),
        true,
        tally,
    );
}

fn with_commas(n: usize) -> String {
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

#[test]
fn every_crash_state_at_every_fs_operation_keeps_the_promise() {
    let workloads: u64 = std::env::var("TWAIN_CRASH_WORKLOADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let tally = Arc::new(Tally::default());
    // `TWAIN_CRASH_SEED=N` replays one workload (to debug a failure the sweep reported).
    let only: Option<u64> = std::env::var("TWAIN_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok());
    for seed in 1..=workloads {
        if only.is_none_or(|o| o == seed) {
            run(seed, 50, &tally);
        }
    }
    let get = |a: &AtomicUsize| a.load(Ordering::Relaxed);
    let (points, states) = (get(&tally.points), get(&tally.states));
    println!(
        "crash points {}, crash states {}, acknowledged writes lost {}, holes {}, corrupt reads {}, dangling handles {}",
        with_commas(points),
        with_commas(states),
        get(&tally.lost),
        get(&tally.holes),
        get(&tally.corrupt_reads),
        get(&tally.dangling),
    );
    println!(
        "(workloads {workloads}, value GC runs {}, forced log seals {}, garbage compactions {}, expired puts dropped {}, split compactions {}, hash workloads with cold segments {}, open failures {}, states with a torn tail truncated {}, states that lost unsynced writes {})",
        get(&tally.gc_runs),
        get(&tally.seals),
        get(&tally.garbage_compactions),
        get(&tally.expired),
        get(&tally.split_compactions),
        get(&tally.hot_and_cold),
        get(&tally.open_failures),
        get(&tally.recovered_torn),
        get(&tally.lost_unsynced),
    );
    let failures = tally.failures.lock().unwrap();
    assert!(
        failures.is_empty(),
        "{} failures, first ones:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if workloads >= 8 && only.is_none() {
        assert!(points >= 300, "only {points} crash points");
        assert!(states >= 5000, "only {states} crash states");
        assert!(get(&tally.recovered_torn) > 0, "no state had a torn tail");
        assert!(get(&tally.gc_runs) > 0, "no value GC ran in the workloads");
        assert!(get(&tally.seals) > 0, "no forced log seal in the workloads");
        assert!(
            get(&tally.garbage_compactions) > 0,
            "no garbage compaction in the workloads"
        );
        assert!(
            get(&tally.split_compactions) > 0,
            "no compaction ran in parts in the workloads"
        );
        assert!(get(&tally.expired) > 0, "no expired put was dropped");
        assert!(
            get(&tally.hot_and_cold) > 0,
            "no hash-layout workload made a cold segment"
        );

        assert!(
            get(&tally.lost_unsynced) > 0,
            "no state lost unsynced writes"
        );
    }
}
