//! `twain`: the command-line tool of the twain storage engine.
//!
//! # Exit status
//!
//! - 0: the command did its work (also when the reader of its output went away early,
//!   as in `twain scan | head -1`);
//! - 1: the answer is no: `get`'s key is absent, `check` found problems;
//! - 2: an error, one line on stderr starting `twain:` (clap also exits 2 for a malformed
//!   command line).
//!
//! DO NOT CHANGE THESE VALUES: scripts test them, and the README documents them.

mod backup;
mod bench;
mod bench_worker;
mod bulk;
mod check;
mod commands;
mod crashtest;
mod dump;
mod gc;
mod out;
mod repair;
mod say;
mod scan;
mod stats;
mod stress;
mod text;
mod units;
mod worker;

use clap::Parser;
use std::process::ExitCode;

/// How a command that returned ended: each is an exit status (see the crate docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit status 0.
    Done,
    /// Exit status 1: the answer is no. The command said so on stderr.
    No,
    /// Exit status 2: an error the command reported on stderr itself.
    Failed,
}

/// The exit status of an error.
const ERROR_STATUS: u8 = 2;

fn main() -> ExitCode {
    let cli = match commands::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return command_line_error(&e),
    };
    match commands::run(cli) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::No) => ExitCode::from(1),
        Ok(Outcome::Failed) => ExitCode::from(ERROR_STATUS),
        // The error is the failed write, or what the command made of it: a closed pipe is
        // how `head` says "enough", not a failure.
        Err(_) if out::reader_gone() => ExitCode::SUCCESS,
        Err(e) => {
            say::note!("twain: {e}");
            ExitCode::from(ERROR_STATUS)
        }
    }
}

/// Shows `--help` or `--version` (status 0), or a malformed command line's error with its
/// first line starting `twain:` as every error line does (status 2; a missing subcommand
/// shows the help there).
fn command_line_error(e: &clap::Error) -> ExitCode {
    if !e.use_stderr() {
        // Help that cannot be shown is not a failure of the program.
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.render().to_string();
    match text.strip_prefix("error: ") {
        Some(rest) => say::note_text!("twain: {rest}"),
        None => say::note_text!("{text}"),
    }
    ExitCode::from(ERROR_STATUS)
}
