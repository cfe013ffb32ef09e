//! Issue 19, finding 8: with an unwritable stderr (`2>/dev/full`, or a log on a full
//! disk) `twain serve` ignored SIGTERM and SIGINT: the signal task panicked writing its log
//! line before it could start the shutdown. The server now logs through a helper that
//! ignores write failures, so every log line (here: a client over `--max-output`, then
//! the signal) is harmless and SIGTERM still ends it, with status 0.

use crate::serve_util;

use serve_util::Client;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use twain_server::resp::Frame;

#[test]
fn sigterm_stops_the_server_when_stderr_is_full() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
        .arg("serve")
        .arg("--db")
        .arg(dir.path())
        .args(["--addr", "127.0.0.1:0", "--max-output", "1M"])
        .stdout(Stdio::piped())
        .stderr(Stdio::from(full))
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let addr = line
        .split("listening on ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));

    let mut client = Client::connect(&addr);
    let big = vec![b'b'; 2 << 20];
    assert_eq!(client.call(&[b"SET", b"big", &big]), Frame::ok());
    // Over --max-output: the server logs the disconnection to the full stderr.
    let mut greedy = Client::connect(&addr);
    greedy
        .send(&[vec![b"GET".to_vec(), b"big".to_vec()]])
        .unwrap();
    assert!(greedy.reply().is_err());
    assert_eq!(client.call(&[b"PING"]), Frame::Simple("PONG".into()));

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("twain serve ignored SIGTERM with stderr on /dev/full");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "{exit:?}");
}
