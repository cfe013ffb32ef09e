//! Connection commands through a real Redis client: RESP3 through HELLO 3, client names,
//! SELECT, COMMAND, the unknown-command reply, QUIT.

use crate::common;

use common::{TestServer, error_text};
use redis::{Commands, Value};

#[test]
fn ping_echo_select() {
    let server = TestServer::start();
    let mut con = server.client();
    assert_eq!(
        redis::cmd("PING").query::<String>(&mut con).unwrap(),
        "PONG"
    );
    assert_eq!(
        redis::cmd("PING")
            .arg("hi")
            .query::<String>(&mut con)
            .unwrap(),
        "hi"
    );
    assert_eq!(
        redis::cmd("ECHO")
            .arg("a b")
            .query::<String>(&mut con)
            .unwrap(),
        "a b"
    );
    let _: () = redis::cmd("SELECT").arg(0).query(&mut con).unwrap();
    let err = redis::cmd("SELECT")
        .arg(1)
        .query::<()>(&mut con)
        .unwrap_err();
    assert_eq!(error_text(&err), "ERR DB index is out of range");
}

#[test]
fn a_resp3_client_gets_resp3_replies() {
    let server = TestServer::start();
    let client = redis::Client::open(server.url("?protocol=resp3")).unwrap();
    let mut con = client.get_connection().unwrap();
    let _: () = con.set("k", "v").unwrap();
    assert_eq!(con.get::<_, String>("k").unwrap(), "v");
    // RESP3's null and map types arrive as such.
    let missing: Value = redis::cmd("GET").arg("missing").query(&mut con).unwrap();
    assert_eq!(missing, Value::Nil);
    let hello: Value = redis::cmd("HELLO").arg(3).query(&mut con).unwrap();
    let Value::Map(pairs) = hello else {
        panic!("HELLO 3 must reply with a map: {hello:?}")
    };
    assert!(pairs.contains(&(Value::BulkString(b"proto".to_vec()), Value::Int(3))));
}

#[test]
fn client_names_and_introspection() {
    let server = TestServer::start();
    let mut con = server.client();
    let _: () = redis::cmd("CLIENT")
        .arg("SETNAME")
        .arg("tester")
        .query(&mut con)
        .unwrap();
    let name: String = redis::cmd("CLIENT").arg("GETNAME").query(&mut con).unwrap();
    assert_eq!(name, "tester");
    let count: i64 = redis::cmd("COMMAND").arg("COUNT").query(&mut con).unwrap();
    assert!(count >= 25, "{count}");
    let all: Vec<Value> = redis::cmd("COMMAND").query(&mut con).unwrap();
    assert_eq!(all.len() as i64, count);
    let docs: Value = redis::cmd("COMMAND").arg("DOCS").query(&mut con).unwrap();
    assert!(
        matches!(docs, Value::Array(ref a) if a.is_empty())
            || matches!(docs, Value::Map(ref m) if m.is_empty())
    );
}

#[test]
fn unknown_commands_get_the_standard_reply() {
    let server = TestServer::start();
    let mut con = server.client();
    let err = redis::cmd("HSET")
        .arg("h")
        .arg("f")
        .arg("v")
        .query::<()>(&mut con)
        .unwrap_err();
    assert_eq!(
        error_text(&err),
        "ERR unknown command 'HSET', with args beginning with: 'h' 'f' 'v'"
    );
    assert_eq!(
        redis::cmd("PING").query::<String>(&mut con).unwrap(),
        "PONG"
    );
}

#[test]
fn quit_closes_the_connection_after_ok() {
    let server = TestServer::start();
    let mut raw = server.raw();
    let out = common::exchange(&mut raw, b"QUIT\r\nPING\r\n");
    assert_eq!(out, b"+OK\r\n");
}
