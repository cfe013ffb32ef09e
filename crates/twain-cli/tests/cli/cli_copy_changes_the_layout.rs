//! `twain copy DIR --to-set ...` copies a database into a new one with other options (here
//! the hash layout, which `--set` on a later open cannot change), reading the source
//! read-only; a used target directory is refused.

use crate::cliutil;

use cliutil::{ok, twain};

#[test]
fn copy_moves_a_log_layout_database_to_the_hash_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |name: &str| tmp.path().join(name).to_str().unwrap().to_string();
    let (db, hash) = (p("db"), p("hash"));
    for i in 0..40 {
        ok(&[
            "--db",
            &db,
            "put",
            &format!("k{i:02}"),
            &"v".repeat(20 + 100 * i),
        ]);
    }
    ok(&["--db", &db, "delete", "k03"]);

    let said = ok(&["--db", &db, "copy", &hash, "--to-set", "value_layout=hash"]);
    assert!(
        said.starts_with("copied 39 pairs (0 expiring) into "),
        "{said}"
    );
    let stats = ok(&["--db", &hash, "stats", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stats).unwrap();
    assert!(json["hash_layout"].is_object(), "{stats}");
    assert_eq!(
        ok(&["--db", &hash, "get", "--raw", "k39"]),
        "v".repeat(3920)
    );
    assert_eq!(twain(&["--db", &hash, "get", "k03"]).status.code(), Some(1));
    assert_eq!(
        ok(&["--db", &db, "scan"]),
        ok(&["--db", &hash, "scan"]),
        "the copy holds what the source holds"
    );

    let again = twain(&["--db", &db, "copy", &hash]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
    let bad = twain(&[
        "--db",
        &db,
        "copy",
        &p("other"),
        "--to-set",
        "value_layout=ring",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("value_layout"));
}
