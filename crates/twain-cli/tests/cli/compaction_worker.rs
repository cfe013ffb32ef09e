//! `twain compaction-worker` as a real process beside a host process that offloads
//! compaction parts to it (Co-KV): the worker SIGKILLed at every step of a part (before
//! reading, mid-write, after writing, before replying) and the host SIGKILLed while a part
//! is at the worker. Every time the data reads back whole, `twain check` finds no
//! problem, and the statistics say a part was taken back.

use crate::cliutil;

use cliutil::{ok, twain};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Engine options that split compactions into two parts and offload one to `socket`.
fn offload_sets(socket: &Path) -> Vec<String> {
    [
        "memtable_size=64K",
        "value_file_size=256K",
        "l1_target_size=64K",
        "target_file_size=16K",
        "block_size=1K",
        "l0_compaction_trigger=2",
        "max_subcompactions=2",
        "compaction_offload_timeout_ms=3000",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("compaction_offload=unix:{}", socket.display())])
    .flat_map(|s| ["--set".to_string(), s])
    .collect()
}

/// `n` pairs as `import` reads them, in key order, `round` changing every value.
fn pairs(n: usize, round: usize) -> String {
    (0..n)
        .map(|i| format!("key{i:06}\tvalue-{round}-{i}-{}\n", "x".repeat(i % 200)))
        .collect()
}

fn start_worker(db: &Path, socket: &Path, extra: &[&str]) -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .arg("--db")
        .arg(db)
        .args(["compaction-worker", "--listen"])
        .arg(format!("unix:{}", socket.display()))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !socket.exists() {
        assert!(Instant::now() < deadline, "the worker never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// Imports `text` into `db` with the offload options.
fn import(db: &Path, socket: &Path, text: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .arg("--db")
        .arg(db)
        .args(offload_sets(socket))
        .arg("import")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Imports three rounds of 3,000 pairs with offload; returns the last round's text.
fn import_rounds(db: &Path, socket: &Path, what: &str) -> String {
    let mut want = String::new();
    for round in 0..3 {
        want = pairs(3000, round);
        let out = import(db, socket, &want);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{what}: {err}");
    }
    want
}

fn total(db: &Path, name: &str) -> u64 {
    let json = ok(&["--db", db.to_str().unwrap(), "stats", "--json", "--fast"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    v[format!("total_{name}")].as_u64().unwrap()
}

fn assert_whole(db: &Path, want: &str, what: &str) {
    let d = db.to_str().unwrap();
    let got = ok(&["--db", d, "scan"]);
    assert!(got == want, "{what}: the data does not read back whole");
    let out = twain(&["--db", d, "check"]);
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn fresh(dir: &tempfile::TempDir) -> (PathBuf, PathBuf) {
    let db = dir.path().join("db");
    let socket = dir.path().join("worker.sock");
    // The database exists (with its identity) before the worker starts.
    ok(&["--db", db.to_str().unwrap(), "put", "seed", "1"]);
    (db, socket)
}

#[test]
fn a_worker_killed_at_any_step_of_a_part_costs_nothing() {
    for step in ["received", "merging", "written", "replying"] {
        let dir = tempfile::tempdir().unwrap();
        let (db, socket) = fresh(&dir);
        let mut worker = start_worker(&db, &socket, &["--debug-kill-at", step]);
        // Rounds of overwrites, each compacted with offload, until a part reaches the
        // step (a part reaches "merging" only once it writes a second output table).
        let d = db.to_str().unwrap();
        let sets = offload_sets(&socket);
        let mut compact = vec!["--db", d];
        compact.extend(sets.iter().map(String::as_str));
        compact.push("compact");
        let mut want = String::new();
        for round in 0..10 {
            want = pairs(3000, round);
            let out = import(&db, &socket, &want);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{step}: {err}");
            ok(&compact);
            if worker.try_wait().unwrap().is_some() {
                break;
            }
        }
        if worker.try_wait().unwrap().is_none() {
            let _ = worker.kill();
            panic!("{step}: no part reached the step in ten rounds");
        }
        let status = worker.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(9),
            "{step}: the worker was not killed"
        );
        assert!(total(&db, "parts_taken_back") >= 1, "{step}");
        let want = format!("{want}seed\t1\n");
        assert_whole(&db, &want, step);
    }
}

#[test]
fn a_host_killed_while_a_part_is_at_the_worker_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let (db, socket) = fresh(&dir);
    let d = db.to_str().unwrap();
    // Tables to compact, written without offload.
    let want = pairs(4000, 7);
    let out = import(&db, Path::new("/nonexistent"), &want);
    assert!(out.status.success());
    // The worker holds every part two seconds at each step and says when it has one.
    let mut worker = start_worker(&db, &socket, &["--debug-step-delay-ms", "2000"]);
    let mut host = Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(["--db", d])
        .args(offload_sets(&socket))
        .arg("compact")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = worker.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut killed = false;
    while let Some(Ok(line)) = lines.next() {
        if line.contains("step Received") {
            host.kill().unwrap();
            killed = true;
            break;
        }
        assert!(Instant::now() < deadline, "no part reached the worker");
    }
    assert!(killed, "no part reached the worker");
    host.wait().unwrap();
    // The reopened database is whole; the worker's part, if it finished, is an orphan
    // of nobody's version and goes at the next writable open.
    ok(&["--db", d, "compact"]);
    let _ = worker.kill();
    let _ = worker.wait();
    ok(&["--db", d, "compact"]);
    assert_whole(&db, &format!("{want}seed\t1\n"), "host killed");
}

#[test]
fn a_worker_process_runs_parts_that_the_host_installs() {
    let dir = tempfile::tempdir().unwrap();
    let (db, socket) = fresh(&dir);
    let mut worker = start_worker(&db, &socket, &[]);
    let want = import_rounds(&db, &socket, "good worker");
    let d = db.to_str().unwrap();
    let mut compact = vec!["--db", d];
    let sets = offload_sets(&socket);
    compact.extend(sets.iter().map(String::as_str));
    compact.push("compact");
    ok(&compact);
    assert!(total(&db, "parts_offloaded") >= 1, "no part was offloaded");
    assert_eq!(total(&db, "parts_taken_back"), 0);
    assert!(total(&db, "worker_bytes_written") > 0);
    let _ = worker.kill();
    let _ = worker.wait();
    assert_whole(&db, &format!("{want}seed\t1\n"), "good worker");
}
