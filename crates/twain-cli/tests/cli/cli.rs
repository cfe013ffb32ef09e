//! The `twain` binary end to end: write, read, scan, stats, flush, compact and dump a
//! database through the command line; bad input gives a clear error and a failing status.

use crate::cliutil;

use cliutil::{ok, twain};
use std::path::Path;

fn db_arg(dir: &Path) -> &str {
    dir.to_str().expect("utf-8 path")
}

#[test]
fn put_get_delete_scan_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db_arg(&db);
    ok(&["--db", db, "put", "apple", "red"]);
    ok(&["--db", db, "put", "banana", "yellow", "--sync"]);
    ok(&["--db", db, "put", "cherry", "dark red"]);
    assert_eq!(ok(&["--db", db, "get", "banana"]), "yellow");
    ok(&["--db", db, "delete", "banana"]);
    let missing = twain(&["--db", db, "get", "banana"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(ok(&["--db", db, "scan"]), "apple\tred\ncherry\tdark red\n");
    assert_eq!(
        ok(&["--db", db, "scan", "--reverse", "--limit", "1"]),
        "cherry\tdark red\n"
    );
    assert_eq!(
        ok(&["--db", db, "scan", "--prefix", "ch"]),
        "cherry\tdark red\n"
    );
    assert_eq!(
        ok(&["--db", db, "scan", "--from", "b", "--to", "d"]),
        "cherry\tdark red\n"
    );
}

#[test]
fn stats_flush_compact_and_dump_every_file_kind() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dbs = db_arg(&db);
    for i in 0..20 {
        ok(&[
            "--db",
            dbs,
            "put",
            &format!("key{i:02}"),
            &"v".repeat(300 + i),
            "--set",
            "inline_threshold=64",
        ]);
    }
    ok(&["--db", dbs, "flush"]);
    ok(&["--db", dbs, "compact"]);
    let text = ok(&["--db", dbs, "stats"]);
    assert!(text.contains("amplification"), "{text}");
    let json = ok(&["--db", dbs, "stats", "--json"]);
    assert!(json.trim_start().starts_with('{') && json.contains("\"space_amplification\":"));
    let mut kinds = Vec::new();
    for entry in std::fs::read_dir(&db).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let Some(ext) = name.rsplit('.').next() else {
            continue;
        };
        if ["sst", "vlog", "manifest"].contains(&ext) || name == "CURRENT" {
            let out = ok(&["dump", path.to_str().unwrap()]);
            assert!(!out.is_empty(), "empty dump of {name}");
            kinds.push(if name == "CURRENT" {
                "CURRENT".to_string()
            } else {
                ext.to_string()
            });
        }
    }
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds, vec!["CURRENT", "manifest", "sst", "vlog"]);
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dbs = db_arg(&db);
    let out = twain(&["--db", dbs, "get", "x"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no database"));
    let out = twain(&["--db", dbs, "put", "k", "v", "--set", "memtable_size=lots"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("memtable_size"));
    let out = twain(&["--db", dbs, "put", "k", "v", "--set", "no_such_option=1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown option"));
    let junk = dir.path().join("000001.sst");
    std::fs::write(&junk, b"not a table").unwrap();
    let out = twain(&["dump", junk.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("corruption"));
}

#[test]
fn gc_command_collects_and_stats_json_names_the_gc_counters() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dbs = db_arg(&db);
    let sets = [
        "--set",
        "inline_threshold=64",
        "--set",
        "value_file_size=4K",
        "--set",
        "gc_threshold=0.95",
        // The background worker is off, so that `twain gc` is what collects.
        "--set",
        "gc=off",
    ];

    // Round 0 writes 12 keys; later rounds overwrite the even ones, leaving value files
    // that are partly live.
    for round in 0..4 {
        for k in 0..12 {
            if round > 0 && k % 2 == 1 {
                continue;
            }
            let (key, value) = (format!("key{k}"), format!("{round}-{}", "v".repeat(400)));
            let mut args = vec!["--db", dbs, "put", &key, &value];
            args.extend_from_slice(&sets);
            ok(&args);
        }
    }
    let mut args = vec!["--db", dbs, "compact"];
    args.extend_from_slice(&sets);
    ok(&args);
    let mut args = vec!["--db", dbs, "gc"];
    args.extend_from_slice(&sets);
    let out = ok(&args);
    assert!(out.starts_with("collected "), "{out}");
    assert!(!out.starts_with("collected 0 "), "nothing collected: {out}");
    let json = ok(&["--db", dbs, "stats", "--json"]);
    for name in [
        "gc_runs",
        "gc_bytes_read",
        "gc_bytes_written",
        "gc_files_deleted_unread",
        "gc_lsm_lookups",
        "svtable_searches",
        "scan_svtable_searches",
        "handle_fixups",
        "compaction_handle_refreshes",
        "total_compaction_handle_refreshes",
        "space_amplification",
    ] {
        assert!(
            json.contains(&format!("\"{name}\":")),
            "{name} missing from {json}"
        );
    }
    for k in 0..12 {
        let round = if k % 2 == 0 { 3 } else { 0 };
        assert_eq!(
            ok(&["--db", dbs, "get", &format!("key{k}")]),
            format!("{round}-{}", "v".repeat(400))
        );
    }
}
