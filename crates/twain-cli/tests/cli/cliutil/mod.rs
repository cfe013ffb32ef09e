//! Running the `twain` binary from the CLI tests.

use std::process::{Command, Output};

/// Runs `twain` with `args`.
pub fn twain(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(args)
        .output()
        .expect("run twain")
}

/// Runs `twain` with `args`, which must succeed; returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = twain(args);
    assert!(
        out.status.success(),
        "twain {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}
