//! The `twain-worker` engine: twain whose split compactions send half their parts to a
//! `twain compaction-worker` process (Co-KV offload), started beside it from the `twain`
//! binary named by `--twain-exe`; its CPU seconds and bytes written are read from `/proc`
//! when the engine's run ends.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use twain_bench::measure::{ProcIo, process_cpu_secs_of};
use twain_bench::{BenchError, BenchResult, TwainEngine};

/// A worker process serving one engine's database.
pub struct PeerWorker {
    child: Child,
}

/// Opens twain in `dir` with parts offloaded to a worker on `socket`, then starts the
/// worker (the database must exist, with its identity, before the worker starts).
pub fn open(
    exe: &Path,
    dir: &Path,
    socket: &Path,
    opts: &twain::Options,
    sync: bool,
) -> BenchResult<(TwainEngine, PeerWorker)> {
    if opts.max_subcompactions < 2 {
        return Err(BenchError::InvalidArgument(
            "twain-worker needs --set max_subcompactions=2 or more".into(),
        ));
    }
    let opts = opts
        .clone()
        .compaction_offload(Some(twain::compaction::remote::Address::Unix(
            socket.to_path_buf(),
        )));
    let engine = TwainEngine::open_named(dir, opts, sync, "twain-worker")?;
    let _ = std::fs::remove_file(socket);
    let mut child = Command::new(exe)
        .arg("--db")
        .arg(dir)
        .args(["compaction-worker", "--listen"])
        .arg(format!("unix:{}", socket.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| BenchError::io(format!("starting {}", exe.display()), e))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !socket.exists() {
        if Instant::now() > deadline || matches!(child.try_wait(), Ok(Some(_))) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(BenchError::InvalidArgument(
                "the compaction worker did not start listening".into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok((engine, PeerWorker { child }))
}

impl PeerWorker {
    /// Stops the worker; returns its CPU seconds and the bytes it wrote.
    pub fn finish(mut self) -> BenchResult<(f64, u64)> {
        let pid = self.child.id();
        let cpu = process_cpu_secs_of(pid)?;
        let io = ProcIo::read_of(pid)?;
        let _ = self.child.kill();
        let _ = self.child.wait();
        Ok((cpu, io.write_bytes))
    }
}
