//! Issue 16, item 4: `twain import` says what it wrote. At a bad line it stops with the
//! line's number and how many pairs, every one before the line, are in the database (it
//! used to say nothing of the 2,000 pairs written before a bad line 2501); `--skip-bad`
//! skips bad lines and counts them; it gives the bytes of keys and values with the pairs,
//! and "1 pair", not "1 pairs"; the input is bytes (non-UTF-8 input failed as a bare
//! "I/O error"); and it flushes at the end, so later commands do not replay the log.

use crate::cliutil;

use cliutil::ok;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `twain --db DB ARGS` with `input` on stdin.
fn with_input(db: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(["--db", db])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn lines(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| format!("key{i:05}\tvalue {i}\n").into_bytes())
        .collect()
}

fn tables(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            let p = e.as_ref().unwrap().path();
            p.extension().is_some_and(|x| x == "sst")
        })
        .count()
}

#[test]
fn a_bad_line_stops_the_import_saying_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = path.to_str().unwrap();
    let mut input = lines(2500);
    input.extend_from_slice(b"no tab on line 2501\n");
    input.extend_from_slice(&lines(10));
    let out = with_input(db, &["import"], &input);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "twain: stdin line 2501: expected KEY<TAB>VALUE; the 2500 pairs before it (42.9 KiB) \
             were written"
        ),
        "{stderr}"
    );
    // Every pair before the line, including the 500 after the last full batch; flushed.
    assert_eq!(ok(&["--db", db, "scan", "--count"]), "2500\n");
    assert!(tables(&path) > 0, "the pairs written were not flushed");
}

#[test]
fn skip_bad_skips_bad_lines_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let mut input = lines(5);
    input.extend_from_slice(b"no tab\nk\\xzz\tv\n");
    input.extend_from_slice(&lines(3));
    input.extend_from_slice(b"last\tone\n\xff no tab either");
    let out = with_input(db, &["import", "--skip-bad"], &input);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "twain: skipped stdin line 6: expected KEY<TAB>VALUE\n\
         twain: skipped stdin line 7: key: bad escape at column 2: expected \\xNN\n\
         twain: skipped stdin line 12: expected KEY<TAB>VALUE\n\
         imported 9 pairs (127 B of keys and values), skipped 3 malformed lines\n"
    );
    assert_eq!(ok(&["--db", db, "scan", "--count"]), "6\n");
    assert_eq!(ok(&["--db", db, "get", "last"]), "one");
}

#[test]
fn input_is_bytes_not_utf8_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // Raw bytes that are not UTF-8 stand for themselves, as escapes do.
    let out = with_input(db, &["import"], b"caf\xe9\t\xff\xfe\nplain\tv\n");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        ok(&["--db", db, "scan"]),
        "caf\\xe9\t\\xff\\xfe\nplain\tv\n"
    );
    // With --hex, a non-UTF-8 field is a bad line with its number.
    let out = with_input(db, &["--hex", "import"], b"6b\t76\n6b\xff\t76\n");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("twain: stdin line 2: key: "), "{stderr}");
    assert!(
        stderr.contains("the 1 pair before it (2 B) was written"),
        "{stderr}"
    );
}

#[test]
fn import_flushes_so_the_next_open_replays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = path.to_str().unwrap();
    let out = with_input(db, &["import"], &lines(100));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "imported 100 pairs (1.6 KiB of keys and values)\n"
    );
    assert_eq!(tables(&path), 1);
    let json = ok(&["--db", db, "stats", "--json", "--fast"]);
    let stats: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(stats["total_flushes"], 1, "{json}");
    assert_eq!(stats["memtable_entries"], 0, "{json}");
}
