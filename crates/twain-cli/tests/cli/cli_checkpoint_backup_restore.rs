//! Issue 16, item 2 from the command line: `twain checkpoint`, `twain backup` (make, --list,
//! --verify, --delete) and `twain restore`, on real files. A damaged store file fails the
//! verification with exit status 1 and its name; a used target directory is refused.

use crate::cliutil;

use cliutil::{ok, twain};

#[test]
fn checkpoint_backup_list_verify_restore_and_delete() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |name: &str| tmp.path().join(name).to_str().unwrap().to_string();
    let (db, cp, bk) = (p("db"), p("cp"), p("bk"));
    for i in 0..50 {
        ok(&[
            "--db",
            &db,
            "put",
            &format!("k{i:02}"),
            &"v".repeat(300 + i),
        ]);
    }

    let said = ok(&["--db", &db, "checkpoint", &cp]);
    assert!(
        said.contains("checkpoint") && said.contains("linked"),
        "{said}"
    );
    assert_eq!(ok(&["--db", &cp, "get", "--raw", "k07"]), "v".repeat(307));
    let again = twain(&["--db", &db, "checkpoint", &cp]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));

    let first = ok(&["--db", &db, "backup", &bk]);
    assert!(first.starts_with("backup 1 "), "{first}");
    ok(&["--db", &db, "put", "late", "x"]);
    let second = ok(&["--db", &db, "backup", &bk]);
    assert!(second.starts_with("backup 2 "), "{second}");
    let list = ok(&["backup", &bk, "--list"]);
    assert_eq!(list.lines().count(), 3, "{list}");
    assert!(ok(&["backup", &bk, "--verify", "2"]).contains("verified"));

    let restored = p("restored");
    ok(&["--db", &restored, "restore", &bk, "1"]);
    assert_eq!(
        ok(&["--db", &restored, "get", "--raw", "k49"]),
        "v".repeat(349)
    );
    assert_eq!(
        twain(&["--db", &restored, "get", "late"]).status.code(),
        Some(1)
    );
    let restored2 = p("restored2");
    ok(&["--db", &restored2, "restore", &bk, "2"]);
    assert_eq!(ok(&["--db", &restored2, "get", "--raw", "late"]), "x");

    // Damage one store file: verification names it and answers no.
    let store = tmp.path().join("bk/files");
    let victim = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(".sst."))
        .expect("a table in the store");
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[10] ^= 0xff;
    std::fs::write(&victim, bytes).unwrap();
    let verify = twain(&["backup", &bk, "--verify", "2"]);
    assert_eq!(verify.status.code(), Some(1));
    let name = victim.file_name().unwrap().to_string_lossy().to_string();
    assert!(String::from_utf8_lossy(&verify.stdout).contains(&name));

    assert!(ok(&["backup", &bk, "--delete", "1"]).contains("deleted backup 1"));
    assert_eq!(ok(&["backup", &bk, "--list"]).lines().count(), 2);
}
