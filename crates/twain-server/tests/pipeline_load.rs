//! Pipelined load from several connections at once, in every execution mode: every write is
//! acknowledged and readable, and concurrent read-modify-writes (INCR, APPEND) on one key
//! lose no update.

mod common;

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
