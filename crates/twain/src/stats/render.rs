//! The statistics as JSON and as text.

use super::Stats;
use std::fmt::Write as _;

impl Stats {
    /// The statistics as one JSON object: field names as in the struct (the cumulative
    /// [`Stats::totals`] prefixed `total_`; [`Stats::live_bytes_age`] as `live_bytes_age_ms`,
    /// `null` before a pass), plus `write_amplification` (cumulative),
    /// `write_amplification_since_open`, `reclaimable_bytes` and `space_amplification`
    /// (`null` when nothing is live).
    pub fn to_json(&self) -> String {
        let mut o = JsonObject::default();
        o.num("user_bytes_written", self.user_bytes_written);
        o.num("user_ops", self.user_ops);
        o.num("write_groups", self.write_groups);
        o.num("synced_groups", self.synced_groups);
        o.num("log_bytes_written", self.log_bytes_written);
        o.num("stall_micros", self.stall_micros);
        o.num("slowdowns", self.slowdowns);
        o.num("stalls_memtables", self.stalls_memtables);
        o.num("stall_memtables_micros", self.stall_memtables_micros);
        o.num("stalls_l0", self.stalls_l0);
        o.num("stall_l0_micros", self.stall_l0_micros);
        o.num("stalls_log_file", self.stalls_log_file);
        o.num("stall_log_file_micros", self.stall_log_file_micros);
        o.num("stalls_space", self.stalls_space);
        o.num("stall_space_micros", self.stall_space_micros);
        o.num(
            "log_files_deleted_unsynced",
            self.log_files_deleted_unsynced,
        );
        o.num(
            "log_bytes_deleted_unsynced",
            self.log_bytes_deleted_unsynced,
        );
        o.num("flushes", self.flushes);
        o.num("flush_bytes_written", self.flush_bytes_written);
        o.num("compactions", self.compactions);
        o.num("trivial_moves", self.trivial_moves);
        o.num("compaction_parts", self.compaction_parts);
        o.num("split_compactions", self.split_compactions);
        o.num("parts_offloaded", self.parts_offloaded);
        o.num("parts_taken_back", self.parts_taken_back);
        o.num("worker_bytes_written", self.worker_bytes_written);
        o.num("offload_check_bytes", self.offload_check_bytes);
        match &self.last_offload_failure {
            Some(e) => o.raw("last_offload_failure", &json_string(e)),
            None => o.raw("last_offload_failure", "null"),
        }
        o.num("compaction_bytes_read", self.compaction_bytes_read);
        o.num("compaction_bytes_written", self.compaction_bytes_written);
        o.num("drop_records", self.drop_records);
        o.num("drop_file_bytes_written", self.drop_file_bytes_written);
        o.num("manifest_bytes_written", self.manifest_bytes_written);
        o.num("gets", self.gets);
        o.num("value_reads", self.value_reads);
        o.num("value_bytes_read", self.value_bytes_read);
        o.num("prefetch_reads", self.prefetch_reads);
        o.num("prefetch_bytes", self.prefetch_bytes);
        o.num("multi_get_reads", self.multi_get_reads);
        o.num("prefetch_wasted_bytes", self.prefetch_wasted_bytes);
        o.num("prefetch_stale_reads", self.prefetch_stale_reads);
        o.num("recovered_torn_bytes", self.recovered_torn_bytes);
        o.num("gc_runs", self.gc_runs);
        o.num("gc_bytes_read", self.gc_bytes_read);
        o.num("gc_bytes_written", self.gc_bytes_written);
        o.num("gc_files_deleted_unread", self.gc_files_deleted_unread);
        o.num("gc_lsm_lookups", self.gc_lsm_lookups);
        o.num("gc_records_relocated", self.gc_records_relocated);
        o.num("gc_punch_runs", self.gc_punch_runs);
        o.num("gc_punched_bytes", self.gc_punched_bytes);
        o.raw(
            "gc_punch_unsupported",
            &self.gc_punch_unsupported.to_string(),
        );
        o.num("svtable_searches", self.svtable_searches);
        o.num("scan_svtable_searches", self.scan_svtable_searches);
        o.num("handle_fixups", self.handle_fixups);
        o.num("expired_entries", self.expired_entries);
        o.num("range_deletions", self.range_deletions);
        o.num("range_deletion_tombstones", self.range_deletion_tombstones);
        o.num(
            "compaction_handle_refreshes",
            self.compaction_handle_refreshes,
        );
        o.num("block_cache_hits", self.block_cache_hits);
        o.num("block_cache_misses", self.block_cache_misses);
        o.num("memtable_entries", self.memtable_entries);
        o.num("memtable_bytes", self.memtable_bytes);
        o.num("referenced_bytes", self.referenced_bytes);
        o.num("live_bytes", self.live_bytes);
        o.num("live_keys", self.live_keys);
        o.num("expiring_keys", self.expiring_keys);
        match self.live_bytes_age {
            Some(age) => o.num("live_bytes_age_ms", age.as_millis() as u64),
            None => o.raw("live_bytes_age_ms", "null"),
        }
        o.num(
            "live_bytes_versions_behind",
            self.live_bytes_versions_behind,
        );
        o.num("live_bytes_writes_behind", self.live_bytes_writes_behind);
        match &self.live_bytes_error {
            Some(e) => o.raw("live_bytes_error", &json_string(e)),
            None => o.raw("live_bytes_error", "null"),
        }
        o.num("reclaimable_bytes", self.reclaimable_bytes());
        o.num("reclaimable_dropped_bytes", self.reclaimable_dropped_bytes);
        o.num(
            "reclaimable_shadowed_bytes",
            self.reclaimable_shadowed_bytes,
        );
        o.num("disk_tables", self.disk.tables);
        o.num("disk_value_files", self.disk.value_files);
        o.num("disk_drop_files", self.disk.drop_files);
        o.num("disk_manifest", self.disk.manifest);
        o.num("disk_other", self.disk.other);
        o.num("disk_total", self.disk.total());
        o.float("write_amplification", self.write_amplification());
        o.float(
            "write_amplification_since_open",
            self.write_amplification_since_open(),
        );
        match self.space_amplification() {
            Some(a) => o.float("space_amplification", a),
            None => o.raw("space_amplification", "null"),
        }
        let t = &self.totals;
        for (name, v) in [
            ("user_bytes_written", t.user_bytes_written),
            ("user_ops", t.user_ops),
            ("log_bytes_written", t.log_bytes_written),
            ("flushes", t.flushes),
            ("flush_bytes_written", t.flush_bytes_written),
            ("compactions", t.compactions),
            ("compaction_bytes_read", t.compaction_bytes_read),
            ("compaction_bytes_written", t.compaction_bytes_written),
            ("drop_records", t.drop_records),
            ("drop_file_bytes_written", t.drop_file_bytes_written),
            ("manifest_bytes_written", t.manifest_bytes_written),
            ("gc_runs", t.gc_runs),
            ("gc_bytes_read", t.gc_bytes_read),
            ("gc_bytes_written", t.gc_bytes_written),
            ("gc_files_deleted_unread", t.gc_files_deleted_unread),
            ("gc_records_relocated", t.gc_records_relocated),
            ("gc_punch_runs", t.gc_punch_runs),
            ("gc_punched_bytes", t.gc_punched_bytes),
            ("small_bytes_written", t.small_bytes_written),
            ("medium_bytes_written", t.medium_bytes_written),
            ("large_bytes_written", t.large_bytes_written),
            ("transient_bytes_written", t.transient_bytes_written),
            ("hash_segment_bytes_written", t.hash_segment_bytes_written),
            ("hash_gc_bytes_not_copied", t.hash_gc_bytes_not_copied),
            ("transient_bytes_freed", t.transient_bytes_freed),
            ("medium_bytes_merged", t.medium_bytes_merged),
            ("replaced_inline_bytes", t.replaced_inline_bytes),
            ("replaced_separated_bytes", t.replaced_separated_bytes),
            ("compaction_handle_refreshes", t.compaction_handle_refreshes),
            ("compaction_parts", t.compaction_parts),
            ("split_compactions", t.split_compactions),
            ("parts_offloaded", t.parts_offloaded),
            ("parts_taken_back", t.parts_taken_back),
            ("worker_bytes_written", t.worker_bytes_written),
            ("offload_check_bytes", t.offload_check_bytes),
            ("refresh_compactions", t.refresh_compactions),
            ("garbage_compactions", t.garbage_compactions),
            ("logs_sealed_for_gc", t.logs_sealed_for_gc),
        ] {
            o.num(&format!("total_{name}"), v);
        }
        let levels: Vec<String> = self
            .levels
            .iter()
            .map(|l| {
                format!(
                    "{{\"files\":{},\"bytes\":{},\"entries\":{},\"target_bytes\":{}}}",
                    l.files, l.bytes, l.entries, l.target_bytes
                )
            })
            .collect();
        o.raw("levels", &format!("[{}]", levels.join(",")));
        let files: Vec<String> = self
            .value_files
            .iter()
            .map(|v| {
                format!(
                    "{{\"number\":{},\"epoch\":{},\"is_log\":{},\"total_bytes\":{},\"separated_bytes\":{},\"dropped_bytes\":{},\"punched_bytes\":{},\"valid_rate\":{}}}",
                    v.number,
                    v.epoch,
                    v.is_log,
                    v.total_bytes,
                    v.separated_bytes,
                    v.dropped_bytes,
                    v.punched_bytes,
                    json_float(v.valid_rate)
                )
            })
            .collect();
        o.raw("value_files", &format!("[{}]", files.join(",")));
        o.num("gc_corrupt_dead_records", self.gc_corrupt_dead_records);
        o.num("gc_files_set_aside", self.gc_files_set_aside);
        o.num("reclaimable_log_bytes", self.reclaimable_log_bytes);
        o.float("space_amp_target", self.space_amp_target);
        match self.space_floor() {
            Some(f) => o.float("space_floor", f),
            None => o.raw("space_floor", "null"),
        }
        o.raw(
            "space_target",
            &json_string(&self.space_target().to_string()),
        );
        o.num("small_bytes_written", self.small_bytes_written);
        o.num("medium_bytes_written", self.medium_bytes_written);
        o.num("large_bytes_written", self.large_bytes_written);
        o.num("transient_bytes_written", self.transient_bytes_written);
        o.num(
            "hash_segment_bytes_written",
            self.hash_segment_bytes_written,
        );
        o.num("hash_gc_bytes_not_copied", self.hash_gc_bytes_not_copied);
        o.num("transient_bytes_freed", self.transient_bytes_freed);
        o.num("medium_bytes_merged", self.medium_bytes_merged);
        o.num("replaced_inline_bytes", self.replaced_inline_bytes);
        o.num("replaced_separated_bytes", self.replaced_separated_bytes);
        o.num("transient_files", self.transient_files);
        o.num("transient_bytes", self.transient_bytes);
        match &self.hash_layout {
            None => o.raw("hash_layout", "null"),
            Some(h) => o.raw(
                "hash_layout",
                &format!(
                    "{{\"groups\":{},\"reserved_bytes\":{},\"reserved_garbage\":{},\"cold_garbage\":{},\"reserved_budget\":{},\
                     \"main_bytes\":{},\"segments\":{},\"cold_bytes\":{},\"cold_segments\":{},\
                     \"flush_waits\":{},\"flush_wait_micros\":{}}}",
                    h.groups,
                    h.reserved_bytes,
                    h.reserved_garbage,
                    h.cold_garbage,
                    h.reserved_budget,
                    h.main_bytes,
                    h.segments,
                    h.cold_bytes,
                    h.cold_segments,
                    h.flush_waits,
                    h.flush_wait_micros
                ),
            ),
        }
        o.num("garbage_compactions", self.garbage_compactions);
        o.num("logs_sealed_for_gc", self.logs_sealed_for_gc);
        o.num("refresh_compactions", self.refresh_compactions);
        o.num("stale_handles", self.stale_handles);
        o.finish()
    }

    /// The statistics as readable text, one figure a line, sizes in MiB with one decimal
    /// (the server's `INFO`); [`to_text_with`](Self::to_text_with) chooses the units.
    pub fn to_text(&self) -> String {
        self.to_text_with(&|b| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64))
    }

    /// The statistics as readable text, one figure a line, every size written by `size`
    /// (`twain stats` passes its `--bytes` choice).
    pub fn to_text_with(&self, size: &dyn Fn(u64) -> String) -> String {
        let s = self;
        let z = |b: u64| size(b);
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
                "{} (since open {} in {}, {} synced; {} of inline entries deleted unsynced, {})",
                z(t.log_bytes_written),
                z(s.log_bytes_written),
                counted(s.write_groups, "group"),
                s.synced_groups,
                counted(s.log_files_deleted_unsynced, "file"),
                z(s.log_bytes_deleted_unsynced)
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
                "{} in tables; {} re-pointed by compactions, {} (since open {}, {}); {} ({} by scans), {} fixed by reads",
                s.stale_handles,
                t.compaction_handle_refreshes,
                counted(t.refresh_compactions, "refresh compaction"),
                s.compaction_handle_refreshes,
                s.refresh_compactions,
                counted(s.svtable_searches, "SVTable search"),
                s.scan_svtable_searches,
                s.handle_fixups
            ),
        );
        line(
            "deletes",
            format!(
                "{} expired puts dropped; {}, {} written for them by flushes (since open)",
                s.expired_entries,
                counted(s.range_deletions, "range deletion"),
                counted(s.range_deletion_tombstones, "tombstone"),
            ),
        );
        line(
            "stalls",
            format!(
                "{} ms, {}; memtables {} ({} ms), L0 {} ({} ms), log file {} ({} ms), space {} ({} ms)",
                s.stall_micros / 1000,
                counted(s.slowdowns, "slowdown"),
                s.stalls_memtables,
                s.stall_memtables_micros / 1000,
                s.stalls_l0,
                s.stall_l0_micros / 1000,
                s.stalls_log_file,
                s.stall_log_file_micros / 1000,
                s.stalls_space,
                s.stall_space_micros / 1000
            ),
        );
        line(
            "reads",
            format!(
                "{}, {} ({}), {}, block cache {} / {}",
                counted(s.gets, "get"),
                counted(s.value_reads, "value read"),
                z(s.value_bytes_read),
                counted(s.multi_get_reads, "batched multi_get read"),
                counted(s.block_cache_hits, "hit"),
                counted(s.block_cache_misses, "miss")
            ),
        );
        line(
            "prefetch",
            format!(
                "{}, {}, {} wasted, {} through stale handles",
                counted(s.prefetch_reads, "read"),
                z(s.prefetch_bytes),
                z(s.prefetch_wasted_bytes),
                counted(s.prefetch_stale_reads, "value")
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
                let target = match l.target_bytes {
                    0 => String::new(),
                    t => format!(" (target {})", z(t)),
                };
                line(
                    &format!("L{i}"),
                    format!(
                        "{}, {}, {}{target}",
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
                "{} in {} keys ({} expiring); reclaimable {} ({} dropped, {} shadowed not yet dropped)",
                z(s.live_bytes),
                s.live_keys,
                s.expiring_keys,
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
                "{:.2}: {}{}; {}, {} sealed for GC (since open {}, {})",
                s.space_amp_target,
                s.space_target(),
                match s.space_floor() {
                    Some(f) => format!(" (floor {f:.2})"),
                    None => String::new(),
                },
                counted(t.garbage_compactions, "garbage compaction"),
                counted(t.logs_sealed_for_gc, "log"),
                s.garbage_compactions,
                s.logs_sealed_for_gc
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
        if let Some(h) = &s.hash_layout {
            line(
                "hash layout",
                format!(
                    "{} groups, {}; main {} (cold {} in {}), reserved {} (garbage about {} of \
                     {}, {} of it cold); flushes waited {} ({} ms)",
                    h.groups,
                    counted(h.segments, "segment"),
                    z(h.main_bytes),
                    z(h.cold_bytes),
                    counted(h.cold_segments, "segment"),
                    z(h.reserved_bytes),
                    z(h.reserved_garbage),
                    z(h.reserved_budget),
                    z(h.cold_garbage),
                    h.flush_waits,
                    h.flush_wait_micros / 1000
                ),
            );
        }
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
}

/// `n` and `noun`, plural unless `n` is 1: "1 value file", "2 entries", "3 misses" (the
/// CLI's `units::counted` follows the same rule).
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        return format!("1 {noun}");
    }
    let mut last = noun.chars().rev();
    let consonant_y = last.next() == Some('y') && last.next().is_some_and(|c| !"aeiou".contains(c));
    match noun.strip_suffix('y') {
        Some(stem) if consonant_y => format!("{n} {stem}ies"),
        _ if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) => {
            format!("{n} {noun}es")
        }
        _ => format!("{n} {noun}s"),
    }
}

/// A string as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A float as JSON (non-finite values become 0).
fn json_float(f: f64) -> String {
    if f.is_finite() {
        format!("{f:.4}")
    } else {
        "0".to_string()
    }
}

/// Builds a flat JSON object with numeric and pre-rendered values.
#[derive(Default)]
struct JsonObject {
    fields: Vec<String>,
}

impl JsonObject {
    fn num(&mut self, name: &str, v: u64) {
        self.fields.push(format!("\"{name}\":{v}"));
    }

    fn float(&mut self, name: &str, v: f64) {
        self.fields.push(format!("\"{name}\":{}", json_float(v)));
    }

    fn raw(&mut self, name: &str, json: &str) {
        self.fields.push(format!("\"{name}\":{json}"));
    }

    fn finish(self) -> String {
        format!("{{{}}}", self.fields.join(","))
    }
}
