//! Bad input: malformed frames, oversized bulks, too many arguments and oversized
//! requests are answered with `-ERR Protocol error: ...` and the connection is closed;
//! the server keeps serving everyone else. Inline commands and requests split at every
//! byte work.

use crate::common;

use common::{TestServer, ask, exchange};
use std::io::Write;

fn closes_with(server: &TestServer, bytes: &[u8], error: &str) {
    let mut raw = server.raw();
    let out = exchange(&mut raw, bytes);
    let text = String::from_utf8_lossy(&out);
    assert_eq!(
        text,
        format!("-ERR Protocol error: {error}\r\n"),
        "for {bytes:?}"
    );
}

#[test]
fn malformed_frames_close_the_connection_with_an_error() {
    let server = TestServer::start();
    closes_with(&server, b"*x\r\n", "invalid multibulk length");
    closes_with(&server, b"*1\r\n:1\r\n", "expected '$', got ':'");
    closes_with(&server, b"*1\r\n$-3\r\n", "invalid bulk length");
    closes_with(&server, b"*1\r\n$3\r\nabcde\r\n", "expected CRLF");
    closes_with(&server, b"SET \"open\r\n", "unbalanced quotes in request");
    closes_with(&server, b"*1\r\n\x00\x01", "expected '$', got '\\x00'");
    closes_with(&server, &vec![b'a'; 70 << 10], "too big inline request");
    // Replies to the requests before the bad one are sent first.
    let mut raw = server.raw();
    let out = exchange(&mut raw, b"PING\r\n*1\r\n$4\r\nPING\r\n*?\r\n");
    assert_eq!(
        out,
        b"+PONG\r\n+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"
    );
    // The server is fine.
    let mut con = server.client();
    assert_eq!(
        redis::cmd("PING").query::<String>(&mut con).unwrap(),
        "PONG"
    );
}

#[test]
fn sizes_and_counts_are_bounded() {
    let server = TestServer::start_with(|c| {
        c.limits.max_bulk = 1000;
        c.limits.max_elements = 10;
        c.max_request = 4000;
    });
    closes_with(
        &server,
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1001\r\n",
        "bulk length 1001 exceeds the limit of 1000 bytes",
    );
    closes_with(&server, b"*11\r\n", "11 elements exceed the limit of 10");
    let mut big = b"*10\r\n".to_vec();
    for _ in 0..5 {
        big.extend_from_slice(b"$1000\r\n");
        big.extend(std::iter::repeat_n(b'x', 1000));
        big.extend_from_slice(b"\r\n");
    }
    closes_with(
        &server,
        &big,
        "request larger than 4000 bytes (--max-request)",
    );
    let mut raw = server.raw();
    let mut ok = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000\r\n".to_vec();
    ok.extend(std::iter::repeat_n(b'v', 1000));
    ok.extend_from_slice(b"\r\n");
    assert_eq!(ask(&mut raw, &ok, 5), b"+OK\r\n");
}

#[test]
fn inline_commands_work() {
    let server = TestServer::start();
    let mut raw = server.raw();
    assert_eq!(
        ask(&mut raw, b"SET greeting \"hello world\"\r\n", 5),
        b"+OK\r\n"
    );
    assert_eq!(
        ask(&mut raw, b"GET greeting\n", 18),
        b"$11\r\nhello world\r\n"
    );
    assert_eq!(ask(&mut raw, b"\r\n\r\nINCR n\r\n", 4), b":1\r\n");
}

#[test]
fn a_request_split_at_every_byte_is_understood() {
    let server = TestServer::start();
    let mut raw = server.raw();
    raw.set_nodelay(true).unwrap();
    let request =
        b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n";
    for b in request {
        raw.write_all(&[*b]).unwrap();
        raw.flush().unwrap();
    }
    assert_eq!(ask(&mut raw, b"", 16), b"+OK\r\n$5\r\nva\r\nl\r\n");
}
