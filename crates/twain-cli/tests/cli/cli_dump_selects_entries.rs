//! Issue 16, item 4: `twain dump` of a table lists the entries within `--from`/`--to`
//! (keys with the `\xNN` escapes `scan` prints) and up to `--limit`; `--properties` gives
//! the header and properties alone. Kinds without keys or entries refuse a selection
//! instead of ignoring it (value files, manifests and drop files:
//! `cli_dump_lists_every_record_kind`).

use crate::cliutil;

use cliutil::{ok, twain};

/// A database whose one table holds `k\x00a`, `k\x00b`, `k1`, `k2`, `k3`.
fn table(dir: &std::path::Path) -> (String, String) {
    let db = dir.join("db").to_str().unwrap().to_string();
    for k in ["k\\x00a", "k\\x00b", "k1", "k2", "k3"] {
        ok(&["--db", &db, "put", k, "v"]);
    }
    ok(&["--db", &db, "flush"]);
    let sst = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .unwrap();
    (db, sst.to_str().unwrap().to_string())
}

/// The keys of the entry lines of a dump (they start with the quoted key).
fn listed(dump: &str) -> Vec<String> {
    dump.lines()
        .filter_map(|l| l.strip_prefix('"'))
        .map(|l| l.split('"').next().unwrap().to_string())
        .collect()
}

#[test]
fn from_to_and_limit_select_a_tables_entries() {
    let dir = tempfile::tempdir().unwrap();
    let (_, sst) = table(dir.path());
    let all = ok(&["dump", &sst]);
    assert_eq!(listed(&all), ["k\\x00a", "k\\x00b", "k1", "k2", "k3"]);
    let range = ok(&["dump", &sst, "--from", "k\\x00b", "--to", "k3"]);
    assert_eq!(listed(&range), ["k\\x00b", "k1", "k2"]);
    let limited = ok(&["dump", &sst, "--from", "k1", "--limit", "1"]);
    assert_eq!(listed(&limited), ["k1"]);
    let hex = ok(&["--hex", "dump", &sst, "--to", "6b01"]);
    assert_eq!(listed(&hex), ["6b0061", "6b0062"]);
    let none = ok(&["dump", &sst, "--from", "z"]);
    assert_eq!(listed(&none), Vec::<String>::new());
    assert!(none.starts_with("file "), "the header stays: {none}");
}

#[test]
fn properties_prints_the_header_without_entries() {
    let dir = tempfile::tempdir().unwrap();
    let (_, sst) = table(dir.path());
    let props = ok(&["dump", &sst, "--properties"]);
    assert_eq!(listed(&props), Vec::<String>::new(), "{props}");
    let lines: Vec<&str> = props.lines().collect();
    assert!(
        lines[0].starts_with("file ") && lines[0].ends_with(&sst),
        "{props}"
    );
    assert!(lines.contains(&"kind                table"), "{props}");
    assert!(lines.contains(&"entries             5"), "{props}");
    assert!(
        lines.contains(&"keys                \"k\\x00a\"..\"k3\""),
        "{props}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("smallest_seq ")),
        "{props}"
    );
}

#[test]
fn every_kind_opens_with_the_same_header() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = table(dir.path());
    for entry in std::fs::read_dir(&db).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name == "LOCK" {
            continue;
        }
        let dump = ok(&["dump", path.to_str().unwrap(), "--properties"]);
        let labels: Vec<&str> = dump
            .lines()
            .take(2)
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(labels, ["file", "kind"], "{name}: {dump}");
        assert!(
            dump.lines().any(|l| l.starts_with("size ")),
            "{name}: {dump}"
        );
    }
}

#[test]
fn a_selection_is_refused_where_it_cannot_apply() {
    let dir = tempfile::tempdir().unwrap();
    let (db, sst) = table(dir.path());
    let find = |ext: &str| {
        std::fs::read_dir(&db)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == ext))
            .unwrap()
    };
    let manifest = find("manifest");
    let manifest = manifest.to_str().unwrap();
    let current = format!("{db}/CURRENT");
    for args in [
        vec!["dump", manifest, "--from", "k1"],
        vec!["dump", &current, "--limit", "1"],
        vec!["dump", &db, "--from", "a"],
        vec!["dump", &sst, "--from", "bad\\escape"],
    ] {
        let out = twain(&args);
        assert_eq!(out.status.code(), Some(2), "twain {args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("twain: "), "twain {args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "twain {args:?}: {out:?}");
    }
}
