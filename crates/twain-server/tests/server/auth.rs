//! `--requirepass`: nothing but AUTH, HELLO and QUIT runs before authentication; clients
//! authenticate with AUTH or HELLO AUTH; a non-loopback address needs a password or
//! `--unprotected`.

use crate::common;

use common::{TestServer, ask};
use redis::Commands;
use twain_server::{Config, Server, ServerError};

fn protected() -> TestServer {
    TestServer::start_with(|c| c.requirepass = Some("s3cret".into()))
}

#[test]
fn commands_before_auth_are_refused() {
    let server = protected();
    let mut raw = server.raw();
    let noauth = b"-NOAUTH Authentication required.\r\n";
    assert_eq!(ask(&mut raw, b"GET k\r\n", noauth.len()), noauth);
    assert_eq!(ask(&mut raw, b"PING\r\n", noauth.len()), noauth);
    let wrong = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n";
    assert_eq!(ask(&mut raw, b"AUTH nope\r\n", wrong.len()), wrong);
    assert_eq!(ask(&mut raw, b"AUTH s3cret\r\n", 5), b"+OK\r\n");
    assert_eq!(ask(&mut raw, b"PING\r\n", 7), b"+PONG\r\n");
}

#[test]
fn clients_authenticate_through_the_url() {
    let server = protected();
    let url = format!("redis://:s3cret@{}/", server.addr);
    let mut con = redis::Client::open(url).unwrap().get_connection().unwrap();
    let _: () = con.set("k", "v").unwrap();
    assert_eq!(con.get::<_, String>("k").unwrap(), "v");

    let resp3 = format!("redis://default:s3cret@{}/?protocol=resp3", server.addr);
    let mut con = redis::Client::open(resp3)
        .unwrap()
        .get_connection()
        .unwrap();
    assert_eq!(con.get::<_, String>("k").unwrap(), "v");

    let bad = format!("redis://:wrong@{}/", server.addr);
    let Err(err) = redis::Client::open(bad).unwrap().get_connection() else {
        panic!("a wrong password must fail")
    };
    assert_eq!(err.kind(), redis::ErrorKind::AuthenticationFailed, "{err}");
}

#[test]
fn hello_without_credentials_is_refused_before_auth() {
    let server = protected();
    let mut raw = server.raw();
    let out = ask(&mut raw, b"HELLO 3\r\n", 8);
    assert_eq!(out, b"-NOAUTH ");
}

#[test]
fn a_public_address_needs_a_password_or_unprotected() {
    let dir = tempfile::tempdir().unwrap();
    let public = |adjust: fn(&mut Config)| {
        let mut c = Config::new(dir.path());
        c.addr = "0.0.0.0:0".to_string();
        adjust(&mut c);
        Server::bind(c)
    };
    let err = public(|_| {}).unwrap_err();
    assert!(matches!(err, ServerError::Unprotected { .. }), "{err}");
    assert!(err.to_string().contains("--unprotected"));
    // Each bound server holds the database; drop it before the next.
    drop(public(|c| c.unprotected = true).unwrap());
    drop(public(|c| c.requirepass = Some("pw".into())).unwrap());
}
