//! The server's log: one line per event on stderr, written through [`fn@line`], which ignores
//! write failures. A full disk or a closed or full stderr (`2>/dev/full`) must never stop
//! the server or its signal handling, as `eprintln!` would by panicking.

use std::io::Write;

/// Writes `twain serve: MESSAGE` and a newline to stderr, ignoring any failure.
pub fn line(message: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "twain serve: {message}");
    let _ = err.flush();
}

/// Logs a formatted line to stderr; see [`fn@line`].
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        $crate::log::line(format_args!($($arg)*))
    };
}
