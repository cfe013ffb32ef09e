//! `twain bench --compaction-worker`: a `twain compaction-worker` process beside the
//! benchmark, serving its database, with its CPU time and I/O read from `/proc` at the end.

use crate::units::Sizes;
use std::path::Path;
use std::process::Stdio;
use twain::Options;
use twain::compaction::remote::Address;
use twain_bench::BenchError;
use twain_bench::measure::{ProcIo, process_cpu_secs, process_cpu_secs_of};

/// Points `opts` at a worker socket in a new temporary directory, which it returns.
pub fn prepare(opts: &mut Options) -> Result<tempfile::TempDir, BenchError> {
    if opts.max_subcompactions < 2 {
        return Err(BenchError::InvalidArgument(
            "--compaction-worker needs --set max_subcompactions=2 or more: only parts of a split compaction are offloaded".into(),
        ));
    }
    let dir = tempfile::Builder::new()
        .prefix("twain-bench-worker-")
        .tempdir()
        .map_err(|e| BenchError::io("creating a temporary directory", e))?;
    opts.compaction_offload = Some(Address::Unix(dir.path().join("worker.sock")));
    Ok(dir)
}

/// The running worker.
pub struct BenchWorker {
    child: crate::worker::WorkerChild,
    io_at_start: ProcIo,
    cpu_at_start: f64,
}

impl BenchWorker {
    /// Starts the worker for the (open) database in `db`, on the socket in `sockets`.
    pub fn start(db: &Path, sockets: &tempfile::TempDir) -> Result<BenchWorker, BenchError> {
        let exe = std::env::current_exe().map_err(|e| BenchError::io("finding twain", e))?;
        let socket = sockets.path().join("worker.sock");
        let child = crate::worker::spawn(&exe, db, &socket, Stdio::inherit())
            .map_err(|e| BenchError::io("starting twain compaction-worker", e))?;
        Ok(BenchWorker {
            child,
            io_at_start: ProcIo::read()?,
            cpu_at_start: process_cpu_secs()?,
        })
    }

    /// Stops the worker; returns a line with its CPU seconds and bytes written beside
    /// this process's since the start, and the host's offload counters.
    pub fn finish(self, stats: &twain::Stats, sizes: Sizes) -> Result<String, BenchError> {
        let pid = self.child.0.id();
        let worker_cpu = process_cpu_secs_of(pid)?;
        let worker_io = ProcIo::read_of(pid)?;
        drop(self.child);
        let host_cpu = process_cpu_secs()? - self.cpu_at_start;
        let host_io = ProcIo::read()?.delta(&self.io_at_start);
        Ok(format!(
            "compaction worker (pid {pid}): CPU {worker_cpu:.1} s, wrote {}; this process: CPU {host_cpu:.1} s, wrote {}; parts {} ({} offloaded, {} taken back), compaction wrote {} ({} by the worker)",
            sizes.show(worker_io.write_bytes),
            sizes.show(host_io.write_bytes),
            stats.compaction_parts,
            stats.parts_offloaded,
            stats.parts_taken_back,
            sizes.show(stats.compaction_bytes_written),
            sizes.show(stats.worker_bytes_written),
        ))
    }
}
