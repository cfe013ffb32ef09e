//! Punching holes (WiscKey): the dead runs of a value file (log or SVTable) chosen by
//! [`choose`](super::punch_plan::choose) are freed in place with
//! [`Fs::punch_hole`](crate::fs::Fs::punch_hole), copying nothing. Drop-records mode only;
//! lsm-lookup mode always relocates.
//!
//! What is here acts on one file and its runs, through the file system alone: the holes a
//! set of runs frees ([`punchable_holes`]), the manifest delta that records them ([`punch_delta`]), and the
//! punch itself ([`punch_file`]). `db::punch` records the runs, keeps the holes until no
//! reader of an older version remains, and counts what was freed.

use super::punch_plan::DeadRun;
use crate::Error;
use crate::error::IoContext;
use crate::format::manifest::PunchDelta;
use crate::fs::{ALLOCATION_BLOCK, Fs};
use std::path::Path;

/// The block punching frees whole: the common file-system block ([`ALLOCATION_BLOCK`]).
pub(crate) const PUNCH_BLOCK: u64 = ALLOCATION_BLOCK;

/// The whole-block ranges `[from, to)` inside `runs` (`(start, end)` each): what punching
/// them frees.
pub(crate) fn punchable_holes(runs: impl IntoIterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    runs.into_iter()
        .filter_map(|(start, end)| {
            let run = DeadRun {
                start,
                end,
                records: 0,
                record_bytes: 0,
            };
            run.interior(PUNCH_BLOCK)
        })
        .collect()
}

/// The manifest delta that records punching `runs` of value file `number` at `epoch`,
/// whose whole blocks are `holes`.
pub(crate) fn punch_delta(
    number: u64,
    epoch: u32,
    runs: &[DeadRun],
    holes: &[(u64, u64)],
) -> PunchDelta {
    PunchDelta {
        number,
        epoch,
        runs: runs.iter().map(|r| (r.start, r.end)).collect(),
        records: runs.iter().map(|r| r.records).sum(),
        record_bytes: runs.iter().map(|r| r.record_bytes).sum(),
        punched_bytes: holes.iter().map(|(a, b)| b - a).sum(),
    }
}

/// What punching a file's holes did.
#[derive(Debug)]
pub(crate) struct Punched {
    /// Bytes punched (durable unless `error` is set).
    pub bytes: u64,
    /// Whether the file system cannot punch (`Unsupported`, `EOPNOTSUPP`): the holes after
    /// the refused one were not tried.
    pub unsupported: bool,
    /// The I/O error that stopped the punch or its sync, if any.
    pub error: Option<Error>,
}

/// Punches `holes` out of the file at `path` and syncs it: durable like written data (a
/// crash before the sync may undo the holes, which the recorded runs make harmless).
pub(crate) fn punch_file(fs: &dyn Fs, path: &Path, holes: &[(u64, u64)]) -> Punched {
    let mut done = Punched {
        bytes: 0,
        unsupported: false,
        error: None,
    };
    for &(from, to) in holes {
        match fs.punch_hole(path, from, to - from) {
            Ok(()) => done.bytes += to - from,
            Err(e) if is_unsupported(&e) => {
                done.unsupported = true;
                break;
            }
            Err(e) => {
                done.error = Some(Error::Io {
                    op: "punch a hole in",
                    path: path.to_path_buf(),
                    source: e,
                });
                return done;
            }
        }
    }
    if done.bytes > 0 {
        let synced = fs
            .open_append(path)
            .ctx("open", path)
            .and_then(|mut f| f.sync_data().ctx("sync", path));
        done.error = synced.err();
    }
    done
}

/// Whether the file at `path` has other names (a checkpoint's hard link): such a file is
/// never punched, only rewritten, so that what one database frees cannot reach the other.
pub(crate) fn shared_file(fs: &dyn Fs, path: &Path) -> crate::Result<bool> {
    Ok(fs.link_count(path).ctx("stat", path)? > 1)
}

/// Whether a punch failed because the file system cannot punch holes.
fn is_unsupported(e: &std::io::Error) -> bool {
    const EOPNOTSUPP: i32 = 95;
    e.kind() == std::io::ErrorKind::Unsupported || e.raw_os_error() == Some(EOPNOTSUPP)
}
