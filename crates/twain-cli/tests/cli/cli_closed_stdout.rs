//! Issue 16, item 4: a reader that goes away (`twain scan | head -1`) ends a command
//! quietly with status 0, as `head` expects, for every command that prints; also when
//! stderr goes to the same closed pipe (`2>&1 | head`). Before, `scan` printed "Broken pipe
//! (os error 32)" and exited 1, and 101 (a panic) with `2>&1`.

use crate::cliutil;

use cliutil::ok;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

fn twain() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twain"))
}

/// A database with more `scan` output than a pipe buffers, in a table and a value file.
fn database(dir: &Path) -> String {
    let db = dir.join("db").to_str().unwrap().to_string();
    let lines: String = (0..3000)
        .map(|i| format!("key{i:05}\t{}\n", "v".repeat(100)))
        .collect();
    let mut import = twain()
        .args(["--db", &db, "import", "--set", "inline_threshold=64"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    import
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    assert!(import.wait().unwrap().success());
    ok(&["--db", &db, "flush"]);
    db
}

/// The commands that print, each with its arguments.
fn printing_commands(db: &str, dir: &Path) -> Vec<Vec<String>> {
    let sst = std::fs::read_dir(dir.join("db"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .unwrap();
    let big_value = "x".repeat(100_000);
    ok(&["--db", db, "put", "big", &big_value]);
    let sst = sst.to_str().unwrap();
    let lists: [&[&str]; 9] = [
        // First: `gc` may replace the table.
        &["dump", sst],
        &["--db", db, "scan"],
        &["--db", db, "scan", "--keys-only"],
        &["--db", db, "scan", "--reverse"],
        &["--db", db, "scan", "--count"],
        &["--db", db, "get", "big"],
        &["--db", db, "stats"],
        &["--db", db, "check"],
        &["--db", db, "gc"],
    ];
    lists
        .iter()
        .map(|l| l.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn a_closed_stdout_ends_every_printing_command_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    for args in printing_commands(&db, dir.path()) {
        let mut child = twain()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "twain {args:?}: {stderr}");
        assert_eq!(stderr, "", "twain {args:?} said something");
    }
}

#[test]
fn a_closed_pipe_on_stdout_and_stderr_after_one_line_is_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    for args in [
        vec!["--db", db.as_str(), "scan"],
        vec!["--db", db.as_str(), "scan", "--keys-only"],
    ] {
        // `twain scan 2>&1 | head -1`
        let (reader, writer) = std::io::pipe().unwrap();
        let mut child = twain()
            .args(&args)
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .spawn()
            .unwrap();
        // The child holds the only write ends now: the command's own.
        let mut first = String::new();
        BufReader::new(reader).read_line(&mut first).unwrap();
        assert!(first.starts_with("key00000"), "{first}");
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "twain {args:?}");
    }
}
