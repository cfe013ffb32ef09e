//! Offloading compaction parts to a compaction worker (Co-KV, `compaction::remote`): which
//! parts go, and what happens when one comes back without a usable outcome.
//!
//! Of a compaction split into n parts the host keeps the first ⌈n/2⌉ and sends the rest to
//! the worker (Co-KV's CSA rule: two parts, one each). An offloaded part whose worker
//! cannot be reached, refuses it, fails it, stays silent past the timeout, sends garbage,
//! serves another database, or returns an outcome that fails the host's check
//! (`compaction::validate`) is *taken back*: whatever files the worker may have written
//! under the part's reserved numbers are removed, and the host runs the part itself under
//! fresh numbers. A worker that wakes up later and writes under the old numbers leaves
//! orphans that no version names; the next open removes them. Nothing is installed
//! before the check passes, and the installation is the same single edit as for parts run
//! here (`db::compact`).

use super::parts::VersionEnv;
use super::{DbInner, lock};
use crate::Result;
use crate::compaction::job::{PartEnv, PartJob, PartOutcome};
use crate::compaction::part::{PartEnd, run_part};
use crate::compaction::remote::{self, OffloadTarget, RemoteError};
use crate::compaction::validate::{validate, verify_merge};
use crate::format::names::{FileType, file_path, value_file_path};
use crate::stats::Counters;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The database's offload state.
#[derive(Debug, Default)]
pub(crate) struct OffloadState {
    /// Why the newest part sent to a worker came back to the host.
    pub last_failure: Mutex<Option<String>>,
}

/// Whether part `i` of `n` goes to the worker.
pub(crate) fn offloaded(n: usize, i: usize) -> bool {
    n >= 2 && i >= n.div_ceil(2)
}

/// What a task's offloaded parts did; counted once the task is installed
/// (`db::compact`).
#[derive(Debug, Default)]
pub(crate) struct OffloadTally {
    /// Parts whose worker outcome passed the check.
    pub parts: AtomicU64,
    /// Bytes of tables and value files the worker wrote for them.
    pub worker_bytes: AtomicU64,
}

/// Runs `job` on the worker at `target`, or here if that fails; every file it leaves for
/// the compaction to install or remove is pushed to `written`.
pub(crate) fn run_offloaded(
    inner: &DbInner,
    env: &VersionEnv<'_>,
    job: &PartJob,
    target: &OffloadTarget,
    tally: &OffloadTally,
    written: &mut Vec<(u64, PathBuf)>,
) -> Result<PartEnd> {
    // A worker cannot ask for more numbers: it gets enough for every input byte to end
    // up in its part twice over (a split is uneven, and values merged in place from value
    // files grow the tables).
    let mut job = job.clone();
    let input: u64 = job
        .inputs
        .iter()
        .chain(&job.lower)
        .map(|t| t.file_size)
        .sum();
    let need = 2 * input / job.settings.target_file_size.max(1) + 8;
    if job.numbers.end - job.numbers.start < need {
        let first = lock(&inner.versions).new_file_numbers(need);
        job.numbers = first..first + need;
    }
    let job = &job;
    let why = match try_worker(inner, env, job, target) {
        Ok((outcome, worker_bytes)) => {
            let outputs = outputs(inner, &outcome);
            // Files under the part's numbers that the outcome does not name are the
            // worker's leftovers.
            remove_reserved(inner, job, &outputs);
            written.extend(outputs);
            tally.parts.fetch_add(1, Ordering::Relaxed);
            tally
                .worker_bytes
                .fetch_add(worker_bytes, Ordering::Relaxed);
            return Ok(PartEnd::Done(Box::new(outcome)));
        }
        Err(Taken::Stopped) => {
            remove_reserved(inner, job, &[]);
            return Ok(PartEnd::Stopped);
        }
        Err(Taken::Back(why)) => why,
        Err(Taken::Failed(e)) => return Err(e),
    };
    remove_reserved(inner, job, &[]);
    Counters::add(&inner.counters.parts_taken_back, 1);
    *lock(&inner.offload.last_failure) = Some(format!(
        "a part sent to {} was run here instead: {why}",
        target.address
    ));
    let mut here = job.clone();
    let n = job.numbers.end - job.numbers.start;
    let first = lock(&inner.versions).new_file_numbers(n);
    here.numbers = first..first + n;
    run_part(&here, env, written)
}

/// Why a part did not come back from the worker.
enum Taken {
    /// The host stopped waiting.
    Stopped,
    /// It is taken back, for this reason.
    Back(String),
    /// The host failed (its manifest write): the compaction fails.
    Failed(crate::Error),
}

/// The worker's outcome of `job` and the bytes read to check it.
fn try_worker(
    inner: &DbInner,
    env: &VersionEnv<'_>,
    job: &PartJob,
    target: &OffloadTarget,
) -> std::result::Result<(PartOutcome, u64), Taken> {
    let identity = inner
        .identity
        .as_deref()
        .ok_or_else(|| Taken::Back("the database has no identity".into()))?;
    // IMPORTANT: the part's numbers are durably handed out before a worker may write
    // under them: if this process dies, the next one never gives them to a file of its
    // own while the worker may still be writing.
    lock(&inner.versions)
        .log_file_numbers()
        .map_err(Taken::Failed)?;
    let stopped = || env.stopped();
    let outcome = remote::connect(target, identity, &stopped)
        .and_then(|mut stream| remote::run(&mut stream, job, target.timeout, &stopped))
        .map_err(|e| match e {
            RemoteError::Stopped => Taken::Stopped,
            e => Taken::Back(e.to_string()),
        })?;
    let mut input_entries = 0u64;
    for record in job.inputs.iter().chain(&job.lower) {
        let table = env
            .table(record)
            .map_err(|e| Taken::Back(format!("input table {}: {e}", record.number)))?;
        input_entries += table.table.properties().num_entries;
    }
    // The outcome's files are the worker's until the check passes: removed with the
    // reserved numbers if it fails.
    let failed = |why: String| Taken::Back(format!("its outcome failed the check: {why}"));
    let checked = validate(job, &outcome, &inner.fs, &inner.dir, input_entries);
    Counters::add(
        &inner.counters.offload_check_bytes,
        checked.as_ref().map_or(0, |c| c.bytes),
    );
    let checked = checked.map_err(failed)?;
    if inner.opts.compaction_offload_full_check {
        verify_merge(job, &outcome, env).map_err(failed)?;
    }
    Ok((outcome, checked.bytes))
}

/// The files of `outcome`.
fn outputs(inner: &DbInner, outcome: &PartOutcome) -> Vec<(u64, PathBuf)> {
    let tables = outcome
        .tables
        .iter()
        .map(|t| (t.number, file_path(&inner.dir, FileType::Table, t.number)));
    let placed = outcome
        .placed
        .iter()
        .map(|p| (p.number, value_file_path(&inner.dir, p.number, p.epoch)));
    tables.chain(placed).collect()
}

/// Removes every file a worker may have written under `job`'s reserved numbers, but
/// those of `keep`.
fn remove_reserved(inner: &DbInner, job: &PartJob, keep: &[(u64, PathBuf)]) {
    for n in job.numbers.clone() {
        if keep.iter().any(|(k, _)| *k == n) {
            continue;
        }
        for path in [
            file_path(&inner.dir, FileType::Table, n),
            value_file_path(&inner.dir, n, 1),
        ] {
            // A file that is not there is what we want; any other failure leaves an orphan
            // for the next open.
            let _ = inner.fs.remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::offloaded;

    #[test]
    fn the_host_keeps_the_first_half() {
        assert!(!offloaded(1, 0));
        assert_eq!(
            (0..2).map(|i| offloaded(2, i)).collect::<Vec<_>>(),
            [false, true]
        );
        assert_eq!(
            (0..3).map(|i| offloaded(3, i)).collect::<Vec<_>>(),
            [false, false, true]
        );
        assert_eq!(
            (0..4).map(|i| offloaded(4, i)).collect::<Vec<_>>(),
            [false, false, true, true]
        );
    }
}
