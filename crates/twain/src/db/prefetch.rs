//! The value prefetcher (WiscKey's parallel range query): once an iterator has moved
//! forward a few steps, it reads the entries ahead of its cursor from the key store and
//! has a pool of threads read their separated values in parallel, so that the cursor
//! finds them read when it gets there.
//!
//! - Reads that fall close together in one value file are one positional read.
//! - The window starts small and doubles each time the cursor uses it up, to
//!   [`MAX_DEPTH`] entries; the bytes read ahead of one iterator stay under
//!   [`MAX_AHEAD_BYTES`].
//! - Only handles that name their file's current epoch in the iterator's own version,
//!   and bytes the operating system has, are prefetched; the cursor resolves every other
//!   entry itself (stale handles search an SVTable and may be fixed up, see `read`).
//! - A value whose read or check failed is not reported by the pool: the cursor reads
//!   it again itself when it gets there, and reports that error then.
//! - A repositioned iterator forgets its window; a dropped one takes its queued reads
//!   off the queue and waits for the ones running, so no work of it outlives it.

use super::iter::Found;
use super::{SuperVersion, lock};
use crate::Error;
use crate::format::handle::ValueHandle;
use crate::key::{ParsedKey, SeqNo};
use crate::stats::Counters;
use crate::vlog::ValueFile;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;

/// Sequential steps of an iterator before it starts prefetching.
const START_AFTER_STEPS: u32 = 2;
/// Entries in the first window.
const FIRST_DEPTH: usize = 4;
/// The largest window, in entries.
pub(crate) const MAX_DEPTH: usize = 256;
/// Bytes of values one iterator may have read (or be reading) ahead of its cursor.
pub(crate) const MAX_AHEAD_BYTES: u64 = 4 << 20;
/// Values at most this far apart in one file are read together.
const COALESCE_GAP: u64 = 4 << 10;
/// The largest coalesced read.
const MAX_RUN: u64 = 256 << 10;

/// The prefetch threads of one database, shared by its iterators. Thread-safe. The
/// threads start on first use; dropping the pool stops and joins them.
pub(crate) struct PrefetchPool {
    threads: usize,
    queue: Arc<Queue>,
    workers: OnceLock<Vec<JoinHandle<()>>>,
}

/// The reads waiting for a thread.
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

#[derive(Default)]
struct QueueState {
    jobs: VecDeque<Job>,
    stop: bool,
}

/// One positional read covering the entries of `items`, for one iterator's `batch`.
struct Job {
    batch: Arc<Batch>,
    file: Arc<ValueFile>,
    offset: u64,
    len: u64,
    items: Vec<Item>,
}

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

#[derive(Default)]
struct BatchState {
    /// Prefetches the iterator still wants, by id.
    outcomes: HashMap<u64, Outcome>,
    /// Jobs queued or running.
    in_flight: usize,
}

enum Outcome {
    Pending,
    Read(Vec<u8>),
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
    /// A pool of `threads` threads (0: no prefetching).
    pub(crate) fn new(threads: usize) -> PrefetchPool {
        PrefetchPool {
            threads,
            queue: Arc::default(),
            workers: OnceLock::new(),
        }
    }

    /// A prefetcher for one iterator, or `None` when prefetching is off.
    pub(crate) fn prefetcher(&self, counters: &Arc<Counters>) -> Option<Prefetcher> {
        if self.threads == 0 || self.start() == 0 {
            return None;
        }
        Some(Prefetcher {
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

/// Reads one job's span and checks each value in it, unless the iterator no longer
/// wants any of them.
fn run(job: Job) {
    let batch = &job.batch;
    let wanted = {
        let s = lock(&batch.state);
        job.items.iter().any(|i| s.outcomes.contains_key(&i.id))
    };
    let mut read: Vec<(u64, Outcome)> = Vec::with_capacity(job.items.len());
    if wanted {
        let c = &batch.counters;
        let mut buf = vec![0u8; job.len as usize];
        let ok = job.file.read_span(job.offset, &mut buf).is_ok();
        if ok {
            Counters::add(&c.prefetch_reads, 1);
            Counters::add(&c.prefetch_bytes, job.len);
        }
        for item in &job.items {
            let h = &item.handle;
            let start = (h.offset - job.offset) as usize;
            let entry = buf.get(start..start + h.len as usize).filter(|_| ok);
            let outcome = match entry {
                Some(entry) => match job.file.value_range(h, entry, &item.key, item.seq) {
                    Ok(range) => {
                        Counters::add(&c.value_reads, 1);
                        Counters::add(&c.value_bytes_read, u64::from(h.len));
                        Outcome::Read(entry.get(range).unwrap_or_default().to_vec())
                    }
                    Err(_) => Outcome::Failed,
                },
                None => Outcome::Failed,
            };
            read.push((item.id, outcome));
        }
    }
    let mut s = lock(&batch.state);
    for (id, outcome) in read {
        match s.outcomes.get_mut(&id) {
            Some(slot) => *slot = outcome,
            None => {
                if let Outcome::Read(v) = outcome {
                    Counters::add(&batch.counters.prefetch_wasted_bytes, v.len() as u64);
                }
            }
        }
    }
    s.in_flight -= 1;
    drop(s);
    batch.changed.notify_all();
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
}

/// One iterator's prefetch state: the entries read ahead of its cursor, and the window.
/// Not thread-safe; owned by the iterator.
pub(crate) struct Prefetcher {
    queue: Arc<Queue>,
    batch: Arc<Batch>,
    ahead: VecDeque<Ahead>,
    /// Bytes of the values in `ahead` that were sent to be read.
    ahead_bytes: u64,
    next_id: u64,
    /// Entries the window holds when full.
    depth: usize,
    /// Forward steps since the last reposition.
    steps: u32,
    /// The walk ahead met the end of the range.
    ended: bool,
    /// The walk ahead met this error: the cursor reports it after the entries before it.
    error: Option<Error>,
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
    /// and if so how many entries it should hold.
    pub(crate) fn step(&mut self) -> Option<usize> {
        self.steps = self.steps.saturating_add(1);
        if self.steps <= START_AFTER_STEPS || self.ended || self.error.is_some() {
            return None;
        }
        if self.ahead.len() > self.depth / 2 {
            return None;
        }
        // The cursor used up half the window: it goes far, so look further ahead.
        if self.ahead.len() < self.depth && self.steps > START_AFTER_STEPS + 1 {
            self.depth = (self.depth * 2).min(MAX_DEPTH);
        }
        Some(self.depth)
    }

    /// Whether the window may take more bytes.
    pub(crate) fn has_room(&self) -> bool {
        self.ahead_bytes < MAX_AHEAD_BYTES
    }

    /// Entries in the window.
    pub(crate) fn len(&self) -> usize {
        self.ahead.len()
    }

    /// Adds an entry read ahead, choosing to prefetch its value if it is separated in a
    /// file of `sv`'s version at the handle's epoch, in bytes the operating system has.
    pub(crate) fn push(&mut self, found: Found, sv: &SuperVersion) {
        let mut ahead = Ahead {
            found,
            id: None,
            bytes: 0,
        };
        if ahead.found.is_handle()
            && let Ok(h) = ValueHandle::decode(&ahead.found.value)
            && let Some(file) = sv.version.value_files.get(&h.file)
            && file.epoch() == h.epoch
            && h.offset + u64::from(h.len) <= file.written_len()
        {
            let p = ParsedKey::parse(&ahead.found.ikey);
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

    /// Queues the reads chosen since the last call, coalescing neighbours in one file.
    pub(crate) fn submit(&mut self) {
        if self.to_submit.is_empty() {
            return;
        }
        let mut items = std::mem::take(&mut self.to_submit);
        items.sort_by_key(|(f, i)| (f.number(), i.handle.offset));
        let mut jobs: Vec<Job> = Vec::new();
        for (file, item) in items {
            let (start, end) = (
                item.handle.offset,
                item.handle.offset + u64::from(item.handle.len),
            );
            if let Some(job) = jobs.last_mut()
                && Arc::ptr_eq(&job.file, &file)
                && start >= job.offset + job.len
                && start - (job.offset + job.len) <= COALESCE_GAP
                && end - job.offset <= MAX_RUN
            {
                job.len = end - job.offset;
                job.items.push(item);
                continue;
            }
            jobs.push(Job {
                batch: Arc::clone(&self.batch),
                file,
                offset: start,
                len: end - start,
                items: vec![item],
            });
        }
        {
            let mut s = lock(&self.batch.state);
            for job in &jobs {
                for item in &job.items {
                    s.outcomes.insert(item.id, Outcome::Pending);
                }
            }
            s.in_flight += jobs.len();
        }
        lock(&self.queue.state).jobs.extend(jobs);
        self.queue.ready.notify_all();
    }

    /// The next entry of the window, and its value if it was prefetched (waiting for the
    /// read if it is under way). `None` when the window is empty.
    pub(crate) fn pop(&mut self) -> Option<(Found, Option<Vec<u8>>)> {
        let ahead = self.ahead.pop_front()?;
        let Some(id) = ahead.id else {
            return Some((ahead.found, None));
        };
        self.ahead_bytes -= ahead.bytes;
        let mut s = lock(&self.batch.state);
        while matches!(s.outcomes.get(&id), Some(Outcome::Pending)) {
            s = self
                .batch
                .changed
                .wait(s)
                .unwrap_or_else(|e| e.into_inner());
        }
        match s.outcomes.remove(&id) {
            Some(Outcome::Read(v)) => Some((ahead.found, Some(v))),
            _ => Some((ahead.found, None)),
        }
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
                    && let Some(Outcome::Read(v)) = s.outcomes.remove(&id)
                {
                    Counters::add(&self.batch.counters.prefetch_wasted_bytes, v.len() as u64);
                }
            }
        }
        self.ahead_bytes = 0;
        self.steps = 0;
        self.ended = false;
        self.error = None;
        self.depth = (self.depth / 2).max(FIRST_DEPTH);
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
            s = self
                .batch
                .changed
                .wait(s)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_waits_for_sequential_steps_then_doubles() {
        let pool = PrefetchPool::new(1);
        let mut p = pool.prefetcher(&Arc::new(Counters::default())).expect("on");
        for _ in 0..START_AFTER_STEPS {
            assert_eq!(p.step(), None);
        }
        assert_eq!(p.step(), Some(FIRST_DEPTH));
        let mut last = FIRST_DEPTH;
        for _ in 0..20 {
            if let Some(d) = p.step() {
                assert!(d >= last && d <= MAX_DEPTH);
                last = d;
            }
        }
        assert_eq!(last, MAX_DEPTH, "an empty window keeps growing to the cap");
        p.reset();
        assert_eq!(
            p.depth,
            MAX_DEPTH / 2,
            "a reposition halves the learned depth"
        );
        assert!(PrefetchPool::new(0).prefetcher(&Arc::default()).is_none());
    }
}
