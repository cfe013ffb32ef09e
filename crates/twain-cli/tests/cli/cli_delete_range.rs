//! `twain delete-range START END` deletes the keys of `[START, END)`, takes keys with the
//! escapes `scan` prints, refuses a START after END with exit status 2 and a message, and
//! the value log's dump shows the entry.

use crate::cliutil;

use cliutil::{ok, twain};

#[test]
fn deletes_the_keys_of_the_range_and_refuses_reversed_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    for k in ["user:1", "user:2", "user\\xff", "video:1"] {
        ok(&["--db", db, "put", k, "x"]);
    }
    ok(&["--db", db, "delete-range", "user:", "user\\xff"]);
    let keys = ok(&["--db", db, "scan", "--keys-only"]);
    assert_eq!(keys, "user\\xff\nvideo:1\n");

    let refused = twain(&["--db", db, "delete-range", "z", "a"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("start is after its end"), "{stderr}");

    let help = ok(&["delete-range", "--help"]);
    assert!(
        help.contains("<START>") && help.contains("Example"),
        "{help}"
    );

    // Reopened, the deletion is still there (the log replays it, or a flush wrote it).
    assert_eq!(ok(&["--db", db, "scan", "--count"]).trim(), "2");
    // Some value log holds the entry (a flush at close does not remove the log at once).
    let mut dumps = String::new();
    for entry in std::fs::read_dir(db).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "vlog") {
            dumps += &ok(&["dump", path.to_str().unwrap()]);
        }
    }
    assert!(dumps.contains("delete-range key \"user:\""), "{dumps}");
}
