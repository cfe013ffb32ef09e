//! `INFO [section ...]`: `server`, `clients`, `stats`, `keyspace` and `twain` (the engine's
//! statistics), as `key:value` lines under `# Section` headers like Redis writes them.
//! `all`, `everything` and `default` (or no section) mean every section.

use super::{Ctx, err_engine, is};
use crate::resp::Frame;
use crate::shared::Shared;
use std::fmt::Write;
use std::sync::atomic::Ordering;
use twain::Stats;

const SECTIONS: [&str; 5] = ["server", "clients", "stats", "keyspace", "twain"];

/// `INFO [section ...]`.
pub fn info(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let asked = &args[1..];
    let all = asked.is_empty()
        || asked
            .iter()
            .any(|a| is(a, "all") || is(a, "everything") || is(a, "default"));
    let wanted: Vec<&str> = SECTIONS
        .into_iter()
        .filter(|s| all || asked.iter().any(|a| is(a, s)))
        .collect();
    let needs_stats = wanted.iter().any(|s| matches!(*s, "keyspace" | "twain"));
    let stats = if needs_stats {
        match ctx.shared.store.db().stats() {
            Ok(s) => Some(s),
            Err(e) => return err_engine(&e),
        }
    } else {
        None
    };
    let mut text = String::new();
    for section in wanted {
        if !text.is_empty() {
            text.push_str("\r\n");
        }
        match (section, &stats) {
            ("server", _) => server(ctx.shared, &mut text),
            ("clients", _) => clients(ctx.shared, &mut text),
            ("stats", _) => counters(ctx.shared, &mut text),
            ("keyspace", Some(s)) => keyspace(ctx.shared, s, &mut text),
            ("twain", Some(s)) => engine(s, &mut text),
            _ => {}
        }
    }
    Frame::Bulk(text.into_bytes())
}

/// Appends `# Title` and the `key:value` lines.
fn section(out: &mut String, title: &str, lines: &[(&str, String)]) {
    let _ = write!(out, "# {title}\r\n");
    for (k, v) in lines {
        let _ = write!(out, "{k}:{v}\r\n");
    }
}

fn server(shared: &Shared, out: &mut String) {
    let c = &shared.config;
    section(
        out,
        "Server",
        &[
            // The Redis protocol and command semantics served, for tools that check.
            ("redis_version", "7.0.0".to_string()),
            ("twain_version", env!("CARGO_PKG_VERSION").to_string()),
            ("redis_mode", "standalone".to_string()),
            ("os", std::env::consts::OS.to_string()),
            ("arch_bits", (usize::BITS).to_string()),
            ("process_id", std::process::id().to_string()),
            ("tcp_port", shared.local_addr.port().to_string()),
            (
                "uptime_in_seconds",
                shared.started.elapsed().as_secs().to_string(),
            ),
            ("db_dir", c.db_dir.display().to_string()),
            ("sync", format!("{:?}", c.sync).to_lowercase()),
            ("exec", format!("{:?}", c.exec).to_lowercase()),
        ],
    );
}

fn clients(shared: &Shared, out: &mut String) {
    let c = &shared.config;
    section(
        out,
        "Clients",
        &[
            (
                "connected_clients",
                shared
                    .counters
                    .connected
                    .load(Ordering::Relaxed)
                    .to_string(),
            ),
            ("maxclients", c.max_clients.to_string()),
            ("timeout", c.timeout.map_or(0, |t| t.as_secs()).to_string()),
        ],
    );
}

fn counters(shared: &Shared, out: &mut String) {
    let n = &shared.counters;
    let get = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed).to_string();
    section(
        out,
        "Stats",
        &[
            ("total_connections_received", get(&n.connections_received)),
            ("total_commands_processed", get(&n.commands)),
            ("rejected_connections", get(&n.rejected)),
            ("protocol_errors", get(&n.protocol_errors)),
            ("periodic_syncs", get(&n.periodic_syncs)),
            ("output_limit_closes", get(&n.output_limit_closes)),
            ("request_timeouts", get(&n.request_timeouts)),
        ],
    );
}

/// Up to this many entries in the key store (every version counted), `INFO keyspace`
/// makes a fresh pass when the background's is behind, so its count is exact at once.
const KEYSPACE_EXACT_ENTRIES: u64 = 100_000;

/// Redis's `db0:keys=...,expires=...` line: the engine's live keys and, of them, those
/// with an expiry time (`Stats::live_keys`, `Stats::expiring_keys`), counted by a pass
/// over the key store's keys. The background makes that pass after writes, so the counts
/// are exact once it settles; up to [`KEYSPACE_EXACT_ENTRIES`] entries, a pass that is
/// behind the writes, or that saw keys with an expiry (some may have expired since), is
/// made again here, so the counts are exact at once. Beyond, they lag by the writes (and
/// expiries) since the background's pass. `avg_ttl` is not computed: 0.
fn keyspace(shared: &Shared, s: &Stats, out: &mut String) {
    let entries = s.memtable_entries + s.levels.iter().map(|l| l.entries).sum::<u64>();
    let stale = !s.live_bytes_is_current() || s.expiring_keys > 0;
    let (keys, expires) = if stale && entries <= KEYSPACE_EXACT_ENTRIES {
        let db = shared.store.db();
        match db.refresh_live_bytes().and_then(|_| db.stats()) {
            Ok(fresh) => (fresh.live_keys, fresh.expiring_keys),
            // The pass's failure shows in live_bytes_error.
            Err(_) => (s.live_keys, s.expiring_keys),
        }
    } else {
        (s.live_keys, s.expiring_keys)
    };
    section(
        out,
        "Keyspace",
        &[("db0", format!("keys={keys},expires={expires},avg_ttl=0"))],
    );
}

fn engine(s: &Stats, out: &mut String) {
    let mut lines = vec![
        ("user_ops", s.user_ops.to_string()),
        ("user_bytes_written", s.user_bytes_written.to_string()),
        ("write_groups", s.write_groups.to_string()),
        ("synced_groups", s.synced_groups.to_string()),
        ("log_bytes_written", s.log_bytes_written.to_string()),
        ("gets", s.gets.to_string()),
        ("value_reads", s.value_reads.to_string()),
        ("flushes", s.flushes.to_string()),
        ("compactions", s.compactions.to_string()),
        (
            "compaction_bytes_written",
            s.compaction_bytes_written.to_string(),
        ),
        ("stall_micros", s.stall_micros.to_string()),
        ("drop_records", s.drop_records.to_string()),
        ("gc_runs", s.gc_runs.to_string()),
        ("gc_bytes_written", s.gc_bytes_written.to_string()),
        ("gc_punch_runs", s.gc_punch_runs.to_string()),
        ("gc_punched_bytes", s.gc_punched_bytes.to_string()),
        ("block_cache_hits", s.block_cache_hits.to_string()),
        ("block_cache_misses", s.block_cache_misses.to_string()),
        ("memtable_entries", s.memtable_entries.to_string()),
        ("memtable_bytes", s.memtable_bytes.to_string()),
        ("value_files", s.value_files.len().to_string()),
        ("disk_bytes", s.disk.total().to_string()),
        ("live_bytes", s.live_bytes.to_string()),
        ("live_keys", s.live_keys.to_string()),
        (
            // How old the background's pass behind live_bytes is; empty before one.
            "live_bytes_age_ms",
            s.live_bytes_age
                .map_or_else(String::new, |a| a.as_millis().to_string()),
        ),
        ("reclaimable_bytes", s.reclaimable_bytes().to_string()),
        (
            "reclaimable_dropped_bytes",
            s.reclaimable_dropped_bytes.to_string(),
        ),
        (
            "reclaimable_shadowed_bytes",
            s.reclaimable_shadowed_bytes.to_string(),
        ),
        (
            "write_amplification",
            format!("{:.2}", s.write_amplification()),
        ),
        (
            "write_amplification_since_open",
            format!("{:.2}", s.write_amplification_since_open()),
        ),
        (
            "space_amplification",
            // Nothing live: the ratio means nothing (Redis's INFO prints absent figures empty).
            s.space_amplification()
                .map_or_else(String::new, |a| format!("{a:.2}")),
        ),
        ("space_amp_target", format!("{:.2}", s.space_amp_target)),
        (
            // met, reclaiming, or at_floor (nothing left to reclaim); empty: nothing live.
            "space_target",
            match s.space_target() {
                twain::SpaceTarget::Unknown => String::new(),
                twain::SpaceTarget::Met => "met".to_string(),
                twain::SpaceTarget::Reclaiming => "reclaiming".to_string(),
                twain::SpaceTarget::AtFloor { .. } => "at_floor".to_string(),
            },
        ),
        (
            "space_floor",
            s.space_floor()
                .map_or_else(String::new, |a| format!("{a:.2}")),
        ),
        ("reclaimable_log_bytes", s.reclaimable_log_bytes.to_string()),
        ("garbage_compactions", s.garbage_compactions.to_string()),
        ("logs_sealed_for_gc", s.logs_sealed_for_gc.to_string()),
        ("refresh_compactions", s.refresh_compactions.to_string()),
        ("stale_handles", s.stale_handles.to_string()),
        ("total_user_ops", s.totals.user_ops.to_string()),
        (
            "total_user_bytes_written",
            s.totals.user_bytes_written.to_string(),
        ),
        (
            "total_engine_bytes_written",
            s.totals.engine_bytes_written().to_string(),
        ),
        ("total_gc_runs", s.totals.gc_runs.to_string()),
        (
            "total_gc_bytes_written",
            s.totals.gc_bytes_written.to_string(),
        ),
        (
            "total_gc_punched_bytes",
            s.totals.gc_punched_bytes.to_string(),
        ),
    ];
    let levels: Vec<(String, String)> = s
        .levels
        .iter()
        .enumerate()
        .filter(|(_, l)| l.files > 0)
        .map(|(i, l)| {
            (
                format!("level{i}"),
                format!("files={},bytes={},entries={}", l.files, l.bytes, l.entries),
            )
        })
        .collect();
    lines.extend(levels.iter().map(|(k, v)| (k.as_str(), v.clone())));
    section(out, "Twain", &lines);
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::resp::Frame;

    fn text(f: Frame) -> String {
        match f {
            Frame::Bulk(b) => String::from_utf8(b).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_section_by_default() {
        let mut c = Conn::new();
        c.run(&["SET", "k", "v"]);
        let all = text(c.run(&["INFO"]));
        for header in ["# Server", "# Clients", "# Stats", "# Keyspace", "# Twain"] {
            assert!(all.contains(header), "{header} missing in {all}");
        }
        assert!(all.contains("db0:keys=1,expires=0,avg_ttl=0\r\n"), "{all}");
        assert!(all.contains("user_ops:1\r\n"), "{all}");
        for line in all
            .split("\r\n")
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            assert!(line.contains(':'), "{line:?}");
        }
    }

    #[test]
    fn twain_section_states_live_disk_space_and_totals() {
        let mut c = Conn::new();
        c.run(&["SET", "key", "value"]);
        let twain = text(c.run(&["INFO", "twain"]));
        for field in [
            "disk_bytes:",
            "reclaimable_bytes:",
            "write_amplification_since_open:",
            "total_user_bytes_written:",
        ] {
            assert!(twain.contains(field), "{field} missing in {twain}");
        }
        assert!(twain.contains("\r\nlive_bytes_age_ms:"), "{twain}");
        // Key and value bytes of the one live key, once a pass has seen it.
        c.shared.store.db().refresh_live_bytes().unwrap();
        let twain = text(c.run(&["INFO", "twain"]));
        assert!(twain.contains("\r\nlive_bytes:8\r\n"), "{twain}");
        assert!(twain.contains("\r\nspace_amplification:"), "{twain}");
        c.run(&["DEL", "key"]);
        c.shared.store.db().refresh_live_bytes().unwrap();
        let twain = text(c.run(&["INFO", "twain"]));
        assert!(twain.contains("\r\nlive_bytes:0\r\n"), "{twain}");
        // Nothing live: no ratio.
        assert!(twain.contains("\r\nspace_amplification:\r\n"), "{twain}");
    }

    #[test]
    fn keyspace_counts_live_keys_not_versions() {
        let mut c = Conn::new();
        // 4 keys, 9 versions and a deletion: the 9 against 4.
        for (k, v) in [("a", "1"), ("b", "1"), ("a", "2"), ("c", "1"), ("a", "3")] {
            c.run(&["SET", k, v]);
        }
        c.run(&["MSET", "d", "1", "b", "2", "c", "2", "e", "1"]);
        c.run(&["DEL", "e"]);
        assert_eq!(c.run(&["DBSIZE"]), Frame::Integer(4));
        let keyspace = text(c.run(&["INFO", "keyspace"]));
        assert_eq!(keyspace, "# Keyspace\r\ndb0:keys=4,expires=0,avg_ttl=0\r\n");
        c.shared.store.db().flush().unwrap();
        c.shared.store.db().refresh_live_bytes().unwrap();
        let twain = text(c.run(&["INFO", "twain"]));
        assert!(twain.contains("\r\nlive_keys:4\r\n"), "{twain}");
    }

    #[test]
    fn keyspace_counts_keys_with_an_expiry() {
        let (mut c, clock) = Conn::clocked();
        c.run(&["MSET", "a", "1", "b", "2", "c", "3"]);
        c.run(&["SET", "d", "4", "PX", "100"]);
        c.run(&["EXPIRE", "a", "10"]);
        c.run(&["PEXPIRE", "b", "100"]);
        let keyspace = text(c.run(&["INFO", "keyspace"]));
        assert_eq!(keyspace, "# Keyspace\r\ndb0:keys=4,expires=3,avg_ttl=0\r\n");
        c.run(&["PERSIST", "a"]);
        let keyspace = text(c.run(&["INFO", "keyspace"]));
        assert!(keyspace.contains("db0:keys=4,expires=2,"), "{keyspace}");
        // Keys that expired after the last pass are not counted.
        clock.advance(100);
        let keyspace = text(c.run(&["INFO", "keyspace"]));
        assert!(keyspace.contains("db0:keys=2,expires=0,"), "{keyspace}");
    }

    #[test]
    fn sections_by_name() {
        let mut c = Conn::new();
        let clients = text(c.run(&["INFO", "CLIENTS"]));
        assert!(
            clients.starts_with("# Clients\r\nconnected_clients:"),
            "{clients}"
        );
        assert!(!clients.contains("# Server"));
        let two = text(c.run(&["INFO", "server", "twain"]));
        assert!(two.contains("# Server") && two.contains("# Twain") && !two.contains("# Stats"));
        assert_eq!(text(c.run(&["INFO", "nosuch"])), "");
    }
}
