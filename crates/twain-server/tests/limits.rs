//! Connection limits: `max_clients` refuses the connection past the limit with an error;
//! an idle connection is closed after `timeout`.

mod common;

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
    let deadline = Instant::now() + Duration::from_secs(5);
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
    let server = TestServer::start_with(|c| c.timeout = Some(Duration::from_millis(300)));
    let mut raw = server.raw();
    assert_eq!(ask(&mut raw, b"PING\r\n", 7), b"+PONG\r\n");
    let start = Instant::now();
    assert_eq!(exchange(&mut raw, b""), b"");
    let idle = start.elapsed();
    assert!(
        idle >= Duration::from_millis(250) && idle < Duration::from_secs(5),
        "{idle:?}"
    );
}
