//! The `twain serve` process: SIGTERM and SIGINT shut it down cleanly (exit status 0, the
//! database flushed, closed and holding every write, even with `--sync never`); a public
//! address without a password is refused with status 1.

use crate::serve_util;

use serve_util::Serve;
use twain_server::resp::Frame;

fn write_and_stop(signal: &str) {
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(dir.path(), &["--sync", "never"]);
    let mut client = server.connect();
    for i in 0..200 {
        let k = format!("k{i}");
        assert_eq!(client.call(&[b"SET", k.as_bytes(), b"v"]), Frame::ok());
    }
    let _idle = server.connect();
    server.signal(signal);
    let (status, stderr) = server.wait();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("SIG{signal} received, shutting down")),
        "{stderr}"
    );

    let db = twain::Db::open(dir.path(), twain::Options::default()).unwrap();
    assert_eq!(db.iter().count(), 200);
    let stats = db.stats().unwrap();
    assert!(
        stats.levels.iter().any(|l| l.files > 0),
        "flushed at shutdown"
    );
}

#[test]
fn sigterm_exits_zero_with_every_write_kept() {
    write_and_stop("TERM");
}

#[test]
fn sigint_exits_zero_with_every_write_kept() {
    write_and_stop("INT");
}

#[test]
fn a_public_address_without_a_password_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_twain"))
        .args(["serve", "--addr", "0.0.0.0:0", "--db"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--unprotected"), "{stderr}");
}
