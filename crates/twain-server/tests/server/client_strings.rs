//! String commands through a real Redis client (the `redis` crate): every reply decodes as
//! a client expects, values are binary-safe, and engine limits come back as error replies.

use crate::common;

use common::{TestServer, error_text};
use redis::Commands;

#[test]
fn set_get_and_conditional_sets() {
    let server = TestServer::start();
    let mut con = server.client();
    let _: () = con.set("k", "v1").unwrap();
    assert_eq!(
        con.get::<_, Option<String>>("k").unwrap().as_deref(),
        Some("v1")
    );
    assert_eq!(con.get::<_, Option<String>>("missing").unwrap(), None);
    let nx: Option<String> = redis::cmd("SET")
        .arg("k")
        .arg("v2")
        .arg("NX")
        .query(&mut con)
        .unwrap();
    assert_eq!(nx, None);
    let xx: Option<String> = redis::cmd("SET")
        .arg("k")
        .arg("v3")
        .arg("XX")
        .query(&mut con)
        .unwrap();
    assert_eq!(xx.as_deref(), Some("OK"));
    let old: Option<String> = redis::cmd("SET")
        .arg("k")
        .arg("v4")
        .arg("GET")
        .query(&mut con)
        .unwrap();
    assert_eq!(old.as_deref(), Some("v3"));
    assert!(!con.set_nx::<_, _, bool>("k", "x").unwrap());
    assert!(con.set_nx::<_, _, bool>("fresh", "x").unwrap());
    assert_eq!(con.getset::<_, _, String>("k", "v5").unwrap(), "v4");
    assert_eq!(con.get::<_, String>("k").unwrap(), "v5");
}

#[test]
fn a_set_with_an_expiry_expires_in_real_time() {
    let server = TestServer::start();
    let mut con = server.client();
    let ok: String = redis::cmd("SET")
        .arg("k")
        .arg("v")
        .arg("PX")
        .arg(50)
        .query(&mut con)
        .unwrap();
    assert_eq!(ok, "OK");
    let ttl: i64 = redis::cmd("PTTL").arg("k").query(&mut con).unwrap();
    assert!((0..=50).contains(&ttl), "{ttl}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(con.get::<_, Option<String>>("k").unwrap(), None);
    let err = redis::cmd("SET")
        .arg("k")
        .arg("v")
        .arg("EX")
        .arg(0)
        .query::<()>(&mut con)
        .unwrap_err();
    assert_eq!(error_text(&err), "ERR invalid expire time in 'set' command");
}

#[test]
fn mset_mget_and_counters() {
    let server = TestServer::start();
    let mut con = server.client();
    let _: () = con.mset(&[("a", "1"), ("b", "2")]).unwrap();
    let got: Vec<Option<String>> = con.mget(&["a", "nope", "b"]).unwrap();
    assert_eq!(got, [Some("1".into()), None, Some("2".into())]);
    assert_eq!(con.incr::<_, _, i64>("a", 1).unwrap(), 2);
    assert_eq!(con.incr::<_, _, i64>("a", 40).unwrap(), 42);
    assert_eq!(con.decr::<_, _, i64>("a", 50).unwrap(), -8);
    assert_eq!(
        redis::cmd("DECR").arg("a").query::<i64>(&mut con).unwrap(),
        -9
    );
    let err = con.incr::<_, _, i64>("nothing-numeric", "x").unwrap_err();
    assert!(
        error_text(&err).starts_with("ERR value is not an integer"),
        "{err}"
    );
    let _: () = con.set("text", "abc").unwrap();
    let err = con.incr::<_, _, i64>("text", 1).unwrap_err();
    assert!(
        error_text(&err).starts_with("ERR value is not an integer"),
        "{err}"
    );
}

#[test]
fn append_and_strlen() {
    let server = TestServer::start();
    let mut con = server.client();
    assert_eq!(con.append::<_, _, i64>("s", "hello").unwrap(), 5);
    assert_eq!(con.append::<_, _, i64>("s", " world").unwrap(), 11);
    assert_eq!(con.strlen::<_, i64>("s").unwrap(), 11);
    assert_eq!(con.strlen::<_, i64>("none").unwrap(), 0);
    assert_eq!(con.get::<_, String>("s").unwrap(), "hello world");
}

#[test]
fn keys_and_values_are_binary_safe() {
    let server = TestServer::start();
    let mut con = server.client();
    let key: Vec<u8> = (0..=255u8).collect();
    let value: Vec<u8> = b"\r\n\0$5\r\n*1\r\n"
        .iter()
        .copied()
        .cycle()
        .take(3000)
        .collect();
    let _: () = con.set(&key, &value).unwrap();
    assert_eq!(con.get::<_, Vec<u8>>(&key).unwrap(), value);
    let big = vec![7u8; 2 << 20];
    let _: () = con.set("big", &big).unwrap();
    assert_eq!(con.get::<_, Vec<u8>>("big").unwrap(), big);
    let _: () = con.set("", "empty key").unwrap();
    assert_eq!(con.get::<_, String>("").unwrap(), "empty key");
}

#[test]
fn engine_limits_are_error_replies_and_the_connection_lives_on() {
    let server = TestServer::start();
    let mut con = server.client();
    let long_key = vec![b'k'; twain::MAX_KEY_SIZE + 1];
    let err = con.set::<_, _, ()>(&long_key, "v").unwrap_err();
    assert!(
        err.to_string()
            .contains("key of 65537 bytes exceeds the limit"),
        "{err}"
    );
    let err = con.append::<_, _, i64>(&long_key, "v").unwrap_err();
    assert!(err.to_string().contains("exceeds the limit"), "{err}");
    assert_eq!(
        redis::cmd("PING").query::<String>(&mut con).unwrap(),
        "PONG"
    );
}
