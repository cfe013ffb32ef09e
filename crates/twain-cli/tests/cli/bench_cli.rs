//! `twain bench --num 2000 --json` runs on a temporary directory and prints one JSON
//! object per phase; the table form prints the command and the configuration first.

use std::process::Command;

fn twain() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twain"))
}

#[test]
fn bench_json_prints_one_object_per_phase() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let out = twain()
        .args([
            "bench", "--num", "2000", "--json", "--reads", "500", "--scans", "20", "--dir",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let phases = [
        "fillrandom",
        "readrandom",
        "updatezipf",
        "readrandom",
        "scan",
    ];
    assert_eq!(lines.len(), phases.len(), "{stdout}");
    for (line, phase) in lines.iter().zip(phases) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["engine"], "twain");
        assert_eq!(v["phase"], phase);
        for field in [
            "ops",
            "secs",
            "ops_per_sec",
            "user_bytes",
            "wchar",
            "write_bytes",
            "read_bytes",
            "db_bytes",
            "p50_us",
            "p99_us",
        ] {
            assert!(v[field].is_number(), "{field} in {line}");
        }
    }
    let fill: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(fill["ops"], 2000);
    // The phase-end space sample carries the bytes written to storage since the run began
    // (what the over-time plot divides by the user bytes; 0 where the file system is not
    // block storage, e.g. tmpfs), equal to the phase's own figure for the first phase.
    let samples = fill["space_over_time"].as_array().unwrap();
    let end = samples.last().unwrap();
    assert_eq!(end["user_bytes"], 2000 * (16 + 1024));
    assert_eq!(end["write_bytes"], fill["write_bytes"], "{end}");
    assert_eq!(fill["user_bytes"], 2000 * (16 + 1024));
    let read: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(read["found"], 500);
    // The header went to stderr, so stdout stays pure JSON.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("# ") && stderr.contains("bench --num 2000"),
        "{stderr}"
    );
    // --dir is kept; it holds the database.
    assert!(db.join("CURRENT").exists() || std::fs::read_dir(&db).unwrap().next().is_some());
}

#[test]
fn bench_table_prints_command_config_and_phases() {
    let out = twain()
        .args([
            "bench",
            "--num",
            "1000",
            "--reads",
            "100",
            "--scans",
            "5",
            "--quiet",
            "--workloads",
            "fillseq,readrandomsame,ycsb-a",
            "--set",
            "memtable_size=1M",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("# "), "{stdout}");
    assert!(stdout.contains("--workloads fillseq,readrandomsame,ycsb-a"));
    assert!(stdout.contains("memtable_size=1048576"));
    for phase in ["fillseq", "readrandomsame-1", "readrandomsame-2", "ycsb-a"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(phase)),
            "{phase}: {stdout}"
        );
    }
}

#[test]
fn bench_rejects_bad_arguments() {
    for args in [
        &["bench", "--workloads", "nope"][..],
        &["bench", "--value-size", "x"],
        &["bench", "--set", "nope=1"],
        &["bench", "--plot", "out.gif"],
        &["bench", "--memory-limit", "lots"],
    ] {
        let out = twain().args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
    }
    // A limit no engine can run in is refused before any cgroup is made.
    let out = twain()
        .args(["bench", "--memory-limit", "1M"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("at least 64 MiB"), "{stderr}");
}

#[test]
fn use_existing_runs_on_a_filled_database_and_only_then() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let run = |extra: &[&str]| {
        twain()
            .args([
                "bench", "--num", "1000", "--json", "--reads", "300", "--dir",
            ])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap()
    };
    let fill = run(&["--workloads", "fillrandom"]);
    assert!(
        fill.status.success(),
        "{}",
        String::from_utf8_lossy(&fill.stderr)
    );
    // A non-empty --dir is refused without --use-existing ...
    let refused = run(&["--workloads", "readrandom"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not empty"));
    // ... and read with it: every key the fill wrote is found.
    let read = run(&["--workloads", "readrandom", "--use-existing"]);
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(read.stdout).unwrap().trim()).unwrap();
    assert_eq!(
        (v["phase"].as_str(), v["found"].as_u64()),
        (Some("readrandom"), Some(300))
    );
    // --use-existing needs --dir.
    let no_dir = twain()
        .args(["bench", "--use-existing", "--workloads", "readrandom"])
        .output()
        .unwrap();
    assert!(!no_dir.status.success());
}

/// `--pinned-reads` reads with `Db::get_pinned` and `Db::range_pinned`: the same seed finds
/// the same keys and reads the same bytes as the copying reads, and the header says so.
#[test]
fn pinned_reads_find_what_copying_reads_find() {
    let run = |pinned: bool| {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = twain();
        cmd.args([
            "bench",
            "--num",
            "3000",
            "--json",
            "--reads",
            "800",
            "--scans",
            "40",
            "--workloads",
            "fillrandom,readrandom,scan",
            "--set",
            "inline_threshold=600",
            "--value-size",
            "uniform:100..1200",
            "--dir",
        ])
        .arg(dir.path().join("db"));
        if pinned {
            cmd.arg("--pinned-reads");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(stderr.contains("reads: pinned"), pinned, "{stderr}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["phase"].clone(),
                    v["found"].clone(),
                    v["user_read_bytes"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (copying, pinned) = (run(false), run(true));
    assert_eq!(copying.len(), 2);
    assert!(copying[0].1.as_u64().unwrap() > 0, "{copying:?}");
    assert!(copying[1].2.as_u64().unwrap() > 0, "{copying:?}");
    assert_eq!(copying, pinned);
}
