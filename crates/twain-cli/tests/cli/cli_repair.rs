//! `twain repair` end to end on the real file system: with CURRENT deleted, `put` refuses
//! to create a database over the old one's files and points to `twain repair`; `twain
//! repair` names the manifest again (or, with the manifest deleted too, rebuilds it and
//! moves the old tables into `lost/`), and every key reads back and `twain check` passes.

use crate::cliutil;

use cliutil::{ok, twain};
use std::path::Path;
use std::process::Command;

fn file_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "LOCK")
        .collect();
    v.sort();
    v
}

/// Imports 3,000 pairs into a new database at `dbs`; returns what `scan` prints.
fn import(dbs: &str) -> String {
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
    // Whether the import's flushes finished before it closed depends on the machine's load:
    // a compaction makes sure the database has tables for repair to rebuild from.
    ok(&["--db", dbs, "compact"]);
    let before = ok(&["--db", dbs, "scan"]);
    assert_eq!(before.lines().count(), 3000);
    before
}

#[test]
fn repair_restores_a_database_whose_current_was_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dbs = db.to_str().unwrap();
    let before = import(dbs);

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
    assert_eq!(ok(&["--db", dbs, "get", "k"]), "v");
}

#[test]
fn repair_rebuilds_a_database_whose_manifest_was_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dbs = db.to_str().unwrap();
    let before = import(dbs);
    let tables: Vec<String> = file_names(&db)
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .collect();
    assert!(!tables.is_empty());
    for n in file_names(&db) {
        if n.ends_with(".manifest") || n == "CURRENT" {
            std::fs::remove_file(db.join(n)).unwrap();
        }
    }
    let report = ok(&["--db", dbs, "repair"]);
    assert!(report.contains("rebuilt manifest"), "{report}");
    assert!(report.contains("nothing lost"), "{report}");
    let lost = file_names(&db.join("lost"));
    for t in &tables {
        assert!(lost.contains(t), "{t} not in lost/: {lost:?}");
    }
    assert_eq!(ok(&["--db", dbs, "scan"]), before);
    ok(&["--db", dbs, "check"]);
}
