//! `twain debug stress`: random multi-threaded operations against a database, checked as they
//! run, with an *expected-state file* that a SIGKILL at any instant leaves usable.
//!
//! Keys are `k00000000`..; each thread owns one contiguous block of them (thread `t` of
//! `n` the keys from `t * keys / n` up to `(t + 1) * keys / n`), so it alone writes them,
//! range deletions within its block included, and knows their values exactly.
//! A value is identified by a per-key id (0: absent) and its bytes are derived from the
//! key and the id ([`value_of`]), so any value read can be checked.
//!
//! # The expected-state file
//!
//! A 16-byte header (`twainEXP`, key count as u32 LE, 4 zero bytes), then one 8-byte slot
//! per key: `acknowledged id: u32 LE | pending id: u32 LE`. Before a write, the writer
//! stores `(old, new)` in the slot of every key it touches; after the database
//! acknowledges it, `(new, new)`. Each slot is updated by one 8-byte positional write
//! (one system call), which a SIGKILL cannot tear, and the page cache keeps it when the
//! process dies. So after a kill every slot holds either a settled value or the old and
//! the new value of a write that may or may not have happened: `twain debug crashtest`
//! accepts either, then settles the slot to what it found.

use crate::say::say;
use clap::Args;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use twain::{Db, Error, Options, Result, WriteBatch, WriteOptions};

const MAGIC: &[u8; 8] = b"twainEXP";
const HEADER_LEN: u64 = 16;
const SLOT_LEN: u64 = 8;

/// Arguments of `twain debug stress`.
#[derive(Debug, Clone, Args)]
pub struct StressArgs {
    /// The database directory (created if missing).
    #[arg(id = "stress_db", value_name = "DB")]
    pub db: PathBuf,
    /// The expected-state file (created, all keys absent, if missing).
    #[arg(long)]
    pub expected: PathBuf,
    /// Number of keys (must match an existing expected-state file).
    #[arg(long, default_value_t = 2000)]
    pub keys: u32,
    /// Worker threads.
    #[arg(long, default_value_t = 4)]
    pub threads: u32,
    /// Stop after this many seconds.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Stop after this many operations per thread.
    #[arg(long)]
    pub ops: Option<u64>,
    /// Percentage of writes made with `sync`.
    #[arg(long, default_value_t = 10)]
    pub sync_percent: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// A small deterministic generator (splitmix64).
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 if `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// When the puts that expire do: 2100-01-01, never within a run, so they read as any put
/// does while their expiry time travels through the log, recovery and compactions.
pub const EXPIRES_AT: u64 = 4_102_444_800_000;

/// The expiry time of the put of value id `id`: one in four expire (at [`EXPIRES_AT`]).
pub fn expiry_of(id: u32) -> Option<u64> {
    (id % 4 == 1).then_some(EXPIRES_AT)
}

/// The key with index `i`.
pub fn key_of(i: u32) -> Vec<u8> {
    format!("k{i:08}").into_bytes()
}

/// The index of a key made by [`key_of`].
pub fn index_of(key: &[u8]) -> Option<u32> {
    std::str::from_utf8(key.strip_prefix(b"k")?)
        .ok()?
        .parse()
        .ok()
}

/// The value with id `id` (> 0) of key `i`: a header naming both, then filler bytes
/// derived from them; short (inline) or long (separated) depending on the pair.
pub fn value_of(i: u32, id: u32) -> Vec<u8> {
    let mut rng = Rng((u64::from(i) << 32) | u64::from(id));
    let len = if rng.below(2) == 0 {
        8 + rng.below(40)
    } else {
        100 + rng.below(1900)
    } as usize;
    let mut v = format!("v{i}:{id}:").into_bytes();
    while v.len() < len {
        v.push(b'a' + (rng.next() % 26) as u8);
    }
    v
}

/// The id of a value of key `i`, if the bytes are exactly [`value_of`] for some id.
pub fn id_of(i: u32, value: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(value.get(..value.len().min(24))?).ok()?;
    let rest = text.strip_prefix(&format!("v{i}:"))?;
    let id: u32 = rest.split(':').next()?.parse().ok()?;
    (id > 0 && value_of(i, id) == value).then_some(id)
}

/// The expected-state file: per key, the acknowledged and the pending value id.
#[derive(Debug)]
pub struct Expected {
    file: File,
    path: PathBuf,
    keys: u32,
}

fn io_err<'a>(op: &'static str, path: &'a Path) -> impl Fn(std::io::Error) -> Error + 'a {
    move |source| Error::Io {
        op,
        path: path.to_path_buf(),
        source,
    }
}

impl Expected {
    /// Opens the file, creating it (every key absent) if missing.
    pub fn open(path: &Path, keys: u32) -> Result<Expected> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io_err("open", path))?;
        let len = file.metadata().map_err(io_err("stat", path))?.len();
        let want = HEADER_LEN + u64::from(keys) * SLOT_LEN;
        if len == 0 {
            let mut header = [0u8; HEADER_LEN as usize];
            header[..8].copy_from_slice(MAGIC);
            header[8..12].copy_from_slice(&keys.to_le_bytes());
            file.set_len(want).map_err(io_err("resize", path))?;
            file.write_all_at(&header, 0)
                .map_err(io_err("write", path))?;
        } else {
            let mut header = [0u8; HEADER_LEN as usize];
            file.read_exact_at(&mut header, 0)
                .map_err(io_err("read", path))?;
            let stored = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
            if &header[..8] != MAGIC || stored != keys || len != want {
                return Err(Error::InvalidArgument(format!(
                    "{} is not an expected-state file for {keys} keys",
                    path.display()
                )));
            }
        }
        Ok(Expected {
            file,
            path: path.to_path_buf(),
            keys,
        })
    }

    /// Number of keys.
    pub fn keys(&self) -> u32 {
        self.keys
    }

    /// The slot of key `i`: (acknowledged id, pending id).
    pub fn get(&self, i: u32) -> Result<(u32, u32)> {
        let mut b = [0u8; SLOT_LEN as usize];
        self.file
            .read_exact_at(&mut b, HEADER_LEN + u64::from(i) * SLOT_LEN)
            .map_err(io_err("read", &self.path))?;
        Ok((
            u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        ))
    }

    /// Stores the slot of key `i` with one positional write.
    pub fn set(&self, i: u32, acked: u32, pending: u32) -> Result<()> {
        let mut b = [0u8; SLOT_LEN as usize];
        b[..4].copy_from_slice(&acked.to_le_bytes());
        b[4..].copy_from_slice(&pending.to_le_bytes());
        // IMPORTANT: one write_at of 8 bytes: a kill leaves the old or the new slot.
        let n = self
            .file
            .write_at(&b, HEADER_LEN + u64::from(i) * SLOT_LEN)
            .map_err(io_err("write", &self.path))?;
        if n != b.len() {
            return Err(Error::InvalidArgument(format!(
                "short write to {}",
                self.path.display()
            )));
        }
        Ok(())
    }
}

/// Counts of what the threads did.
#[derive(Debug, Default)]
struct Counts {
    puts: AtomicU64,
    deletes: AtomicU64,
    range_deletes: AtomicU64,
    batches: AtomicU64,
    gets: AtomicU64,
    scans: AtomicU64,
    snapshots: AtomicU64,
    flushes: AtomicU64,
    compactions: AtomicU64,
    complete_gcs: AtomicU64,
}

/// One worker: its keys, their current ids, and the next id to hand out per key.
struct Worker {
    db: Arc<Db>,
    expected: Arc<Expected>,
    rng: Rng,
    /// Indexes of the keys this worker owns.
    own: Vec<u32>,
    /// Current id per key index (only meaningful for owned keys).
    ids: Vec<u32>,
    next_id: Vec<u32>,
    sync_percent: u64,
    counts: Arc<Counts>,
    /// Held across `compact_range` (see [`Worker::step`]).
    manual: Arc<std::sync::Mutex<()>>,
}

fn mismatch(what: String) -> Error {
    Error::InvalidArgument(format!("stress check failed: {what}"))
}

impl Worker {
    fn value(&self, i: u32) -> Option<Vec<u8>> {
        let id = self.ids[i as usize];
        (id > 0).then(|| value_of(i, id))
    }

    /// Writes `changes` (key index, new id; 0 deletes) as one batch, keeping the
    /// expected-state file right at every instant.
    fn write(&mut self, changes: &[(u32, u32)]) -> Result<()> {
        self.write_with(changes, WriteBatch::new())
    }

    /// Deletes the keys `a..b` (all owned by this worker) by one range deletion.
    fn delete_range(&mut self, a: u32, b: u32) -> Result<()> {
        let changes: Vec<(u32, u32)> = (a..b).map(|i| (i, 0)).collect();
        let mut batch = WriteBatch::new();
        batch.delete_range(key_of(a), key_of(b));
        self.write_with(&changes, batch)
    }

    /// [`write`](Self::write), the batch starting as `batch` (which must do what `changes`
    /// say is pending): the changes' own operations are added after it.
    fn write_with(&mut self, changes: &[(u32, u32)], mut batch: WriteBatch) -> Result<()> {
        for &(i, new) in changes {
            self.expected.set(i, self.ids[i as usize], new)?;
        }
        let ranged = !batch.is_empty();
        for &(i, new) in changes.iter().filter(|_| !ranged) {
            match new {
                0 => batch.delete(key_of(i)),
                id => match expiry_of(id) {
                    Some(at) => batch.put_with_expiry(key_of(i), value_of(i, id), at),
                    None => batch.put(key_of(i), value_of(i, id)),
                },
            };
        }
        let sync = self.rng.below(100) < self.sync_percent;
        self.db.write(batch, &WriteOptions::default().sync(sync))?;
        for &(i, new) in changes {
            self.ids[i as usize] = new;
            self.expected.set(i, new, new)?;
        }
        Ok(())
    }

    fn new_id(&mut self, i: u32) -> u32 {
        let id = self.next_id[i as usize];
        self.next_id[i as usize] += 1;
        id
    }

    fn random_own(&mut self) -> u32 {
        self.own[self.rng.below(self.own.len() as u64) as usize]
    }

    fn step(&mut self) -> Result<()> {
        let c = Arc::clone(&self.counts);
        match self.rng.below(1000) {
            0..=399 => {
                let i = self.random_own();
                let id = self.new_id(i);
                self.write(&[(i, id)])?;
                c.puts.fetch_add(1, Ordering::Relaxed);
            }
            400..=489 => {
                let i = self.random_own();
                self.write(&[(i, 0)])?;
                c.deletes.fetch_add(1, Ordering::Relaxed);
            }
            490..=499 => {
                // Up to 16 consecutive keys of this worker's block.
                let at = self.rng.below(self.own.len() as u64) as usize;
                let end = (at + 1 + self.rng.below(16) as usize).min(self.own.len());
                let (a, b) = (self.own[at], self.own[end - 1] + 1);
                self.delete_range(a, b)?;
                c.range_deletes.fetch_add(1, Ordering::Relaxed);
            }
            500..=649 => {
                let mut changes: Vec<(u32, u32)> = Vec::new();
                for _ in 0..2 + self.rng.below(5) {
                    let i = self.random_own();
                    if changes.iter().any(|&(k, _)| k == i) {
                        continue;
                    }
                    let id = if self.rng.below(5) == 0 {
                        0
                    } else {
                        self.new_id(i)
                    };
                    changes.push((i, id));
                }
                self.write(&changes)?;
                c.batches.fetch_add(1, Ordering::Relaxed);
            }
            650..=799 => {
                let i = self.random_own();
                let got = self.db.get(key_of(i))?;
                if got != self.value(i) {
                    return Err(mismatch(format!(
                        "get k{i:08}: expected id {}, read {:?}",
                        self.ids[i as usize],
                        got.map(|v| id_of(i, &v))
                    )));
                }
                c.gets.fetch_add(1, Ordering::Relaxed);
            }
            800..=929 => {
                self.scan()?;
                c.scans.fetch_add(1, Ordering::Relaxed);
            }
            930..=989 => {
                self.snapshot()?;
                c.snapshots.fetch_add(1, Ordering::Relaxed);
            }
            990..=996 => {
                self.db.flush()?;
                c.flushes.fetch_add(1, Ordering::Relaxed);
            }
            997 => {
                // A complete GC: garbage compactions, a forced seal of the active log, value
                // GC. Its compactions are manual ones: serialized with them.
                let _one_at_a_time = self.manual.lock().unwrap_or_else(|e| e.into_inner());
                self.db.gc()?;
                c.complete_gcs.fetch_add(1, Ordering::Relaxed);
            }
            _ => {
                let a = self.rng.below(u64::from(self.expected.keys())) as u32;
                let b = a.saturating_add(50);
                // Manual compactions are serialized here: concurrent `compact_range` calls
                // collide (engine bug, `crates/twain/tests/engine/concurrent_compact_range.rs`).
                let _one_at_a_time = self.manual.lock().unwrap_or_else(|e| e.into_inner());
                self.db.compact_range(Some(&key_of(a)), Some(&key_of(b)))?;
                c.compactions.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Scans a range (forward or backward): every value must be one of its key's values,
    /// and the keys this worker owns must show exactly their current values.
    fn scan(&mut self) -> Result<()> {
        let keys = self.expected.keys();
        let from = self.rng.below(u64::from(keys)) as u32;
        let to = from.saturating_add(1 + self.rng.below(64) as u32).min(keys);
        let reverse = self.rng.below(2) == 0;
        let it = self.db.range(key_of(from)..key_of(to));
        let items: Vec<(Vec<u8>, Vec<u8>)> = if reverse {
            let mut v: Vec<_> = it.rev().collect::<Result<_>>()?;
            v.reverse();
            v
        } else {
            it.collect::<Result<_>>()?
        };
        let mut seen = std::collections::HashMap::new();
        for (k, v) in &items {
            let i = index_of(k).ok_or_else(|| mismatch(format!("scan found stray key {k:?}")))?;
            let id = id_of(i, v)
                .ok_or_else(|| mismatch(format!("scan: k{i:08} holds a value of no write")))?;
            seen.insert(i, id);
        }
        for &i in self.own.iter().filter(|&&i| i >= from && i < to) {
            let expect = self.ids[i as usize];
            let got = seen.get(&i).copied().unwrap_or(0);
            if got != expect {
                return Err(mismatch(format!(
                    "scan k{i:08}: expected id {expect}, found {got}"
                )));
            }
        }
        Ok(())
    }

    /// Takes a snapshot, overwrites a few keys, and checks the snapshot still shows the
    /// old values (point reads and a scan).
    fn snapshot(&mut self) -> Result<()> {
        let snap = self.db.snapshot();
        let picked: Vec<u32> = (0..3).map(|_| self.random_own()).collect();
        let before: Vec<Option<Vec<u8>>> = picked.iter().map(|&i| self.value(i)).collect();
        for &i in &picked {
            let id = self.new_id(i);
            self.write(&[(i, id)])?;
        }
        for (&i, old) in picked.iter().zip(&before) {
            let got = snap.get(key_of(i))?;
            if &got != old {
                return Err(mismatch(format!("snapshot read of k{i:08} changed")));
            }
            let scanned: Vec<_> = snap
                .range(key_of(i)..=key_of(i))
                .collect::<Result<Vec<_>>>()?;
            if scanned.first().map(|(_, v)| v) != old.as_ref() {
                return Err(mismatch(format!("snapshot scan of k{i:08} changed")));
            }
        }
        Ok(())
    }
}

/// Opens the database with `sets` applied to the default options.
pub fn open_db(path: &Path, sets: &[String]) -> Result<Db> {
    let mut opts = Options::default();
    crate::commands::apply_sets(&mut opts, sets)?;
    Db::open(path, opts)
}

/// Runs `twain debug stress`; prints a one-line summary when it ends by itself.
pub fn run(args: &StressArgs, sets: &[String]) -> Result<()> {
    if args.threads == 0 || args.keys < args.threads {
        return Err(Error::InvalidArgument(
            "--threads must be at least 1 and at most --keys".into(),
        ));
    }
    let expected = Arc::new(Expected::open(&args.expected, args.keys)?);
    let db = Arc::new(open_db(&args.db, sets)?);
    let mut ids = vec![0u32; args.keys as usize];
    let mut next_id = vec![1u32; args.keys as usize];
    for i in 0..args.keys {
        let (acked, pending) = expected.get(i)?;
        if acked != pending {
            return Err(Error::InvalidArgument(format!(
                "key k{i:08} has a pending write: run `twain debug crashtest` to settle it"
            )));
        }
        ids[i as usize] = acked;
        next_id[i as usize] = acked.max(pending) + 1;
    }
    let counts = Arc::new(Counts::default());
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs_f64(args.duration.max(0.0));
    let mut handles = Vec::new();
    let manual = Arc::new(std::sync::Mutex::new(()));
    for t in 0..args.threads {
        let mut w = Worker {
            db: Arc::clone(&db),
            expected: Arc::clone(&expected),
            rng: Rng(args
                .seed
                .wrapping_mul(0x1000_0001)
                .wrapping_add(u64::from(t))),
            own: (u64::from(t) * u64::from(args.keys) / u64::from(args.threads)
                ..u64::from(t + 1) * u64::from(args.keys) / u64::from(args.threads))
                .map(|i| i as u32)
                .collect(),
            ids: ids.clone(),
            next_id: next_id.clone(),
            sync_percent: args.sync_percent,
            counts: Arc::clone(&counts),
            manual: Arc::clone(&manual),
        };
        let stop = Arc::clone(&stop);
        let ops = args.ops;
        handles.push(std::thread::spawn(move || -> Result<()> {
            let mut done = 0u64;
            while !stop.load(Ordering::Relaxed)
                && Instant::now() < deadline
                && ops.is_none_or(|n| done < n)
            {
                if let Err(e) = w.step() {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                done += 1;
            }
            Ok(())
        }));
    }
    let mut first_err = None;
    for h in handles {
        let r = h
            .join()
            .unwrap_or_else(|_| Err(mismatch("a worker thread panicked".into())));
        if let Err(e) = r {
            first_err.get_or_insert(e);
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
    say!(
        "stress: puts {}, deletes {}, range deletions {}, batches {}, gets {}, scans {}, snapshots {}, flushes {}, compactions {}, complete GCs {}, wrong reads 0",
        g(&counts.puts),
        g(&counts.deletes),
        g(&counts.range_deletes),
        g(&counts.batches),
        g(&counts.gets),
        g(&counts.scans),
        g(&counts.snapshots),
        g(&counts.flushes),
        g(&counts.compactions),
        g(&counts.complete_gcs),
    );
    match Arc::try_unwrap(db) {
        Ok(db) => db.close(),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_identify_their_key_and_id() {
        for i in [0u32, 7, 123_456] {
            for id in [1u32, 2, 99] {
                let v = value_of(i, id);
                assert_eq!(id_of(i, &v), Some(id));
                assert_eq!(id_of(i + 1, &v), None);
                let mut bad = v.clone();
                let last = bad.len() - 1;
                bad[last] ^= 1;
                assert_eq!(id_of(i, &bad), None);
            }
        }
        assert_eq!(index_of(&key_of(42)), Some(42));
    }

    #[test]
    fn expected_state_round_trips_and_checks_its_header() {
        let dir = std::env::temp_dir().join(format!("twain-exp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("expected");
        let e = Expected::open(&path, 10).unwrap();
        assert_eq!(e.get(3).unwrap(), (0, 0));
        e.set(3, 5, 6).unwrap();
        drop(e);
        let e = Expected::open(&path, 10).unwrap();
        assert_eq!(e.get(3).unwrap(), (5, 6));
        assert!(Expected::open(&path, 11).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
