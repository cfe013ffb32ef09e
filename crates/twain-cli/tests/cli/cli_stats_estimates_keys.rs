//! Issue 16, item 4: `twain stats` estimates the number of keys from the entries of every
//! table and memtable (`Stats::estimated_keys`), without reading a key: an upper bound
//! that counts old versions and tombstones until compaction drops them.

use crate::cliutil;

use cliutil::ok;

/// The estimate in `stats --json` and the line `stats` prints it on.
fn estimate(db: &str) -> (u64, String) {
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["--db", db, "stats", "--json", "--fast"])).unwrap();
    let text = ok(&["--db", db, "stats", "--fast"]);
    let line = text
        .lines()
        .find(|l| l.starts_with("keys (estimate)"))
        .unwrap_or_else(|| panic!("no estimate in {text}"))
        .to_string();
    (json["estimated_keys"].as_u64().unwrap(), line)
}

#[test]
fn stats_estimates_the_keys_counting_versions_until_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    for k in ["a", "b", "c"] {
        ok(&["--db", db, "put", k, "v"]);
    }
    let (n, line) = estimate(db);
    assert_eq!(n, 3);
    assert!(line.starts_with("keys (estimate)  3 ("), "{line}");

    ok(&["--db", db, "flush"]);
    ok(&["--db", db, "put", "a", "newer"]);
    ok(&["--db", db, "delete", "b"]);
    assert_eq!(estimate(db).0, 5, "an old version and a tombstone count");
    assert_eq!(ok(&["--db", db, "scan", "--count"]), "2\n");

    ok(&["--db", db, "compact"]);
    let (n, line) = estimate(db);
    assert_eq!(n, 2, "compaction dropped them");
    assert!(line.starts_with("keys (estimate)  2 ("), "{line}");
}
