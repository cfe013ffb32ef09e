//! `twain stats` counts over the database's life, not since its own (read-only) open: every
//! command is a separate open, yet the totals add up, the write amplification is not 0.00,
//! and after deleting every key the space amplification says there is nothing live. The
//! live-data figure is exact; with `--fast` it is the referenced bytes, and says so.

use crate::cliutil;

use cliutil::ok;

#[test]
fn stats_totals_add_up_across_opens() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    for i in 0..3 {
        ok(&["--db", db, "put", &format!("key{i}"), &"v".repeat(100)]);
    }
    ok(&["--db", db, "flush"]);
    let json = ok(&["--db", db, "stats", "--json"]);
    assert!(json.contains("\"total_user_ops\":3,"), "{json}");
    assert!(json.contains("\"user_ops\":0,"), "{json}");
    assert!(json.contains("\"live_bytes\":312,"), "{json}");
    assert!(json.contains("\"live_bytes_writes_behind\":0,"), "{json}");
    let text = ok(&["--db", db, "stats", "--fast"]);
    assert!(text.contains("user writes      3 ops"), "{text}");
    assert!(!text.contains("write 0.00"), "{text}");
    assert!(text.contains("live pass        none yet"), "{text}");
    let json = ok(&["--db", db, "stats", "--json", "--fast"]);
    assert!(json.contains("\"live_bytes_age_ms\":null,"), "{json}");
    for i in 0..3 {
        ok(&["--db", db, "delete", &format!("key{i}")]);
    }
    let json = ok(&["--db", db, "stats", "--json"]);
    assert!(json.contains("\"total_user_ops\":6,"), "{json}");
    assert!(json.contains("\"live_bytes\":0,"), "{json}");
    assert!(json.contains("\"space_amplification\":null"), "{json}");
    assert!(ok(&["--db", db, "stats"]).contains("space n/a (nothing live)"));
}
