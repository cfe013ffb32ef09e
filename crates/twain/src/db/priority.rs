//! Thread priority: the background threads that can wait (compactions, value GC, the
//! live-data pass) lower their own CPU priority (`Options::background_nice`), so that
//! reads and writes take a busy machine's cores first. Off by default (see the option).

/// Adds `nice` to the calling thread's nice value, up to 19 (on Linux the nice value is
/// the thread's own, and `PRIO_PROCESS` with `who = 0` names the calling thread).
#[cfg(target_os = "linux")]
pub(crate) fn lower(nice: u32) -> std::io::Result<()> {
    if nice == 0 {
        return Ok(());
    }
    // SAFETY: errno is this thread's; getpriority returns -1 both as a nice value and on
    // error, so errno is cleared first to tell the two apart.
    let current = unsafe {
        *libc::__errno_location() = 0;
        libc::getpriority(libc::PRIO_PROCESS, 0)
    };
    if current == -1 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(0) {
            return Err(e);
        }
    }
    let target = current
        .saturating_add(i32::try_from(nice).unwrap_or(i32::MAX))
        .min(19);
    // SAFETY: changes only the calling thread's nice value.
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, target) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Elsewhere the nice value belongs to the process, so the threads keep their priority.
#[cfg(not(target_os = "linux"))]
pub(crate) fn lower(_nice: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests {
    use super::lower;

    /// The calling thread's nice value, from `/proc/thread-self/stat` (field 19).
    fn own_nice() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 1..];
        after_name
            .split_whitespace()
            .nth(16)
            .unwrap()
            .parse()
            .unwrap()
    }

    #[test]
    fn lowers_only_the_calling_thread_and_stops_at_19() {
        let before = own_nice();
        let (lowered, capped) = std::thread::spawn(|| {
            let base = own_nice();
            lower(3).unwrap();
            // (A test run already niced past 16 stops at 19.)
            let lowered = own_nice() - base.min(16);
            lower(19).unwrap();
            (lowered, own_nice())
        })
        .join()
        .unwrap();
        assert_eq!(lowered, 3);
        assert_eq!(capped, 19);
        assert_eq!(own_nice(), before, "the spawning thread keeps its priority");
        let unchanged = std::thread::spawn(|| {
            let base = own_nice();
            lower(0).unwrap();
            own_nice() - base
        })
        .join()
        .unwrap();
        assert_eq!(unchanged, 0);
    }
}
