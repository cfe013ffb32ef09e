//! Connection limits: `max_clients` refuses the connection past the limit with an error;
//! an idle connection, or one whose client stops reading its replies, is closed after
//! `timeout`.

use crate::common;

use common::{TestServer, ask, exchange};
use std::time::{Duration, Instant};

#[test]
fn connections_past_max_clients_are_refused() {
    let server = TestServer::start_with(|c| c.max_clients = 2);
    let mut a = server.raw();
    let mut b = server.raw();
    assert_eq!(ask(&mut a, b"PING\r\n", 7), b"+PONG\r\n");
    assert_eq!(ask(&mut b, b"PING\r\n", 7), b"+PONG\r\n");
    let mut c = server.raw();
    assert_eq!(
        exchange(&mut c, b""),
        b"-ERR max number of clients reached\r\n"
    );
    drop(a);
    // The slot frees once the server notices the close.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut d = server.raw();
        let out = exchange(&mut d, b"PING\r\nQUIT\r\n");
        if out == b"+PONG\r\n+OK\r\n" {
            break;
        }
        assert!(Instant::now() < deadline, "slot never freed: {out:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn idle_connections_are_closed_after_the_timeout() {
    use std::io::Read;
    let server = TestServer::start_with(|c| c.timeout = Some(Duration::from_millis(300)));
    let mut raw = server.raw();
    raw.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // Timed from before the request: the server's idle clock starts after its reply, so
    // the close can come no sooner than the timeout after `start`, however late this
    // thread runs.
    let start = Instant::now();
    assert_eq!(ask(&mut raw, b"PING\r\n", 7), b"+PONG\r\n");
    let mut rest = Vec::new();
    // `Ok`: the server closed the connection (a read timeout here would be an error).
    raw.read_to_end(&mut rest)
        .expect("the server closes the idle connection");
    assert_eq!(rest, b"");
    let idle = start.elapsed();
    assert!(
        idle >= Duration::from_millis(250) && idle < Duration::from_secs(60),
        "{idle:?}"
    );
}

#[test]
fn a_client_that_stops_reading_is_dropped_after_the_timeout() {
    use std::io::{ErrorKind, Write};
    let server = TestServer::start_with(|c| c.timeout = Some(Duration::from_millis(300)));
    let mut con = server.client();
    let _: () = redis::cmd("SET")
        .arg("big")
        .arg(vec![b'x'; 1 << 20])
        .query(&mut con)
        .unwrap();
    let mut raw = server.raw();
    // Far longer than the server's timeout: only a hang makes this side's write time out.
    raw.set_write_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    // Ask for far more than the socket buffers hold and never read: the server's writes
    // stall, then it drops the connection, and this side's writes fail.
    let start = Instant::now();
    let err = loop {
        assert!(start.elapsed() < Duration::from_secs(60), "never dropped");
        if let Err(e) = raw.write_all(b"GET big\r\n".repeat(64).as_slice()) {
            break e;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(
        !matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "this side's own write timed out instead: {err}"
    );
    // The server still serves others (`con` itself idled out meanwhile).
    let mut fresh = server.client();
    let n: i64 = redis::cmd("STRLEN").arg("big").query(&mut fresh).unwrap();
    assert_eq!(n, 1 << 20);
}
