//! Standard output for a command's results, and noticing when its reader goes away.
//!
//! A command's output goes through [`stdout`]: buffered, and watched for `EPIPE`. When
//! the reader closes the pipe (`twain scan | head -1`) the next write fails with
//! `BrokenPipe` (Rust ignores `SIGPIPE`, so the process is not killed); the command then
//! fails with that error as it would with any other, which unwinds it and closes the
//! database, and `main` sees [`reader_gone`] and ends quietly with status 0, as `head`
//! expects of the programs it reads from. Any other write failure (`>/dev/full`) stays
//! an error.

use std::io::{self, BufWriter, ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write to stdout failed with `BrokenPipe`.
static READER_GONE: AtomicBool = AtomicBool::new(false);

/// Whether a write to stdout found the reader gone (the pipe closed).
pub fn reader_gone() -> bool {
    READER_GONE.load(Ordering::Relaxed)
}

/// Records a `BrokenPipe` among the results of writes to stdout.
fn watch<T>(r: io::Result<T>) -> io::Result<T> {
    if let Err(e) = &r
        && e.kind() == ErrorKind::BrokenPipe
    {
        READER_GONE.store(true, Ordering::Relaxed);
    }
    r
}

/// Stdout, recording a closed pipe for [`reader_gone`]. Locks stdout per call, so the
/// `say!` lines of other threads can interleave with it.
#[derive(Debug)]
pub struct Watched(io::Stdout);

impl Write for Watched {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        watch(self.0.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        watch(self.0.flush())
    }
}

/// The buffered, watched stdout a command writes its results to. The caller flushes it
/// at the end and handles the error: the buffer's drop would ignore it.
pub fn stdout() -> BufWriter<Watched> {
    BufWriter::new(Watched(io::stdout()))
}
