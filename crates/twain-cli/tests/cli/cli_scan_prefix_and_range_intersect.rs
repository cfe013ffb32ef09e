//! Issue 16, item 4: `scan --prefix P --from A --to B` lists the keys that start with P and
//! lie in [A, B). `--from` and `--to` were silently ignored beside `--prefix`
//! (`scan --prefix user: --from user:099998` listed every user).

use crate::cliutil;

use cliutil::ok;

#[test]
fn prefix_with_from_and_to_is_the_intersection() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    for k in ["a", "user:1", "user:2", "user:3", "user:4", "users", "z"] {
        ok(&["--db", db, "put", k, "v"]);
    }
    let keys = |args: &[&str]| {
        let mut all = vec!["--db", db, "scan", "--keys-only", "--prefix", "user:"];
        all.extend_from_slice(args);
        ok(&all)
    };
    assert_eq!(keys(&[]), "user:1\nuser:2\nuser:3\nuser:4\n");
    assert_eq!(keys(&["--from", "user:3"]), "user:3\nuser:4\n");
    assert_eq!(keys(&["--to", "user:2"]), "user:1\n");
    assert_eq!(
        keys(&["--from", "user:2", "--to", "user:4"]),
        "user:2\nuser:3\n"
    );
    // Bounds outside the prefix's range leave it whole, or empty.
    assert_eq!(
        keys(&["--from", "a", "--to", "zz"]),
        "user:1\nuser:2\nuser:3\nuser:4\n"
    );
    assert_eq!(keys(&["--from", "users"]), "");
    assert_eq!(keys(&["--to", "user:"]), "");
    assert_eq!(keys(&["--from", "user:4", "--to", "user:2"]), "");
    assert_eq!(
        keys(&["--from", "user:2", "--reverse", "--limit", "2"]),
        "user:4\nuser:3\n"
    );
    assert_eq!(
        ok(&[
            "--db", db, "scan", "--count", "--prefix", "user:", "--from", "user:3"
        ]),
        "2\n"
    );
    assert_eq!(
        ok(&[
            "--db", db, "scan", "--count", "--prefix", "user:", "--from", "z"
        ]),
        "0\n"
    );
    assert_eq!(
        ok(&["--db", db, "scan", "--prefix", "user:", "--from", "user:4"]),
        "user:4\tv\n"
    );
}
