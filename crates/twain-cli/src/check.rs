//! `twain check`: the command-line face of [`twain::check::check`].

use crate::Outcome;
use crate::say::note;
use crate::units::{Sizes, counted};
use clap::Args;
use serde_json::json;
use std::fmt::Write as _;
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, CheckReport, Finding, check};
use twain::fs::{FileLock, Fs};
use twain::{Error, Options, Result};

/// Arguments of `twain check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The report as one JSON object (exact numbers, whatever --bytes says); the exit
    /// status is the same.
    #[arg(long)]
    pub json: bool,
}

/// Checks the database at `db` (options from `sets`, for `num_levels`) and writes the report
/// to `out` (sizes as `sizes` says); [`Outcome::No`] if it found any problem.
///
/// The check reads files without a version to hold them, so it needs the database closed:
/// if another process holds its `LOCK`, it says so instead of reporting a writer's work in
/// progress as damage. It holds the lock (when it can take it) while it runs.
pub fn run(
    db: &Path,
    sets: &[String],
    args: &CheckArgs,
    sizes: Sizes,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let mut opts = Options::default();
    crate::commands::apply_sets(&mut opts, sets)?;
    let _lock = lock_if_present(db)?;
    let report = check(
        db,
        &CheckOptions {
            fs: Arc::new(twain::fs::RealFs::new()),
            num_levels: opts.num_levels,
            clock: Arc::clone(&opts.clock),
        },
    )?;
    let text = match args.json {
        true => to_json(&report),
        false => to_text(&report, sizes),
    };
    writeln!(out, "{text}").map_err(|source| Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    })?;
    if report.is_ok() {
        Ok(Outcome::Done)
    } else {
        note!(
            "twain: check found {} in {}",
            counted(report.problems.len() as u64, "problem"),
            db.display()
        );
        Ok(Outcome::No)
    }
}

/// The readable report, as [`CheckReport::to_text`] writes it with the bytes checked
/// written by `sizes`: problems, notes, then a verdict and the figures.
fn to_text(r: &CheckReport, sizes: Sizes) -> String {
    let mut s = String::new();
    let lines = |s: &mut String, label: &str, findings: &[Finding]| {
        for f in findings {
            let _ = writeln!(s, "{label}{f}");
        }
    };
    lines(&mut s, "PROBLEM ", &r.problems);
    lines(&mut s, "set-aside by value GC: ", &r.set_aside);
    lines(&mut s, "note    ", &r.notes);
    for o in &r.orphans {
        let _ = writeln!(s, "orphan  {}", o.display());
    }
    lines(&mut s, "unexpected ", &r.unexpected);
    let verdict = if r.is_ok() { "OK" } else { "DAMAGED" };
    let _ = write!(
        s,
        "{verdict}: files {} ({}), manifest edits {}, tables {}, entries {}, handles resolved {}, \
         value files {}, records {}, drop files {}, drop records {}, orphans {}, problems {}",
        r.files_checked,
        sizes.show(r.bytes_checked),
        r.manifest_edits,
        r.tables,
        r.table_entries,
        r.handles_resolved,
        r.value_files,
        r.value_records,
        r.drop_files,
        r.drop_records,
        r.orphans.len(),
        r.problems.len()
    );
    s
}

/// The report as one JSON object: `ok`, the findings (`file`, `offset` or null, `what`),
/// and the figures under the names of [`CheckReport`]'s fields.
fn to_json(r: &CheckReport) -> String {
    let findings = |list: &[Finding]| -> Vec<serde_json::Value> {
        list.iter()
            .map(|f| {
                json!({
                    "file": f.file.to_string_lossy(),
                    "offset": f.offset,
                    "what": f.what,
                })
            })
            .collect()
    };
    let orphans: Vec<_> = r.orphans.iter().map(|o| o.to_string_lossy()).collect();
    json!({
        "ok": r.is_ok(),
        "problems": findings(&r.problems),
        "set_aside": findings(&r.set_aside),
        "notes": findings(&r.notes),
        "orphans": orphans,
        "unexpected": findings(&r.unexpected),
        "files_checked": r.files_checked,
        "bytes_checked": r.bytes_checked,
        "manifest_edits": r.manifest_edits,
        "tables": r.tables,
        "table_entries": r.table_entries,
        "handles_resolved": r.handles_resolved,
        "value_files": r.value_files,
        "value_records": r.value_records,
        "separated_entries": r.separated_entries,
        "drop_files": r.drop_files,
        "drop_records": r.drop_records,
    })
    .to_string()
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
