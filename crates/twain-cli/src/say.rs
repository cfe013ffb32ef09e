//! Messages to the user that cannot panic.
//!
//! `eprintln!` and `println!` panic when the write fails: with stderr on `/dev/full` (or a
//! log on a full disk) a failing command exited 101 with a panic instead of its status
//! (issue 19, finding 8). These helpers write the same lines and drop a failed write: a
//! message nobody can receive is not worth a crash, and the exit status still tells.
//! Output that is the command's result (`get`, `scan`, `dump`) is written with error
//! handling where it is produced, not through here.

use std::fmt;
use std::io::Write;

/// Writes `args` and a newline to stderr, ignoring failure.
pub fn err_line(args: fmt::Arguments<'_>) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_fmt(args).and_then(|()| e.write_all(b"\n"));
}

/// Writes `args` to stderr as they are, ignoring failure.
pub fn err_text(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// Writes `args` and a newline to stdout and flushes, ignoring failure.
pub fn out_line(args: fmt::Arguments<'_>) {
    let mut o = std::io::stdout().lock();
    let _ = o
        .write_fmt(args)
        .and_then(|()| o.write_all(b"\n"))
        .and_then(|()| o.flush());
}

/// `eprintln!` that never panics.
macro_rules! note {
    ($($arg:tt)*) => { $crate::say::err_line(format_args!($($arg)*)) };
}

/// `eprint!` that never panics.
macro_rules! note_text {
    ($($arg:tt)*) => { $crate::say::err_text(format_args!($($arg)*)) };
}

/// `println!` that never panics.
macro_rules! say {
    ($($arg:tt)*) => { $crate::say::out_line(format_args!($($arg)*)) };
}

pub(crate) use {note, note_text, say};
