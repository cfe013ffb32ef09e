//! Closing deleted files off the caller's thread.
//!
//! When the last descriptor of a file that has no name left is closed, the kernel frees
//! its blocks then and there: on ext4 mounted with `discard` that is a synchronous discard
//! of every extent, milliseconds for a value file. The last holder of an obsolete value
//! file or table is often a reader (a scan's version, a get's), so without this a
//! foreground operation would wait for the disk. [`RealFs`](super::RealFs) instead hands
//! its readers' descriptors to one process-wide thread, `twain-closer`, which closes them
//! in turn. Every descriptor goes, named or not: a file that still has a name when its
//! reader checks may lose it (and its other descriptors) before that reader's close, and
//! then that close is the one that frees the blocks.
//!
//! The queue is bounded ([`QUEUE_LEN`] descriptors): with it full (a burst of deletions
//! on a slow device), a file is closed where it is dropped rather than holding more
//! descriptors open. A process forked after the thread started has no closer thread, so
//! it closes where it drops too. [`drain`] waits until everything queued before it is
//! closed (`Db` close calls it, so the space of the files a database deleted is free
//! when its close returns).

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

/// Descriptors that may wait for the closer at once.
pub(crate) const QUEUE_LEN: usize = 64;

/// How `remove` opens the file it holds across the unlink.
#[cfg(target_os = "linux")]
const HOLD_FLAGS: i32 = libc::O_PATH | libc::O_NOFOLLOW;
#[cfg(not(target_os = "linux"))]
const HOLD_FLAGS: i32 = libc::O_NONBLOCK | libc::O_NOFOLLOW;

/// What the closer thread is handed.
enum Job {
    /// Close this file.
    Close(File),
    /// Say so once everything queued before this is closed.
    Drain(SyncSender<()>),
}

/// The closer thread's queue and the process that started it; `None` if the thread could
/// not be started (files are then closed where they are dropped).
static QUEUE: OnceLock<Option<(SyncSender<Job>, u32)>> = OnceLock::new();

/// The queue, if this process has a closer thread.
fn queue() -> Option<&'static SyncSender<Job>> {
    let (tx, pid) = QUEUE
        .get_or_init(|| {
            let (tx, rx) = sync_channel::<Job>(QUEUE_LEN);
            std::thread::Builder::new()
                .name("twain-closer".into())
                .spawn(move || serve(rx))
                .ok()
                .map(|_| (tx, std::process::id()))
        })
        .as_ref()?;
    // After a fork the sender is still here but the thread is not.
    (*pid == std::process::id()).then_some(tx)
}

/// The closer thread: closes files until the process ends (the sender lives in a static).
fn serve(rx: Receiver<Job>) {
    for job in rx {
        #[cfg(test)]
        let _held = tests::HOLD.lock();
        match job {
            Job::Close(file) => drop(file),
            Job::Drain(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// Closes `file`: on the closer thread if the queue has room, here otherwise.
///
/// Named or not: checking the link count and closing here when it is not 0 would leave a
/// window in which the name and every other descriptor go, and this close frees the
/// blocks on the caller's thread.
pub(crate) fn close(file: File) {
    if let Some(tx) = queue() {
        // Full or gone: the file comes back and closes here.
        if let Err(TrySendError::Full(back) | TrySendError::Disconnected(back)) =
            tx.try_send(Job::Close(file))
        {
            drop(back);
        }
    }
}

/// Removes `path`; if the file is not open elsewhere in this process its blocks are
/// freed by the closer, not by the caller.
pub(crate) fn remove(path: &Path) -> std::io::Result<()> {
    // A descriptor held across the unlink keeps the unlink itself cheap: the blocks are
    // freed at the last close, which `close` sends to the closer. `O_PATH` needs no read
    // permission and never blocks (a FIFO), `O_NOFOLLOW` never opens a link's target.
    let held = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(HOLD_FLAGS)
        .open(path)
        .ok();
    std::fs::remove_file(path)?;
    if let Some(file) = held {
        close(file);
    }
    Ok(())
}

/// Waits until every file queued before this call is closed (nothing to wait for without
/// a closer thread).
pub(crate) fn drain() {
    let Some(tx) = queue() else {
        return;
    };
    let (done_tx, done_rx) = sync_channel(1);
    if tx.send(Job::Drain(done_tx)).is_ok() {
        let _ = done_rx.recv();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::path::PathBuf;
    use std::sync::Mutex;

    /// Held by a test, it keeps the closer thread from closing anything.
    pub(super) static HOLD: Mutex<()> = Mutex::new(());

    /// Held by the tests that need room in the queue, and by the one that fills it.
    static QUEUE_TESTS: Mutex<()> = Mutex::new(());

    fn queue_tests() -> std::sync::MutexGuard<'static, ()> {
        QUEUE_TESTS.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What descriptor `fd` of this process refers to now.
    fn target(fd: i32) -> Option<PathBuf> {
        std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()
    }

    /// A file of `bytes` bytes in a fresh directory, by its canonical path (what
    /// `/proc/self/fd` shows).
    fn file_of(dir: &Path, name: &str, bytes: usize) -> PathBuf {
        let path = dir.canonicalize().unwrap().join(name);
        File::create(&path)
            .unwrap()
            .write_all(&vec![7u8; bytes])
            .unwrap();
        path
    }

    /// Whether descriptor `fd` still refers to the file that was at `path` (Linux names an
    /// unlinked one "`path` (deleted)").
    fn still_open(fd: i32, path: &Path) -> bool {
        target(fd).is_some_and(|t| t.to_string_lossy().starts_with(&*path.to_string_lossy()))
    }

    /// A reader's close goes to the closer whether or not the file has a name: the name
    /// (and the other descriptors) may go between a check of it and the close, and the
    /// close would free the blocks here.
    #[test]
    fn a_named_file_is_closed_by_the_closer_thread_too() {
        let _serial = queue_tests();
        let dir = tempfile::tempdir().unwrap();
        let path = file_of(dir.path(), "named", 1 << 20);
        let f = File::open(&path).unwrap();
        let fd = f.as_raw_fd();
        {
            let _held = HOLD.lock().unwrap_or_else(|e| e.into_inner());
            close(f);
            assert!(
                still_open(fd, &path),
                "a named file was closed by the caller"
            );
            // The name goes while the close waits in the queue: the last close, the one
            // that frees the blocks, is the closer's.
            remove(&path).unwrap();
            assert!(still_open(fd, &path));
        }
        drain();
        assert!(!still_open(fd, &path), "the closer closed the descriptor");
    }

    /// With the queue full, a descriptor closes where it is dropped rather than waiting.
    #[test]
    fn a_full_queue_closes_here() {
        let _serial = queue_tests();
        let dir = tempfile::tempdir().unwrap();
        let path = file_of(dir.path(), "many", 4096);
        let held = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        // The closer takes one job and waits on `HOLD`; the queue holds QUEUE_LEN more.
        // Other tests' closes may share the queue, so fill it until one comes back.
        let mut queued = Vec::new();
        loop {
            let f = File::open(&path).unwrap();
            let fd = f.as_raw_fd();
            close(f);
            if !still_open(fd, &path) {
                break;
            }
            queued.push(fd);
            assert!(
                queued.len() <= QUEUE_LEN + 1,
                "the queue took more than it holds"
            );
        }
        assert!(
            queued.len() >= QUEUE_LEN / 2,
            "queued only {}",
            queued.len()
        );
        drop(held);
        drain();
        // Descriptor numbers are reused once closed: the file itself must be closed.
        for fd in queued {
            assert!(
                !still_open(fd, &path),
                "descriptor {fd} still open after the drain"
            );
        }
    }

    #[test]
    fn an_unnamed_file_is_closed_by_the_closer_thread() {
        let _serial = queue_tests();
        let dir = tempfile::tempdir().unwrap();
        let path = file_of(dir.path(), "unnamed", 1 << 20);
        let f = File::open(&path).unwrap();
        let fd = f.as_raw_fd();
        {
            let _held = HOLD.lock().unwrap_or_else(|e| e.into_inner());
            remove(&path).unwrap();
            assert!(!path.exists(), "the name is gone at once");
            close(f);
            assert!(
                still_open(fd, &path),
                "an unnamed file was closed by the caller"
            );
        }
        drain();
        assert!(!still_open(fd, &path), "the closer closed the descriptor");
    }

    #[test]
    fn removing_a_missing_file_or_a_directory_fails_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let e = remove(&dir.path().join("absent")).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert!(remove(&sub).is_err());
        assert!(sub.is_dir());
    }

    #[test]
    fn removing_a_fifo_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        remove(&fifo).unwrap();
        assert!(!fifo.exists());
    }
}
