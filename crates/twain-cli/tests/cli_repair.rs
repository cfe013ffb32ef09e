//! `twain repair` end to end: with CURRENT deleted, `put` refuses to create a database
//! over the old one's files and points to `twain repair`; `twain repair` names the
//! manifest again, and every key reads back and `twain check` passes.

use std::path::Path;
use std::process::{Command, Output};

fn twain(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(args)
        .output()
        .expect("run twain")
}

fn ok(args: &[&str]) -> String {
    let out = twain(args);
    assert!(
        out.status.success(),
        "twain {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "LOCK")
        .collect();
    v.sort();
    v
}

#[test]
fn repair_restores_a_database_whose_current_was_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dbs = db.to_str().unwrap();
    let mut input = String::new();
    for i in 0..3000 {
        input.push_str(&format!(
            "key{i:05}\t{}\n",
            format!("v{i}-").repeat(i % 50 + 1)
        ));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(["--db", dbs, "--set", "memtable_size=64K", "import"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    let before = ok(&["--db", dbs, "scan"]);
    assert_eq!(before.lines().count(), 3000);

    std::fs::remove_file(db.join("CURRENT")).unwrap();
    let files = file_names(&db);
    let put = twain(&["--db", dbs, "put", "k", "v"]);
    assert!(!put.status.success());
    let err = String::from_utf8_lossy(&put.stderr);
    assert!(err.contains("twain repair"), "{err}");
    assert_eq!(file_names(&db), files, "a failed put changed the directory");

    let report = ok(&["--db", dbs, "repair"]);
    assert!(report.contains("CURRENT now names it"), "{report}");
    assert!(report.contains("nothing lost"), "{report}");
    assert_eq!(ok(&["--db", dbs, "scan"]), before);
    ok(&["--db", dbs, "check"]);
    ok(&["--db", dbs, "put", "k", "v"]);
    assert_eq!(ok(&["--db", dbs, "get", "k"]), "v\n");
}
