//! Issue 16, item 1 and issue 19, finding 12: `get`, `scan` and `stats` open the database
//! read-only. They write nothing (no appended log bytes, no new manifest, no `LOCK`), and
//! they work while another process — here a `Db` held by the test — has the database open.

use crate::cliutil;

use cliutil::{ok, twain};
use std::collections::BTreeMap;
use std::path::Path;

/// Every file of `dir` with its bytes.
fn image(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn inspecting_commands_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let db = dir.to_str().unwrap();
    ok(&["--db", db, "put", "apple", "red"]);
    ok(&["--db", db, "put", "banana", "yellow", "--sync"]);
    std::fs::remove_file(dir.join("LOCK")).unwrap();
    let before = image(&dir);
    assert_eq!(ok(&["--db", db, "get", "apple"]), "red");
    assert_eq!(ok(&["--db", db, "scan"]), "apple\tred\nbanana\tyellow\n");
    assert!(ok(&["--db", db, "stats", "--fast"]).contains("value log"));
    assert!(ok(&["--db", db, "stats"]).contains("live pass        current"));
    assert_eq!(twain(&["--db", db, "get", "cherry"]).status.code(), Some(1));
    assert_eq!(image(&dir), before, "an inspecting command changed a file");
}

#[test]
fn inspecting_commands_work_while_the_database_is_open_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let db = dir.to_str().unwrap();
    ok(&["--db", db, "put", "apple", "red", "--sync"]);
    let writer = twain::Db::open(&dir, twain::Options::default()).unwrap();
    writer
        .put_opt("kiwi", "green", &twain::WriteOptions::synced())
        .unwrap();
    assert_eq!(ok(&["--db", db, "get", "kiwi"]), "green");
    assert_eq!(ok(&["--db", db, "scan"]), "apple\tred\nkiwi\tgreen\n");
    ok(&["--db", db, "stats"]);
    // A writing command still needs the lock.
    let put = twain(&["--db", db, "put", "x", "y"]);
    assert!(!put.status.success());
    assert!(String::from_utf8_lossy(&put.stderr).contains("locked"));
    drop(writer);
}

#[test]
fn get_on_a_missing_database_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("nothing-here");
    let out = twain(&["--db", dir.to_str().unwrap(), "get", "k"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no database"));
    assert!(!dir.exists());
    std::fs::create_dir(&dir).unwrap();
    let out = twain(&["--db", dir.to_str().unwrap(), "scan"]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no LOCK left");
}

#[test]
fn check_says_plainly_that_the_database_is_in_use() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let db = dir.to_str().unwrap();
    ok(&["--db", db, "put", "apple", "red", "--sync"]);
    let writer = twain::Db::open(&dir, twain::Options::default()).unwrap();
    let out = twain(&["--db", db, "check"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use by another process"), "{err}");
    drop(writer);
    // A child that another test of this process forks while `writer` is open inherits the
    // lock's descriptor until it execs (flock locks belong to the open file description),
    // which can take a moment on a loaded machine: give it that moment.
    let mut out = twain(&["--db", db, "check"]);
    for _ in 0..100 {
        if out.status.success() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        out = twain(&["--db", db, "check"]);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.starts_with("OK"), "{text}");
}
