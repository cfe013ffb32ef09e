//! `twain scan --keys-only` prints one key a line and `--count` the number of keys, with
//! the same range, prefix, reverse and limit options as a scan with values.

use crate::cliutil;

use cliutil::{ok, twain};

#[test]
fn keys_only_and_count_follow_the_scan_options() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let big = "v".repeat(3000);
    for k in ["apple", "banana", "cherry", "date"] {
        ok(&["--db", db, "put", k, &big]);
    }
    ok(&["--db", db, "delete", "banana"]);
    ok(&["--db", db, "flush"]);
    assert_eq!(
        ok(&["--db", db, "scan", "--keys-only"]),
        "apple\ncherry\ndate\n"
    );
    assert_eq!(
        ok(&[
            "--db",
            db,
            "scan",
            "--keys-only",
            "--reverse",
            "--limit",
            "2"
        ]),
        "date\ncherry\n"
    );
    assert_eq!(
        ok(&[
            "--db",
            db,
            "scan",
            "--keys-only",
            "--from",
            "b",
            "--to",
            "d"
        ]),
        "cherry\n"
    );
    assert_eq!(ok(&["--db", db, "scan", "--count"]), "3\n");
    assert_eq!(
        ok(&["--db", db, "scan", "--count", "--prefix", "ch"]),
        "1\n"
    );
    assert_eq!(
        ok(&["--db", db, "scan", "--count", "--prefix", "zz"]),
        "0\n"
    );
    let both = twain(&["--db", db, "scan", "--count", "--keys-only"]);
    assert!(
        !both.status.success(),
        "--count with --keys-only is refused"
    );
}
