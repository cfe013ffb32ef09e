//! Key expiry through a real Redis client (the `redis` crate), on a server whose database
//! judges expiry by a manual clock: `EXPIRE` and its family with their options and errors,
//! `TTL` and its family, `PERSIST`, `SET`'s expiry options, `SETEX`, `PSETEX`, `GETEX`,
//! which commands keep a key's expiry and which clear it, expiry surviving a restart, and
//! expiry changes as atomic against concurrent `INCR`s as `INCR` is.

use crate::common;

use common::{TestServer, error_text};
use redis::{Commands, Connection};
use std::sync::Arc;
use twain::ManualClock;

/// The clock's start, in milliseconds since the Unix epoch (2023-11-14T22:13:20Z).
const T0: i64 = 1_700_000_000_000;

fn clocked_server() -> (TestServer, ManualClock) {
    let clock = ManualClock::new(T0 as u64);
    let for_server = clock.clone();
    let server = TestServer::start_with(move |c| c.engine.clock = Arc::new(for_server));
    (server, clock)
}

/// Runs a command given as words, returning its integer reply.
fn int(con: &mut Connection, words: &[&str]) -> i64 {
    let (name, args) = words.split_first().unwrap();
    redis::cmd(name).arg(args).query(con).unwrap()
}

/// Runs a command given as words, returning its error reply's text.
fn err(con: &mut Connection, words: &[&str]) -> String {
    let (name, args) = words.split_first().unwrap();
    error_text(&redis::cmd(name).arg(args).query::<()>(con).unwrap_err())
}

/// Runs a command given as words, returning its bulk (or simple) reply.
fn text(con: &mut Connection, words: &[&str]) -> Option<String> {
    let (name, args) = words.split_first().unwrap();
    redis::cmd(name).arg(args).query(con).unwrap()
}

#[test]
fn expire_ttl_and_persist() {
    let (server, clock) = clocked_server();
    let mut con = server.client();
    assert_eq!(int(&mut con, &["TTL", "k"]), -2);
    assert_eq!(int(&mut con, &["PTTL", "k"]), -2);
    assert_eq!(int(&mut con, &["EXPIRETIME", "k"]), -2);
    assert_eq!(int(&mut con, &["PEXPIRETIME", "k"]), -2);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "10"]), 0);
    assert_eq!(int(&mut con, &["PERSIST", "k"]), 0);
    let _: () = con.set("k", "v").unwrap();
    assert_eq!(int(&mut con, &["TTL", "k"]), -1);
    assert_eq!(int(&mut con, &["PEXPIRETIME", "k"]), -1);
    assert_eq!(int(&mut con, &["PERSIST", "k"]), 0);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "10"]), 1);
    assert_eq!(int(&mut con, &["TTL", "k"]), 10);
    assert_eq!(int(&mut con, &["PTTL", "k"]), 10_000);
    assert_eq!(int(&mut con, &["EXPIRETIME", "k"]), T0 / 1000 + 10);
    assert_eq!(int(&mut con, &["PEXPIRETIME", "k"]), T0 + 10_000);
    clock.advance(2_499);
    assert_eq!(int(&mut con, &["TTL", "k"]), 8); // 7.501 s, rounded as Redis does
    assert_eq!(int(&mut con, &["PERSIST", "k"]), 1);
    assert_eq!(int(&mut con, &["TTL", "k"]), -1);
    assert_eq!(int(&mut con, &["PEXPIRE", "k", "100"]), 1);
    assert_eq!(int(&mut con, &["PTTL", "k"]), 100);
    clock.advance(99);
    assert_eq!(text(&mut con, &["GET", "k"]).as_deref(), Some("v"));
    clock.advance(1);
    // From its expiry time on, no command sees the key.
    assert_eq!(text(&mut con, &["GET", "k"]), None);
    assert_eq!(int(&mut con, &["TTL", "k"]), -2);
    assert_eq!(int(&mut con, &["EXISTS", "k"]), 0);
    assert_eq!(int(&mut con, &["DBSIZE"]), 0);
    assert_eq!(int(&mut con, &["STRLEN", "k"]), 0);
    assert_eq!(int(&mut con, &["PERSIST", "k"]), 0);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "10"]), 0);
    let keys: Vec<String> = con.keys("*").unwrap();
    assert!(keys.is_empty(), "{keys:?}");
}

#[test]
fn absolute_times_and_times_already_past() {
    let (server, _clock) = clocked_server();
    let mut con = server.client();
    let _: () = con
        .mset(&[("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5")])
        .unwrap();
    assert_eq!(int(&mut con, &["EXPIREAT", "a", "4102444800"]), 1);
    assert_eq!(int(&mut con, &["EXPIRETIME", "a"]), 4_102_444_800);
    assert_eq!(int(&mut con, &["PEXPIRETIME", "a"]), 4_102_444_800_000);
    assert_eq!(int(&mut con, &["PEXPIREAT", "a", "4102444800123"]), 1);
    assert_eq!(int(&mut con, &["PEXPIRETIME", "a"]), 4_102_444_800_123);
    assert_eq!(int(&mut con, &["EXPIRETIME", "a"]), 4_102_444_800);
    // Zero, negative and past times delete the key and reply 1.
    assert_eq!(int(&mut con, &["EXPIRE", "b", "0"]), 1);
    assert_eq!(int(&mut con, &["EXPIRE", "c", "-10"]), 1);
    assert_eq!(int(&mut con, &["PEXPIREAT", "d", &T0.to_string()]), 1);
    assert_eq!(int(&mut con, &["EXPIREAT", "e", "1"]), 1);
    let left: Vec<Option<String>> = con.mget(&["a", "b", "c", "d", "e"]).unwrap();
    assert_eq!(left, [Some("1".to_string()), None, None, None, None]);
    assert_eq!(int(&mut con, &["DBSIZE"]), 1);
}

#[test]
fn expire_options_and_errors() {
    let (server, _clock) = clocked_server();
    let mut con = server.client();
    let _: () = con.set("k", "v").unwrap();
    // No expiry counts as infinite: GT never passes, LT does.
    assert_eq!(int(&mut con, &["EXPIRE", "k", "100", "XX"]), 0);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "100", "GT"]), 0);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "100", "LT"]), 1);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "100", "NX"]), 0);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "200", "XX", "LT"]), 0);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "100", "GT"]), 0);
    assert_eq!(int(&mut con, &["EXPIRE", "k", "200", "XX", "GT"]), 1);
    assert_eq!(int(&mut con, &["TTL", "k"]), 200);
    assert_eq!(int(&mut con, &["PEXPIRE", "k", "1000", "lt"]), 1);
    assert_eq!(int(&mut con, &["PTTL", "k"]), 1_000);
    assert_eq!(
        err(&mut con, &["EXPIRE", "k", "1", "NX", "XX"]),
        "ERR NX and XX, GT or LT options at the same time are not compatible"
    );
    assert_eq!(
        err(&mut con, &["EXPIRE", "k", "1", "NX", "GT"]),
        "ERR NX and XX, GT or LT options at the same time are not compatible"
    );
    assert_eq!(
        err(&mut con, &["PEXPIREAT", "k", "1", "GT", "LT"]),
        "ERR GT and LT options at the same time are not compatible"
    );
    // Options are judged before the time.
    assert_eq!(
        err(&mut con, &["EXPIRE", "k", "soon", "later"]),
        "ERR Unsupported option later"
    );
    assert_eq!(
        err(&mut con, &["EXPIRE", "k", "soon"]),
        "ERR value is not an integer or out of range"
    );
    assert_eq!(
        err(&mut con, &["EXPIRE", "k", "9223372036854775807"]),
        "ERR invalid expire time in 'expire' command"
    );
    assert_eq!(
        err(&mut con, &["PEXPIRE", "k", "9223372036854775807"]),
        "ERR invalid expire time in 'pexpire' command"
    );
    assert_eq!(
        err(&mut con, &["EXPIREAT", "k", "-9223372036854775808"]),
        "ERR invalid expire time in 'expireat' command"
    );
    assert_eq!(
        err(&mut con, &["EXPIRE", "k"]),
        "ERR wrong number of arguments for 'expire' command"
    );
    assert_eq!(
        err(&mut con, &["TTL", "k", "x"]),
        "ERR wrong number of arguments for 'ttl' command"
    );
    // The errors changed nothing.
    assert_eq!(int(&mut con, &["PTTL", "k"]), 1_000);
}

#[test]
fn set_options_setex_psetex_and_getex() {
    let (server, clock) = clocked_server();
    let mut con = server.client();
    assert_eq!(
        text(&mut con, &["SET", "k", "v", "EX", "100"]).as_deref(),
        Some("OK")
    );
    assert_eq!(int(&mut con, &["TTL", "k"]), 100);
    assert_eq!(
        text(&mut con, &["SET", "k", "w", "KEEPTTL"]).as_deref(),
        Some("OK")
    );
    assert_eq!(int(&mut con, &["TTL", "k"]), 100);
    assert_eq!(
        text(&mut con, &["SET", "k", "x", "GET", "PX", "5"]).as_deref(),
        Some("w")
    );
    assert_eq!(int(&mut con, &["PTTL", "k"]), 5);
    assert_eq!(text(&mut con, &["SET", "k", "y"]).as_deref(), Some("OK"));
    assert_eq!(int(&mut con, &["TTL", "k"]), -1);
    let at = (T0 / 1000 + 30).to_string();
    assert_eq!(
        text(&mut con, &["SET", "k", "z", "XX", "EXAT", &at]).as_deref(),
        Some("OK")
    );
    assert_eq!(int(&mut con, &["TTL", "k"]), 30);
    assert_eq!(text(&mut con, &["SET", "n", "z", "XX", "EX", "5"]), None);
    assert_eq!(
        text(
            &mut con,
            &["SET", "n", "z", "NX", "PXAT", &(T0 + 9).to_string()]
        )
        .as_deref(),
        Some("OK")
    );
    assert_eq!(int(&mut con, &["PTTL", "n"]), 9);
    for (words, command) in [
        (&["SET", "k", "v", "EX", "0"][..], "set"),
        (&["SET", "k", "v", "PX", "-5"], "set"),
        (&["SET", "k", "v", "EXAT", "9223372036854776"], "set"),
        (&["SETEX", "k", "0", "v"], "setex"),
        (&["PSETEX", "k", "-1", "v"], "psetex"),
        (&["GETEX", "k", "EX", "0"], "getex"),
    ] {
        assert_eq!(
            err(&mut con, words),
            format!("ERR invalid expire time in '{command}' command"),
            "{words:?}"
        );
    }
    for words in [
        &["SET", "k", "v", "EX", "10", "PX", "10"][..],
        &["SET", "k", "v", "KEEPTTL", "EX", "10"],
        &["SET", "k", "v", "EX"],
        &["GETEX", "k", "KEEPTTL"],
        &["GETEX", "k", "PERSIST", "EX", "1"],
    ] {
        assert_eq!(err(&mut con, words), "ERR syntax error", "{words:?}");
    }
    assert_eq!(int(&mut con, &["TTL", "k"]), 30);

    assert_eq!(
        text(&mut con, &["SETEX", "s", "60", "v"]).as_deref(),
        Some("OK")
    );
    assert_eq!(int(&mut con, &["TTL", "s"]), 60);
    assert_eq!(
        text(&mut con, &["PSETEX", "p", "60", "v"]).as_deref(),
        Some("OK")
    );
    assert_eq!(int(&mut con, &["PTTL", "p"]), 60);

    assert_eq!(
        text(&mut con, &["GETEX", "s", "PERSIST"]).as_deref(),
        Some("v")
    );
    assert_eq!(int(&mut con, &["TTL", "s"]), -1);
    assert_eq!(
        text(&mut con, &["GETEX", "s", "EX", "7"]).as_deref(),
        Some("v")
    );
    assert_eq!(int(&mut con, &["TTL", "s"]), 7);
    assert_eq!(text(&mut con, &["GETEX", "s"]).as_deref(), Some("v"));
    assert_eq!(int(&mut con, &["TTL", "s"]), 7);
    assert_eq!(text(&mut con, &["GETEX", "nosuch", "EX", "0"]), None);
    assert_eq!(
        text(&mut con, &["GETEX", "s", "EXAT", "1"]).as_deref(),
        Some("v")
    );
    assert_eq!(int(&mut con, &["EXISTS", "s"]), 0);

    clock.advance(60);
    assert_eq!(text(&mut con, &["GET", "p"]), None);
}

#[test]
fn changes_keep_the_expiry_and_whole_writes_clear_it() {
    let (server, _clock) = clocked_server();
    let mut con = server.client();
    for k in [
        "append", "incr", "incrby", "decr", "decrby", "getset", "mset", "set",
    ] {
        assert_eq!(
            text(&mut con, &["SET", k, "10", "EX", "100"]).as_deref(),
            Some("OK")
        );
    }
    assert_eq!(int(&mut con, &["APPEND", "append", "0"]), 3);
    assert_eq!(int(&mut con, &["INCR", "incr"]), 11);
    assert_eq!(int(&mut con, &["INCRBY", "incrby", "5"]), 15);
    assert_eq!(int(&mut con, &["DECR", "decr"]), 9);
    assert_eq!(int(&mut con, &["DECRBY", "decrby", "5"]), 5);
    assert_eq!(
        text(&mut con, &["GETSET", "getset", "x"]).as_deref(),
        Some("10")
    );
    let _: () = con.mset(&[("mset", "x"), ("other", "y")]).unwrap();
    let _: () = con.set("set", "x").unwrap();
    for (k, ttl) in [
        ("append", 100),
        ("incr", 100),
        ("incrby", 100),
        ("decr", 100),
        ("decrby", 100),
        ("getset", -1),
        ("mset", -1),
        ("set", -1),
        ("other", -1),
    ] {
        assert_eq!(int(&mut con, &["TTL", k]), ttl, "{k}");
    }
    assert_eq!(text(&mut con, &["GET", "append"]).as_deref(), Some("100"));
}

#[test]
fn expiry_survives_a_restart_and_info_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0 as u64);
    let start = |clock: &ManualClock| {
        let clock = clock.clone();
        TestServer::start_in(dir.path(), move |c| c.engine.clock = Arc::new(clock))
    };
    let server = start(&clock);
    let mut con = server.client();
    let _: () = con.mset(&[("a", "1"), ("b", "2"), ("c", "3")]).unwrap();
    assert_eq!(int(&mut con, &["EXPIRE", "a", "10"]), 1);
    assert_eq!(int(&mut con, &["PEXPIRE", "b", "20000"]), 1);
    let info: String = redis::cmd("INFO").arg("keyspace").query(&mut con).unwrap();
    assert!(info.contains("db0:keys=3,expires=2,avg_ttl=0"), "{info}");
    drop(con);
    server.stop().unwrap();

    let server = start(&clock);
    let mut con = server.client();
    assert_eq!(int(&mut con, &["PTTL", "a"]), 10_000);
    assert_eq!(int(&mut con, &["PTTL", "b"]), 20_000);
    assert_eq!(int(&mut con, &["TTL", "c"]), -1);
    clock.advance(10_000);
    assert_eq!(text(&mut con, &["GET", "a"]), None);
    let info: String = redis::cmd("INFO").arg("keyspace").query(&mut con).unwrap();
    assert!(info.contains("db0:keys=2,expires=1,avg_ttl=0"), "{info}");
}

#[test]
fn expiry_changes_lose_no_concurrent_increment() {
    const THREADS: usize = 3;
    const INCRS: usize = 300;
    let (server, _clock) = clocked_server();
    let mut con = server.client();
    let _: () = con.set("n", 0).unwrap();
    let incrementers: Vec<_> = (0..THREADS)
        .map(|_| {
            let mut con = server.client();
            std::thread::spawn(move || {
                for _ in 0..INCRS {
                    let _: i64 = con.incr("n", 1).unwrap();
                }
            })
        })
        .collect();
    // Each of these reads the value and rewrites it: without the key's lock, an increment
    // landing in between would be lost.
    let mut rounds = 0;
    while !incrementers.iter().all(|t| t.is_finished()) || rounds < 50 {
        assert_eq!(int(&mut con, &["EXPIRE", "n", "1000"]), 1);
        assert_eq!(int(&mut con, &["PERSIST", "n"]), 1);
        let _: Option<String> = redis::cmd("GETEX")
            .arg("n")
            .arg("PX")
            .arg(1_000_000)
            .query(&mut con)
            .unwrap();
        let _: Option<String> = redis::cmd("GETEX")
            .arg("n")
            .arg("PERSIST")
            .query(&mut con)
            .unwrap();
        rounds += 1;
    }
    for t in incrementers {
        t.join().unwrap();
    }
    assert_eq!(con.get::<_, i64>("n").unwrap(), (THREADS * INCRS) as i64);
    assert_eq!(int(&mut con, &["TTL", "n"]), -1);
}
