//! Issue 16, item 4: the exit status tells a missing key (1) from an error (2), and every
//! error line starts `twain:` ("not found" lacked it; `get` printed it and called
//! `exit(1)`, skipping `Db`'s close).

use crate::cliutil;

use cliutil::{ok, twain};

/// Every line of `stderr` that is not blank, not a usage hint.
fn error_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_missing_key_is_status_1_and_an_error_is_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    ok(&["--db", db, "put", "k", "v"]);

    let missing = twain(&["--db", db, "get", "other"]);
    assert_eq!(missing.status.code(), Some(1), "{missing:?}");
    assert_eq!(error_lines(&missing.stderr), ["twain: not found: other"]);
    assert!(missing.stdout.is_empty());

    let nowhere = dir.path().join("nowhere");
    for args in [
        vec!["--db", nowhere.to_str().unwrap(), "get", "k"],
        vec!["--db", db, "put", "k", "v", "--set", "memtable_size=lots"],
        vec!["--db", db, "--hex", "get", "zz"],
        vec!["dump", nowhere.to_str().unwrap()],
        vec!["--db", db, "scan", "--limit", "many"],
        vec!["--db", db, "no-such-command"],
    ] {
        let out = twain(&args);
        assert_eq!(out.status.code(), Some(2), "twain {args:?}: {out:?}");
        let lines = error_lines(&out.stderr);
        assert!(!lines.is_empty(), "twain {args:?} said nothing");
        for line in lines {
            assert!(line.starts_with("twain: "), "twain {args:?}: {line}");
        }
    }
}
