//! The CLI with an unwritable stderr or stdout (issue 19, finding 8): `twain ... 2>/dev/full`
//! exited 101 with a panic because `eprintln!` panics when the write fails. A failing command
//! must exit with its documented status (1) whatever happens to its messages, and output
//! that cannot be written (a full disk, a reader that went away) is an error, not a panic.

use std::fs::File;
use std::io::Read;
use std::process::{Command, Output, Stdio};

fn dev_full() -> Stdio {
    Stdio::from(File::options().write(true).open("/dev/full").unwrap())
}

fn twain() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twain"))
}

fn run(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().expect("run twain")
}

#[test]
fn a_failing_command_with_stderr_on_dev_full_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none");
    // No database there: `get` fails and its message cannot be written.
    let out = run(twain()
        .args(["--db", db.to_str().unwrap(), "get", "k"])
        .stderr(dev_full()));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // A rejected option, the same.
    let db = dir.path().join("db");
    let out = run(twain()
        .args(["--db", db.to_str().unwrap(), "put", "k", "v"])
        .args(["--set", "bloom_bits_per_key=4294967295"])
        .stderr(dev_full()));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!db.exists(), "a rejected option created the database");
}

#[test]
fn a_missing_key_with_stderr_on_dev_full_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let out = run(twain().args(["--db", db, "put", "k", "v"]));
    assert!(out.status.success(), "{out:?}");
    let out = run(twain()
        .args(["--db", db, "get", "other"])
        .stderr(dev_full()));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

#[test]
fn output_to_dev_full_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let out = run(twain().args(["--db", db, "put", "k", "v"]));
    assert!(out.status.success(), "{out:?}");
    let out = run(twain().args(["--db", db, "get", "k"]).stdout(dev_full()));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stdout"), "{stderr}");
    // Both unwritable: still the error status.
    let out = run(twain()
        .args(["--db", db, "get", "k"])
        .stdout(dev_full())
        .stderr(dev_full()));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // Help that cannot be shown is not a failure of the program.
    let out = run(twain().arg("--help").stdout(dev_full()));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn a_reader_that_goes_away_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // More output than a pipe buffers, so that the scan writes after the reader is gone.
    let lines: String = (0..3000)
        .map(|i| format!("key{i:05}\t{}\n", "v".repeat(100)))
        .collect();
    let mut import = twain()
        .args(["--db", db, "import"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut import.stdin.take().unwrap(), lines.as_bytes()).unwrap();
    assert!(import.wait().unwrap().success());

    let mut scan = twain()
        .args(["--db", db, "scan"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(scan.stdout.take());
    let mut stderr = String::new();
    scan.stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = scan.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("twain: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
