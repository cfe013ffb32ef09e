//! Issue 19, finding 1 (reply amplification): 48 pipelined `GET`s of a large value, from a
//! client that never read its replies, took the server to 907 MB: it built every reply of
//! the batch before writing any. Replies are now written as they are produced, so the
//! server holds about one value for that client while it waits for it to read, drops it
//! once the client has not read for `timeout`, and serves everyone else meanwhile.

use crate::common;

use common::TestServer;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

#[test]
fn pipelined_gets_of_a_big_value_to_a_client_that_does_not_read() {
    let server = TestServer::start_with(|c| c.timeout = Some(Duration::from_secs(2)));
    let mut con = server.client();
    let value = vec![b'x'; 16 << 20];
    let _: () = redis::cmd("SET")
        .arg("big")
        .arg(&value)
        .query(&mut con)
        .unwrap();
    drop(value);

    let mut raw = server.raw();
    raw.write_all(b"GET big\r\n".repeat(48).as_slice()).unwrap();
    // Meanwhile another client is served.
    std::thread::sleep(Duration::from_millis(500));
    let mut other = server.client();
    let n: i64 = redis::cmd("STRLEN").arg("big").query(&mut other).unwrap();
    assert_eq!(n, 16 << 20);

    // The non-reading client is dropped after the timeout: reading now finds the replies
    // that were in flight, then the end, long before all 48 could have been sent.
    std::thread::sleep(Duration::from_secs(4));
    let start = Instant::now();
    raw.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut total = 0usize;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match raw.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => total += n,
        }
    }
    assert!(start.elapsed() < Duration::from_secs(60));
    assert!(total < 4 * (16 << 20), "{total} bytes arrived");
    // (`other` idled out meanwhile.)
    let mut fresh = server.client();
    let n: i64 = redis::cmd("STRLEN").arg("big").query(&mut fresh).unwrap();
    assert_eq!(n, 16 << 20);
}
