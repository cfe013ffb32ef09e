//! Fuzzed RESP: random and mutated bytes never make a parser panic, a consumed length is
//! always within the input, every frame survives encoding and parsing unchanged (RESP3)
//! or as a valid frame (RESP2), requests round-trip, and a live server answers garbage
//! with at most a protocol error and keeps serving. The server's incremental
//! `RequestReader` reads the same requests as `parse_request`, however its input is cut.

use crate::common;

use proptest::prelude::*;
use std::io::{Read, Write};
use std::sync::OnceLock;
use twain_server::request::{RequestLimits, RequestReader};
use twain_server::resp::{Frame, Limits, Protocol, Request, encode, parse_frame, parse_request};

fn text() -> impl Strategy<Value = String> {
    "[^\r\n]{0,12}"
}

fn frame() -> impl Strategy<Value = Frame> {
    let leaf = prop_oneof![
        text().prop_map(Frame::Simple),
        text().prop_map(Frame::Error),
        any::<i64>().prop_map(Frame::Integer),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Frame::Bulk),
        Just(Frame::Null),
        any::<f64>()
            .prop_filter("NaN is not equal to itself", |d| !d.is_nan())
            .prop_map(Frame::Double),
        any::<bool>().prop_map(Frame::Boolean),
        "-?[0-9]{1,30}".prop_map(Frame::BigNumber),
        ("[a-z]{3}", prop::collection::vec(any::<u8>(), 0..20)).prop_map(|(f, text)| {
            let format = [f.as_bytes()[0], f.as_bytes()[1], f.as_bytes()[2]];
            Frame::Verbatim { format, text }
        }),
        prop::collection::vec(any::<u8>(), 0..20).prop_map(Frame::BulkError),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Frame::Array),
            prop::collection::vec(inner.clone(), 0..5).prop_map(Frame::Set),
            prop::collection::vec(inner.clone(), 0..5).prop_map(Frame::Push),
            prop::collection::vec((inner.clone(), inner), 0..4).prop_map(Frame::Map),
        ]
    })
}

fn request_bytes(args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    let frame = Frame::Array(args.iter().cloned().map(Frame::Bulk).collect());
    encode(&frame, Protocol::Resp2, &mut out);
    out
}

/// Checks that every parser answers `bytes` without panicking and within bounds.
fn parsers_stay_in_bounds(bytes: &[u8]) {
    let limits = Limits {
        max_bulk: 1 << 16,
        max_elements: 1 << 10,
        max_depth: 8,
        max_line: 1 << 10,
    };
    if let Ok(Some((_, used))) = parse_frame(bytes, &limits) {
        assert!(used > 0 && used <= bytes.len());
    }
    if let Ok(Some((_, used))) = parse_request(bytes, &limits) {
        assert!(used > 0 && used <= bytes.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        parsers_stay_in_bounds(&bytes);
    }

    #[test]
    fn typed_garbage_never_panics(
        tag in prop::sample::select(b"+-:$*_,#(=!%~>|".to_vec()),
        body in "[-0-9a-z\r\n$*:]{0,60}",
    ) {
        let mut bytes = vec![tag];
        bytes.extend_from_slice(body.as_bytes());
        parsers_stay_in_bounds(&bytes);
    }

    #[test]
    fn resp3_encoding_round_trips(f in frame()) {
        let mut out = Vec::new();
        encode(&f, Protocol::Resp3, &mut out);
        let (parsed, used) = parse_frame(&out, &Limits::default()).unwrap().unwrap();
        prop_assert_eq!(used, out.len());
        prop_assert_eq!(parsed, f);
        // Any strict prefix is incomplete, never an error.
        for cut in [0, out.len() / 3, out.len() / 2, out.len() - 1] {
            prop_assert_eq!(parse_frame(&out[..cut], &Limits::default()), Ok(None));
        }
    }

    #[test]
    fn resp2_encoding_is_one_valid_frame(f in frame()) {
        let mut out = Vec::new();
        encode(&f, Protocol::Resp2, &mut out);
        let (_, used) = parse_frame(&out, &Limits::default()).unwrap().unwrap();
        prop_assert_eq!(used, out.len());
    }

    #[test]
    fn requests_round_trip(args in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..30), 1..8)) {
        let bytes = request_bytes(&args);
        let (parsed, used) = parse_request(&bytes, &Limits::default()).unwrap().unwrap();
        prop_assert_eq!(used, bytes.len());
        prop_assert_eq!(parsed, args);
    }

    #[test]
    fn mutated_requests_never_panic(
        args in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..20), 1..5),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..6),
    ) {
        let mut bytes = request_bytes(&args);
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len().max(1));
            match kind {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i.min(bytes.len()), byte),
                _ => bytes.truncate(i),
            }
        }
        parsers_stay_in_bounds(&bytes);
    }
}

/// The requests `parse_request` reads from the whole of `bytes`, and whether it stopped at
/// an error.
fn whole_buffer_requests(bytes: &[u8], limits: &Limits) -> (Vec<Request>, bool) {
    let mut rest = bytes;
    let mut requests = Vec::new();
    loop {
        match parse_request(rest, limits) {
            Ok(Some((r, used))) => {
                requests.push(r);
                rest = &rest[used..];
            }
            Ok(None) => return (requests, false),
            Err(_) => return (requests, true),
        }
    }
}

/// The requests a `RequestReader` reads from `bytes` delivered in pieces of `chunk`, and
/// whether it stopped at an error.
fn reader_requests(bytes: &[u8], chunk: usize, limits: &Limits) -> (Vec<Request>, bool) {
    let limits = RequestLimits {
        resp: *limits,
        max_request: usize::MAX,
    };
    let mut reader = RequestReader::new();
    let mut input = Vec::new();
    let mut requests = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        input.extend_from_slice(piece);
        loop {
            match reader.next(&input, &limits) {
                Ok((used, request)) => {
                    input.drain(..used);
                    match request {
                        Some(r) => requests.push(r),
                        None => break,
                    }
                }
                Err(_) => return (requests, true),
            }
        }
    }
    (requests, false)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_request_reader_agrees_with_the_whole_buffer_parser(
        args in prop::collection::vec(prop::collection::vec(prop::collection::vec(any::<u8>(), 0..20), 1..4), 1..4),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 0..4),
        inline in "[ -~]{0,70}",
        chunk in 1..40usize,
    ) {
        let mut bytes = Vec::new();
        for a in &args {
            bytes.extend(request_bytes(a));
        }
        bytes.extend_from_slice(inline.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len().max(1));
            match kind {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i.min(bytes.len()), byte),
                _ => bytes.truncate(i),
            }
        }
        let limits = Limits { max_line: 64, ..Limits::default() };
        let (want, want_err) = whole_buffer_requests(&bytes, &limits);
        let (got, got_err) = reader_requests(&bytes, chunk, &limits);
        prop_assert_eq!(got, want);
        prop_assert_eq!(got_err, want_err);
    }
}

fn shared_server() -> &'static common::TestServer {
    static SERVER: OnceLock<common::TestServer> = OnceLock::new();
    SERVER.get_or_init(common::TestServer::start)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_live_server_survives_garbage(bytes in prop::collection::vec(any::<u8>(), 1..200)) {
        let server = shared_server();
        let mut raw = server.raw();
        // The server answers what it can, then sees the end of the input.
        raw.write_all(&bytes).unwrap();
        raw.shutdown(std::net::Shutdown::Write).unwrap();
        let mut out = Vec::new();
        let _ = raw.read_to_end(&mut out);
        // Everything answered is whole frames.
        let mut rest = out.as_slice();
        while !rest.is_empty() {
            let (_, used) = parse_frame(rest, &Limits::default()).unwrap().unwrap();
            rest = &rest[used..];
        }
        let mut ping = server.raw();
        prop_assert_eq!(common::ask(&mut ping, b"PING\r\n", 7), b"+PONG\r\n".to_vec());
    }
}
