//! Issue 11, items 3–5 through the CLI: with three classes set, a flush puts the medium
//! pair's value into a transient SVTable that the table's handle names (`twain dump` of
//! both shows it), `twain stats` (text and `--json`) reports the bytes per class and the
//! transient file, and `twain compact` merges the medium value back inline, frees the
//! transient file whole and says so in the statistics; `twain check` is clean throughout.

use crate::cliutil;

use cliutil::ok;
use serde_json::Value;
use std::path::{Path, PathBuf};

const SET: [&str; 4] = [
    "--set",
    "medium_threshold=64",
    "--set",
    "inline_threshold=1024",
];

fn run(db: &str, args: &[&str]) -> String {
    let mut all = vec!["--db", db];
    all.extend(SET);
    all.extend(args);
    ok(&all)
}

fn json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("twain {args:?}: {e}:\n{out}"))
}

fn only(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// The table's entries as `(key, kind, handle file)`.
fn table_entries(db: &Path) -> Vec<(String, String, Option<u64>)> {
    let tables = only(db, ".sst");
    assert_eq!(tables.len(), 1, "{tables:?}");
    let d = json(&["dump", tables[0].to_str().unwrap(), "--json"]);
    d["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["key"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
                e["handle"]["file"].as_u64(),
            )
        })
        .collect()
}

#[test]
fn three_classes_show_in_dump_and_stats_and_compact_merges_the_medium_one() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("db");
    let db = db_path.to_str().unwrap();
    let medium = "m".repeat(300);
    let large = "L".repeat(2000);
    run(db, &["put", "a", "small"]);
    run(db, &["put", "b", &medium]);
    run(db, &["put", "c", &large]);
    run(db, &["flush"]);

    // The flush moved the medium value into a transient SVTable (epoch 1 in its name).
    let transient = only(&db_path, "-1.svt");
    assert_eq!(transient.len(), 1, "{:?}", only(&db_path, ""));
    let entries = table_entries(&db_path);
    let number: u64 = transient[0].file_name().unwrap().to_str().unwrap()[..6]
        .parse()
        .unwrap();
    assert_eq!(entries[0], ("a".into(), "inline".into(), None));
    assert_eq!(entries[1], ("b".into(), "handle".into(), Some(number)));
    assert_eq!(entries[2].1, "handle");
    assert_ne!(
        entries[2].2,
        Some(number),
        "the large value stays in the log"
    );
    let svt = json(&["dump", transient[0].to_str().unwrap(), "--json"]);
    let keys: Vec<&str> = svt["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entry"]["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["b"], "{svt}");

    let s = json(&["--db", db, "stats", "--json", "--fast"]);
    assert_eq!(s["transient_files"], 1, "{s}");
    assert!(s["transient_bytes"].as_u64().unwrap() >= 300, "{s}");
    for (class, bytes) in [("small", 6), ("medium", 301), ("large", 2001)] {
        assert_eq!(
            s[format!("total_{class}_bytes_written")],
            bytes,
            "{class}: {s}"
        );
    }
    assert_eq!(s["total_medium_bytes_merged"], 0, "{s}");
    let text = ok(&["--db", db, "--bytes", "stats", "--fast"]);
    assert!(text.contains("transient files"), "{text}");
    assert!(text.contains("1 live"), "{text}");
    assert!(json(&["--db", db, "check", "--json"])["ok"] == true);

    // `twain compact` writes the last level: the medium value is merged inline and the
    // transient file freed whole; the large one keeps its handle.
    run(db, &["compact"]);
    let entries = table_entries(&db_path);
    assert_eq!(entries[1], ("b".into(), "inline".into(), None));
    assert_eq!(entries[2].1, "handle");
    assert!(only(&db_path, "-1.svt").is_empty());
    let s = json(&["--db", db, "stats", "--json", "--fast"]);
    assert_eq!(s["transient_files"], 0, "{s}");
    assert_eq!(s["total_medium_bytes_merged"], 300, "{s}");
    assert!(
        s["total_transient_bytes_freed"].as_u64().unwrap() >= 300,
        "{s}"
    );
    let text = ok(&["--db", db, "--bytes", "stats", "--fast"]);
    assert!(text.contains("merged in place 300"), "{text}");
    assert_eq!(run(db, &["get", "b"]).trim_end(), medium);
    assert_eq!(run(db, &["get", "c"]).trim_end(), large);
    assert!(json(&["--db", db, "check", "--json"])["ok"] == true);
}
