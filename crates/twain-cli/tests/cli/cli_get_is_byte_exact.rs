//! Issue 16, item 4: `twain get KEY > file` writes the value's bytes and nothing else
//! (it appended a newline), whatever the bytes are; `--raw` does so always, even with
//! `--hex`; `--hex` alone prints the value in hex on a line of its own. The help says which.

use crate::cliutil;

use cliutil::{ok, twain};

/// The standard output of `twain args`, which must succeed, as bytes.
fn bytes_of(args: &[&str]) -> Vec<u8> {
    let out = twain(args);
    assert!(out.status.success(), "twain {args:?}: {out:?}");
    out.stdout
}

#[test]
fn get_to_a_pipe_writes_the_value_bytes_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // A value that is not UTF-8 and ends with a newline: `ff 00 41 0a`.
    ok(&["--db", db, "--hex", "put", "6b", "ff00410a"]);
    ok(&["--db", db, "put", "text", "plain"]);

    assert_eq!(bytes_of(&["--db", db, "get", "k"]), b"\xff\x00A\n");
    assert_eq!(bytes_of(&["--db", db, "get", "k", "--raw"]), b"\xff\x00A\n");
    assert_eq!(bytes_of(&["--db", db, "get", "text"]), b"plain");
    assert_eq!(bytes_of(&["--db", db, "--hex", "get", "6b"]), b"ff00410a\n");
    assert_eq!(
        bytes_of(&["--db", db, "--hex", "get", "6b", "--raw"]),
        b"\xff\x00A\n"
    );
}

#[test]
fn get_help_says_the_output_is_byte_exact() {
    let help = ok(&["get", "--help"]);
    assert!(help.contains("bytes exactly"), "{help}");
    assert!(help.contains("--raw"), "{help}");
}
