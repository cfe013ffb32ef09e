//! Issue 19, finding 3 (memory before authentication): with `--requirepass`, a client that
//! never authenticated could make the server buffer a request of up to `--max-request`
//! (1 GiB); three such clients took it to 905 MiB. Before authentication requests are now
//! read one at a time under small bounds (8 arguments, 1 KiB each, 4 KiB in all, an inline line included), past
//! which the client gets a protocol error and is disconnected. Once `AUTH` succeeds the
//! normal limits apply, even to requests pipelined behind it.

use crate::common;

use common::{TestServer, ask, exchange};
use std::io::Write;

fn protected() -> TestServer {
    TestServer::start_with(|c| c.requirepass = Some("pw".into()))
}

fn closes_with(server: &TestServer, bytes: &[u8], message: &str) {
    let mut raw = server.raw();
    let out = String::from_utf8_lossy(&exchange(&mut raw, bytes)).into_owned();
    assert_eq!(out, format!("-ERR Protocol error: {message}\r\n"));
}

#[test]
fn unauthenticated_requests_are_capped_small() {
    let server = protected();
    closes_with(
        &server,
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1073741824\r\n",
        "bulk length 1073741824 exceeds the limit of 1024 bytes before authentication",
    );
    closes_with(
        &server,
        b"*9\r\n",
        "9 elements exceed the limit of 8 before authentication",
    );
    let mut long_line = vec![b'x'; 5000];
    long_line.extend_from_slice(b"\r\n");
    closes_with(
        &server,
        &long_line,
        "too big inline request before authentication",
    );
    let mut many = b"*5\r\n".to_vec();
    for _ in 0..5 {
        many.extend_from_slice(b"$1000\r\n");
        many.extend(std::iter::repeat_n(b'a', 1000));
        many.extend_from_slice(b"\r\n");
    }
    closes_with(
        &server,
        &many,
        "request larger than 4096 bytes before authentication",
    );
}

#[test]
fn after_auth_the_normal_limits_apply_even_within_one_pipeline() {
    let server = protected();
    let mut raw = server.raw();
    let mut bytes = b"AUTH pw\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'v', 100_000));
    bytes.extend_from_slice(b"\r\nSTRLEN k\r\n");
    assert_eq!(ask(&mut raw, &bytes, 19), b"+OK\r\n+OK\r\n:100000\r\n");

    let mut hello = server.raw();
    hello
        .write_all(b"HELLO 3 AUTH default pw SETNAME a-client-name\r\n")
        .unwrap();
    let mut con = redis::Client::open(format!("redis://:pw@{}/", server.addr))
        .unwrap()
        .get_connection()
        .unwrap();
    let n: i64 = redis::cmd("STRLEN").arg("k").query(&mut con).unwrap();
    assert_eq!(n, 100_000);
}
