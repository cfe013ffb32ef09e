//! Issue 16, item 4: `twain dump DIR` given the database directory summarizes every file
//! in it — kind, number, size, entries (edits, records) and key range — instead of
//! failing; a file it cannot read is listed with why, and the status is 2.

use crate::cliutil;

use cliutil::{ok, twain};

fn database(dir: &std::path::Path) -> String {
    let db = dir.join("db").to_str().unwrap().to_string();
    for k in ["apple", "banana", "cherry"] {
        ok(&["--db", &db, "put", k, "v"]);
    }
    ok(&["--db", &db, "flush"]);
    db
}

/// The row of the file whose name ends with `suffix`, split into its columns.
fn row<'a>(listing: &'a str, suffix: &str) -> Vec<&'a str> {
    listing
        .lines()
        .find(|l| l.split_whitespace().next().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no {suffix} in {listing}"))
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

#[test]
fn a_database_directory_gets_a_line_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let listing = ok(&["dump", &db]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "FILE", "KIND", "NUMBER", "SIZE", "CONTENTS", "KEYS", "/", "DETAIL"
        ]
    );
    let files = std::fs::read_dir(&db).unwrap().count();
    assert_eq!(lines.len(), files + 1, "{listing}");

    let table = row(&listing, ".sst");
    assert_eq!(table[1], "table", "{listing}");
    assert_eq!(table[4], "3 entries", "{listing}");
    assert_eq!(table[5], "\"apple\"..\"cherry\"", "{listing}");
    let manifest = row(&listing, ".manifest");
    assert!(manifest[4].ends_with(" edits"), "{listing}");
    let current = row(&listing, "CURRENT");
    assert_eq!(current[5], format!("manifest {}", manifest[0]), "{listing}");
    assert_eq!(row(&listing, ".vlog")[1], "value file", "{listing}");
}

#[test]
fn an_unreadable_file_is_listed_with_why_and_fails_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    std::fs::write(format!("{db}/000999.sst"), b"not a table").unwrap();
    let out = twain(&["dump", &db]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let listing = String::from_utf8(out.stdout).unwrap();
    let bad = row(&listing, "000999.sst");
    assert!(bad[5].starts_with("unreadable: "), "{listing}");
    assert!(
        row(&listing, "CURRENT")[5].starts_with("manifest "),
        "{listing}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("twain: dump: 1 file in "), "{stderr}");
}
