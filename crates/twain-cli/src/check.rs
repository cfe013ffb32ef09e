//! `twain check`: the command-line face of [`twain::check::check`].

use crate::Outcome;
use crate::say::note;
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{FileLock, Fs};
use twain::{Error, Options, Result};

/// Checks the database at `db` (options from `sets`, for `num_levels`) and writes the report
/// to `out`; [`Outcome::No`] if it found any problem.
///
/// The check reads files without a version to hold them, so it needs the database closed:
/// if another process holds its `LOCK`, it says so instead of reporting a writer's work in
/// progress as damage. It holds the lock (when it can take it) while it runs.
pub fn run(db: &Path, sets: &[String], out: &mut dyn Write) -> Result<Outcome> {
    let mut opts = Options::default();
    crate::commands::apply_sets(&mut opts, sets)?;
    let _lock = lock_if_present(db)?;
    let report = check(
        db,
        &CheckOptions {
            fs: Arc::new(twain::fs::RealFs::new()),
            num_levels: opts.num_levels,
        },
    )?;
    writeln!(out, "{}", report.to_text()).map_err(|source| Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    })?;
    if report.is_ok() {
        Ok(Outcome::Done)
    } else {
        note!(
            "twain: check found {} problems in {}",
            report.problems.len(),
            db.display()
        );
        Ok(Outcome::No)
    }
}

/// Takes the database's lock if it has a `LOCK` file (never creating one): `Locked` if
/// another process holds it; nothing on a file system that refuses to open it for writing.
fn lock_if_present(db: &Path) -> Result<Option<Box<dyn FileLock>>> {
    let fs = twain::fs::RealFs::new();
    let path = db.join("LOCK");
    if !fs.is_file(&path).unwrap_or(false) {
        return Ok(None);
    }
    match fs.lock(&path) {
        Ok(lock) => Ok(Some(lock)),
        Err(e) if e.kind() == ErrorKind::WouldBlock => Err(Error::InvalidArgument(format!(
            "the database at {} is in use by another process (twain check needs it closed; \
             `get`, `scan` and `stats` work while it is open)",
            db.display()
        ))),
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied
            ) =>
        {
            Ok(None)
        }
        Err(source) => Err(Error::Io {
            op: "lock",
            path,
            source,
        }),
    }
}
