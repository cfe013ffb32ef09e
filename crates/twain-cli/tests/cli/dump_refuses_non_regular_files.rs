//! `twain dump` blocked forever on a FIFO and read directories and huge files whole (issue
//! 19, finding 10). It now refuses anything but a regular file with a clear error, at once;
//! a directory is not read as a file either.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `twain dump path`, killing it (and failing) if it has not ended within a minute.
fn dump(path: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(["dump", path.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run twain");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("twain dump {} did not end", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn assert_refused(path: &Path) {
    let out = dump(path);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a regular file"), "{stderr}");
    assert!(out.stdout.is_empty(), "{out:?}");
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("000001.manifest");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    assert_refused(&fifo);
}

#[test]
fn a_directory_is_not_read_as_a_file() {
    // A directory is summarized file by file (cli_dump_directory_summary.rs), never read
    // as the table its name says; one holding no twain file is refused.
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("000300.sst");
    std::fs::create_dir(&sub).unwrap();
    let out = dump(&sub);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a twain database directory"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{out:?}");
}

#[test]
fn a_device_is_refused() {
    assert_refused(Path::new("/dev/zero"));
}
