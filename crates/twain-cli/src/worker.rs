//! `twain compaction-worker`: serves compaction parts of one database to the process that
//! has it open (Co-KV offload; `twain::compaction::worker`).

use crate::say::note;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::compaction::remote::Address;
use twain::compaction::worker::{Step, StepHook, Worker, WorkerConfig};

/// The most connections a worker serves at once.
const MAX_CONNECTIONS: usize = 4096;

/// Serve compaction parts of the database (--db) to its host, which sets
/// `compaction_offload` to this address.
///
/// Examples:
///   twain --db DIR compaction-worker --listen unix:/run/twain/worker.sock
///   TWAIN_WORKER_TOKEN=secret twain --db DIR compaction-worker --listen tcp:0.0.0.0:7420
///   (host: --set compaction_offload=tcp:worker-host:7420 --set compaction_offload_token=secret)
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerArgs {
    /// Where to listen: unix:PATH or tcp:HOST:PORT (TCP needs a token).
    #[arg(long, value_name = "ADDRESS")]
    listen: String,
    /// A file whose first line is the token hosts must present (or set TWAIN_WORKER_TOKEN).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Connections served at once (1-4096); more are refused as busy.
    #[arg(long, default_value_t = 64)]
    max_connections: usize,
    /// Test hook: SIGKILL this process at this step of the first part it runs
    /// (received, merging, written, replying).
    #[arg(long, hide = true, value_name = "STEP")]
    debug_kill_at: Option<String>,
    /// Test hook: sleep this many milliseconds at every step of every part.
    #[arg(long, hide = true, value_name = "MS")]
    debug_step_delay_ms: Option<u64>,
}

/// Runs the worker until it is killed.
pub fn run(db: &Path, args: &WorkerArgs) -> twain::Result<()> {
    let bad = |m: String| twain::Error::InvalidArgument(m);
    if !(1..=MAX_CONNECTIONS).contains(&args.max_connections) {
        return Err(bad(format!(
            "--max-connections {} is not in 1..={MAX_CONNECTIONS}",
            args.max_connections
        )));
    }
    let address = Address::parse(&args.listen).map_err(|e| bad(format!("--listen: {e}")))?;
    let token = token(args)?;
    let kill_at = args
        .debug_kill_at
        .as_deref()
        .map(|s| match s {
            "received" => Ok(Step::Received),
            "merging" => Ok(Step::Merging),
            "written" => Ok(Step::Written),
            "replying" => Ok(Step::Replying),
            other => Err(bad(format!("--debug-kill-at {other:?} is not a step"))),
        })
        .transpose()?;
    let delay = args
        .debug_step_delay_ms
        .map(std::time::Duration::from_millis);
    let at_step: Option<StepHook> = (kill_at.is_some() || delay.is_some()).then(|| {
        Arc::new(move |step: Step| {
            if let Some(d) = delay {
                note!(
                    "twain compaction-worker: step {step:?}, waiting {d:?} (--debug-step-delay-ms)"
                );
                std::thread::sleep(d);
            }
            if kill_at == Some(step) {
                note!("twain compaction-worker: killing myself at {step:?} (--debug-kill-at)");
                // SAFETY: sends a signal to this process; no memory is involved.
                unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            }
        }) as StepHook
    });
    let worker = Arc::new(Worker::new(WorkerConfig {
        fs: Arc::new(twain::fs::RealFs::new()),
        dir: db.to_path_buf(),
        token,
        max_connections: args.max_connections,
        at_step,
    })?);
    if let Address::Unix(path) = &address {
        remove_stale_socket(path);
    }
    let listener = worker.bind(&address)?;
    note!(
        "twain compaction-worker: serving {} (database {}) on {address}",
        db.display(),
        worker.identity()
    );
    worker.serve_on(listener)
}

/// The token from `--token-file` or `TWAIN_WORKER_TOKEN`.
fn token(args: &WorkerArgs) -> twain::Result<Option<Vec<u8>>> {
    let token = match &args.token_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| twain::Error::Io {
                op: "read",
                path: path.clone(),
                source: e,
            })?;
            Some(text.lines().next().unwrap_or_default().to_string())
        }
        None => std::env::var("TWAIN_WORKER_TOKEN").ok(),
    };
    match token {
        Some(t) if t.is_empty() => Err(twain::Error::InvalidArgument(
            "the worker's token is empty".into(),
        )),
        t => Ok(t.map(String::into_bytes)),
    }
}

/// Removes a socket file that nothing listens on any more (a killed worker's).
fn remove_stale_socket(path: &Path) {
    use std::os::unix::fs::FileTypeExt;
    let is_socket = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket());
    if is_socket && std::os::unix::net::UnixStream::connect(path).is_err() {
        let _ = std::fs::remove_file(path);
    }
}

/// Starts `exe compaction-worker` for `db` on the Unix socket `socket` (a stale socket file
/// removed first) and waits up to 30 s until it listens; stderr goes to `stderr`.
pub fn spawn(
    exe: &Path,
    db: &Path,
    socket: &Path,
    stderr: std::process::Stdio,
) -> std::io::Result<WorkerChild> {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let _ = std::fs::remove_file(socket);
    let mut child = Command::new(exe)
        .arg("--db")
        .arg(db)
        .args(["compaction-worker", "--listen"])
        .arg(format!("unix:{}", socket.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !socket.exists() {
        if Instant::now() > deadline || matches!(child.try_wait(), Ok(Some(_))) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(
                "the compaction worker did not start listening",
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(WorkerChild(child))
}

/// A worker process, SIGKILLed when dropped.
pub struct WorkerChild(pub std::process::Child);

impl Drop for WorkerChild {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
