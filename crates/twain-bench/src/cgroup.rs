//! Larger than memory: a memory cgroup around the benchmark process, and dropping the page
//! cache between phases.
//!
//! A run with `--memory-limit` moves the whole process (every thread, so every engine's
//! background work too) into a new child group of the cgroup v1 memory controller and sets
//! its `memory.limit_in_bytes`. The page cache the process faults in is charged to the
//! group, so the limit caps the engine's memory and its cached file data together. The
//! group is removed when the run ends. Only cgroup v1 is supported (this is what the
//! benchmark machine has); elsewhere the option fails with a clear error.

use crate::error::{BenchError, BenchResult};
use std::path::{Path, PathBuf};

/// Where the cgroup v1 memory controller is mounted.
const MEMORY_ROOT: &str = "/sys/fs/cgroup/memory";

/// The smallest limit accepted: below it an engine cannot even hold its memtables.
pub const MIN_LIMIT: u64 = 64 << 20;

/// A memory cgroup this process runs in, removed (after moving the process back to the
/// root group) when dropped.
#[derive(Debug)]
pub struct MemoryCgroup {
    path: PathBuf,
    limit: u64,
}

impl MemoryCgroup {
    /// Creates a group limited to `limit` bytes (memory and page cache) and moves this
    /// process into it. Needs root and the cgroup v1 memory controller.
    pub fn enter(limit: u64) -> BenchResult<MemoryCgroup> {
        if limit < MIN_LIMIT {
            return Err(BenchError::InvalidArgument(format!(
                "--memory-limit {limit}: at least {} MiB",
                MIN_LIMIT >> 20
            )));
        }
        let root = Path::new(MEMORY_ROOT);
        if !root.join("memory.limit_in_bytes").exists() {
            return Err(BenchError::InvalidArgument(format!(
                "--memory-limit needs the cgroup v1 memory controller at {MEMORY_ROOT} (cgroup v2 is not supported yet)"
            )));
        }
        let path = root.join(format!("twain-bench-{}", std::process::id()));
        std::fs::create_dir_all(&path)
            .map_err(|e| BenchError::io(format!("creating {} (needs root)", path.display()), e))?;
        let group = MemoryCgroup { path, limit };
        group.write("memory.limit_in_bytes", &limit.to_string())?;
        // No swap on the machine; if there is, keep the engine from using it to dodge the
        // limit (the file is absent when swap accounting is off).
        let _ = group.write("memory.swappiness", "0");
        group.write("cgroup.procs", &std::process::id().to_string())?;
        Ok(group)
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The group's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self, file: &str, value: &str) -> BenchResult<()> {
        let p = self.path.join(file);
        std::fs::write(&p, value)
            .map_err(|e| BenchError::io(format!("writing {value} to {}", p.display()), e))
    }

    fn read_u64(&self, file: &str) -> Option<u64> {
        read_u64(&self.path.join(file))
    }

    /// The most the group has used (memory and page cache) since it was made.
    pub fn max_usage(&self) -> Option<u64> {
        self.read_u64("memory.max_usage_in_bytes")
    }

    /// Starts the peak figure ([`Self::max_usage`]) and the limit count again, e.g.
    /// between engines.
    pub fn reset_peak(&self) {
        let _ = self.write("memory.max_usage_in_bytes", "0");
        let _ = self.write("memory.failcnt", "0");
    }

    /// How often the group hit its limit.
    pub fn failcnt(&self) -> Option<u64> {
        self.read_u64("memory.failcnt")
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        let _ = std::fs::write(
            Path::new(MEMORY_ROOT).join("cgroup.procs"),
            std::process::id().to_string(),
        );
        // Fails while other processes are still in it; nothing else to do then.
        let _ = std::fs::remove_dir(&self.path);
    }
}

fn read_u64(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The memory (with page cache) the memory cgroup of this process uses now, if the process
/// is in a child group of the cgroup v1 memory controller (`None` in the root group, where
/// the figure would be the whole machine's).
pub fn memory_usage() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let group = cgroup_of(&text, "memory")?;
    if group == "/" {
        return None;
    }
    read_u64(
        &Path::new(MEMORY_ROOT)
            .join(group.trim_start_matches('/'))
            .join("memory.usage_in_bytes"),
    )
}

/// The group path of `controller` in the text of `/proc/self/cgroup` (`ID:list:path`).
fn cgroup_of<'a>(text: &'a str, controller: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, list, path) = (parts.next()?, parts.next()?, parts.next()?);
        list.split(',').any(|c| c == controller).then_some(path)
    })
}

/// Writes dirty pages out and empties the page cache (`sync`, then `3` into
/// `/proc/sys/vm/drop_caches`), so the next phase starts cold. Needs root.
pub fn drop_caches() -> BenchResult<()> {
    let status = std::process::Command::new("sync")
        .status()
        .map_err(|e| BenchError::io("running sync", e))?;
    if !status.success() {
        return Err(BenchError::InvalidArgument(format!(
            "sync failed: {status}"
        )));
    }
    std::fs::write("/proc/sys/vm/drop_caches", "3")
        .map_err(|e| BenchError::io("writing /proc/sys/vm/drop_caches (needs root)", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_memory_group_among_the_controllers() {
        let text = "12:pids:/user.slice\n4:cpu,cpuacct:/\n9:memory:/twain-bench-7\n0::/x\n";
        assert_eq!(cgroup_of(text, "memory"), Some("/twain-bench-7"));
        assert_eq!(cgroup_of(text, "cpuacct"), Some("/"));
        assert_eq!(cgroup_of(text, "blkio"), None);
        assert_eq!(cgroup_of("", "memory"), None);
    }

    #[test]
    fn refuses_a_limit_too_small_to_run_in() {
        let e = MemoryCgroup::enter(1 << 20).unwrap_err();
        assert!(e.to_string().contains("at least 64 MiB"), "{e}");
    }
}
