//! The value prefetcher (WiscKey's parallel range query): once an iterator has moved
//! forward a few steps, it reads the entries ahead of its cursor from the key store and
//! has a pool of threads read their separated values in parallel, so that the cursor
//! finds them read when it gets there.
//!
//! - Reads that fall close together in one value file are one positional read.
//! - While reading a value costs more than handing it to a thread (a moving average over
//!   the database's reads, against `prefetch_min_read_micros`), the pool's threads read
//!   the window. While it costs less (values in the page cache), the cursor's own thread
//!   reads the window at once, before taking its first entry: one submission for up to
//!   [`INLINE_MAX_DEPTH`] entries and one read for neighbours in a file, where reading
//!   value by value is a system call each. A batch that took long per value feeds the
//!   average, so a scan that leaves the page cache hands its next windows to the pool.
//! - The window reaches as far as the cursor has gone, or as far as the database's
//!   iterators usually still go from there (a geometric mean of their walks), whichever
//!   is further, up to [`MAX_DEPTH`] entries; the bytes read ahead of one iterator stay
//!   under [`MAX_AHEAD_BYTES`].
//! - A thread submits all the reads of its job at once (`fs::read_batch`: io_uring on
//!   Linux), so a window's reads reach the device together.
//! - Handles that name their file's current epoch in the iterator's own version, in bytes
//!   the operating system has, are prefetched; so are stale handles (log layout): the
//!   entry is searched in the SVTable index as the window fills, its record read with the
//!   rest, and the cursor fixes the handle up when it takes the value (see `read`). The
//!   cursor resolves every other entry itself.
//! - A value whose read or check failed is not reported by the pool: the cursor reads
//!   it again itself when it gets there, and reports that error then.
//! - A read no thread has started when the cursor needs it is done by the cursor, so a
//!   busy machine never makes an iterator wait for a thread to wake.
//! - A repositioned iterator forgets its window; a dropped one takes its queued reads
//!   off the queue and waits for the ones running, so no work of it outlives it.

use super::iter::Found;
use super::{SuperVersion, lock};
use crate::Error;
use crate::format::compression::decompress_value;
use crate::format::handle::ValueHandle;
use crate::fs::{BatchRead, read_batch};
use crate::key::{ParsedKey, SeqNo};
use crate::stats::Counters;
use crate::vlog::ScanHints;
use crate::vlog::ValueFile;
use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// Sequential steps of an iterator before it starts prefetching.
const START_AFTER_STEPS: u32 = 2;
/// Entries in the first window.
const FIRST_DEPTH: usize = 8;
/// The largest window, in entries.
pub(crate) const MAX_DEPTH: usize = 256;
/// Bytes of values one iterator may have read (or be reading) ahead of its cursor.
pub(crate) const MAX_AHEAD_BYTES: u64 = 4 << 20;
/// The largest window the cursor reads itself, in entries: one submission of a ring
/// (`fs::uring`), so that the step that fills it does not wait long.
pub(crate) const INLINE_MAX_DEPTH: usize = 64;
/// Bytes of values a cursor reading its own window may hold ahead.
pub(crate) const INLINE_MAX_AHEAD_BYTES: u64 = 512 << 10;

/// The prefetch threads of one database, shared by its iterators. Thread-safe. The
/// threads start on first use; dropping the pool stops and joins them.
pub(crate) struct PrefetchPool {
    threads: usize,
    /// The threads read windows only while a value read takes at least this long on
    /// average; below, each cursor reads its own.
    min_read: Duration,
    /// Cursors reading their own windows copy values out of value files' memory
    /// mappings where they can (`Options::mmap_reads`).
    mapped: bool,
    queue: Arc<Queue>,
    workers: OnceLock<Vec<JoinHandle<()>>>,
}

/// The reads waiting for a thread, and what reading a value costs.
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
    /// A moving average of the nanoseconds one separated value takes to read, over the
    /// values the database's iterators read themselves (the first steps of each walk,
    /// entries not prefetched; 0: none measured yet).
    read_nanos: AtomicU64,
    /// A moving average of how far the database's iterators walk forward before they stop
    /// or are repositioned, as log2 of the steps in 1/1024ths (0: no walk seen yet). The
    /// geometric mean, so that a few long walks do not make every short one read far
    /// past its end. Fine-grained so that the average's rounding does not stop it short
    /// of a new typical walk: in 1/16ths it settled up to 7/16 of a power of two low (walks
    /// of 100 after walks of 10 were taken for walks of 72, and the window then doubled
    /// past 77 steps, reading some 50 values past each 100-pair scan's end).
    walk_log: AtomicU64,
}

impl Queue {
    /// Adds a measured read of `values` values that took `nanos` to the average. (Two
    /// updates racing lose one; it is an estimate.)
    fn observe(&self, nanos: u64, values: u64) {
        let per_value = nanos / values.max(1);
        let old = self.read_nanos.load(Ordering::Relaxed);
        let new = if old == 0 {
            per_value.max(1)
        } else {
            (old * 7 + per_value) / 8
        };
        self.read_nanos.store(new.max(1), Ordering::Relaxed);
    }

    /// Adds a walk of `steps` forward steps to the average (walks too short to prefetch
    /// are left out).
    fn observe_walk(&self, steps: u32) {
        if steps <= START_AFTER_STEPS {
            return;
        }
        let log = u64::from(steps.ilog2()) * LOG_UNIT + fraction(steps);
        let old = self.walk_log.load(Ordering::Relaxed);
        let new = if old == 0 { log } else { (old * 7 + log) / 8 };
        self.walk_log.store(new.max(1), Ordering::Relaxed);
    }

    /// Where the database's iterators usually stop, in steps: the typical walk plus what
    /// its estimate may err low by (1/16: the linear steps between powers of two and the
    /// average's rounding); `None` before any walk was seen.
    fn usual_end(&self) -> Option<usize> {
        match self.expected_walk() {
            0 => None,
            walk => Some(walk + walk / 16 + 1),
        }
    }

    /// The typical walk of the database's iterators, in steps (0 before any was seen).
    fn expected_walk(&self) -> usize {
        let log = self.walk_log.load(Ordering::Relaxed);
        if log == 0 {
            return 0;
        }
        let whole = (log / LOG_UNIT).min(20);
        let base = 1usize << whole;
        // Linear between powers of two: close enough for a window size.
        base + (base as u64 * (log % LOG_UNIT) / LOG_UNIT) as usize
    }
}

/// One power of two in `Queue::walk_log`.
const LOG_UNIT: u64 = 1024;

/// `n`'s fraction above its highest power of two, in 1/[`LOG_UNIT`]ths.
fn fraction(n: u32) -> u64 {
    let base = 1u64 << n.ilog2();
    (u64::from(n) - base) * LOG_UNIT / base
}

#[derive(Default)]
struct QueueState {
    jobs: VecDeque<Job>,
    stop: bool,
}

/// Reads for one iterator's `batch`, submitted together by one thread.
struct Job {
    batch: Arc<Batch>,
    runs: Vec<Run>,
}

/// One positional read covering the entries of its items (`db::coalesce`).
type Run = super::coalesce::Run<Item>;

/// One prefetched value: its id in the batch, handle, key and sequence.
struct Item {
    id: u64,
    handle: ValueHandle,
    key: Vec<u8>,
    seq: SeqNo,
}

/// One iterator's prefetches: their outcomes, and how many jobs are queued or running.
/// Thread-safe.
struct Batch {
    state: Mutex<BatchState>,
    changed: Condvar,
    counters: Arc<Counters>,
}

impl Batch {
    /// Waits until a thread publishes something (flagging the wait, so that it does).
    fn wait<'a>(&self, mut s: MutexGuard<'a, BatchState>) -> MutexGuard<'a, BatchState> {
        s.waiting = true;
        let mut s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        s.waiting = false;
        s
    }
}

#[derive(Default)]
struct BatchState {
    /// Prefetches the iterator still wants, by id.
    outcomes: HashMap<u64, Outcome>,
    /// Jobs queued or running.
    in_flight: usize,
    /// The iterator waits on `changed` (otherwise finished reads need not wake it).
    waiting: bool,
}

enum Outcome {
    Pending,
    /// The value, or (`compressed`) its stored form, decompressed when the cursor takes
    /// it: what is held ahead is what the budget counted.
    Read {
        bytes: Bytes,
        compressed: bool,
    },
    /// The read or its check failed: the cursor reads the value itself.
    Failed,
}

impl std::fmt::Debug for PrefetchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefetchPool")
            .field("threads", &self.threads)
            .finish()
    }
}

impl PrefetchPool {
    /// A pool of `threads` threads (0: no prefetching) that read iterators' windows while
    /// a value read takes at least `min_read` on average; below, cursors read their own,
    /// from value files' memory mappings if `mapped`.
    pub(crate) fn new(threads: usize, min_read: Duration, mapped: bool) -> PrefetchPool {
        PrefetchPool {
            threads,
            min_read,
            mapped,
            queue: Arc::default(),
            workers: OnceLock::new(),
        }
    }

    /// A prefetcher for one iterator, or `None` when prefetching is off.
    pub(crate) fn prefetcher(&self, counters: &Arc<Counters>) -> Option<Prefetcher> {
        let threads = if self.threads == 0 { 0 } else { self.start() };
        if threads == 0 {
            return None;
        }
        Some(Prefetcher {
            threads,
            min_read_nanos: u64::try_from(self.min_read.as_nanos()).unwrap_or(u64::MAX),
            mapped: self.mapped,
            queue: Arc::clone(&self.queue),
            batch: Arc::new(Batch {
                state: Mutex::default(),
                changed: Condvar::new(),
                counters: Arc::clone(counters),
            }),
            ahead: VecDeque::new(),
            ahead_bytes: 0,
            next_id: 0,
            depth: FIRST_DEPTH,
            steps: 0,
            ended: false,
            error: None,
            inline: false,
            to_submit: Vec::new(),
        })
    }

    /// Starts the threads if they are not running, and says how many run. A thread that
    /// cannot be spawned is done without (with none, iterators do not prefetch).
    fn start(&self) -> usize {
        self.workers
            .get_or_init(|| {
                (0..self.threads)
                    .filter_map(|i| {
                        let queue = Arc::clone(&self.queue);
                        std::thread::Builder::new()
                            .name(format!("twain-prefetch-{i}"))
                            .spawn(move || work(&queue))
                            .ok()
                    })
                    .collect()
            })
            .len()
    }
}

impl Drop for PrefetchPool {
    fn drop(&mut self) {
        lock(&self.queue.state).stop = true;
        self.queue.ready.notify_all();
        if let Some(workers) = self.workers.take() {
            for w in workers {
                let _ = w.join();
            }
        }
    }
}

/// A worker: runs jobs until the pool stops.
fn work(queue: &Queue) {
    loop {
        let job = {
            let mut q = lock(&queue.state);
            loop {
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                if q.stop {
                    return;
                }
                q = queue.ready.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        run(job);
    }
}

/// Does one job's reads, all submitted together (`fs::read_batch`), and publishes their
/// values (a job the pool ran: it was counted in flight).
fn run(job: Job) {
    let outcomes = read(&job, false);
    publish(&job.batch, outcomes, true);
}

/// Does one job's reads, all submitted together, and checks their values: the outcome of
/// each prefetch the iterator still wants. With `mapped`, the values of a run in a file's
/// memory mapping are copied out of it instead, each alone (a page not in memory is then
/// read from the disk by a page fault, one at a time: only a cursor reading its window
/// itself, while values come from the page cache, asks for that).
fn read(job: &Job, mapped: bool) -> Vec<(u64, Outcome)> {
    let batch = &job.batch;
    let wanted: Vec<&Run> = {
        let s = lock(&batch.state);
        job.runs
            .iter()
            .filter(|r| r.items.iter().any(|i| s.outcomes.contains_key(&i.id)))
            .collect()
    };
    // A pool thread's batch time says nothing of one read's (its reads ran side by
    // side), so it does not feed `Queue::read_nanos`; the values iterators read
    // themselves do, and a cursor's own batch when it was slow (`Prefetcher::submit`).
    let mut reads = Vec::with_capacity(wanted.len());
    let mut opened = Vec::with_capacity(wanted.len());
    let mut outcomes = Vec::new();
    for r in wanted {
        if mapped && let Some(checked) = check_mapped(batch, r) {
            outcomes.extend(checked);
            continue;
        }
        match r.file.reader() {
            Ok(reader) => {
                reads.push(BatchRead::new(Arc::clone(reader), r.offset, r.len as usize));
                opened.push(r);
            }
            // A file that cannot be opened fails its values: the cursor reports why.
            Err(_) => outcomes.extend(check_run(batch, r, Vec::new(), false)),
        }
    }
    read_batch(&mut reads);
    for (r, read) in opened.into_iter().zip(reads) {
        outcomes.extend(check_run(batch, r, read.buf, read.result.is_ok()));
    }
    outcomes
}

/// Publishes a job's outcomes to its iterator (`in_flight`: the job was counted in
/// flight, and is done now).
fn publish(batch: &Batch, outcomes: Vec<(u64, Outcome)>, in_flight: bool) {
    let mut s = lock(&batch.state);
    for (id, outcome) in outcomes {
        match s.outcomes.get_mut(&id) {
            Some(slot) => *slot = outcome,
            None => {
                if let Outcome::Read { bytes, .. } = outcome {
                    Counters::add(&batch.counters.prefetch_wasted_bytes, bytes.len() as u64);
                }
            }
        }
    }
    if in_flight {
        s.in_flight -= 1;
    }
    if s.waiting {
        batch.changed.notify_all();
    }
}

/// Checks each value of one run in its file's memory mapping, copying out each value
/// alone (the bytes between them are not copied); `None` if the run is not all mapped.
fn check_mapped(batch: &Batch, run: &Run) -> Option<Vec<(u64, Outcome)>> {
    let c = &batch.counters;
    let mut outcomes = Vec::with_capacity(run.items.len());
    for item in &run.items {
        let h = &item.handle;
        let outcome = match run.file.stored_mapped(h, &item.key, item.seq)? {
            Ok((stored, compressed)) => {
                Counters::add(&c.value_reads, 1);
                Counters::add(&c.value_bytes_read, u64::from(h.len));
                Counters::add(&c.prefetch_bytes, u64::from(h.len));
                Outcome::Read {
                    bytes: Bytes::from(stored),
                    compressed,
                }
            }
            Err(_) => Outcome::Failed,
        };
        outcomes.push((item.id, outcome));
    }
    Counters::add(&c.prefetch_reads, 1);
    Some(outcomes)
}

/// Checks each value of one run read into `buf` (`ok`: the read succeeded).
fn check_run(batch: &Batch, run: &Run, buf: Vec<u8>, ok: bool) -> Vec<(u64, Outcome)> {
    let c = &batch.counters;
    // The run's values share its buffer rather than each being copied out of it.
    let buf = Bytes::from(buf);
    if ok {
        Counters::add(&c.prefetch_reads, 1);
        Counters::add(&c.prefetch_bytes, run.len);
    }
    run.items
        .iter()
        .map(|item| {
            let h = &item.handle;
            let start = (h.offset - run.offset) as usize;
            let outcome = match run.file.stored_in(h, &buf, start, &item.key, item.seq) {
                Ok((bytes, compressed)) if ok => {
                    Counters::add(&c.value_reads, 1);
                    Counters::add(&c.value_bytes_read, u64::from(h.len));
                    Outcome::Read { bytes, compressed }
                }
                _ => Outcome::Failed,
            };
            (item.id, outcome)
        })
        .collect()
}

/// An entry the iterator has read ahead of its cursor.
#[derive(Debug)]
pub(crate) struct Ahead {
    /// The entry, its value not read.
    pub found: Found,
    /// Its prefetch, if one was started.
    id: Option<u64>,
    /// Its value's bytes in the value file (0 for an inline value).
    bytes: u64,
    /// For a stale handle: the record the SVTable search found, in the file of the
    /// iterator's version (what a fix-up would point the entry at).
    found_in: Option<(ValueHandle, Arc<ValueFile>)>,
}

/// An entry the cursor takes from the window: the entry, its value if it was prefetched,
/// and for a stale handle whose value was prefetched the record found for it.
pub(crate) type Popped = (Found, Option<Bytes>, Option<(ValueHandle, Arc<ValueFile>)>);

/// One iterator's prefetch state: the entries read ahead of its cursor, and the window.
/// Not thread-safe; owned by the iterator.
pub(crate) struct Prefetcher {
    /// Threads of the pool: jobs per submission.
    threads: usize,
    /// The pool reads the window only while a value read takes at least this long on
    /// average; below, the cursor reads it.
    min_read_nanos: u64,
    /// The cursor copies the windows it reads itself out of memory mappings.
    mapped: bool,
    queue: Arc<Queue>,
    batch: Arc<Batch>,
    ahead: VecDeque<Ahead>,
    /// Bytes of the values in `ahead` that were sent to be read.
    ahead_bytes: u64,
    next_id: u64,
    /// The least entries the window holds (learned before the last reposition).
    depth: usize,
    /// Forward steps since the last reposition.
    steps: u32,
    /// The walk ahead met the end of the range.
    ended: bool,
    /// The walk ahead met this error: the cursor reports it after the entries before it.
    error: Option<Error>,
    /// Values read fast (from the page cache): the cursor's thread reads the window
    /// itself at `submit` rather than handing it to the pool.
    inline: bool,
    /// Prefetches chosen but not yet queued: file, item.
    to_submit: Vec<(Arc<ValueFile>, Item)>,
}

impl std::fmt::Debug for Prefetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prefetcher")
            .field("ahead", &self.ahead.len())
            .field("depth", &self.depth)
            .finish()
    }
}

impl Prefetcher {
    /// Counts a forward step of the cursor; says whether the window wants filling now,
    /// and if so how many entries it should hold, at most [`MAX_DEPTH`]:
    /// - before the point where this database's iterators usually stop, up to that point
    ///   and no further (entries read past an iterator's end are wasted reads);
    /// - past it, or before any walk was seen, as many as the steps the cursor has taken
    ///   (an iterator that went far is likely to go as far again), and at least what the
    ///   iterator learned before its last reposition.
    ///
    /// The window is filled when half of it is used, so that reads go out in batches.
    /// While values read faster than the pool's `min_read` on average, the window is read
    /// by the cursor's thread when it is submitted (see [`Prefetcher::submit`]).
    pub(crate) fn step(&mut self) -> Option<usize> {
        self.steps = self.steps.saturating_add(1);
        if self.steps <= START_AFTER_STEPS || self.ended || self.error.is_some() {
            return None;
        }
        // Values read that fast (from the page cache) are not worth handing to threads:
        // the cursor reads them, a window at a time.
        self.inline = self.queue.read_nanos.load(Ordering::Relaxed) < self.min_read_nanos;
        let steps = self.steps as usize;
        let most = if self.inline {
            INLINE_MAX_DEPTH
        } else {
            MAX_DEPTH
        };
        let want = match self.queue.usual_end() {
            Some(end) if steps < end => end - steps,
            _ => steps.max(self.depth),
        }
        .min(most);
        if self.ahead.len() > want / 2 {
            return None;
        }
        Some(want)
    }

    /// Records that the cursor read one value itself in `took`.
    pub(crate) fn observe(&self, took: Duration) {
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.queue.observe(nanos, 1);
    }

    /// Whether the window may take more bytes.
    pub(crate) fn has_room(&self) -> bool {
        let most = if self.inline {
            INLINE_MAX_AHEAD_BYTES
        } else {
            MAX_AHEAD_BYTES
        };
        self.ahead_bytes < most
    }

    /// Entries in the window.
    pub(crate) fn len(&self) -> usize {
        self.ahead.len()
    }

    /// Adds an entry read ahead, choosing to prefetch its value if it is separated in a
    /// file of `sv`'s version, in bytes the operating system has: at the handle's offset
    /// if the file is at the handle's epoch; if value GC rewrote it since (a stale
    /// handle, log layout), where a search of its SVTable index finds the record (the
    /// search `read::read_handle` would make, with the iterator's `hints`). A stale
    /// handle whose search fails or finds nothing is left to the cursor, which reports
    /// why.
    pub(crate) fn push(&mut self, found: Found, sv: &SuperVersion, hints: &mut ScanHints) {
        let mut ahead = Ahead {
            found,
            id: None,
            bytes: 0,
            found_in: None,
        };
        if ahead.found.is_handle()
            && let Ok(h) = ahead.found.handle()
            && let Some(file) = sv.version.value_files.get(&h.file)
        {
            let p = ParsedKey::parse(&ahead.found.ikey);
            let h = if file.epoch() == h.epoch {
                h
            } else if file.epoch() > h.epoch && sv.version.hash_chain(p.user_key).is_empty() {
                Counters::add(&self.batch.counters.svtable_searches, 1);
                Counters::add(&self.batch.counters.scan_svtable_searches, 1);
                let hint = hints.index_hint(file.number(), file.epoch());
                match file.find_near(p.user_key, p.seq, hint) {
                    Ok(Some(at)) => {
                        ahead.found_in = Some((at, Arc::clone(file)));
                        at
                    }
                    _ => {
                        self.ahead.push_back(ahead);
                        return;
                    }
                }
            } else {
                self.ahead.push_back(ahead);
                return;
            };
            if h.offset + u64::from(h.len) > file.written_len() {
                ahead.found_in = None;
                self.ahead.push_back(ahead);
                return;
            }
            let id = self.next_id;
            self.next_id += 1;
            ahead.id = Some(id);
            ahead.bytes = u64::from(h.len);
            self.ahead_bytes += ahead.bytes;
            self.to_submit.push((
                Arc::clone(file),
                Item {
                    id,
                    handle: h,
                    key: p.user_key.to_vec(),
                    seq: p.seq,
                },
            ));
        }
        self.ahead.push_back(ahead);
    }

    /// The walk ahead ended: at the end of the range, or on an error.
    pub(crate) fn end(&mut self, error: Option<Error>) {
        self.ended = true;
        self.error = error;
    }

    /// Starts the reads chosen since the last call: neighbours in one file are one read.
    /// While values read fast, they are all read here and now, submitted together
    /// (`fs::read_batch`); otherwise they are dealt in key order to one job per thread,
    /// so that every thread works on the nearest entries first.
    pub(crate) fn submit(&mut self) {
        if self.to_submit.is_empty() {
            return;
        }
        let items = std::mem::take(&mut self.to_submit);
        let mut runs = super::coalesce::runs(items, |i: &Item| &i.handle);
        // Ids grow in key order.
        runs.sort_by_key(|r| r.items.first().map_or(0, |i| i.id));
        let n = if self.inline {
            1
        } else {
            self.threads.min(runs.len()).max(1)
        };
        let mut jobs: Vec<Job> = (0..n)
            .map(|_| Job {
                batch: Arc::clone(&self.batch),
                runs: Vec::new(),
            })
            .collect();
        for (i, run) in runs.into_iter().enumerate() {
            if let Some(job) = jobs.get_mut(i % n) {
                job.runs.push(run);
            }
        }
        {
            let mut s = lock(&self.batch.state);
            for item in jobs.iter().flat_map(|j| &j.runs).flat_map(|r| &r.items) {
                s.outcomes.insert(item.id, Outcome::Pending);
            }
            // Jobs read here are done before this returns: nothing to wait for, even if
            // a read panics.
            if !self.inline {
                s.in_flight += jobs.len();
            }
        }
        if self.inline {
            for job in jobs {
                let values = job.runs.iter().map(|r| r.items.len()).sum::<usize>();
                let started = std::time::Instant::now();
                let outcomes = read(&job, self.mapped);
                let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
                // A batch's time per value understates one read's (its reads may run
                // side by side), so it only ever says that reads became slow: then the
                // pool takes the next windows.
                if nanos / (values.max(1) as u64) >= self.min_read_nanos {
                    self.queue.observe(nanos, values as u64);
                }
                publish(&job.batch, outcomes, false);
            }
            return;
        }
        lock(&self.queue.state).jobs.extend(jobs);
        for _ in 0..n {
            self.queue.ready.notify_one();
        }
    }

    /// The next entry of the window, and its value if it was prefetched (waiting for the
    /// read if it is under way). `None` when the window is empty.
    pub(crate) fn pop(&mut self) -> Option<Popped> {
        let ahead = self.ahead.pop_front()?;
        let Some(id) = ahead.id else {
            return Some((ahead.found, None, None));
        };
        self.ahead_bytes -= ahead.bytes;
        let mut s = lock(&self.batch.state);
        while matches!(s.outcomes.get(&id), Some(Outcome::Pending)) {
            // A read no thread has taken yet is done here rather than waited for.
            if let Some(job) = self.steal(id) {
                drop(s);
                run(job);
                s = lock(&self.batch.state);
                continue;
            }
            s = self.batch.wait(s);
        }
        let outcome = s.outcomes.remove(&id);
        drop(s);
        let value = match outcome {
            Some(Outcome::Read {
                bytes,
                compressed: false,
            }) => Some(bytes),
            // A value that does not decode is read again by the cursor, which reports it
            // as corruption with its file and offset.
            Some(Outcome::Read { bytes, .. }) => decompress_value(&bytes).ok().map(Bytes::from),
            _ => None,
        };
        let found_in = value.as_ref().and(ahead.found_in);
        if found_in.is_some() {
            Counters::add(&self.batch.counters.prefetch_stale_reads, 1);
        }
        Some((ahead.found, value, found_in))
    }

    /// Takes the still queued job that reads prefetch `id`, if no thread has taken it.
    fn steal(&self, id: u64) -> Option<Job> {
        let mut q = lock(&self.queue.state);
        let at = q.jobs.iter().position(|j| {
            Arc::ptr_eq(&j.batch, &self.batch)
                && j.runs.iter().flat_map(|r| &r.items).any(|i| i.id == id)
        })?;
        q.jobs.remove(at)
    }

    /// With the window empty: the error the walk ahead met, and whether it met the end.
    pub(crate) fn take_end(&mut self) -> (Option<Error>, bool) {
        let ended = self.ended && self.ahead.is_empty();
        let error = if self.ahead.is_empty() {
            self.error.take()
        } else {
            None
        };
        if ended {
            self.ended = false;
        }
        (error, ended)
    }

    /// Forgets the window (the iterator moved elsewhere): its values not yet used are
    /// wasted. The learned depth is kept, halved.
    pub(crate) fn reset(&mut self) {
        self.to_submit.clear();
        if !self.ahead.is_empty() {
            let mut s = lock(&self.batch.state);
            for a in self.ahead.drain(..) {
                if let Some(id) = a.id
                    && let Some(Outcome::Read { bytes, .. }) = s.outcomes.remove(&id)
                {
                    Counters::add(
                        &self.batch.counters.prefetch_wasted_bytes,
                        bytes.len() as u64,
                    );
                }
            }
        }
        self.ahead_bytes = 0;
        self.queue.observe_walk(self.steps);
        // Keep half of what the iterator learned.
        let reached = (self.steps as usize).min(MAX_DEPTH);
        self.depth = (reached / 2).max(self.depth / 2).max(FIRST_DEPTH);
        self.steps = 0;
        self.ended = false;
        self.error = None;
    }
}

impl Drop for Prefetcher {
    fn drop(&mut self) {
        self.reset();
        // Take this iterator's jobs off the queue, then wait for those running.
        let mine = |j: &Job| Arc::ptr_eq(&j.batch, &self.batch);
        let removed = {
            let mut q = lock(&self.queue.state);
            let before = q.jobs.len();
            q.jobs.retain(|j| !mine(j));
            before - q.jobs.len()
        };
        let mut s = lock(&self.batch.state);
        s.in_flight -= removed;
        while s.in_flight > 0 {
            s = self.batch.wait(s);
        }
    }
}

#[cfg(test)]
#[path = "prefetch_tests.rs"]
mod tests;
