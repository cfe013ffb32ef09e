//! `twain gc`: a complete value GC, and why each value file left stays.

use crate::units::{Sizes, counted};
use clap::Args;
use serde_json::json;
use std::fmt::Write as _;
use twain::gc::SetAsideFile;
use twain::{Db, GcReport, Result, Stats};

/// Arguments of `twain gc`.
#[derive(Debug, Args)]
pub struct GcArgs {
    /// As one JSON object (exact numbers, whatever --bytes says).
    #[arg(long)]
    pub json: bool,
}

/// What a complete GC did, with the figures `twain gc` prints after it.
#[derive(Debug)]
pub struct GcOutcome {
    /// The GC's report: files collected, and why each one left stays.
    pub report: GcReport,
    /// The statistics after it (their since-open figures are this GC's: the command
    /// opened the database for it).
    pub stats: Stats,
    /// Value files set aside as damaged.
    pub set_aside: Vec<SetAsideFile>,
}

/// Runs a complete GC on `db`.
pub fn collect(db: &Db) -> Result<GcOutcome> {
    let report = db.gc_report()?;
    Ok(GcOutcome {
        report,
        stats: db.stats()?,
        set_aside: db.gc_set_aside(),
    })
}

/// The outcome as `twain gc` prints it: text with sizes as `sizes` says, or JSON.
pub fn render(o: &GcOutcome, json: bool, sizes: Sizes) -> String {
    if json { to_json(o) } else { to_text(o, sizes) }
}

fn to_text(o: &GcOutcome, sizes: Sizes) -> String {
    let (r, s) = (&o.report, &o.stats);
    let mut out = String::new();
    for f in &o.set_aside {
        let _ = writeln!(out, "set aside value file {}: {f}", f.number);
    }
    let _ = writeln!(
        out,
        "collected {} ({}, {}, threshold {:.2}; {} punched)",
        counted(r.collected, "value file"),
        counted(r.logs_sealed, "log seal"),
        counted(r.garbage_compactions, "garbage compaction"),
        r.threshold,
        r.punched
    );
    let shown: Vec<String> = r.files.iter().map(|v| sizes.show(v.total_bytes)).collect();
    let width = shown.iter().map(String::len).max().unwrap_or(0);
    for (v, size) in r.files.iter().zip(&shown) {
        let _ = writeln!(
            out,
            "  {:06}.vlog  {size:>width$}  live {:5.1}%  stays: {}",
            v.number,
            v.live_fraction * 100.0,
            v.reason.as_str()
        );
    }
    let space = s.space_amplification().map_or_else(
        || format!("n/a (nothing live, {} on disk)", sizes.show(s.disk.total())),
        |a| format!("{a:.2}"),
    );
    let _ = writeln!(
        out,
        "read {}, wrote {}, {} deleted unread; space amplification {space}",
        sizes.show(s.gc_bytes_read),
        sizes.show(s.gc_bytes_written),
        counted(s.gc_files_deleted_unread, "file"),
    );
    out
}

fn to_json(o: &GcOutcome) -> String {
    let (r, s) = (&o.report, &o.stats);
    let files: Vec<_> = r
        .files
        .iter()
        .map(|v| {
            json!({
                "number": v.number,
                "total_bytes": v.total_bytes,
                "live_fraction": v.live_fraction,
                "stays": v.reason.as_str(),
            })
        })
        .collect();
    let set_aside: Vec<_> = o
        .set_aside
        .iter()
        .map(|f| {
            json!({
                "number": f.number,
                "epoch": f.epoch,
                "file": f.file.to_string_lossy(),
                "offset": f.offset,
                "key": f.key.as_deref().map(twain::dump::escape),
                "what": f.what,
            })
        })
        .collect();
    json!({
        "collected": r.collected,
        "punched": r.punched,
        "logs_sealed": r.logs_sealed,
        "garbage_compactions": r.garbage_compactions,
        "threshold": r.threshold,
        "files": files,
        "set_aside": set_aside,
        "gc_bytes_read": s.gc_bytes_read,
        "gc_bytes_written": s.gc_bytes_written,
        "gc_files_deleted_unread": s.gc_files_deleted_unread,
        "disk_total": s.disk.total(),
        "live_bytes": s.live_bytes,
        "space_amplification": s.space_amplification(),
    })
    .to_string()
}
