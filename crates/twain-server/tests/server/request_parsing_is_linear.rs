//! Issue 19, finding 4 (quadratic request parsing): the server re-parsed a partial request
//! from its first byte after every read, so a 128 MiB request cost 0.8 s of CPU and a 512
//! MiB one 20–36 s, before authentication. The [`RequestReader`] keeps its place between
//! reads: these tests count the bytes it examines (not time) for requests delivered in
//! small pieces, and check it stays within twice the request's size.

use crate::common;

use common::TestServer;
use twain_server::request::{RequestLimits, RequestReader};
use twain_server::resp::{Limits, Request};

fn limits() -> RequestLimits {
    RequestLimits {
        resp: Limits::default(),
        max_request: 1 << 30,
    }
}

/// Feeds `bytes` in pieces of `chunk` as reads would; returns the requests and the bytes
/// examined.
fn feed(bytes: &[u8], chunk: usize) -> (Vec<Request>, u64) {
    let mut reader = RequestReader::new();
    let mut input = Vec::new();
    let mut requests = Vec::new();
    for piece in bytes.chunks(chunk) {
        input.extend_from_slice(piece);
        loop {
            let (used, request) = reader.next(&input, &limits()).unwrap();
            input.drain(..used);
            match request {
                Some(r) => requests.push(r),
                None => break,
            }
        }
        // At most a partial line (a header, or an inline command) and one read.
        let bound = chunk + Limits::default().max_line + 2;
        assert!(
            input.len() <= bound,
            "the input buffer holds {}",
            input.len()
        );
    }
    (requests, reader.scanned())
}

#[test]
fn a_request_of_200_000_arguments_in_1_000_byte_reads_is_scanned_once() {
    let mut bytes = b"*200000\r\n".to_vec();
    for i in 0..200_000u32 {
        let arg = format!("{i:010}");
        bytes.extend_from_slice(format!("$10\r\n{arg}\r\n").as_bytes());
    }
    let (requests, scanned) = feed(&bytes, 1000);
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].len(), 200_000);
    assert_eq!(requests[0][199_999], b"0000199999");
    assert!(
        scanned <= 2 * bytes.len() as u64,
        "{scanned} for {}",
        bytes.len()
    );
}

#[test]
fn a_64_mib_bulk_in_16_kib_reads_is_scanned_once() {
    let len = 64 << 20;
    let mut bytes = format!("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n${len}\r\n").into_bytes();
    bytes.resize(bytes.len() + len, b'v');
    bytes.extend_from_slice(b"\r\n");
    let (requests, scanned) = feed(&bytes, 16 << 10);
    assert_eq!(requests[0][2].len(), len);
    assert!(
        scanned <= bytes.len() as u64 + 64,
        "{scanned} for {}",
        bytes.len()
    );
}

#[test]
fn an_inline_line_trickled_a_byte_at_a_time_is_scanned_once() {
    let mut bytes = b"SET k ".to_vec();
    bytes.resize(60_000, b'x');
    bytes.extend_from_slice(b"\r\n");
    let (requests, scanned) = feed(&bytes, 1);
    assert_eq!(requests[0][2].len(), 60_000 - 6);
    assert!(
        scanned <= 2 * bytes.len() as u64,
        "{scanned} for {}",
        bytes.len()
    );
}

#[test]
fn the_server_takes_a_64_mib_value_and_a_pipeline_of_100_000_requests() {
    let server = TestServer::start();
    let mut con = server.client();
    let value = vec![b'z'; 64 << 20];
    let _: () = redis::cmd("SET")
        .arg("k")
        .arg(&value)
        .query(&mut con)
        .unwrap();
    let n: i64 = redis::cmd("STRLEN").arg("k").query(&mut con).unwrap();
    assert_eq!(n, 64 << 20);
    let mut pipe = redis::pipe();
    for i in 0..100_000 {
        pipe.cmd("SET").arg(i).arg(i).ignore();
    }
    pipe.cmd("GET").arg(99_999);
    let (last,): (i64,) = pipe.query(&mut con).unwrap();
    assert_eq!(last, 99_999);
}
