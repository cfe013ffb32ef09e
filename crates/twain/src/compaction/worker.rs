//! A compaction worker (Co-KV's device-side compaction manager; `twain compaction-worker`):
//! it serves one database, named by its identity, to hosts that connect over a Unix socket
//! or TCP (`format::worker_protocol`), and runs the compaction parts they send through the
//! file system alone (`compaction::files_env`). It never accepts a job for a database it
//! was not started for, never takes a file number the host did not reserve, never writes
//! over an existing file, and removes what it wrote when a part fails or its host goes
//! away. The host checks everything it returns (`compaction::validate`).

use super::files_env::FilesEnv;
use super::job::{PartEnv, PartJob};
use super::part::{PartEnd, run_part};
use super::remote::{Address, Stream, read_frame_within};
use crate::format::compaction_job::{KIND_JOB, decode_job, encode_outcome};
use crate::format::identity::read_identity;
use crate::format::worker_protocol::{
    self as wire, Failure, FailureCode, KIND_HELLO, MAX_FRAME, MAX_HELLO_FRAME,
};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::version::TableFile;
use crate::vlog::ValueFile;
use crate::{Error, Result};
use std::io;
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// How long a connection may take to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an authenticated connection may wait between jobs.
const IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// The shortest progress interval a host may ask for.
const MIN_PROGRESS: Duration = Duration::from_millis(10);
/// The longest: a worker notices a host that went away at its next progress message.
const MAX_PROGRESS: Duration = Duration::from_secs(5);

/// The steps of a part, for tests that kill a worker at each (`WorkerConfig::at_step`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The job arrived and decoded; nothing is read yet.
    Received,
    /// The merge is under way: some output is written and more is to come (the second
    /// output file is about to be created, or 4096 entries are merged, whichever first).
    Merging,
    /// Every output is written and synced; no reply sent yet.
    Written,
    /// The outcome is encoded and about to be sent.
    Replying,
}

/// A hook called at each step of every part.
pub type StepHook = Arc<dyn Fn(Step) + Send + Sync>;

/// How a worker serves its database.
#[derive(Clone)]
pub struct WorkerConfig {
    /// The file system holding the database.
    pub fs: Arc<dyn Fs>,
    /// The database directory.
    pub dir: PathBuf,
    /// The token a host must present (`None`: none; required over TCP).
    pub token: Option<Vec<u8>>,
    /// Connections served at once; more are refused as busy.
    pub max_connections: usize,
    /// Called at each step of every part (tests).
    pub at_step: Option<StepHook>,
}

/// What a worker has done since it started.
#[derive(Debug, Default)]
pub struct WorkerCounters {
    /// Parts run to their end and returned.
    pub parts_done: AtomicU64,
    /// Parts that failed or whose host went away.
    pub parts_failed: AtomicU64,
    /// Connections refused (wrong database or token, busy, bad hello).
    pub refused: AtomicU64,
    /// Bytes of output tables and placed files written.
    pub bytes_written: AtomicU64,
}

/// A compaction worker for one database.
pub struct Worker {
    config: WorkerConfig,
    identity: String,
    active: Arc<AtomicUsize>,
    counters: WorkerCounters,
    stop: AtomicBool,
}

impl Worker {
    /// A worker for the database in `config.dir`, which must have an identity (any
    /// writable open gives it one).
    pub fn new(config: WorkerConfig) -> Result<Worker> {
        let identity = read_identity(config.fs.as_ref(), &config.dir)?.ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{} has no IDENTITY: open it once with this version of twain",
                config.dir.display()
            ))
        })?;
        if config.max_connections == 0 {
            return Err(Error::InvalidArgument(
                "a worker needs at least one connection".into(),
            ));
        }
        Ok(Worker {
            config,
            identity,
            active: Arc::new(AtomicUsize::new(0)),
            counters: WorkerCounters::default(),
            stop: AtomicBool::new(false),
        })
    }

    /// The identity of the database it serves.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// What it has done.
    pub fn counters(&self) -> &WorkerCounters {
        &self.counters
    }

    /// Makes [`Worker::serve`] return after its next connection, and running parts stop.
    pub fn shut_down(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Binds `address` and serves connections on it until [`Worker::shut_down`], each on
    /// a thread of its own. TCP needs a token.
    pub fn serve(self: &Arc<Self>, address: &Address) -> Result<()> {
        let listener = self.bind(address)?;
        self.serve_on(listener)
    }

    /// Binds `address` (a Unix socket path must not exist yet).
    pub fn bind(&self, address: &Address) -> Result<Listener> {
        let io = |e: io::Error| Error::Io {
            op: "listen",
            path: PathBuf::from(address.to_string()),
            source: e,
        };
        match address {
            Address::Unix(path) => Ok(Listener::Unix(UnixListener::bind(path).map_err(io)?)),
            Address::Tcp(addr) => {
                if self.config.token.as_ref().is_none_or(|t| t.is_empty()) {
                    return Err(Error::InvalidArgument(
                        "a worker listening on TCP needs a token".into(),
                    ));
                }
                Ok(Listener::Tcp(TcpListener::bind(addr).map_err(io)?))
            }
        }
    }

    /// Serves connections on `listener` until [`Worker::shut_down`].
    pub fn serve_on(self: &Arc<Self>, listener: Listener) -> Result<()> {
        while !self.stop.load(Ordering::SeqCst) {
            let stream = match listener.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // A failed accept (out of descriptors, say) must not end the worker.
                    std::thread::sleep(Duration::from_millis(50));
                    let _ = e;
                    continue;
                }
            };
            // The slot is taken before a thread is spent on the connection.
            let Some(slot) = Slot::take(&self.active, self.config.max_connections) else {
                self.counters.refused.fetch_add(1, Ordering::Relaxed);
                let mut stream = stream;
                let _ = stream.set_write_timeout(Some(HELLO_TIMEOUT));
                let why = "the worker is at its connection limit";
                let _ = refuse(&mut stream, FailureCode::Busy, why);
                continue;
            };
            let me = Arc::clone(self);
            let spawned = std::thread::Builder::new()
                .name("twain-worker-conn".into())
                .spawn(move || {
                    let _slot = slot;
                    let _ = me.serve_connection(stream);
                });
            if spawned.is_err() {
                self.counters.refused.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Serves one connection: the hello, then jobs until the host hangs up.
    pub fn serve_connection(&self, mut stream: Stream) -> io::Result<()> {
        stream.set_write_timeout(Some(HELLO_TIMEOUT))?;
        // The whole hello within HELLO_TIMEOUT, however it trickles in.
        let stop = || self.stop.load(Ordering::SeqCst);
        let deadline = Instant::now() + HELLO_TIMEOUT;
        let msg = read_frame_within(&mut stream, MAX_HELLO_FRAME, deadline, &stop)
            .map_err(|e| io::Error::other(e.to_string()))?;
        let hello = match wire::kind_of(&msg).ok().filter(|&k| k == KIND_HELLO) {
            Some(_) => wire::decode_hello(&msg),
            None => {
                self.counters.refused.fetch_add(1, Ordering::Relaxed);
                return refuse(&mut stream, FailureCode::BadMessage, "expected a hello");
            }
        };
        let hello = match hello {
            Ok(h) => h,
            Err(e) => {
                self.counters.refused.fetch_add(1, Ordering::Relaxed);
                return refuse(&mut stream, FailureCode::BadMessage, &e.to_string());
            }
        };
        if let Some(token) = &self.config.token
            && !same_secret(token, &hello.token)
        {
            self.counters.refused.fetch_add(1, Ordering::Relaxed);
            return refuse(&mut stream, FailureCode::Unauthorized, "wrong token");
        }
        if hello.identity != self.identity {
            self.counters.refused.fetch_add(1, Ordering::Relaxed);
            let why = format!(
                "this worker serves database {}, not {}",
                self.identity, hello.identity
            );
            return refuse(&mut stream, FailureCode::WrongDatabase, &why);
        }
        wire::write_frame(&mut stream, &wire::encode_welcome(&self.identity))?;
        let progress = Duration::from_millis(hello.progress_ms).clamp(MIN_PROGRESS, MAX_PROGRESS);
        stream.set_write_timeout(Some(IDLE_TIMEOUT))?;
        loop {
            let deadline = Instant::now() + IDLE_TIMEOUT;
            let msg = match read_frame_within(&mut stream, MAX_FRAME, deadline, &stop) {
                Ok(m) => m,
                // The host hung up, went idle, or the worker shuts down.
                Err(_) => return Ok(()),
            };
            let job = match wire::kind_of(&msg) {
                Ok(KIND_JOB) => decode_job(&msg).map_err(|e| e.to_string()),
                Ok(k) => Err(format!("message kind {k} instead of a job")),
                Err(e) => Err(e.to_string()),
            };
            match job {
                Ok(job) => self.run_job(&mut stream, &job, progress)?,
                Err(why) => return refuse(&mut stream, FailureCode::BadMessage, why.as_str()),
            }
        }
    }

    /// Runs `job`, sending progress every `progress`, then its outcome or failure.
    fn run_job(&self, stream: &mut Stream, job: &PartJob, progress: Duration) -> io::Result<()> {
        self.step(Step::Received);
        if let Some(n) = self.taken_number(job) {
            self.counters.parts_failed.fetch_add(1, Ordering::Relaxed);
            let why = format!("file number {n} reserved for the part is already taken");
            return send_failure(stream, FailureCode::PartFailed, &why);
        }
        let env = WorkerEnv {
            files: FilesEnv::new(Arc::clone(&self.config.fs), &self.config.dir),
            checks: AtomicU64::new(0),
            outputs: AtomicU64::new(0),
            merging: AtomicBool::new(false),
            worker: self,
        };
        let (tx, rx) = mpsc::channel();
        let (end, written, sent) = std::thread::scope(|s| {
            let env = &env;
            s.spawn(move || {
                let mut written = Vec::new();
                // A panic in the part is its failure: the outputs are removed below.
                let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_part(job, env, &mut written)
                }))
                .unwrap_or_else(|_| {
                    Err(Error::InvalidArgument(
                        "the part panicked in the worker".into(),
                    ))
                });
                let end = end.and_then(|end| {
                    // Outputs are synced as they finish; their names too, before any
                    // host can install them.
                    env.files
                        .fs()
                        .sync_dir(env.files.dir())
                        .map_err(|e| Error::Io {
                            op: "sync directory",
                            path: env.files.dir().to_path_buf(),
                            source: e,
                        })?;
                    Ok(end)
                });
                let _ = tx.send((end, written));
            });
            let mut sent = Ok(());
            loop {
                match rx.recv_timeout(progress) {
                    Ok((end, written)) => return (end, written, sent),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        let entries = env.checks.load(Ordering::Relaxed) * 4096;
                        if sent.is_ok() {
                            sent = wire::write_frame(stream, &wire::encode_progress(entries));
                        }
                        if sent.is_err() {
                            // The host is gone: the part stops at its next check.
                            env.files.stop();
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        let gone = Error::InvalidArgument("the part's thread ended".into());
                        return (Err(gone), Vec::new(), sent);
                    }
                }
            }
        });
        let outcome = match end {
            Ok(PartEnd::Done(outcome)) if sent.is_ok() => outcome,
            other => {
                remove_all(self.config.fs.as_ref(), &written);
                self.counters.parts_failed.fetch_add(1, Ordering::Relaxed);
                sent?;
                let why = match other {
                    Err(e) => e.to_string(),
                    _ => "the part stopped (the worker is shutting down)".to_string(),
                };
                return send_failure(stream, FailureCode::PartFailed, &why);
            }
        };
        self.step(Step::Written);
        let msg = encode_outcome(&outcome);
        self.step(Step::Replying);
        if let Err(e) = wire::write_frame(stream, &msg) {
            // The host never saw it: nothing of it will be installed.
            remove_all(self.config.fs.as_ref(), &written);
            self.counters.parts_failed.fetch_add(1, Ordering::Relaxed);
            return Err(e);
        }
        let bytes = outcome.figures.table_bytes_written
            + outcome.placed.as_ref().map_or(0, |p| p.total_bytes);
        self.counters
            .bytes_written
            .fetch_add(bytes, Ordering::Relaxed);
        self.counters.parts_done.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// A reserved number some file of the directory already has, or `Some(0)` if the
    /// directory cannot be listed (fail closed). Outputs are created with `create_new`
    /// too, so a file that appears meanwhile fails the part instead of being replaced.
    fn taken_number(&self, job: &PartJob) -> Option<u64> {
        let Ok(names) = self.config.fs.list_dir(&self.config.dir) else {
            return Some(0);
        };
        names.iter().find_map(|n| {
            crate::format::names::parse_file_name(n)
                .map(|(_, number)| number)
                .filter(|x| job.numbers.contains(x))
        })
    }

    fn step(&self, step: Step) {
        if let Some(hook) = &self.config.at_step {
            hook(step);
        }
    }
}

/// A listening socket.
pub enum Listener {
    /// A Unix socket.
    Unix(UnixListener),
    /// TCP.
    Tcp(TcpListener),
}

impl Listener {
    fn accept(&self) -> io::Result<Stream> {
        match self {
            Listener::Unix(l) => l.accept().map(|(s, _)| Stream::Unix(s)),
            Listener::Tcp(l) => l.accept().map(|(s, _)| {
                let _ = s.set_nodelay(true);
                Stream::Tcp(s)
            }),
        }
    }
}

/// One of the worker's connection slots, given back when dropped.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(active: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        let mut n = active.load(Ordering::SeqCst);
        loop {
            if n >= max {
                return None;
            }
            match active.compare_exchange(n, n + 1, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return Some(Slot(Arc::clone(active))),
                Err(now) => n = now,
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The files environment of a worker's part: counts the merge's stop checks (every 4096
/// entries) for progress and its output files, calls the step hook, and stops when the
/// worker shuts down.
struct WorkerEnv<'a> {
    files: FilesEnv,
    checks: AtomicU64,
    outputs: AtomicU64,
    merging: AtomicBool,
    worker: &'a Worker,
}

impl WorkerEnv<'_> {
    fn merging(&self) {
        if !self.merging.swap(true, Ordering::Relaxed) {
            self.worker.step(Step::Merging);
        }
    }
}

impl PartEnv for WorkerEnv<'_> {
    fn fs(&self) -> &Arc<dyn Fs> {
        // A part reaches the file system only to create an output.
        if self.outputs.fetch_add(1, Ordering::Relaxed) == 1 {
            self.merging();
        }
        self.files.fs()
    }

    fn dir(&self) -> &Path {
        self.files.dir()
    }

    fn table(&self, record: &crate::format::manifest::TableRecord) -> Result<Arc<TableFile>> {
        self.files.table(record)
    }

    fn value_file(&self, number: u64, epoch: u32) -> Result<Option<Arc<ValueFile>>> {
        self.files.value_file(number, epoch)
    }

    fn is_dropped(&self, number: u64, epoch: u32, seq: SeqNo) -> Result<bool> {
        self.files.is_dropped(number, epoch, seq)
    }

    fn stopped(&self) -> bool {
        if self.checks.fetch_add(1, Ordering::Relaxed) == 0 {
            self.merging();
        }
        self.files.stopped() || self.worker.stop.load(Ordering::SeqCst)
    }

    fn extra_file_number(&self) -> Result<u64> {
        self.files.extra_file_number()
    }
}

fn refuse(stream: &mut Stream, code: FailureCode, why: &str) -> io::Result<()> {
    send_failure(stream, code, why)
}

fn send_failure(stream: &mut Stream, code: FailureCode, why: &str) -> io::Result<()> {
    let f = Failure {
        code,
        message: why.to_string(),
    };
    wire::write_frame(stream, &wire::encode_failure(&f))
}

fn remove_all(fs: &dyn Fs, written: &[(u64, PathBuf)]) {
    for (_, path) in written {
        let _ = fs.remove_file(path);
    }
}

/// Compares two secrets in time that depends only on their lengths.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
        assert!(same_secret(b"", b""));
    }

    #[test]
    fn slots_are_bounded_and_given_back() {
        let active = Arc::new(AtomicUsize::new(0));
        let a = Slot::take(&active, 2).unwrap();
        let _b = Slot::take(&active, 2).unwrap();
        assert!(Slot::take(&active, 2).is_none());
        drop(a);
        assert!(Slot::take(&active, 2).is_some());
    }
}
