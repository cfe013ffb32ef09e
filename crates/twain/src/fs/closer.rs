//! Closing deleted files off the caller's thread.
//!
//! When the last descriptor of a file that has no name left is closed, the kernel frees
//! its blocks then and there: on ext4 mounted with `discard` that is a synchronous discard
//! of every extent, milliseconds for a value file. The last holder of an obsolete value
//! file or table is often a reader (a scan's version, a get's), so without this a
//! foreground operation would wait for the disk. [`RealFs`](super::RealFs) instead hands
//! such descriptors to one process-wide thread, `twain-closer`, which closes them in turn.
//! Descriptors of files that still have a name are closed where they are dropped: that
//! costs nothing.
//!
//! The space of a deleted file comes back once the closer has closed it, normally within
//! the time the discard takes; nothing in the engine counts unnamed files.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, OnceLock};

/// The closer thread's queue; `None` if the thread could not be started (files are then
/// closed where they are dropped, as before).
static QUEUE: OnceLock<Option<Mutex<Sender<File>>>> = OnceLock::new();

fn queue() -> Option<&'static Mutex<Sender<File>>> {
    QUEUE
        .get_or_init(|| {
            let (tx, rx) = channel::<File>();
            std::thread::Builder::new()
                .name("twain-closer".into())
                .spawn(move || {
                    // Each file is closed by its drop here; the loop ends when the
                    // process does (the sender lives in a static).
                    for file in rx {
                        drop(file);
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
}

/// Closes `file`: on the closer thread if no name refers to it any more, here otherwise.
pub(crate) fn close(file: File) {
    let unnamed = file.metadata().is_ok_and(|m| m.nlink() == 0);
    if !unnamed {
        return;
    }
    if let Some(q) = queue() {
        let tx = q.lock().unwrap_or_else(|e| e.into_inner());
        // A send fails only if the thread is gone: the file comes back and closes here.
        if let Err(back) = tx.send(file) {
            drop(back.0);
        }
    }
}

/// Removes `path`; if the file is not open elsewhere in this process its blocks are
/// freed by the closer, not by the caller.
pub(crate) fn remove(path: &std::path::Path) -> std::io::Result<()> {
    // Holding a descriptor across the unlink keeps the unlink itself cheap: the blocks
    // are freed at the last close, which `close` sends to the closer thread.
    let held = File::open(path).ok();
    std::fs::remove_file(path)?;
    if let Some(file) = held {
        close(file);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    /// What descriptor `fd` of this process refers to now.
    fn target(fd: i32) -> Option<PathBuf> {
        std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()
    }

    fn file_of(path: &Path, bytes: usize) {
        File::create(path)
            .unwrap()
            .write_all(&vec![7u8; bytes])
            .unwrap();
    }

    #[test]
    fn a_named_file_is_closed_where_it_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("named");
        file_of(&path, 4096);
        let f = File::open(&path).unwrap();
        let fd = f.as_raw_fd();
        assert_eq!(target(fd).as_deref(), Some(path.as_path()));
        close(f);
        // Closed before `close` returned: the descriptor no longer names the file.
        assert_ne!(target(fd).as_deref(), Some(path.as_path()));
    }

    #[test]
    fn an_unnamed_file_is_closed_by_the_closer_thread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("unnamed");
        file_of(&path, 1 << 20);
        let f = File::open(&path).unwrap();
        let fd = f.as_raw_fd();
        let was = target(fd).unwrap();
        remove(&path).unwrap();
        assert!(!path.exists(), "removed at once");
        close(f);
        assert!(QUEUE.get().is_some_and(Option::is_some), "the closer runs");
        let deadline = Instant::now() + Duration::from_secs(30);
        // Linux names the descriptor of an unlinked file "<path> (deleted)".
        let still_open =
            || target(fd).is_some_and(|t| t.to_string_lossy().starts_with(&*was.to_string_lossy()));
        while still_open() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!still_open(), "the closer closed the descriptor");
    }

    #[test]
    fn removing_a_missing_file_fails_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let e = remove(&dir.path().join("absent")).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }
}
