//! `twain`: the command-line tool of the twain storage engine.

mod bench;
mod bench_worker;
mod bulk;
mod check;
mod commands;
mod crashtest;
mod repair;
mod say;
mod stress;
mod text;
mod worker;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say::note!("twain: {e}");
            ExitCode::FAILURE
        }
    }
}
