//! Issue 16, item 4: the test harnesses `stress` and `crashtest` are `twain debug stress`
//! and `twain debug crashtest`, hidden from the main help, where they sat among the user
//! commands. (`reliability.rs` runs the kill loop, whose children are `debug stress`.)

use crate::cliutil;

use cliutil::{ok, twain};

#[test]
fn the_harnesses_are_under_debug_and_hidden_from_the_main_help() {
    let help = ok(&["--help"]);
    for hidden in ["stress", "crashtest", "debug"] {
        assert!(
            !help.lines().any(|l| l.trim_start().starts_with(hidden)),
            "{hidden} in the main help:\n{help}"
        );
    }
    let debug = ok(&["debug", "--help"]);
    assert!(
        debug.contains("stress") && debug.contains("crashtest"),
        "{debug}"
    );
    for old in ["stress", "crashtest"] {
        assert_eq!(
            twain(&[old, "--help"]).status.code(),
            Some(2),
            "twain {old}"
        );
    }
}

#[test]
fn debug_stress_runs_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let expected = dir.path().join("expected");
    let out = ok(&[
        "debug",
        "stress",
        db.to_str().unwrap(),
        "--expected",
        expected.to_str().unwrap(),
        "--ops",
        "50",
        "--threads",
        "2",
        "--keys",
        "100",
    ]);
    assert!(out.starts_with("stress: puts "), "{out}");
    assert!(out.contains("wrong reads 0"), "{out}");
}
