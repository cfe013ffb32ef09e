//! Issue 19, finding 11 (network fairness): a client sending one byte every 1.5 s kept its
//! connection forever, as every byte reset the idle `--timeout`. A request must now be
//! complete within `--request-timeout` of the previous one completing (or of its own first
//! byte); past that the client gets an error and is disconnected, whatever its pace. A
//! client that completes each request in time, or idles between requests, is not.

use crate::common;

use common::{TestServer, ask};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

fn server() -> TestServer {
    TestServer::start_with(|c| {
        c.request_timeout = Some(Duration::from_secs(1));
        c.timeout = Some(Duration::from_secs(300));
    })
}

#[test]
fn a_client_trickling_a_request_is_dropped_at_the_request_deadline() {
    let server = server();
    let mut raw = server.raw();
    let start = Instant::now();
    let request = b"SET key a-value-that-takes-a-long-while-to-arrive\r\n";
    for b in request {
        if raw.write_all(&[*b]).is_err() || start.elapsed() > Duration::from_secs(4) {
            break;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let mut out = Vec::new();
    let _ = raw.read_to_end(&mut out);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "-ERR request not complete within 1s (--request-timeout)\r\n"
    );
    assert!(start.elapsed() < Duration::from_secs(30));
    let mut con = server.client();
    let info: String = redis::cmd("INFO").arg("stats").query(&mut con).unwrap();
    assert!(info.contains("request_timeouts:1\r\n"), "{info}");
}

#[test]
fn requests_completed_in_time_and_idle_gaps_are_not_cut() {
    let server = server();
    let mut raw = server.raw();
    for _ in 0..3 {
        // Each request takes 0.6 s to arrive, then the connection idles 1.2 s.
        raw.write_all(b"PI").unwrap();
        std::thread::sleep(Duration::from_millis(600));
        assert_eq!(ask(&mut raw, b"NG\r\n", 7), b"+PONG\r\n");
        std::thread::sleep(Duration::from_millis(1200));
    }
}
