//! Issue 19, finding 1 (reply amplification): one 1,366-byte `MGET` naming a 16 MiB value
//! 150 times made the server build a 2.4 GB reply and abort ("memory allocation failed").
//! The reply is now streamed a value at a time from one snapshot: the whole of it arrives,
//! byte for byte, and the server goes on serving.

use crate::common;

use common::TestServer;
use std::io::{Read, Write};
use twain_server::resp::{Frame, Protocol, encode};

fn command(args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    let frame = Frame::Array(args.iter().map(|a| Frame::Bulk(a.to_vec())).collect());
    encode(&frame, Protocol::Resp2, &mut out);
    out
}

#[test]
fn an_mget_naming_a_16_mib_value_150_times_is_streamed_whole() {
    let server = TestServer::start();
    let value = vec![b'v'; 16 << 20];
    let mut raw = server.raw();
    raw.write_all(&command(&[b"SET", b"big", &value])).unwrap();
    let mut ok = [0u8; 5];
    raw.read_exact(&mut ok).unwrap();
    assert_eq!(&ok, b"+OK\r\n");
    drop(value);

    let mut args: Vec<&[u8]> = vec![b"MGET"];
    args.extend(std::iter::repeat_n(&b"big"[..], 150));
    raw.write_all(&command(&args)).unwrap();
    let header = b"*150\r\n";
    let element_header = format!("${}\r\n", 16 << 20);
    let expected = header.len() + 150 * (element_header.len() + (16 << 20) + 2);
    // Check the structure as it streams by, without holding it.
    let mut seen = 0usize;
    let mut buf = vec![0u8; 1 << 20];
    let mut head = Vec::new();
    while seen < expected {
        let n = raw.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "the connection closed after {seen} of {expected} bytes"
        );
        if head.len() < 64 {
            head.extend_from_slice(&buf[..n.min(64)]);
        }
        seen += n;
    }
    assert_eq!(seen, expected);
    assert!(head.starts_with(format!("*150\r\n{element_header}vvvv").as_bytes()));
    raw.write_all(b"PING\r\n").unwrap();
    let mut pong = [0u8; 7];
    raw.read_exact(&mut pong).unwrap();
    assert_eq!(&pong, b"+PONG\r\n");
}

#[test]
fn a_streamed_mget_is_the_reply_redis_would_give() {
    let server = TestServer::start();
    let mut con = server.client();
    let large = vec![b'L'; 300 << 10];
    let _: () = redis::cmd("SET")
        .arg("large")
        .arg(&large)
        .query(&mut con)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg("small")
        .arg("s")
        .query(&mut con)
        .unwrap();
    let mut keys = Vec::new();
    for _ in 0..20 {
        keys.extend(["large", "missing", "small"]);
    }
    let got: Vec<Option<Vec<u8>>> = redis::cmd("MGET").arg(&keys).query(&mut con).unwrap();
    assert_eq!(got.len(), 60);
    for (i, v) in got.iter().enumerate() {
        let want = match i % 3 {
            0 => Some(large.clone()),
            1 => None,
            _ => Some(b"s".to_vec()),
        };
        assert_eq!(v, &want, "element {i}");
    }
    // Pipelined after it, in RESP3, on the same connection.
    let mut resp3 = redis::Client::open(server.url("?protocol=resp3"))
        .unwrap()
        .get_connection()
        .unwrap();
    let (a, b): (Vec<Option<Vec<u8>>>, String) = redis::pipe()
        .cmd("MGET")
        .arg(&keys)
        .cmd("PING")
        .query(&mut resp3)
        .unwrap();
    assert_eq!(a, got);
    assert_eq!(b, "PONG");
}
