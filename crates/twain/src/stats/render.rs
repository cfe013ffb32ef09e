//! The statistics as JSON and as text.

use super::Stats;

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
        o.num("prefetch_wasted_bytes", self.prefetch_wasted_bytes);
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
        ] {
            o.num(&format!("total_{name}"), v);
        }
        let levels: Vec<String> = self
            .levels
            .iter()
            .map(|l| {
                format!(
                    "{{\"files\":{},\"bytes\":{},\"entries\":{}}}",
                    l.files, l.bytes, l.entries
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
        o.num("transient_bytes_freed", self.transient_bytes_freed);
        o.num("medium_bytes_merged", self.medium_bytes_merged);
        o.num("replaced_inline_bytes", self.replaced_inline_bytes);
        o.num("replaced_separated_bytes", self.replaced_separated_bytes);
        o.num("transient_files", self.transient_files);
        o.num("transient_bytes", self.transient_bytes);
        o.num("garbage_compactions", self.garbage_compactions);
        o.num("logs_sealed_for_gc", self.logs_sealed_for_gc);
        o.finish()
    }

    /// The statistics as readable text.
    pub fn to_text(&self) -> String {
        let mb = |b: u64| b as f64 / (1 << 20) as f64;
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str(&t);
            s.push('\n');
        };
        let t = &self.totals;
        line(format!(
            "user writes      {} ops, {:.1} MiB (since open {} ops, {:.1} MiB)",
            t.user_ops,
            mb(t.user_bytes_written),
            self.user_ops,
            mb(self.user_bytes_written)
        ));
        line(format!(
            "value log        {:.1} MiB (since open {:.1} MiB in {} groups, {} synced)",
            mb(t.log_bytes_written),
            mb(self.log_bytes_written),
            self.write_groups,
            self.synced_groups
        ));
        line(format!(
            "flushes          {} ({:.1} MiB) (since open {}, {:.1} MiB)",
            t.flushes,
            mb(t.flush_bytes_written),
            self.flushes,
            mb(self.flush_bytes_written)
        ));
        line(format!(
            "compactions      {}, read {:.1} MiB, wrote {:.1} MiB, {} parts, {} split (since open {} with {} trivial moves, {} parts, {} split, read {:.1} MiB, wrote {:.1} MiB)",
            t.compactions,
            mb(t.compaction_bytes_read),
            mb(t.compaction_bytes_written),
            t.compaction_parts,
            t.split_compactions,
            self.compactions,
            self.trivial_moves,
            self.compaction_parts,
            self.split_compactions,
            mb(self.compaction_bytes_read),
            mb(self.compaction_bytes_written)
        ));
        line(format!(
            "offload          {} parts to a worker, {} taken back, worker wrote {:.1} MiB, checked {:.1} MiB (since open {}, {}, {:.1} MiB, {:.1} MiB)",
            t.parts_offloaded,
            t.parts_taken_back,
            mb(t.worker_bytes_written),
            mb(t.offload_check_bytes),
            self.parts_offloaded,
            self.parts_taken_back,
            mb(self.worker_bytes_written),
            mb(self.offload_check_bytes)
        ));
        if let Some(why) = &self.last_offload_failure {
            line(format!("offload failure  {why}"));
        }
        line(format!(
            "drop records     {} ({:.2} MiB of drop files) (since open {}, {:.2} MiB)",
            t.drop_records,
            mb(t.drop_file_bytes_written),
            self.drop_records,
            mb(self.drop_file_bytes_written)
        ));
        line(format!(
            "value GC         {} runs, read {:.1} MiB, wrote {:.1} MiB, {} files deleted unread, {} relocated (since open {} runs, read {:.1} MiB, wrote {:.1} MiB, {} deleted unread, {} LSM lookups, {} relocated)",
            t.gc_runs,
            mb(t.gc_bytes_read),
            mb(t.gc_bytes_written),
            t.gc_files_deleted_unread,
            t.gc_records_relocated,
            self.gc_runs,
            mb(self.gc_bytes_read),
            mb(self.gc_bytes_written),
            self.gc_files_deleted_unread,
            self.gc_lsm_lookups,
            self.gc_records_relocated
        ));
        line(format!(
            "stale handles    {} re-pointed by compactions (since open {}); {} SVTable searches ({} by scans), {} fixed by reads",
            t.compaction_handle_refreshes,
            self.compaction_handle_refreshes,
            self.svtable_searches,
            self.scan_svtable_searches,
            self.handle_fixups
        ));
        line(format!(
            "stalls           {} ms, {} slowdowns; memtables {} ({} ms), L0 {} ({} ms), log file {} ({} ms)",
            self.stall_micros / 1000,
            self.slowdowns,
            self.stalls_memtables,
            self.stall_memtables_micros / 1000,
            self.stalls_l0,
            self.stall_l0_micros / 1000,
            self.stalls_log_file,
            self.stall_log_file_micros / 1000
        ));
        line(format!(
            "reads            {} gets, {} value reads, block cache {} hits / {} misses",
            self.gets, self.value_reads, self.block_cache_hits, self.block_cache_misses
        ));
        line(format!(
            "prefetch         {} reads, {:.1} MiB, {:.1} MiB wasted",
            self.prefetch_reads,
            mb(self.prefetch_bytes),
            mb(self.prefetch_wasted_bytes)
        ));
        line(format!(
            "memtables        {} entries, {:.1} MiB",
            self.memtable_entries,
            mb(self.memtable_bytes)
        ));
        for (i, l) in self.levels.iter().enumerate() {
            if l.files > 0 {
                line(format!(
                    "L{i}               {} files, {:.1} MiB, {} entries",
                    l.files,
                    mb(l.bytes),
                    l.entries
                ));
            }
        }
        for v in &self.value_files {
            line(format!(
                "value file {:06}.{} {}{:.1} MiB, separated {:.1} MiB, dropped {:.1} MiB, valid {:.0}%",
                v.number,
                v.epoch,
                if v.is_log { "(log) " } else { "" },
                mb(v.total_bytes),
                mb(v.separated_bytes),
                mb(v.dropped_bytes),
                v.valid_rate * 100.0
            ));
        }
        line(format!(
            "disk (allocated) {:.1} MiB: tables {:.1}, value files {:.1}, drop files {:.2}, manifest {:.2}",
            mb(self.disk.total()),
            mb(self.disk.tables),
            mb(self.disk.value_files),
            mb(self.disk.drop_files),
            mb(self.disk.manifest)
        ));
        let space = match self.space_amplification() {
            Some(a) => format!("{a:.2}"),
            None => "n/a (nothing live)".to_string(),
        };
        if let Some(e) = &self.live_bytes_error {
            line(format!(
                "live data        unread ({e}): the figures below count every version"
            ));
        }
        match self.live_bytes_age {
            Some(age) if self.live_bytes_is_current() => line(format!(
                "live pass        current (made {:.1} s ago)",
                age.as_secs_f64()
            )),
            Some(age) => line(format!(
                "live pass        {:.1} s ago, {} versions and {} writes behind",
                age.as_secs_f64(),
                self.live_bytes_versions_behind,
                self.live_bytes_writes_behind
            )),
            None if self.live_bytes_error.is_none() => line(
                "live pass        none yet: live data is the referenced bytes (every version counted)"
                    .to_string(),
            ),
            None => {}
        }
        line(format!(
            "live data        {:.1} MiB; reclaimable {:.1} MiB ({:.1} MiB dropped, {:.1} MiB shadowed not yet dropped)",
            mb(self.live_bytes),
            mb(self.reclaimable_bytes()),
            mb(self.reclaimable_dropped_bytes),
            mb(self.reclaimable_shadowed_bytes)
        ));
        if self.reclaimable_log_bytes > 0 {
            line(format!(
                "log garbage      {:.1} MiB in the unsealed log (inline entries, reclaimable once sealed)",
                mb(self.reclaimable_log_bytes)
            ));
        }
        line(format!(
            "amplification    write {:.2} (since open {:.2}), space {space} (disk / live)",
            self.write_amplification(),
            self.write_amplification_since_open()
        ));
        line(format!(
            "space target     {:.2}: {}{}; {} garbage compactions, {} logs sealed for GC since open",
            self.space_amp_target,
            self.space_target(),
            match self.space_floor() {
                Some(f) => format!(" (floor {f:.2})"),
                None => String::new(),
            },
            self.garbage_compactions,
            self.logs_sealed_for_gc
        ));
        line(format!(
            "GC punching      {} runs, {:.1} MiB freed in place (since open {} runs, {:.1} MiB){}",
            t.gc_punch_runs,
            mb(t.gc_punched_bytes),
            self.gc_punch_runs,
            mb(self.gc_punched_bytes),
            if self.gc_punch_unsupported {
                "; the file system cannot punch holes: rewriting instead"
            } else {
                ""
            }
        ));
        line(format!(
            "placement        written small {:.1} / medium {:.1} / large {:.1} MiB; merged in place {:.1} MiB; re-placed inline {:.1} MiB, separated {:.1} MiB",
            mb(t.small_bytes_written),
            mb(t.medium_bytes_written),
            mb(t.large_bytes_written),
            mb(t.medium_bytes_merged),
            mb(t.replaced_inline_bytes),
            mb(t.replaced_separated_bytes)
        ));
        line(format!(
            "transient files  {} live, {:.1} MiB; written {:.1} MiB, freed {:.1} MiB (since open written {:.1} MiB, freed {:.1} MiB)",
            self.transient_files,
            mb(self.transient_bytes),
            mb(t.transient_bytes_written),
            mb(t.transient_bytes_freed),
            mb(self.transient_bytes_written),
            mb(self.transient_bytes_freed)
        ));
        line(format!(
            "GC corruption    {} damaged dead records skipped, {} files set aside",
            self.gc_corrupt_dead_records, self.gc_files_set_aside
        ));
        s
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
