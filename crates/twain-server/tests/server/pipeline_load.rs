//! Pipelined load from several connections at once, in every execution mode: every write is
//! acknowledged and readable, and concurrent read-modify-writes (INCR, APPEND) on one key
//! lose no update.

use crate::common;

use common::TestServer;
use redis::Commands;
use twain_server::ExecMode;

const CONNECTIONS: usize = 6;
const PIPELINES: usize = 20;
const DEPTH: usize = 200;

fn pipelined_sets_and_gets(exec: ExecMode) {
    let server = TestServer::start_with(|c| c.exec = exec);
    let threads: Vec<_> = (0..CONNECTIONS)
        .map(|t| {
            let mut con = server.client();
            std::thread::spawn(move || {
                for p in 0..PIPELINES {
                    let mut pipe = redis::pipe();
                    for i in 0..DEPTH {
                        pipe.set(format!("c{t}:{p}:{i}"), format!("value {t} {p} {i}"));
                    }
                    let oks: Vec<String> = pipe.query(&mut con).unwrap();
                    assert!(oks.iter().all(|r| r == "OK"));
                    let mut pipe = redis::pipe();
                    for i in 0..DEPTH {
                        pipe.get(format!("c{t}:{p}:{i}"));
                    }
                    let values: Vec<String> = pipe.query(&mut con).unwrap();
                    for (i, v) in values.iter().enumerate() {
                        assert_eq!(v, &format!("value {t} {p} {i}"));
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut con = server.client();
    let total: i64 = redis::cmd("DBSIZE").query(&mut con).unwrap();
    assert_eq!(total as usize, CONNECTIONS * PIPELINES * DEPTH);
    let keys: Vec<String> = (0..CONNECTIONS).map(|t| format!("c{t}:7:99")).collect();
    let values: Vec<String> = con.mget(&keys).unwrap();
    for (t, v) in values.iter().enumerate() {
        assert_eq!(v, &format!("value {t} 7 99"));
    }
}

#[test]
fn pipelined_load_with_reads_inline_and_writes_on_the_blocking_pool() {
    pipelined_sets_and_gets(ExecMode::Auto);
}

#[test]
fn pipelined_load_on_the_blocking_pool() {
    pipelined_sets_and_gets(ExecMode::Blocking);
}

#[test]
fn pipelined_load_inline() {
    pipelined_sets_and_gets(ExecMode::Inline);
}

#[test]
fn concurrent_read_modify_writes_lose_no_update() {
    let server = TestServer::start();
    let threads: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let mut con = server.client();
            std::thread::spawn(move || {
                for _ in 0..10 {
                    let mut pipe = redis::pipe();
                    for _ in 0..50 {
                        pipe.incr("counter", 1).ignore();
                        pipe.append("log", "x").ignore();
                        // Blind writes to the same keys' stripes interleave with them.
                        pipe.set("other", "y").ignore();
                    }
                    let _: () = pipe.query(&mut con).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut con = server.client();
    let want = (CONNECTIONS * 10 * 50) as i64;
    assert_eq!(con.get::<_, i64>("counter").unwrap(), want);
    assert_eq!(con.strlen::<_, i64>("log").unwrap(), want);
}

#[test]
fn hundreds_of_connections_are_served_at_once() {
    use std::io::{Read, Write};
    let server = TestServer::start();
    // Every connection is open before any is answered, so the server holds them all.
    let mut conns: Vec<_> = (0..300).map(|_| server.raw()).collect();
    for (i, c) in conns.iter_mut().enumerate() {
        write!(c, "SET conn:{i:03} v{i:03}\r\nGET conn:{i:03}\r\n").unwrap();
    }
    for (i, c) in conns.iter_mut().enumerate() {
        let want = format!("+OK\r\n$4\r\nv{i:03}\r\n");
        let mut got = vec![0; want.len()];
        c.read_exact(&mut got).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), want);
    }
    let mut con = server.client();
    let n: i64 = redis::cmd("DBSIZE").query(&mut con).unwrap();
    assert_eq!(n, 300);
    let info: String = redis::cmd("INFO").arg("clients").query(&mut con).unwrap();
    assert!(info.contains("connected_clients:301\r\n"), "{info}");
}
