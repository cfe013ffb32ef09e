//! `background_nice` lowers the CPU priority of the threads that run compactions, value
//! GC and the live-data pass, and leaves the flush and log threads (which writes wait for)
//! at the opener's. Linux only: elsewhere the nice value is the process's.
#![cfg(target_os = "linux")]

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use twain::{Db, Options};

/// Every thread of this process: id → (name, nice value).
fn threads() -> HashMap<u32, (String, i32)> {
    let mut out = HashMap::new();
    for entry in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = entry.unwrap().path();
        let Ok(tid) = dir.file_name().unwrap().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // A thread may end between the listing and the reads.
        let (Ok(name), Ok(stat)) = (
            std::fs::read_to_string(dir.join("comm")),
            std::fs::read_to_string(dir.join("stat")),
        ) else {
            continue;
        };
        let after_name = &stat[stat.rfind(')').unwrap() + 1..];
        let nice = after_name
            .split_whitespace()
            .nth(16)
            .unwrap()
            .parse()
            .unwrap();
        out.insert(tid, (name.trim().to_string(), nice));
    }
    out
}

#[test]
fn compaction_and_gc_threads_run_at_the_lowest_priority() {
    let dir = tempfile::tempdir().unwrap();
    let before: HashSet<u32> = threads().into_keys().collect();
    // 19 is used by no other test, so threads of databases other tests open meanwhile
    // cannot pass for this one's.
    let db = Db::open(
        dir.path(),
        Options::default()
            .create_if_missing(true)
            .background_nice(19),
    )
    .unwrap();
    // A thread names itself and lowers its priority once it runs: wait for that.
    let deadline = Instant::now() + Duration::from_secs(20);
    let wanted = ["twain-gc", "twain-compact-0", "twain-live", "twain-flush"];
    let new = loop {
        let new: Vec<(String, i32)> = threads()
            .into_iter()
            .filter(|(tid, _)| !before.contains(tid))
            .map(|(_, t)| t)
            .collect();
        let lowered = |name: &str| new.iter().any(|(n, nice)| n == name && *nice == 19);
        let seen = |name: &str| new.iter().any(|(n, _)| n == name);
        if wanted[..3].iter().all(|n| lowered(n)) && seen(wanted[3]) {
            break new;
        }
        assert!(
            Instant::now() < deadline,
            "not every compaction, GC and live-data thread is at nice 19: {new:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    for (name, nice) in &new {
        if name == "twain-flush" || name == "twain-log" {
            assert_ne!(*nice, 19, "{name} must keep the opener's priority");
        }
    }
    drop(db);
}

#[test]
fn the_priority_is_an_option_with_a_range() {
    let dir = tempfile::tempdir().unwrap();
    let err = Db::open(
        dir.path(),
        Options::default()
            .create_if_missing(true)
            .background_nice(20),
    )
    .expect_err("20 is past the lowest priority");
    assert!(err.to_string().contains("background_nice"), "{err}");
    let mut opts = Options::default();
    opts.set("background_nice", "7").unwrap();
    assert_eq!(opts.background_nice, 7);
    assert_eq!(Options::default().background_nice, 0, "off by default");
}
