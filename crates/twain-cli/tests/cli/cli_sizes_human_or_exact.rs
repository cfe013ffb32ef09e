//! Issue 16, item 4: sizes read as people read them, the same way in every command
//! (`6.1 KiB`: IEC units, one decimal; `556 B` under 1 KiB), and the global `--bytes`
//! writes the exact count instead (`6287 B`), for scripts. Before, `stats` wrote MiB with
//! one decimal whatever the size ("0.0 MiB") and `gc` and `check` raw counts.

use crate::cliutil;

use cliutil::ok;
use serde_json::Value;

/// A database of 20 pairs with 300-byte values (separated), flushed to one table.
fn database(dir: &std::path::Path) -> String {
    let db = dir.join("db").to_str().unwrap().to_string();
    for i in 0..20 {
        let (key, value) = (format!("key{i:02}"), "v".repeat(300 + i));
        ok(&[
            "--db",
            &db,
            "put",
            &key,
            &value,
            "--set",
            "inline_threshold=64",
        ]);
    }
    ok(&["--db", &db, "flush"]);
    db
}

/// `bytes` as the CLI writes sizes between 1 KiB and 1 MiB.
fn kib(bytes: u64) -> String {
    assert!((1024..1 << 20).contains(&bytes), "{bytes}");
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap()
}

/// The largest file of `db` with extension `ext` (the log thread may keep a spare value
/// file ready beside the one written).
fn largest(db: &str, ext: &str) -> std::path::PathBuf {
    std::fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap()
}

#[test]
fn stats_writes_sizes_in_units_or_exact_with_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let s = json(&["--db", &db, "stats", "--json"]);
    let user = s["total_user_bytes_written"].as_u64().unwrap();
    let disk = s["disk_total"].as_u64().unwrap();
    let human = ok(&["--db", &db, "stats"]);
    assert!(
        human.contains(&format!("user writes      20 ops, {} (", kib(user))),
        "{human}"
    );
    assert!(!human.contains("0.0 MiB"), "{human}");
    let exact = ok(&["--db", &db, "--bytes", "stats"]);
    assert!(
        exact.contains(&format!("user writes      20 ops, {user} B (")),
        "{exact}"
    );
    assert!(
        exact.contains(&format!("disk (allocated) {disk} B: ")),
        "{exact}"
    );
    assert!(!exact.contains("KiB") && !exact.contains("MiB"), "{exact}");
}

#[test]
fn check_dump_and_gc_write_sizes_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());

    let checked = json(&["--db", &db, "check", "--json"])["bytes_checked"]
        .as_u64()
        .unwrap();
    let human = ok(&["--db", &db, "check"]);
    assert!(human.contains(&format!(" ({}), ", kib(checked))), "{human}");
    let exact = ok(&["--db", &db, "check", "--bytes"]);
    assert!(exact.contains(&format!(" ({checked} B), ")), "{exact}");

    let vlog = largest(&db, "vlog");
    let len = std::fs::metadata(&vlog).unwrap().len();
    let vlog = vlog.to_str().unwrap();
    let human = ok(&["dump", vlog, "--properties"]);
    assert!(
        human.contains(&format!("\nsize    {}\n", kib(len))),
        "{human}"
    );
    let exact = ok(&["--bytes", "dump", vlog, "--properties"]);
    assert!(exact.contains(&format!("\nsize    {len} B\n")), "{exact}");
    let listing = ok(&["--bytes", "dump", &db]);
    assert!(listing.contains(&format!(" {len} B  ")), "{listing}");

    let exact = ok(&["--db", &db, "--bytes", "gc"]);
    let last = exact.lines().last().unwrap();
    assert!(
        last.starts_with("read ") && last.contains(" B, wrote "),
        "{exact}"
    );
    assert!(!exact.contains("KiB"), "{exact}");
}
