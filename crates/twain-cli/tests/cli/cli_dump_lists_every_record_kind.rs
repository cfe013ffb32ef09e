//! Issue 16, item 4: `twain dump` of a value log, SVTable, manifest or drop file takes
//! `--from`/`--to` (value files' entries, by key), `--limit` (entries, edits or drop
//! blocks) and `--json` (the records in `listed`), as a table's dump does; compressed
//! values show their stored size.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn twain(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run twain");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(args: &[&str], stdin: &[u8]) -> String {
    let out = twain(args, stdin);
    assert!(
        out.status.success(),
        "twain {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args, b"")).expect("one JSON object")
}

fn files(db: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Words that LZ4 shrinks to about half: a value of `n` of them, varied by `seed`.
fn text(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!(
                "user{}:{} ",
                x % 1000,
                ["ok", "wait", "fail"][(x % 3) as usize]
            )
        })
        .collect()
}

/// A database with 200 keys written twice (values compressed) and some deleted: value
/// logs and a manifest (`compact` adds drop files, `gc` SVTables).
fn database(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    let d = db.to_str().unwrap();
    let sets = [
        "--set",
        "value_compression=lz4",
        "--set",
        "value_file_size=64K",
        "--set",
        "memtable_size=64K",
        // Value GC only when asked: the logs and drop files stay to be dumped.
        "--set",
        "gc=off",
    ];
    for round in 0..2u64 {
        let lines: String = (0..200u64)
            .map(|i| format!("k{i:03}\t{}\n", text(i + 1000 * round, 40)))
            .collect();
        let mut args = vec!["--db", d];
        args.extend(sets);
        args.push("import");
        ok(&args, lines.as_bytes());
    }
    for i in (0..200).step_by(7) {
        ok(
            &["--db", d, "--set", "gc=off", "delete", &format!("k{i:03}")],
            b"",
        );
    }
    db
}

fn run(db: &Path, command: &str) {
    ok(
        &["--db", db.to_str().unwrap(), "--set", "gc=off", command],
        b"",
    );
}

#[test]
fn value_files_manifests_and_drop_files_are_listed_selected_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let log = files(&db, "vlog")
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let log = log.to_str().unwrap().to_string();

    // A log: entries by key within --from/--to, at most --limit of them.
    let range = ok(&["dump", &log, "--from", "k010", "--to", "k013"], b"");
    let keys: Vec<&str> = range
        .lines()
        .filter_map(|l| l.split(" key \"").nth(1))
        .map(|l| l.split('"').next().unwrap())
        .collect();
    assert!(!keys.is_empty(), "{range}");
    assert!(
        keys.iter().all(|k| ("k010".."k013").contains(k)),
        "{keys:?}"
    );
    let limited = ok(&["dump", &log, "--limit", "3"], b"");
    assert_eq!(
        limited.lines().filter(|l| l.starts_with("  seq ")).count(),
        3
    );
    assert!(
        limited
            .trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("  seq "),
        "nothing after the last entry listed, no next batch's header: {limited}"
    );
    let none = ok(&["dump", &log, "--limit", "0"], b"");
    assert!(
        !none.contains("batch @") && !none.contains("  seq "),
        "{none}"
    );
    assert!(
        limited.contains("separated compressed") && limited.contains("stored in"),
        "{limited}"
    );

    let d = json(&["dump", &log, "--json", "--limit", "5"]);
    assert_eq!(d["kind"], "value file", "{d}");
    let listed = d["listed"].as_array().unwrap();
    let entries: Vec<&serde_json::Value> = listed.iter().filter_map(|i| i.get("entry")).collect();
    assert_eq!(entries.len(), 5, "{d}");
    assert!(listed.iter().any(|i| i.get("batch").is_some()), "{d}");
    let e = entries[0];
    assert!(
        e["seq"].is_u64() && e["offset"].is_u64() && e["len"].is_u64(),
        "{e}"
    );
    let compressed = entries
        .iter()
        .find(|e| e["kind"] == "separated compressed")
        .expect("a compressed entry");
    let (len, stored) = (
        compressed["value_len"].as_u64().unwrap(),
        compressed["stored_len"].as_u64().unwrap(),
    );
    assert!(stored < len, "{compressed}");
    assert_eq!(
        compressed["value"].as_str().unwrap().len() as u64,
        len,
        "the value decompressed"
    );

    // The compaction records the drops of the overwritten and deleted values.
    run(&db, "compact");
    // A drop file: blocks of (sequence, length) records.
    let drop = files(&db, "drop")
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .expect("a drop file");
    let drop = drop.to_str().unwrap();
    let dj = json(&["dump", drop, "--json"]);
    let blocks = dj["listed"].as_array().unwrap();
    assert!(!blocks.is_empty(), "{dj}");
    let first = &blocks[0]["drops"]["records"][0];
    assert!(first["seq"].is_u64() && first["len"].is_u64(), "{dj}");
    let one = ok(&["dump", drop, "--limit", "1"], b"");
    assert_eq!(one.matches("drop block @").count(), 1, "{one}");

    run(&db, "gc");
    // An SVTable that GC wrote: entries in key order, compressed as the log held them.
    let svt = files(&db, "svt");
    let svt = svt.first().expect("GC wrote an SVTable").to_str().unwrap();
    let s = json(&["dump", svt, "--json", "--from", "k100", "--limit", "4"]);
    let keys: Vec<&str> = s["listed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["entry"]["key"].as_str())
        .collect();
    assert!(keys.len() <= 4 && !keys.is_empty(), "{s}");
    assert!(
        keys.windows(2).all(|w| w[0] < w[1]) && keys[0] >= "k100",
        "{keys:?}"
    );

    // A manifest: edits, --limit of them; no keys to select by.
    let manifest = files(&db, "manifest");
    let manifest = manifest.last().unwrap().to_str().unwrap();
    let m = json(&["dump", manifest, "--json", "--limit", "2"]);
    let edits = m["listed"].as_array().unwrap();
    assert_eq!(edits.len(), 2, "{m}");
    assert!(edits[0]["edit"]["offset"].is_u64(), "{m}");
    assert!(
        edits.iter().any(|e| e["edit"]["next_file_number"].is_u64()),
        "{m}"
    );
    let all = ok(&["dump", manifest], b"");
    assert!(all.contains("edit @"), "{all}");
    let refused = twain(&["dump", manifest, "--from", "k1"], b"");
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).starts_with("twain: "),
        "{refused:?}"
    );
}
