//! Issue 16, item 4: a count of one takes the singular ("1 value file", "1 entry"); the
//! output said "1 value files". Checked on every printing command with counts of one.

use crate::cliutil;

use cliutil::ok;
use std::io::Write;
use std::process::{Command, Stdio};

/// The nouns the commands count, in the plural.
const PLURALS: [&str; 16] = [
    "value files",
    "files",
    "entries",
    "pairs",
    "edits",
    "records",
    "runs",
    "keys",
    "problems",
    "log seals",
    "garbage compactions",
    "groups",
    "parts",
    "trivial moves",
    "gets",
    "malformed lines",
];

/// Panics if `text` counts one of something in the plural.
fn assert_no_one_plural(what: &str, text: &str) {
    for noun in PLURALS {
        let one = format!("1 {noun}");
        for (at, _) in text.match_indices(&one) {
            let before = text[..at].chars().next_back();
            let after = text[at + one.len()..].chars().next();
            let whole_number = !before.is_some_and(|c| c.is_ascii_digit() || c == '.');
            let whole_word = !after.is_some_and(|c| c.is_ascii_alphabetic());
            assert!(
                !(whole_number && whole_word),
                "{what}: \"{one}\" in\n{text}"
            );
        }
    }
}

#[test]
fn one_of_anything_is_singular() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = path.to_str().unwrap();
    let mut import = Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(["--db", db, "import"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    import
        .stdin
        .take()
        .unwrap()
        .write_all(b"only\tone\n")
        .unwrap();
    let imported = import.wait_with_output().unwrap();
    let imported = String::from_utf8_lossy(&imported.stderr);
    assert!(imported.starts_with("imported 1 pair ("), "{imported}");
    ok(&["--db", db, "put", "two", "2"]);

    let stats = ok(&["--db", db, "stats"]);
    assert!(stats.contains("\nL0               1 file, "), "{stats}");
    assert!(stats.contains("1 entry"), "{stats}");
    let sst = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .unwrap();
    let listing = ok(&["dump", db]);
    assert!(listing.contains(" 1 entry "), "{listing}");
    let outputs = [
        ("import", imported.to_string()),
        ("stats", stats),
        ("dump DIR", listing),
        ("dump FILE", ok(&["dump", sst.to_str().unwrap()])),
        ("check", ok(&["--db", db, "check"])),
        ("gc", ok(&["--db", db, "gc"])),
    ];
    for (what, text) in outputs {
        assert_no_one_plural(what, &text);
    }
}
