//! Issue 16, item 4: `stats`, `gc`, `check` and `dump` take `--json` and print one valid
//! JSON object with stable field names and exact numbers, whatever `--bytes` says.

use crate::cliutil;

use cliutil::{ok, twain};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("twain {args:?}: {e}:\n{out}"))
}

/// A database with three pairs, one of them separated, flushed to one table.
fn database(dir: &std::path::Path) -> String {
    let db = dir.join("db").to_str().unwrap().to_string();
    let set = ["--set", "inline_threshold=64"];
    ok(&["--db", &db, "put", "a", "small", set[0], set[1]]);
    ok(&["--db", &db, "put", "b", &"v".repeat(500), set[0], set[1]]);
    ok(&["--db", &db, "put", "c\\x00", "x", set[0], set[1]]);
    ok(&["--db", &db, "flush"]);
    db
}

#[test]
fn stats_json_has_the_key_estimate_and_exact_numbers_with_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let plain = json(&["--db", &db, "stats", "--json", "--fast"]);
    let with_bytes = json(&["--db", &db, "--bytes", "stats", "--json", "--fast"]);
    assert_eq!(plain["estimated_keys"], 3, "{plain}");
    for name in ["disk_total", "total_user_bytes_written", "live_bytes"] {
        assert!(plain[name].is_u64(), "{name}: {plain}");
        assert_eq!(plain[name], with_bytes[name], "{name}");
    }
}

#[test]
fn check_json_reports_the_verdict_findings_and_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let c = json(&["--db", &db, "--bytes", "check", "--json"]);
    assert_eq!(c["ok"], true, "{c}");
    assert_eq!(c["problems"], Value::Array(vec![]), "{c}");
    assert!(c["bytes_checked"].as_u64().unwrap() > 0, "{c}");
    assert_eq!(c["tables"], 1, "{c}");
    assert_eq!(c["table_entries"], 3, "{c}");
    for name in ["notes", "orphans", "unexpected", "set_aside"] {
        assert!(c[name].is_array(), "{name}: {c}");
    }

    // A damaged table: still one JSON object, the problem in it, and exit status 1.
    let sst = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .unwrap();
    let mut bytes = std::fs::read(&sst).unwrap();
    bytes[10] ^= 0xff;
    std::fs::write(&sst, bytes).unwrap();
    let out = twain(&["--db", &db, "check", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["ok"], false, "{c}");
    let problem = &c["problems"][0];
    assert!(problem["file"].as_str().unwrap().ends_with(".sst"), "{c}");
    assert!(problem["what"].is_string(), "{c}");
}

#[test]
fn gc_json_lists_every_value_file_left_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let g = json(&["--db", &db, "gc", "--json"]);
    for name in [
        "collected",
        "punched",
        "logs_sealed",
        "garbage_compactions",
        "gc_bytes_read",
        "gc_bytes_written",
        "gc_files_deleted_unread",
        "disk_total",
        "live_bytes",
    ] {
        assert!(g[name].is_u64(), "{name}: {g}");
    }
    assert!(g["threshold"].is_f64(), "{g}");
    assert!(g["space_amplification"].is_f64(), "{g}");
    let files = g["files"].as_array().unwrap();
    assert!(!files.is_empty(), "{g}");
    for f in files {
        assert!(f["number"].is_u64() && f["total_bytes"].is_u64(), "{g}");
        assert!(f["live_fraction"].is_f64() && f["stays"].is_string(), "{g}");
    }
}

#[test]
fn dump_json_gives_the_header_properties_and_entries() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let sst = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .unwrap();
    let sst = sst.to_str().unwrap();
    let d = json(&["--bytes", "dump", sst, "--json"]);
    assert_eq!(d["kind"], "table", "{d}");
    assert_eq!(d["size"], std::fs::metadata(sst).unwrap().len(), "{d}");
    assert_eq!(d["entries"], 3, "{d}");
    assert_eq!(d["smallest_key"], "a", "{d}");
    assert_eq!(d["largest_key"], "c\\x00", "{d}");
    assert_eq!(d["properties"]["value_handles"], 1, "{d}");
    let listed = d["listed"].as_array().unwrap();
    let keys: Vec<&str> = listed.iter().map(|e| e["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["a", "b", "c\\x00"]);
    assert_eq!(listed[0]["kind"], "inline");
    assert_eq!(listed[0]["value"], "small");
    assert_eq!(listed[0]["value_len"], 5);
    assert_eq!(listed[1]["kind"], "handle");
    assert!(listed[1]["handle"]["file"].is_u64(), "{d}");
    assert!(listed[0]["seq"].is_u64(), "{d}");

    let p = json(&["dump", sst, "--json", "--properties"]);
    assert!(p.get("listed").is_none(), "{p}");
    assert_eq!(p["properties"], d["properties"]);

    let listing = json(&["dump", &db, "--json"]);
    let files = listing["files"].as_array().unwrap();
    assert_eq!(
        files.len(),
        std::fs::read_dir(&db).unwrap().count(),
        "{listing}"
    );
    let kinds: Vec<&str> = files.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    for kind in ["CURRENT", "manifest", "table", "value file"] {
        assert!(kinds.contains(&kind), "{kind} missing: {listing}");
    }
}
