//! Batched positional reads through io_uring ([`super::read_batch`] on Linux).
//!
//! Each thread that reads in batches owns a ring of [`RING_ENTRIES`] entries, made on its
//! first batch. A batch is submitted [`RING_ENTRIES`] reads at a time with one system
//! call, which returns once every one of them has completed. Where the kernel has no
//! io_uring (or a sandbox forbids it) the thread remembers that and reads one by one.
//!
//! A read in flight writes into its buffer and reads through its descriptor, so neither
//! may be freed before it completes. In the one case where waiting fails with reads in
//! flight (the kernel refusing to wait, which it documents for no state this module
//! reaches), their buffers and files are leaked rather than freed, the reads fail, and
//! the thread reads one by one from then on.

use super::{BatchRead, ReadableFile};
use io_uring::{IoUring, opcode, types};
use std::cell::RefCell;
use std::io;

/// Reads in flight at once on one thread's ring.
const RING_ENTRIES: u32 = 64;

/// A thread's ring: not made yet, made, or refused by the kernel.
enum Ring {
    Untried,
    Ready(Box<IoUring>),
    Unavailable,
}

thread_local! {
    static RING: RefCell<Ring> = const { RefCell::new(Ring::Untried) };
}

pub(super) fn read_batch(reads: &mut [BatchRead]) {
    RING.with(|cell| {
        let mut ring = cell.borrow_mut();
        if matches!(*ring, Ring::Untried) {
            *ring = match IoUring::new(RING_ENTRIES) {
                Ok(r) => Ring::Ready(Box::new(r)),
                Err(_) => Ring::Unavailable,
            };
        }
        for chunk in reads.chunks_mut(RING_ENTRIES as usize) {
            let outcome = match &mut *ring {
                Ring::Ready(r) => submit(r, chunk),
                _ => Submitted::Refused,
            };
            match outcome {
                Submitted::Done => {}
                Submitted::Refused => {
                    // The kernel took none of them: read them here, and use no ring again.
                    *ring = Ring::Unavailable;
                    one_by_one(chunk);
                }
                Submitted::Abandoned => {
                    // Reads may still be in flight into the ring's memory: leak it too.
                    if let Ring::Ready(r) = std::mem::replace(&mut *ring, Ring::Unavailable) {
                        std::mem::forget(r);
                    }
                }
            }
        }
    });
}

fn one_by_one(reads: &mut [BatchRead]) {
    for r in reads {
        r.result = r.file.read_exact_at(&mut r.buf, r.offset);
    }
}

enum Submitted {
    /// Every read completed; each `result` says how.
    Done,
    /// The kernel took no read; the caller reads them.
    Refused,
    /// Waiting failed with reads in flight: their buffers and files were leaked and the
    /// reads failed.
    Abandoned,
}

/// Submits `reads` (at most [`RING_ENTRIES`]) and waits for all of them.
fn submit(ring: &mut IoUring, reads: &mut [BatchRead]) -> Submitted {
    let mut queued = vec![false; reads.len()];
    let mut in_flight = 0usize;
    {
        let mut sq = ring.submission();
        for (i, r) in reads.iter_mut().enumerate() {
            // Files without a descriptor, and reads longer than a u32 can count, are read
            // the ordinary way.
            let (Some(fd), Ok(len)) = (r.file.raw_fd(), u32::try_from(r.buf.len())) else {
                r.result = r.file.read_exact_at(&mut r.buf, r.offset);
                continue;
            };
            let entry = opcode::Read::new(types::Fd(fd), r.buf.as_mut_ptr(), len)
                .offset(r.offset)
                .build()
                .user_data(i as u64);
            // SAFETY: the buffer and the descriptor stay alive until the read completes:
            // this call waits for every queued read, or leaks both (`abandon`).
            if unsafe { sq.push(&entry) }.is_err() {
                // Not reached: the ring has room for RING_ENTRIES and no more are passed.
                r.result = r.file.read_exact_at(&mut r.buf, r.offset);
                continue;
            }
            if let Some(q) = queued.get_mut(i) {
                *q = true;
            }
            in_flight += 1;
        }
    }
    let mut waited = false;
    while in_flight > 0 {
        match ring.submit_and_wait(in_flight) {
            Ok(_) => {}
            Err(e) if retryable(&e) => {}
            // Nothing was taken: the entries stay in a submission queue no later call
            // submits (the ring is not used again).
            Err(_) if !waited => return Submitted::Refused,
            Err(e) => return abandon(reads, &queued, &e),
        }
        waited = true;
        for cqe in ring.completion() {
            let i = usize::try_from(cqe.user_data()).unwrap_or(usize::MAX);
            let (Some(r), Some(q)) = (reads.get_mut(i), queued.get_mut(i)) else {
                continue;
            };
            if !*q {
                continue;
            }
            *q = false;
            in_flight -= 1;
            r.result = finish(r.file.as_ref(), &mut r.buf, r.offset, cqe.result());
        }
    }
    Submitted::Done
}

/// Leaks the buffer and file of every read still `queued` and fails it with `error`.
fn abandon(reads: &mut [BatchRead], queued: &[bool], error: &io::Error) -> Submitted {
    for (r, _) in reads.iter_mut().zip(queued).filter(|(_, q)| **q) {
        std::mem::forget(std::mem::take(&mut r.buf));
        std::mem::forget(std::sync::Arc::clone(&r.file));
        r.result = Err(io::Error::new(
            error.kind(),
            format!("io_uring stopped waiting for this read: {error}"),
        ));
    }
    Submitted::Abandoned
}

fn retryable(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINTR | libc::EAGAIN | libc::EBUSY)
    )
}

/// The outcome of a read that returned `res`: an error, or the bytes read, of which a
/// short count (a read the kernel cut, or the end of the file) is completed by reading
/// the rest the ordinary way (which reports the end of the file as `UnexpectedEof`).
fn finish(file: &dyn ReadableFile, buf: &mut [u8], offset: u64, res: i32) -> io::Result<()> {
    let Ok(n) = usize::try_from(res) else {
        return Err(io::Error::from_raw_os_error(res.saturating_neg()));
    };
    match buf.get_mut(n..) {
        Some(rest) if !rest.is_empty() => file.read_exact_at(rest, offset + n as u64),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{Fs, MemFs, RealFs};
    use rand::{RngExt, SeedableRng};
    use std::sync::Arc;

    /// Reads of every kind in one batch: more than a ring holds, across files with and
    /// without a descriptor, some running past the end of their file.
    #[test]
    fn a_batch_reads_what_single_reads_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = RealFs::new();
        let mem = MemFs::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut files: Vec<(Arc<dyn ReadableFile>, Vec<u8>)> = Vec::new();
        for (i, fs) in [&real as &dyn Fs, &real, &mem].into_iter().enumerate() {
            let path = if i < 2 {
                dir.path().join(format!("f{i}"))
            } else {
                std::path::PathBuf::from("/m")
            };
            let bytes: Vec<u8> = (0..100_000).map(|_| rng.random()).collect();
            let mut w = fs.create(&path).expect("create");
            w.append(&bytes).expect("append");
            w.sync_data().expect("sync");
            files.push((fs.open_read(&path).expect("open"), bytes));
        }
        assert!(files[0].0.raw_fd().is_some() && files[2].0.raw_fd().is_none());
        let mut reads = Vec::new();
        for _ in 0..3 * RING_ENTRIES {
            let f = rng.random_range(0..files.len());
            let offset = rng.random_range(0..100_100u64);
            let len = rng.random_range(0..9_000usize);
            reads.push(BatchRead::new(Arc::clone(&files[f].0), offset, len));
        }
        let mut single: Vec<BatchRead> = reads
            .iter()
            .map(|r| BatchRead::new(Arc::clone(&r.file), r.offset, r.buf.len()))
            .collect();
        read_batch(&mut reads);
        one_by_one(&mut single);
        let mut past_end = 0;
        for (b, s) in reads.iter().zip(&single) {
            match (&b.result, &s.result) {
                (Ok(()), Ok(())) => assert_eq!(b.buf, s.buf, "at {}", b.offset),
                (Err(e), Err(f)) => {
                    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
                    assert_eq!(e.kind(), f.kind());
                    past_end += 1;
                }
                (x, y) => panic!("at {}: batch {x:?}, single {y:?}", s.offset),
            }
        }
        assert!(past_end > 0, "some reads ran past their file's end");
    }

    #[test]
    fn a_short_count_is_completed_and_an_error_is_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").expect("write");
        let file = RealFs::new().open_read(&path).expect("open");
        let mut buf = [0u8; 6];
        finish(file.as_ref(), &mut buf, 2, 3).expect("the rest is read");
        assert_eq!(&buf[3..], b"567");
        let e = finish(file.as_ref(), &mut buf, 0, -libc::EIO).expect_err("EIO");
        assert_eq!(e.raw_os_error(), Some(libc::EIO));
        let mut long = [0u8; 20];
        let e = finish(file.as_ref(), &mut long, 0, 10).expect_err("past the end");
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}
