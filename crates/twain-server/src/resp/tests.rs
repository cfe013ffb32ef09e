//! Unit tests of `resp`.

use super::*;

fn frame(bytes: &[u8]) -> Parsed<Frame> {
    parse_frame(bytes, &Limits::default())
}

fn request(bytes: &[u8]) -> Parsed<Request> {
    parse_request(bytes, &Limits::default())
}

fn words(ws: &[&str]) -> Request {
    ws.iter().map(|w| w.as_bytes().to_vec()).collect()
}

fn encoded(f: &Frame, proto: Protocol) -> Vec<u8> {
    let mut out = Vec::new();
    encode(f, proto, &mut out);
    out
}

#[test]
fn multibulk_requests_parse_and_report_what_they_consumed() {
    let bytes = b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n";
    let (req, used) = request(bytes).unwrap().unwrap();
    assert_eq!(req, words(&["GET", "k"]));
    assert_eq!(used, 20);

    let (req, used2) = request(&bytes[used..]).unwrap().unwrap();
    assert_eq!(req, words(&["PING"]));
    assert_eq!(used + used2, bytes.len());
}

#[test]
fn every_prefix_of_a_request_is_incomplete() {
    let bytes = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nv\r\nxy\r\n";
    for end in 0..bytes.len() {
        assert_eq!(request(&bytes[..end]), Ok(None), "prefix of {end} bytes");
    }
    let (req, _) = request(bytes).unwrap().unwrap();
    assert_eq!(req[2], b"v\r\nxy");
}

#[test]
fn malformed_requests_are_protocol_errors() {
    let cases: &[(&[u8], ProtocolError)] = &[
        (b"*x\r\n", ProtocolError::InvalidMultibulkLength),
        (b"*1\r\n:5\r\n", ProtocolError::ExpectedBulk(b':')),
        (b"*1\r\n$-1\r\n", ProtocolError::InvalidBulkLength),
        (b"*1\r\n$-5\r\n", ProtocolError::InvalidBulkLength),
        (b"*1\r\n$2\r\nabcd\r\n", ProtocolError::MissingCrlf),
        (b"*1\n", ProtocolError::MissingCrlf),
        (b"*1\r\n$+3\r\n", ProtocolError::InvalidBulkLength),
        (b"\"unterminated\r\n", ProtocolError::UnbalancedQuotes),
    ];
    for (bytes, want) in cases {
        assert_eq!(request(bytes), Err(want.clone()), "{bytes:?}");
    }
}

#[test]
fn limits_are_checked_before_the_data_arrives() {
    let limits = Limits {
        max_bulk: 10,
        max_elements: 3,
        max_depth: 2,
        max_line: 16,
    };
    let req = |b: &[u8]| parse_request(b, &limits);
    assert_eq!(
        req(b"*1\r\n$11\r\n"),
        Err(ProtocolError::BulkTooLarge { len: 11, max: 10 })
    );
    assert_eq!(
        req(b"*4\r\n"),
        Err(ProtocolError::TooManyElements { count: 4, max: 3 })
    );

    assert_eq!(
        request(b"*99999999999999999999\r\n"),
        Err(ProtocolError::InvalidMultibulkLength)
    );

    assert_eq!(req(&[b'a'; 17]), Err(ProtocolError::LineTooLong));
    assert_eq!(
        req(b"a b c d\r\n").err().map(|e| e.to_string()),
        Some("4 elements exceed the limit of 3".into())
    );
    assert_eq!(
        parse_frame(b"*1\r\n*1\r\n*1\r\n", &limits),
        Err(ProtocolError::TooDeep(2))
    );
    assert_eq!(
        parse_frame(b"%2\r\n", &limits),
        Err(ProtocolError::TooManyElements { count: 2, max: 3 })
    );
}

#[test]
fn inline_commands_split_like_redis() {
    assert_eq!(
        request(b"SET k v\r\n").unwrap().unwrap(),
        (words(&["SET", "k", "v"]), 9)
    );
    assert_eq!(request(b"  PING  \n").unwrap().unwrap().0, words(&["PING"]));
    assert_eq!(request(b"\r\n").unwrap().unwrap().0, Request::new());
    assert_eq!(request(b"GET k").unwrap(), None);
    let (req, _) = request(b"SET \"a b\\x41\\n\" 'it\\'s'\r\n")
        .unwrap()
        .unwrap();
    assert_eq!(
        req,
        vec![b"SET".to_vec(), b"a bA\n".to_vec(), b"it's".to_vec()]
    );
    assert_eq!(
        split_inline(b"\"a\"b"),
        Err(ProtocolError::UnbalancedQuotes)
    );
    assert_eq!(split_inline(b"'a"), Err(ProtocolError::UnbalancedQuotes));
}

#[test]
fn empty_multibulk_is_an_empty_request() {
    assert_eq!(request(b"*0\r\n").unwrap().unwrap(), (Request::new(), 4));
    assert_eq!(request(b"*-1\r\n").unwrap().unwrap(), (Request::new(), 5));
}

#[test]
fn resp2_encoding_downgrades_resp3_types() {
    use Protocol::Resp2;
    assert_eq!(encoded(&Frame::Null, Resp2), b"$-1\r\n");
    assert_eq!(encoded(&Frame::Boolean(true), Resp2), b":1\r\n");
    assert_eq!(encoded(&Frame::Double(1.5), Resp2), b"$3\r\n1.5\r\n");
    let map = Frame::Map(vec![(Frame::bulk("a"), Frame::Integer(1))]);
    assert_eq!(encoded(&map, Resp2), b"*2\r\n$1\r\na\r\n:1\r\n");
    assert_eq!(encoded(&map, Protocol::Resp3), b"%1\r\n$1\r\na\r\n:1\r\n");
    assert_eq!(encoded(&Frame::Null, Protocol::Resp3), b"_\r\n");
    // Found by the fuzzer: a bulk error that is not UTF-8 must still be one valid frame.
    let bad = encoded(&Frame::BulkError(vec![0xff, b'x']), Resp2);
    assert_eq!(bad, "-\u{fffd}x\r\n".as_bytes());
    assert!(frame(&bad).unwrap().is_some());
}

#[test]
fn simple_strings_never_carry_line_breaks() {
    let out = encoded(&Frame::error("ERR bad\r\nthing"), Protocol::Resp2);
    assert_eq!(out, b"-ERR bad  thing\r\n");
}

#[test]
fn integers_encode_at_the_extremes() {
    for n in [0, 7, -7, i64::MAX, i64::MIN] {
        let out = encoded(&Frame::Integer(n), Protocol::Resp2);
        assert_eq!(out, format!(":{n}\r\n").as_bytes());
        assert_eq!(frame(&out).unwrap().unwrap().0, Frame::Integer(n));
    }
}

#[test]
fn resp3_frames_parse() {
    let bytes = b"%2\r\n+a\r\n#t\r\n$1\r\nb\r\n,-inf\r\n";
    let (f, used) = frame(bytes).unwrap().unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(
        f,
        Frame::Map(vec![
            (Frame::Simple("a".into()), Frame::Boolean(true)),
            (Frame::bulk("b"), Frame::Double(f64::NEG_INFINITY)),
        ])
    );
    assert_eq!(
        frame(b"=7\r\ntxt:abc\r\n").unwrap().unwrap().0,
        Frame::Verbatim {
            format: *b"txt",
            text: b"abc".to_vec()
        }
    );
    assert_eq!(
        frame(b"(-123\r\n").unwrap().unwrap().0,
        Frame::BigNumber("-123".into())
    );
    assert_eq!(frame(b"(12a\r\n"), Err(ProtocolError::InvalidBigNumber));
    assert_eq!(frame(b"|1\r\n"), Err(ProtocolError::Attribute));
    assert_eq!(frame(b"?\r\n"), Err(ProtocolError::UnknownType(b'?')));
    assert_eq!(frame(b"#x\r\n"), Err(ProtocolError::InvalidBoolean));
    assert_eq!(frame(b",1.5x\r\n"), Err(ProtocolError::InvalidDouble));
}

#[test]
fn strict_integers() {
    assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
    assert_eq!(parse_i64(b"9223372036854775808"), None);
    assert_eq!(parse_i64(b"0"), Some(0));
    for bad in [
        &b""[..],
        b"-",
        b"+1",
        b" 1",
        b"1 ",
        b"1.0",
        b"0x1",
        b"01",
        b"-0",
    ] {
        assert_eq!(parse_i64(bad), None, "{bad:?}");
    }
}
