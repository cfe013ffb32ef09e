//! `twain checkpoint`, `twain copy`, `twain backup` and `twain restore`: the command-line
//! face of [`twain::Db::checkpoint`], [`twain::Db::copy_into`] and [`twain::backup`].

use crate::Outcome;
use crate::say::note;
use crate::units::{Sizes, counted};
use std::io::Write;
use std::path::{Path, PathBuf};
use twain::{Error, Options, Result, backup};

/// `twain checkpoint DIR`.
#[derive(Debug, clap::Args)]
pub struct CheckpointArgs {
    /// Where the copy goes: a new or empty directory.
    pub dir: PathBuf,
    /// Copy every file instead of hard-linking the ones that never change.
    #[arg(long)]
    pub copy: bool,
}

/// `twain copy DIR`.
#[derive(Debug, clap::Args)]
pub struct CopyArgs {
    /// Where the new database goes: a new or empty directory.
    pub dir: PathBuf,
    /// Set an option of the new database, e.g. `--to-set value_layout=hash` (repeatable;
    /// `--set` applies to the source).
    #[arg(long = "to-set", value_name = "KEY=VALUE")]
    pub to_set: Vec<String>,
}

/// `twain backup DIR`.
#[derive(Debug, clap::Args)]
pub struct BackupArgs {
    /// The backup directory (created if missing); backups in it share unchanged files.
    pub dir: PathBuf,
    /// List the backups in DIR instead of making one.
    #[arg(long, conflicts_with_all = ["verify", "delete"])]
    pub list: bool,
    /// Check every file of backup ID against its recorded size and checksum (exit status 1
    /// on any problem) instead of making one.
    #[arg(long, value_name = "ID", conflicts_with = "delete")]
    pub verify: Option<u64>,
    /// Delete backup ID, and the files no other backup shares.
    #[arg(long, value_name = "ID")]
    pub delete: Option<u64>,
}

/// `twain restore DIR ID`.
#[derive(Debug, clap::Args)]
pub struct RestoreArgs {
    /// The backup directory.
    pub dir: PathBuf,
    /// The backup to restore (see `twain backup DIR --list`).
    pub id: u64,
}

fn open(db: &Path, sets: &[String]) -> Result<twain::Db> {
    let mut opts = Options::default().create_if_missing(false);
    crate::commands::apply_sets(&mut opts, sets)?;
    twain::Db::open(db, opts)
}

fn w(source: std::io::Error) -> Error {
    Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    }
}

/// Makes the checkpoint and says what it holds.
pub fn checkpoint(
    db: &Path,
    sets: &[String],
    args: &CheckpointArgs,
    sizes: Sizes,
    out: &mut dyn Write,
) -> Result<()> {
    let handle = open(db, sets)?;
    let info = handle.checkpoint(&args.dir, !args.copy)?;
    handle.close()?;
    writeln!(
        out,
        "checkpoint {} at sequence {}: {} linked ({}), {} copied ({})",
        args.dir.display(),
        info.sequence,
        counted(info.files_linked, "file"),
        sizes.show(info.bytes_linked),
        counted(info.files_copied, "file"),
        sizes.show(info.bytes_copied),
    )
    .map_err(w)
}

/// Copies the pairs of the database (opened read-only) into a new one and says how many.
pub fn copy(
    db: &Path,
    sets: &[String],
    args: &CopyArgs,
    sizes: Sizes,
    out: &mut dyn Write,
) -> Result<()> {
    let mut opts = Options::default();
    crate::commands::apply_sets(&mut opts, sets)?;
    let source = twain::Db::open_read_only(db, opts)?;
    let mut to = Options::default();
    crate::commands::apply_sets(&mut to, &args.to_set)?;
    let info = source.copy_into(&args.dir, to)?;
    writeln!(
        out,
        "copied {} ({} expiring) into {}: keys {}, values {}",
        counted(info.pairs, "pair"),
        info.expiring,
        args.dir.display(),
        sizes.show(info.key_bytes),
        sizes.show(info.value_bytes),
    )
    .map_err(w)
}

/// Makes, lists, verifies or deletes backups.
pub fn backup(
    db: &Path,
    sets: &[String],
    args: &BackupArgs,
    sizes: Sizes,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let fs = twain::fs::RealFs;
    if args.list {
        writeln!(
            out,
            "{:>6}  {:<20}  {:>12}  {:>6}  {:>10}",
            "ID", "CREATED (UTC)", "SEQUENCE", "FILES", "SIZE"
        )
        .map_err(w)?;
        for b in backup::list(&fs, &args.dir)? {
            writeln!(
                out,
                "{:>6}  {:<20}  {:>12}  {:>6}  {:>10}",
                b.id,
                utc(b.created),
                b.sequence,
                b.files,
                sizes.show(b.bytes)
            )
            .map_err(w)?;
        }
        return Ok(Outcome::Done);
    }
    if let Some(id) = args.verify {
        let (info, problems) = backup::verify(&fs, &args.dir, id)?;
        for p in &problems {
            writeln!(out, "{p}").map_err(w)?;
        }
        if !problems.is_empty() {
            note!(
                "twain: backup {id}: {}",
                counted(problems.len() as u64, "problem")
            );
            return Ok(Outcome::No);
        }
        writeln!(
            out,
            "backup {id}: {} ({}) verified",
            counted(info.files, "file"),
            sizes.show(info.bytes)
        )
        .map_err(w)?;
        return Ok(Outcome::Done);
    }
    if let Some(id) = args.delete {
        let freed = backup::delete(&fs, &args.dir, id)?;
        writeln!(out, "deleted backup {id}, freed {}", sizes.show(freed)).map_err(w)?;
        return Ok(Outcome::Done);
    }
    let handle = open(db, sets)?;
    let info = handle.backup(&args.dir)?;
    handle.close()?;
    writeln!(
        out,
        "backup {} at sequence {}: {} ({}), {} new",
        info.id,
        info.sequence,
        counted(info.files, "file"),
        sizes.show(info.bytes),
        sizes.show(info.new_bytes),
    )
    .map_err(w)?;
    Ok(Outcome::Done)
}

/// Restores a backup into the database directory.
pub fn restore(db: &Path, args: &RestoreArgs, sizes: Sizes, out: &mut dyn Write) -> Result<()> {
    let info = backup::restore(&twain::fs::RealFs, &args.dir, args.id, db)?;
    writeln!(
        out,
        "restored backup {} (sequence {}) into {}: {} ({})",
        info.id,
        info.sequence,
        db.display(),
        counted(info.files, "file"),
        sizes.show(info.bytes)
    )
    .map_err(w)
}

/// `secs` since the Unix epoch as `YYYY-MM-DD HH:MM:SS` in UTC.
fn utc(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (proleptic Gregorian), after Howard Hinnant's published algorithm.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_written_in_utc() {
        assert_eq!(super::utc(0), "1970-01-01 00:00:00");
        assert_eq!(super::utc(951_782_400), "2000-02-29 00:00:00");
        assert_eq!(super::utc(1_795_744_800), "2026-11-27 02:00:00");
    }
}
