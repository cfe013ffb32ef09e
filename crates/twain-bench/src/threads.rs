//! CPU time by thread: where a phase's CPU went (the benchmark's own threads, each
//! engine's background threads by name), from `/proc/self/task/*/stat` (Linux).
//!
//! Threads are grouped by name with the trailing number cut off (`twain-compact-0` and
//! `twain-compact-1` are `twain-compact`; `rocksdb:low3` is `rocksdb:low`). A phase's
//! figure for a group is what its threads alive at the phase's end used since its start
//! (all of it for a thread started in the phase). The benchmark's worker threads, which
//! end before the phase does, report their own time (`foreground`); so does its progress
//! reporter (`bench`). The process's main thread is `main`. What is left of the process's
//! CPU time over the phase, threads that ended within it above all, is `other`.

use std::collections::{BTreeMap, HashMap};

use crate::measure::CLOCK_TICKS_PER_SEC;

/// CPU seconds each thread of this process has used so far: thread id → (group, seconds).
/// Empty where `/proc` cannot be read.
pub fn snapshot() -> HashMap<u64, (String, f64)> {
    let mut threads = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return threads;
    };
    let main = std::process::id() as u64;
    for entry in dir.flatten() {
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<u64>().ok())
        else {
            continue;
        };
        // A thread that ended since the listing has no stat to read: it is not counted.
        let Ok(text) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((name, ticks)) = parse_stat(&text) else {
            continue;
        };
        let group = if tid == main {
            "main".to_string()
        } else {
            group_of(&name)
        };
        threads.insert(tid, (group, ticks as f64 / CLOCK_TICKS_PER_SEC));
    }
    threads
}

/// CPU seconds the calling thread has used so far (0 where `/proc` cannot be read).
pub fn this_thread_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|text| parse_stat(&text))
        .map_or(0.0, |(_, ticks)| ticks as f64 / CLOCK_TICKS_PER_SEC)
}

/// The phase's CPU seconds by group: each thread alive at `after` less what it had at
/// `before`, `reported` added (the groups of threads that measured themselves), and
/// `other`: what is left of `process_secs`, the process's time over the phase. Groups
/// with less than 5 ms are left out.
pub fn by_group(
    before: &HashMap<u64, (String, f64)>,
    after: &HashMap<u64, (String, f64)>,
    reported: &[(&str, f64)],
    process_secs: f64,
) -> BTreeMap<String, f64> {
    let mut groups: BTreeMap<String, f64> = BTreeMap::new();
    for (tid, (group, secs)) in after {
        let earlier = before.get(tid).map_or(0.0, |(_, s)| *s);
        *groups.entry(group.clone()).or_default() += (secs - earlier).max(0.0);
    }
    for (group, secs) in reported {
        *groups.entry((*group).to_string()).or_default() += secs;
    }
    let counted: f64 = groups.values().sum();
    groups.insert("other".to_string(), (process_secs - counted).max(0.0));
    groups.retain(|_, secs| *secs >= 0.005);
    for secs in groups.values_mut() {
        *secs = (*secs * 1000.0).round() / 1000.0;
    }
    groups
}

/// A thread's group: its name without a trailing number, and without the separator
/// before it.
fn group_of(name: &str) -> String {
    let cut = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let cut = cut.trim_end_matches(['-', '_', ':', '#', ' ']);
    if cut.is_empty() {
        name.to_string()
    } else {
        cut.to_string()
    }
}

/// The name (field 2, in parentheses; it may hold spaces and parentheses) and utime +
/// stime (fields 14 and 15) of a `/proc/.../stat` line.
pub(crate) fn parse_stat(text: &str) -> Option<(String, u64)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // After ")": field 3 (state) is index 0, so field n is index n - 3.
    let get = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    Some((name, get(14)? + get(15)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_group_without_their_numbers() {
        assert_eq!(group_of("twain-compact-0"), "twain-compact");
        assert_eq!(group_of("twain-prefetch-12"), "twain-prefetch");
        assert_eq!(group_of("rocksdb:low3"), "rocksdb:low");
        assert_eq!(group_of("twain-gc"), "twain-gc");
        assert_eq!(group_of("42"), "42");
    }

    #[test]
    fn stat_lines_parse_with_odd_names() {
        let line = "42 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0";
        assert_eq!(parse_stat(line), Some(("a (b) c".to_string(), 300)));
        assert_eq!(parse_stat("42 (x) S 1"), None);
    }

    #[test]
    fn a_phase_is_split_by_group_and_the_rest_is_other() {
        let t = |g: &str, s: f64| (g.to_string(), s);
        let before = HashMap::from([(1, t("main", 1.0)), (2, t("twain-gc", 2.0))]);
        let after = HashMap::from([
            (1, t("main", 1.5)),
            (2, t("twain-gc", 3.0)),
            // Started in the phase: all of its time.
            (3, t("twain-compact", 0.25)),
            (4, t("twain-compact", 0.25)),
        ]);
        let g = by_group(&before, &after, &[("foreground", 4.0)], 7.0);
        assert_eq!(g["main"], 0.5);
        assert_eq!(g["twain-gc"], 1.0);
        assert_eq!(g["twain-compact"], 0.5);
        assert_eq!(g["foreground"], 4.0);
        assert_eq!(g["other"], 1.0);
        // Nothing left over: no `other`.
        let g = by_group(&before, &after, &[("foreground", 5.0)], 7.0);
        assert!(!g.contains_key("other"));
    }

    #[test]
    fn a_busy_thread_shows_in_its_group() {
        let before = snapshot();
        assert!(!before.is_empty(), "this process's threads are listed");
        let worker = std::thread::Builder::new()
            .name("spin-7".to_string())
            .spawn(|| {
                let began = std::time::Instant::now();
                let mut x = 0u64;
                while began.elapsed() < std::time::Duration::from_millis(300) {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
                let mine = this_thread_secs();
                // Held alive until the snapshot below has seen it.
                std::thread::sleep(std::time::Duration::from_millis(200));
                mine
            })
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(350));
        let after = snapshot();
        let mine = worker.join().unwrap();
        assert!(mine >= 0.1, "{mine}");
        let g = by_group(&before, &after, &[], 1000.0);
        assert!(g.get("spin").copied().unwrap_or(0.0) >= 0.1, "{g:?}");
    }
}
