//! `twain serve --sync always` killed with SIGKILL in the middle of a pipelined SET load
//! from several connections: after a restart, every SET whose `+OK` reached a client is
//! there with its value.

use crate::serve_util;

use serve_util::Serve;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use twain_server::resp::Frame;

const CONNECTIONS: usize = 4;
const DEPTH: usize = 32;

fn key(conn: usize, i: usize) -> Vec<u8> {
    format!("c{conn}:{i:07}").into_bytes()
}

/// Values from a few bytes (kept in the key store) to over the 256-byte threshold (kept in
/// the value log).
fn value(conn: usize, i: usize) -> Vec<u8> {
    let stem = format!("v{conn}:{i}|");
    stem.repeat(1 + (i * 7) % 60).into_bytes()
}

/// Sends pipelined SETs until the connection breaks; returns how many were acknowledged
/// (SETs 0 .. n of this connection, in order).
fn load(addr: &str, conn: usize, acked_total: &AtomicUsize) -> usize {
    let mut client = serve_util::Client::connect(addr);
    // Only a safety net: the test kills the server as soon as enough SETs were
    // acknowledged, long before this on any machine.
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut acked = 0;
    while Instant::now() < deadline {
        let batch: Vec<Vec<Vec<u8>>> = (acked..acked + DEPTH)
            .map(|i| vec![b"SET".to_vec(), key(conn, i), value(conn, i)])
            .collect();
        if client.send(&batch).is_err() {
            return acked;
        }
        for _ in 0..DEPTH {
            match client.reply() {
                Ok(Frame::Simple(ok)) if ok == "OK" => {
                    acked += 1;
                    acked_total.fetch_add(1, Ordering::Relaxed);
                }
                Ok(other) => panic!("unexpected reply {other:?}"),
                Err(_) => return acked,
            }
        }
    }
    panic!("the server was never killed")
}

#[test]
fn every_acknowledged_set_survives_a_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let server = Serve::start(dir.path(), &["--sync", "always"]);
    let acked_total = Arc::new(AtomicUsize::new(0));
    let loaders: Vec<_> = (0..CONNECTIONS)
        .map(|conn| {
            let (addr, total) = (server.addr.clone(), Arc::clone(&acked_total));
            std::thread::spawn(move || load(&addr, conn, &total))
        })
        .collect();
    // Every SET is synced: on a loaded machine (or a slow disk) 3000 can take a while.
    let start = Instant::now();
    while acked_total.load(Ordering::Relaxed) < 3000 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    server.signal("KILL");
    let (status, _) = server.wait();
    assert!(!status.success(), "killed, not exited");
    let acked: Vec<usize> = loaders.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(
        acked.iter().sum::<usize>() >= 3000,
        "load too small: {acked:?}"
    );

    let server = Serve::start(dir.path(), &[]);
    let mut client = server.connect();
    let mut checked = 0;
    for (conn, &n) in acked.iter().enumerate() {
        for start in (0..n).step_by(500) {
            let end = (start + 500).min(n);
            let mut mget = vec![b"MGET".to_vec()];
            mget.extend((start..end).map(|i| key(conn, i)));
            client.send(&[mget]).unwrap();
            let Frame::Array(values) = client.reply().unwrap() else {
                panic!("MGET must reply with an array")
            };
            for (i, v) in (start..end).zip(values) {
                assert_eq!(
                    v,
                    Frame::Bulk(value(conn, i)),
                    "connection {conn} SET {i} of {n} acknowledged"
                );
                checked += 1;
            }
        }
    }
    println!("acknowledged SETs checked after SIGKILL: {checked} ({acked:?} per connection)");
    let (status, stderr) = server.terminate();
    assert!(status.success(), "{stderr}");
}
