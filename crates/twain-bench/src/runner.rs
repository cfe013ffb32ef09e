//! Runs phases on an engine: worker threads issue the operations, a reporter thread
//! samples throughput every second and drives the progress display, and each phase ends
//! with its measurements.

use crate::engine::{Engine, EngineCounters};
use crate::error::{BenchError, BenchResult};
use crate::keys::{KEY_LEN, key_bytes, splitmix64};
use crate::measure::{Latencies, ProcIo, dir_bytes, idle_for, load_average, process_cpu_secs};
use crate::report::{LatencySeries, PhaseResult, ratio};
use crate::space::SpaceSample;
use crate::timeline::{IntervalRecorder, Timeline};
use crate::values::{ValueDist, ValueSource};
use crate::workload::{KeySpace, Op, OpGen, PhaseSpec, max_inserts};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How progress is shown while a phase runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A live bar on stderr with the current throughput.
    Bar,
    /// One line per second on stderr (for logs and pipes).
    Lines,
    /// Nothing.
    Quiet,
}

/// Settings of a run that are the same for every phase.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Keys loaded by fills.
    pub num: u64,
    /// Value sizes.
    pub value_dist: ValueDist,
    /// The fraction of its size a value compresses to (1: incompressible).
    pub compressible: f64,
    /// Foreground threads.
    pub threads: usize,
    /// Seeds every random choice.
    pub seed: u64,
    /// Pairs per scan (`scan`) and the largest YCSB-E scan.
    pub scan_length: usize,
    /// Flush after each write phase (timed separately, I/O counted in the phase).
    pub settle: bool,
    /// Write dirty pages out and empty the page cache before each phase (not timed).
    pub drop_caches: bool,
    /// Progress display.
    pub progress: Progress,
}

/// Which keys are live and the size of their values, to compute space amplification.
/// Thread-safe.
#[derive(Debug)]
struct LiveSet {
    /// Value length + 1 per key index (0 = absent).
    sizes: Vec<AtomicU32>,
    keys: AtomicU64,
    bytes: AtomicU64,
}

impl LiveSet {
    fn new(capacity: u64) -> LiveSet {
        LiveSet {
            sizes: (0..capacity).map(|_| AtomicU32::new(0)).collect(),
            keys: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }

    /// Records that `key` now holds a value of `len` bytes (`None`: deleted).
    fn set(&self, key: u64, len: Option<usize>) {
        let Some(slot) = usize::try_from(key).ok().and_then(|k| self.sizes.get(k)) else {
            return;
        };
        let new = len.map_or(0, |l| l as u32 + 1);
        let old = slot.swap(new, Ordering::Relaxed);
        let size = |s: u32| {
            if s == 0 {
                0
            } else {
                KEY_LEN as u64 + s as u64 - 1
            }
        };
        match (old, new) {
            (0, 0) => {}
            (0, _) => {
                self.keys.fetch_add(1, Ordering::Relaxed);
            }
            (_, 0) => {
                self.keys.fetch_sub(1, Ordering::Relaxed);
            }
            _ => {}
        }
        self.bytes.fetch_add(size(new), Ordering::Relaxed);
        self.bytes.fetch_sub(size(old), Ordering::Relaxed);
    }

    /// Key + value bytes of the live keys now: the divisor of every space amplification.
    fn live_bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// What the threads of a phase return: their tallies, the phase's seconds and, for an
/// idle phase, its CPU use over [`IDLE_CPU_WINDOW`].
/// What the phase's threads returned: the workers' tallies, the phase's seconds, an idle
/// phase's CPU use, and the progress reporter's CPU seconds.
type Ran = (Vec<Tally>, f64, Option<f64>, f64);

/// How long the end of an idle phase over which its CPU use is measured lasts.
const IDLE_CPU_WINDOW: Duration = Duration::from_secs(5);

/// What the threads of a running phase share.
#[derive(Debug)]
struct Shared {
    /// Operations completed so far (reported in batches).
    done: AtomicU64,
    /// Key + value bytes they wrote (reported with `done`).
    written: AtomicU64,
    /// Space sampled about each second.
    space: Mutex<Vec<SpaceSample>>,
    /// Set to end the phase early (after an error).
    stop: AtomicBool,
    /// When the phase began.
    start: Instant,
    /// Latency over time.
    timeline: Mutex<Timeline>,
    /// `/proc/self/io` `write_bytes` when the phase began.
    write_bytes0: u64,
}

/// Per-thread tallies of a phase.
#[derive(Debug, Default)]
struct Tally {
    ops: u64,
    written: u64,
    read: u64,
    found: u64,
    lat: Latencies,
    /// CPU seconds the worker thread used (`threads::this_thread_secs` as it ends).
    cpu_secs: f64,
}

/// Runs a sequence of phases on one engine. Create one per engine; it keeps the key space
/// and the live set between phases.
#[derive(Debug)]
pub struct Runner {
    cfg: RunConfig,
    keys: KeySpace,
    values: ValueSource,
    live: LiveSet,
    started: Instant,
    cum_user: u64,
    cum_write_bytes: u64,
    cum_engine_written: Option<u64>,
}

impl Runner {
    /// A runner for `phases` (needed to size the live set for YCSB inserts).
    pub fn new(cfg: RunConfig, phases: &[PhaseSpec]) -> BenchResult<Runner> {
        if cfg.threads == 0 {
            return Err(BenchError::InvalidArgument(
                "threads must be at least 1".into(),
            ));
        }
        let capacity = cfg.num.saturating_add(max_inserts(phases));
        Ok(Runner {
            keys: KeySpace::new(cfg.num, cfg.seed),
            values: ValueSource::compressible(cfg.value_dist, cfg.seed, cfg.compressible),
            live: LiveSet::new(capacity),
            started: Instant::now(),
            cum_user: 0,
            cum_write_bytes: 0,
            cum_engine_written: Some(0),
            cfg,
        })
    }

    /// Runs every phase in order, calling `each` with each result as it completes.
    pub fn run_all(
        &mut self,
        engine: &dyn Engine,
        phases: &[PhaseSpec],
        mut each: impl FnMut(&PhaseResult) -> BenchResult<()>,
    ) -> BenchResult<Vec<PhaseResult>> {
        self.started = Instant::now();
        let mut results = Vec::new();
        for (index, phase) in phases.iter().enumerate() {
            let r = self.run_phase(engine, phase, index)?;
            each(&r)?;
            results.push(r);
        }
        Ok(results)
    }

    /// Runs one phase and measures it.
    pub fn run_phase(
        &mut self,
        engine: &dyn Engine,
        phase: &PhaseSpec,
        index: usize,
    ) -> BenchResult<PhaseResult> {
        let threads = self.cfg.threads;
        if self.cfg.drop_caches {
            let t = Instant::now();
            crate::cgroup::drop_caches()?;
            // Not part of the run's time line.
            self.started += t.elapsed();
        }
        let counters0 = engine.counters()?;
        let io0 = ProcIo::read()?;
        let cpu0 = process_cpu_secs()?;
        let threads0 = crate::threads::snapshot();
        let first_error: Mutex<Option<BenchError>> = Mutex::new(None);
        let samples: Mutex<Vec<f64>> = Mutex::new(Vec::new());
        let start_secs = self.started.elapsed().as_secs_f64();
        let shared = Shared {
            done: AtomicU64::new(0),
            written: AtomicU64::new(0),
            space: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            start: Instant::now(),
            timeline: Mutex::new(Timeline::default()),
            write_bytes0: io0.write_bytes,
        };
        let (stop, start) = (&shared.stop, shared.start);

        let (tallies, secs, idle_cpu_pct, reporter_cpu): Ran = std::thread::scope(|s| {
            let reporter = s.spawn(|| {
                self.report_progress(engine, phase, &shared, &samples);
                crate::threads::this_thread_secs()
            });
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    let (shared, first_error) = (&shared, &first_error);
                    let this = &*self;
                    s.spawn(move || {
                        let mut tally = Tally::default();
                        if let Err(e) = this.worker(engine, phase, t, &mut tally, shared) {
                            shared.stop.store(true, Ordering::Relaxed);
                            first_error
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .get_or_insert(e);
                        }
                        tally.cpu_secs = crate::threads::this_thread_secs();
                        tally
                    })
                })
                .collect();
            // An idle phase has no operations: its workers end at once, and it lasts
            // as long as this sleep.
            let idle = phase.kind.idle_secs().map(|secs| {
                idle_for(Duration::from_secs(secs), IDLE_CPU_WINDOW, stop).unwrap_or_else(|e| {
                    first_error
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(e);
                    0.0
                })
            });
            let tallies = workers
                .into_iter()
                .map(|w| {
                    w.join().unwrap_or_else(|_| {
                        first_error
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .get_or_insert(BenchError::engine(
                                engine.name(),
                                "a benchmark thread panicked",
                            ));
                        Tally::default()
                    })
                })
                .collect();
            // The phase ends when the last worker does, not when the reporter wakes up.
            let secs = start.elapsed().as_secs_f64();
            stop.store(true, Ordering::Relaxed);
            let reporter_cpu = reporter.join().unwrap_or(0.0);
            (tallies, secs, idle, reporter_cpu)
        });
        if let Some(e) = first_error
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
        {
            return Err(e);
        }
        let mut settle_secs = 0.0;
        if self.cfg.settle && phase.kind.writes() {
            let began = Instant::now();
            engine.flush()?;
            settle_secs = began.elapsed().as_secs_f64();
        }
        self.keys.phase_done(phase.kind);

        let io = ProcIo::read()?.delta(&io0);
        let cpu = process_cpu_secs()? - cpu0;
        let threads1 = crate::threads::snapshot();
        let eng = engine.counters()?.delta(&counters0);
        let db_bytes = dir_bytes(engine.dir())?;
        let mut total = Tally::default();
        for t in &tallies {
            total.ops += t.ops;
            total.written += t.written;
            total.read += t.read;
            total.found += t.found;
            total.lat.merge(&t.lat);
        }
        let throughput = samples.into_inner().unwrap_or_else(PoisonError::into_inner);
        let latency_over_time = shared
            .timeline
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .series();
        let mut r = self.result(
            engine, phase, index, start_secs, secs, total, io, eng, db_bytes, throughput,
        );
        r.latency_over_time = latency_over_time;
        let mut space = shared
            .space
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        // Taken after the last throughput and space samples (and after `--settle`).
        space.push(SpaceSample {
            secs: start.elapsed().as_secs_f64(),
            user_bytes: self.cum_user,
            db_bytes,
            live_bytes: r.live_bytes,
            write_bytes: self.cum_write_bytes,
            mem_bytes: crate::cgroup::memory_usage(),
        });
        r.space_over_time = space;
        r.set_space_over_phase();
        r.idle_cpu_pct = idle_cpu_pct;
        r.settle_secs = settle_secs;
        r.cpu_secs = cpu;
        let foreground = tallies.iter().map(|t| t.cpu_secs).sum();
        r.cpu_secs_by_thread = crate::threads::by_group(
            &threads0,
            &threads1,
            &[("foreground", foreground), ("bench", reporter_cpu)],
            cpu,
        );
        r.cpu_us_per_op = if r.ops > 0 {
            cpu * 1e6 / r.ops as f64
        } else {
            0.0
        };
        r.load_avg = load_average();
        Ok(r)
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "assembles one record from its parts"
    )]
    fn result(
        &mut self,
        engine: &dyn Engine,
        phase: &PhaseSpec,
        index: usize,
        start_secs: f64,
        secs: f64,
        total: Tally,
        io: ProcIo,
        eng: EngineCounters,
        db_bytes: u64,
        throughput: Vec<f64>,
    ) -> PhaseResult {
        self.cum_user += total.written;
        self.cum_write_bytes += io.write_bytes;
        self.cum_engine_written = match (self.cum_engine_written, eng.bytes_written) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        let live_keys = self.live.keys.load(Ordering::Relaxed);
        let live_bytes = self.live.live_bytes();
        let per_sec = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let min_sample = throughput.iter().copied().reduce(f64::min);
        let stalls = eng.stalls.clone();
        let reads = eng.reads.clone();
        PhaseResult {
            engine: engine.name().to_string(),
            phase: phase.name.clone(),
            ops: total.ops,
            secs,
            ops_per_sec: per_sec(total.ops as f64),
            user_bytes: total.written,
            wchar: io.wchar,
            write_bytes: io.write_bytes,
            read_bytes: io.read_bytes,
            db_bytes,
            p50_us: total.lat.quantile_us(0.5),
            p99_us: total.lat.quantile_us(0.99),
            index,
            threads: self.cfg.threads,
            value_dist: self.cfg.value_dist.to_string(),
            start_secs,
            user_read_bytes: total.read,
            found: total.found,
            mb_per_sec: per_sec((total.written + total.read) as f64) / 1e6,
            p999_us: total.lat.quantile_us(0.999),
            max_us: total.lat.max_us(),
            rchar: io.rchar,
            cancelled_write_bytes: io.cancelled_write_bytes,
            live_keys,
            live_bytes,
            write_amp_io: ratio(io.write_bytes, total.written),
            write_amp_io_net: ratio(
                io.write_bytes.saturating_sub(io.cancelled_write_bytes),
                total.written,
            ),
            write_amp_wchar: ratio(io.wchar, total.written),
            write_amp_engine: eng.bytes_written.and_then(|w| ratio(w, total.written)),
            read_amp_io: ratio(io.read_bytes, total.read),
            read_amp_rchar: ratio(io.rchar, total.read),
            read_amp_engine: eng.user_read_file_bytes.and_then(|r| ratio(r, total.read)),
            space_amp: ratio(db_bytes, live_bytes),
            engine_bytes_written: eng.bytes_written,
            engine_user_read_bytes: eng.user_read_file_bytes,
            log_bytes: eng.log_bytes,
            flush_bytes: eng.flush_bytes,
            compaction_read_bytes: eng.compaction_read_bytes,
            compaction_write_bytes: eng.compaction_write_bytes,
            gc_read_bytes: eng.gc_read_bytes,
            gc_write_bytes: eng.gc_write_bytes,
            stall_micros: eng.stall_micros,
            gc_runs: eng.gc_runs,
            gc_lsm_lookups: eng.gc_lsm_lookups,
            svtable_searches: eng.svtable_searches,
            handle_fixups: eng.handle_fixups,
            gc_bytes_not_copied: eng.gc_bytes_not_copied,

            cum_write_amp_io: ratio(self.cum_write_bytes, self.cum_user),
            cum_write_amp_engine: self
                .cum_engine_written
                .and_then(|w| ratio(w, self.cum_user)),
            min_sample_ops_per_sec: min_sample,
            cpu_secs: 0.0,
            cpu_us_per_op: 0.0,
            load_avg: 0.0,
            throughput,
            stalls,
            reads,
            latency_over_time: LatencySeries::default(),
            space_over_time: Vec::new(),
            space_amp_mean: None,
            space_amp_max: None,
            idle_cpu_pct: None,
            settle_secs: 0.0,
            cpu_secs_by_thread: std::collections::BTreeMap::new(),
        }
    }

    /// One worker thread: operations `t, t + threads, t + 2 * threads, ...` of the phase.
    fn worker(
        &self,
        engine: &dyn Engine,
        phase: &PhaseSpec,
        t: usize,
        tally: &mut Tally,
        shared: &Shared,
    ) -> BenchResult<()> {
        let mut over_time = IntervalRecorder::new(&shared.timeline);
        let result = self.worker_ops(engine, phase, t, tally, shared, &mut over_time);
        over_time.finish();
        result
    }

    /// The loop of [`Runner::worker`].
    fn worker_ops(
        &self,
        engine: &dyn Engine,
        phase: &PhaseSpec,
        t: usize,
        tally: &mut Tally,
        shared: &Shared,
        over_time: &mut IntervalRecorder<'_>,
    ) -> BenchResult<()> {
        let (done, written, stop) = (&shared.done, &shared.written, &shared.stop);
        let seed = splitmix64(self.cfg.seed ^ splitmix64(phase.seed_tag) ^ (t as u64) << 48);
        let mut ops = OpGen::new(
            phase.kind,
            SmallRng::seed_from_u64(seed),
            &self.keys,
            self.cfg.scan_length,
        );
        let step = self.cfg.threads as u64;
        let mut unreported = 0u64;
        let mut reported_bytes = 0u64;
        let mut i = t as u64;
        while i < phase.ops {
            if unreported == 64 {
                done.fetch_add(unreported, Ordering::Relaxed);
                written.fetch_add(tally.written - reported_bytes, Ordering::Relaxed);
                reported_bytes = tally.written;
                unreported = 0;
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            let op = ops.op(i, &self.keys);
            // A multi-get's keys are drawn before its time starts.
            let batch: Vec<[u8; KEY_LEN]> = match op {
                Op::MultiGet(len) => (0..len)
                    .map(|_| key_bytes(ops.rng().random_range(0..self.keys.num().max(1))))
                    .collect(),
                _ => Vec::new(),
            };
            let began = Instant::now();
            match op {
                Op::Put(k) => {
                    let value = self.values.next(ops.rng());
                    engine.put(&key_bytes(k), value)?;
                    self.live.set(k, Some(value.len()));
                    tally.written += (KEY_LEN + value.len()) as u64;
                }
                Op::Get(k) => {
                    if let Some(len) = engine.get(&key_bytes(k))? {
                        tally.found += 1;
                        tally.read += (KEY_LEN + len) as u64;
                    }
                }
                Op::Delete(k) => {
                    engine.delete(&key_bytes(k))?;
                    self.live.set(k, None);
                    tally.written += KEY_LEN as u64;
                }
                Op::DeleteRange(a, b) => {
                    engine
                        .delete_range(&key_bytes(a), &key_bytes(b))?
                        .ok_or_else(|| {
                            BenchError::InvalidArgument(format!(
                                "{} has no range deletion (workload deleterange)",
                                engine.name()
                            ))
                        })?;
                    for k in a..b {
                        self.live.set(k, None);
                    }
                    tally.written += 2 * KEY_LEN as u64;
                }
                Op::Seek(k) => {
                    let (n, bytes) = engine.scan(&key_bytes(k), 1)?;
                    tally.found += n as u64;
                    tally.read += bytes;
                }
                Op::MultiGet(_) => {
                    let keys: Vec<&[u8]> = batch.iter().map(|k| &k[..]).collect();
                    let (found, bytes) = engine.multi_get(&keys)?;
                    tally.found += found as u64;
                    tally.read += bytes;
                }
                Op::Scan(k, len) => {
                    let (_, bytes) = engine.scan(&key_bytes(k), len)?;
                    tally.read += bytes;
                }
                Op::ScanKeys(k, len) => {
                    let (_, bytes) = engine.scan_keys(&key_bytes(k), len)?.ok_or_else(|| {
                        BenchError::engine(engine.name(), "key-only scans are not supported")
                    })?;
                    tally.read += bytes;
                }
                Op::ReadModifyWrite(k) => {
                    let key = key_bytes(k);
                    if let Some(len) = engine.get(&key)? {
                        tally.found += 1;
                        tally.read += (KEY_LEN + len) as u64;
                    }
                    let value = self.values.next(ops.rng());
                    engine.put(&key, value)?;
                    self.live.set(k, Some(value.len()));
                    tally.written += (KEY_LEN + value.len()) as u64;
                }
                Op::Pause => {}
            }
            let ended = Instant::now();
            let nanos = ended.duration_since(began).as_nanos() as u64;
            tally.lat.record(nanos);
            over_time.record(ended.duration_since(shared.start), nanos);
            tally.ops += 1;
            unreported += 1;
            i += step;
        }
        done.fetch_add(unreported, Ordering::Relaxed);
        written.fetch_add(tally.written - reported_bytes, Ordering::Relaxed);
        Ok(())
    }

    /// The database's space now, `secs` into the phase. A directory that cannot be
    /// listed gives no sample (the phase end measures it again and reports the error).
    fn space_sample(&self, engine: &dyn Engine, shared: &Shared) -> Option<SpaceSample> {
        let written = shared.written.load(Ordering::Relaxed);
        let io = ProcIo::read().ok()?;
        Some(SpaceSample {
            secs: shared.start.elapsed().as_secs_f64(),
            user_bytes: self.cum_user + written,
            db_bytes: dir_bytes(engine.dir()).ok()?,
            live_bytes: self.live.live_bytes(),
            write_bytes: self.cum_write_bytes + io.write_bytes.saturating_sub(shared.write_bytes0),
            mem_bytes: crate::cgroup::memory_usage(),
        })
    }

    /// Samples throughput and space each second until `stop`, and shows progress.
    fn report_progress(
        &self,
        engine: &dyn Engine,
        phase: &PhaseSpec,
        shared: &Shared,
        samples: &Mutex<Vec<f64>>,
    ) {
        let (done, stop) = (&shared.done, &shared.stop);
        let bar = match self.cfg.progress {
            Progress::Bar => {
                let bar = ProgressBar::with_draw_target(
                    Some(phase.ops),
                    ProgressDrawTarget::stderr_with_hz(4),
                );
                let style = ProgressStyle::with_template(
                    "{prefix:>16} [{bar:30}] {pos}/{len} {elapsed_precise} {msg}",
                )
                .map(|s| s.progress_chars("=> "))
                .unwrap_or_else(|_| ProgressStyle::default_bar());
                bar.set_style(style);
                bar.set_prefix(phase.name.clone());
                Some(bar)
            }
            _ => None,
        };
        let start = Instant::now();
        let mut last_ops = 0;
        let mut last_sample = start;
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(50));
            let now = Instant::now();
            let ops = done.load(Ordering::Relaxed);
            if let Some(bar) = &bar {
                bar.set_position(ops);
            }
            if now.duration_since(last_sample) >= Duration::from_secs(1) {
                let rate = (ops - last_ops) as f64 / now.duration_since(last_sample).as_secs_f64();
                samples
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(rate);
                match &bar {
                    Some(bar) => bar.set_message(format!("{rate:.0} ops/s")),
                    // A progress line nobody can read (stderr on a full disk) is dropped,
                    // not a panic.
                    None if self.cfg.progress == Progress::Lines => {
                        let _ = writeln!(
                            std::io::stderr(),
                            "{:>16} {:>5.0}s {:>10} ops {:>10.0} ops/s",
                            phase.name,
                            now.duration_since(start).as_secs_f64(),
                            ops,
                            rate
                        );
                    }
                    None => {}
                }
                last_ops = ops;
                last_sample = now;
                if let Some(sample) = self.space_sample(engine, shared) {
                    shared
                        .space
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(sample);
                }
            }
        }
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
    }
}
