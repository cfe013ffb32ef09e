//! `twain stats`: the engine's statistics as text, with sizes as `--bytes` asks, or as
//! JSON with exact numbers.
//!
//! The lines are those of [`twain::Stats::to_text`] (which the server's `INFO` prints, in
//! MiB) with every size written by [`Sizes`], plus the estimated number of keys.

use crate::units::{Sizes, counted};
use clap::Args;
use std::fmt::Write as _;
use twain::{Db, Error, Result, Stats};

/// Arguments of `twain stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// As one JSON object (exact numbers, whatever --bytes says).
    #[arg(long)]
    pub json: bool,
    /// Skip the pass over every table's keys: the live-data figure (and so the space
    /// amplification) is then the referenced bytes, an upper bound.
    #[arg(long)]
    pub fast: bool,
}

/// The statistics of `db`, with the exact live-data figure unless `fast`.
pub fn collect(db: &Db, fast: bool) -> Result<Stats> {
    if !fast {
        // A failed pass shows in the statistics (`live_bytes_error`).
        let _ = db.refresh_live_bytes();
    }
    db.stats()
}

/// The statistics as `twain stats` prints them: JSON (one object, a line) or text.
pub fn render(s: &Stats, json: bool, sizes: Sizes) -> Result<String> {
    if json {
        to_json(s)
    } else {
        Ok(to_text(s, sizes))
    }
}

/// [`Stats::to_json`] with `estimated_keys` added ([`Stats::estimated_keys`]).
pub fn to_json(s: &Stats) -> Result<String> {
    let bad = |e: serde_json::Error| Error::InvalidArgument(format!("statistics JSON: {e}"));
    let mut object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&s.to_json()).map_err(bad)?;
    object.insert("estimated_keys".into(), s.estimated_keys().into());
    serde_json::to_string(&object).map_err(bad)
}

/// The statistics as readable text, one figure a line, sizes written by `sizes`.
pub fn to_text(s: &Stats, sizes: Sizes) -> String {
    let z = |b: u64| sizes.show(b);
    let mut out = String::new();
    let mut line = |label: &str, text: String| {
        let _ = writeln!(out, "{label:<16} {text}");
    };
    let t = &s.totals;
    line(
        "user writes",
        format!(
            "{} ops, {} (since open {} ops, {})",
            t.user_ops,
            z(t.user_bytes_written),
            s.user_ops,
            z(s.user_bytes_written)
        ),
    );
    line(
        "value log",
        format!(
            "{} (since open {} in {}, {} synced)",
            z(t.log_bytes_written),
            z(s.log_bytes_written),
            counted(s.write_groups, "group"),
            s.synced_groups
        ),
    );
    line(
        "flushes",
        format!(
            "{} ({}) (since open {}, {})",
            t.flushes,
            z(t.flush_bytes_written),
            s.flushes,
            z(s.flush_bytes_written)
        ),
    );
    line(
        "compactions",
        format!(
            "{}, read {}, wrote {}, {}, {} split (since open {} with {}, {}, {} split, read {}, \
             wrote {})",
            t.compactions,
            z(t.compaction_bytes_read),
            z(t.compaction_bytes_written),
            counted(t.compaction_parts, "part"),
            t.split_compactions,
            s.compactions,
            counted(s.trivial_moves, "trivial move"),
            counted(s.compaction_parts, "part"),
            s.split_compactions,
            z(s.compaction_bytes_read),
            z(s.compaction_bytes_written)
        ),
    );
    line(
        "offload",
        format!(
            "{} to a worker, {} taken back, worker wrote {}, checked {} (since open {}, {}, {}, \
             {})",
            counted(t.parts_offloaded, "part"),
            t.parts_taken_back,
            z(t.worker_bytes_written),
            z(t.offload_check_bytes),
            s.parts_offloaded,
            s.parts_taken_back,
            z(s.worker_bytes_written),
            z(s.offload_check_bytes)
        ),
    );
    if let Some(why) = &s.last_offload_failure {
        line("offload failure", why.clone());
    }
    line(
        "drop records",
        format!(
            "{} ({} of drop files) (since open {}, {})",
            t.drop_records,
            z(t.drop_file_bytes_written),
            s.drop_records,
            z(s.drop_file_bytes_written)
        ),
    );
    line(
        "value GC",
        format!(
            "{}, read {}, wrote {}, {} deleted unread, {} relocated (since open {}, read {}, \
             wrote {}, {} deleted unread, {}, {} relocated)",
            counted(t.gc_runs, "run"),
            z(t.gc_bytes_read),
            z(t.gc_bytes_written),
            counted(t.gc_files_deleted_unread, "file"),
            t.gc_records_relocated,
            counted(s.gc_runs, "run"),
            z(s.gc_bytes_read),
            z(s.gc_bytes_written),
            s.gc_files_deleted_unread,
            counted(s.gc_lsm_lookups, "LSM lookup"),
            s.gc_records_relocated
        ),
    );
    line(
        "stale handles",
        format!(
            "{} re-pointed by compactions (since open {}); {} ({} by scans), {} fixed by reads",
            t.compaction_handle_refreshes,
            s.compaction_handle_refreshes,
            counted(s.svtable_searches, "SVTable search"),
            s.scan_svtable_searches,
            s.handle_fixups
        ),
    );
    line(
        "stalls",
        format!(
            "{} ms, {}; memtables {} ({} ms), L0 {} ({} ms), log file {} ({} ms)",
            s.stall_micros / 1000,
            counted(s.slowdowns, "slowdown"),
            s.stalls_memtables,
            s.stall_memtables_micros / 1000,
            s.stalls_l0,
            s.stall_l0_micros / 1000,
            s.stalls_log_file,
            s.stall_log_file_micros / 1000
        ),
    );
    line(
        "reads",
        format!(
            "{}, {} ({}), block cache {} / {}",
            counted(s.gets, "get"),
            counted(s.value_reads, "value read"),
            z(s.value_bytes_read),
            counted(s.block_cache_hits, "hit"),
            counted(s.block_cache_misses, "miss")
        ),
    );
    line(
        "prefetch",
        format!(
            "{}, {}, {} wasted",
            counted(s.prefetch_reads, "read"),
            z(s.prefetch_bytes),
            z(s.prefetch_wasted_bytes)
        ),
    );
    line(
        "keys (estimate)",
        format!(
            "{} (table and memtable entries: old versions and tombstones count until \
             compaction drops them)",
            s.estimated_keys()
        ),
    );
    line(
        "memtables",
        format!(
            "{}, {}",
            counted(s.memtable_entries, "entry"),
            z(s.memtable_bytes)
        ),
    );
    for (i, l) in s.levels.iter().enumerate() {
        if l.files > 0 {
            line(
                &format!("L{i}"),
                format!(
                    "{}, {}, {}",
                    counted(l.files as u64, "file"),
                    z(l.bytes),
                    counted(l.entries, "entry")
                ),
            );
        }
    }
    for v in &s.value_files {
        line(
            &format!("value file {:06}.{}", v.number, v.epoch),
            format!(
                "{}{}, separated {}, dropped {}, valid {:.0}%",
                if v.is_log { "(log) " } else { "" },
                z(v.total_bytes),
                z(v.separated_bytes),
                z(v.dropped_bytes),
                v.valid_rate * 100.0
            ),
        );
    }
    line(
        "disk (allocated)",
        format!(
            "{}: tables {}, value files {}, drop files {}, manifest {}",
            z(s.disk.total()),
            z(s.disk.tables),
            z(s.disk.value_files),
            z(s.disk.drop_files),
            z(s.disk.manifest)
        ),
    );
    if let Some(e) = &s.live_bytes_error {
        line(
            "live data",
            format!("unread ({e}): the figures below count every version"),
        );
    }
    match s.live_bytes_age {
        Some(age) if s.live_bytes_is_current() => line(
            "live pass",
            format!("current (made {:.1} s ago)", age.as_secs_f64()),
        ),
        Some(age) => line(
            "live pass",
            format!(
                "{:.1} s ago, {} and {} behind",
                age.as_secs_f64(),
                counted(s.live_bytes_versions_behind, "version"),
                counted(s.live_bytes_writes_behind, "write")
            ),
        ),
        None if s.live_bytes_error.is_none() => line(
            "live pass",
            "none yet: live data is the referenced bytes (every version counted)".into(),
        ),
        None => {}
    }
    line(
        "live data",
        format!(
            "{}; reclaimable {} ({} dropped, {} shadowed not yet dropped)",
            z(s.live_bytes),
            z(s.reclaimable_bytes()),
            z(s.reclaimable_dropped_bytes),
            z(s.reclaimable_shadowed_bytes)
        ),
    );
    if s.reclaimable_log_bytes > 0 {
        line(
            "log garbage",
            format!(
                "{} in the unsealed log (inline entries, reclaimable once sealed)",
                z(s.reclaimable_log_bytes)
            ),
        );
    }
    let space = match s.space_amplification() {
        Some(a) => format!("{a:.2}"),
        None => "n/a (nothing live)".to_string(),
    };
    line(
        "amplification",
        format!(
            "write {:.2} (since open {:.2}), space {space} (disk / live)",
            s.write_amplification(),
            s.write_amplification_since_open()
        ),
    );
    line(
        "space target",
        format!(
            "{:.2}: {}{}; {}, {} sealed for GC since open",
            s.space_amp_target,
            s.space_target(),
            match s.space_floor() {
                Some(f) => format!(" (floor {f:.2})"),
                None => String::new(),
            },
            counted(s.garbage_compactions, "garbage compaction"),
            counted(s.logs_sealed_for_gc, "log")
        ),
    );
    line(
        "GC punching",
        format!(
            "{}, {} freed in place (since open {}, {}){}",
            counted(t.gc_punch_runs, "run"),
            z(t.gc_punched_bytes),
            counted(s.gc_punch_runs, "run"),
            z(s.gc_punched_bytes),
            if s.gc_punch_unsupported {
                "; the file system cannot punch holes: rewriting instead"
            } else {
                ""
            }
        ),
    );
    line(
        "placement",
        format!(
            "written small {} / medium {} / large {}; merged in place {}; re-placed inline {}, \
             separated {}",
            z(t.small_bytes_written),
            z(t.medium_bytes_written),
            z(t.large_bytes_written),
            z(t.medium_bytes_merged),
            z(t.replaced_inline_bytes),
            z(t.replaced_separated_bytes)
        ),
    );
    line(
        "transient files",
        format!(
            "{} live, {}; written {}, freed {} (since open written {}, freed {})",
            s.transient_files,
            z(s.transient_bytes),
            z(t.transient_bytes_written),
            z(t.transient_bytes_freed),
            z(s.transient_bytes_written),
            z(s.transient_bytes_freed)
        ),
    );
    line(
        "GC corruption",
        format!(
            "{} skipped, {} set aside",
            counted(s.gc_corrupt_dead_records, "damaged dead record"),
            counted(s.gc_files_set_aside, "file")
        ),
    );
    out
}
