//! `twain import`, `twain load` and `--hex` end to end: any bytes survive scan → import,
//! load writes what it says, and bad lines are clear errors naming the line.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn twain(db: &str, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(["--db", db])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run twain");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(db: &str, args: &[&str], stdin: &[u8]) -> String {
    let out = twain(db, args, stdin);
    assert!(
        out.status.success(),
        "twain {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn scan_output_imports_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    // Binary keys and values (tabs, newlines, backslashes, non-UTF-8), written as hex.
    ok(a, &["--hex", "put", "00ff5c", "090a0d5c78"], b"");
    ok(a, &["--hex", "put", "6b6579", "c3a9"], b"");
    ok(a, &["put", "plain key", &"v".repeat(500)], b"");
    let scanned = ok(a, &["scan"], b"");
    assert_eq!(scanned.lines().count(), 3, "{scanned}");
    ok(b, &["import", "--batch", "2", "--sync"], scanned.as_bytes());
    assert_eq!(ok(b, &["scan"], b""), scanned);
    assert_eq!(ok(b, &["--hex", "get", "00ff5c"], b""), "090a0d5c78\n");
    // The hex form round-trips as well.
    let hex = ok(a, &["--hex", "scan", "--reverse"], b"");
    let c = dir.path().join("c");
    ok(c.to_str().unwrap(), &["--hex", "import"], hex.as_bytes());
    assert_eq!(ok(c.to_str().unwrap(), &["scan"], b""), scanned);
}

#[test]
fn import_names_the_bad_line_and_keeps_the_batches_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let out = twain(db, &["import", "--batch", "1"], b"k1\tv1\n\nk2 no tab\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 3") && err.contains("KEY<TAB>VALUE"),
        "{err}"
    );
    assert_eq!(ok(db, &["scan"], b""), "k1\tv1\n");
    let out = twain(db, &["import"], b"k\\xzz\tv\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("\\xNN"));
    let out = twain(db, &["--hex", "put", "abc", "00"], b"");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("key \"abc\""));
}

#[test]
fn load_writes_num_keys_and_reports_throughput_and_write_amplification() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let summary = ok(
        db,
        &[
            "load",
            "--num",
            "3000",
            "--value-size",
            "100..2000",
            "--batch",
            "10",
        ],
        b"",
    );
    assert!(
        summary.starts_with("loaded 3000 keys") && summary.contains("ops/s"),
        "{summary}"
    );
    let wa: f64 = summary
        .split("write amplification ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("a write amplification figure");
    assert!((1.0..3.0).contains(&wa), "{summary}");
    let scanned = ok(db, &["--hex", "scan"], b"");
    assert_eq!(scanned.lines().count(), 3000);
    assert!(
        scanned
            .lines()
            .all(|l| l.split('\t').next().unwrap().len() == 32)
    );
    let out = twain(db, &["load", "--value-size", "lots"], b"");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--value-size"));
}
