//! `--max-output` (issue 19, finding 1), like Redis's `client-output-buffer-limit`: a
//! client whose pending replies would pass the limit is disconnected (and the server logs
//! it and counts it in `INFO`); the server and other clients carry on. Replies larger than
//! the limit in total, but made of elements within it (an `MGET`, a pipeline), are streamed
//! and do not trip it.

use crate::common;

use common::TestServer;
use std::io::{Read, Write};

#[test]
fn a_client_over_its_output_limit_is_disconnected_and_the_server_lives() {
    let server = TestServer::start_with(|c| c.max_output = 1 << 20);
    let mut con = server.client();
    let _: () = redis::cmd("SET")
        .arg("huge")
        .arg(vec![b'h'; 2 << 20])
        .query(&mut con)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg("half")
        .arg(vec![b'm'; 512 << 10])
        .query(&mut con)
        .unwrap();

    // 10 × 512 KiB in one MGET and 10 GETs in one pipeline: 5 MiB each, streamed.
    let keys = vec!["half"; 10];
    let got: Vec<Vec<u8>> = redis::cmd("MGET").arg(&keys).query(&mut con).unwrap();
    assert!(got.iter().all(|v| v.len() == 512 << 10));
    let mut pipe = redis::pipe();
    for _ in 0..10 {
        pipe.cmd("GET").arg("half");
    }
    let got: Vec<Vec<u8>> = pipe.query(&mut con).unwrap();
    assert_eq!(got.len(), 10);

    let mut raw = server.raw();
    raw.write_all(b"GET huge\r\n").unwrap();
    let mut rest = Vec::new();
    let _ = raw.read_to_end(&mut rest);
    assert!(rest.is_empty(), "{} bytes arrived", rest.len());

    let mut other = server.client();
    let info: String = redis::cmd("INFO").arg("stats").query(&mut other).unwrap();
    assert!(info.contains("output_limit_closes:1\r\n"), "{info}");
    let n: i64 = redis::cmd("STRLEN").arg("huge").query(&mut other).unwrap();
    assert_eq!(n, 2 << 20);
}
