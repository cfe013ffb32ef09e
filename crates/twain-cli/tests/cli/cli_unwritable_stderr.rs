//! The CLI with an unwritable stderr or stdout (issue 19, finding 8): `twain ... 2>/dev/full`
//! exited 101 with a panic because `eprintln!` panics when the write fails. A failing command
//! must exit with its documented status (2 for an error, 1 for a missing key) whatever
//! happens to its messages, and output that cannot be written (a full disk) is an error,
//! not a panic. (A reader that goes away is not an error: `cli_closed_stdout.rs`.)

use std::fs::File;
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
fn a_failing_command_with_stderr_on_dev_full_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none");
    // No database there: `get` fails and its message cannot be written.
    let out = run(twain()
        .args(["--db", db.to_str().unwrap(), "get", "k"])
        .stderr(dev_full()));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // A rejected option, the same.
    let db = dir.path().join("db");
    let out = run(twain()
        .args(["--db", db.to_str().unwrap(), "put", "k", "v"])
        .args(["--set", "bloom_bits_per_key=4294967295"])
        .stderr(dev_full()));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
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
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stdout"), "{stderr}");
    // Both unwritable: still the error status.
    let out = run(twain()
        .args(["--db", db, "get", "k"])
        .stdout(dev_full())
        .stderr(dev_full()));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // Help that cannot be shown is not a failure of the program.
    let out = run(twain().arg("--help").stdout(dev_full()));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
