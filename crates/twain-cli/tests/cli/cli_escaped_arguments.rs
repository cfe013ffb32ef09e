//! Issue 16, item 4: the `\xNN` escapes that `scan` prints, and that `import` reads, are
//! read wherever a key is taken: `put`, `get` and `delete` arguments, `--prefix`, `--from`
//! and `--to`. A key `scan` printed can be pasted back; a backslash is `\x5c`.

use crate::cliutil;

use cliutil::{ok, twain};

#[test]
fn keys_printed_by_scan_are_accepted_as_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    // Keys `a\0` .. `a\3` and `b\xff`, with values holding a tab and a backslash.
    for i in 0..4 {
        ok(&[
            "--db",
            db,
            "put",
            &format!("a\\x0{i}"),
            &format!("v{i}\\x09\\x5c"),
        ]);
    }
    ok(&["--db", db, "put", "b\\xff", "last"]);
    let scan = ok(&["--db", db, "scan"]);
    assert_eq!(
        scan,
        "a\\x00\tv0\\x09\\x5c\na\\x01\tv1\\x09\\x5c\na\\x02\tv2\\x09\\x5c\n\
         a\\x03\tv3\\x09\\x5c\nb\\xff\tlast\n"
    );

    // The key as `scan` printed it.
    let first = scan.lines().next().unwrap().split('\t').next().unwrap();
    let value = twain(&["--db", db, "get", first]);
    assert!(value.status.success(), "{value:?}");
    assert_eq!(value.stdout, b"v0\t\\");
    assert_eq!(ok(&["--db", db, "get", "b\\xff"]), "last");

    ok(&["--db", db, "delete", "a\\x01"]);
    assert_eq!(twain(&["--db", db, "get", "a\\x01"]).status.code(), Some(1));

    let keys = |args: &[&str]| {
        let mut all = vec!["--db", db, "scan", "--keys-only"];
        all.extend_from_slice(args);
        ok(&all)
    };
    assert_eq!(keys(&["--from", "a\\x02", "--to", "a\\x03"]), "a\\x02\n");
    assert_eq!(keys(&["--prefix", "b\\xff"]), "b\\xff\n");
    assert_eq!(keys(&["--prefix", "a\\x00"]), "a\\x00\n");
}

#[test]
fn a_bare_backslash_is_an_error_naming_the_argument() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    ok(&["--db", db, "put", "k", "v"]);
    for args in [
        vec!["--db", db, "put", "a\\b", "v"],
        vec!["--db", db, "get", "a\\b"],
        vec!["--db", db, "scan", "--prefix", "\\x4"],
    ] {
        let out = twain(&args);
        assert_eq!(out.status.code(), Some(2), "twain {args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("bad escape"), "{stderr}");
    }
    assert_eq!(ok(&["--db", db, "scan"]), "k\tv\n", "nothing was written");
}
