//! Issue 19, finding 5: `--requirepass ""` satisfied the check that a non-loopback address
//! has a password, and `AUTH ""` then granted everything, so an unset variable in a
//! deployment script exposed the database. An empty password is now refused at start, and
//! an empty `AUTH` never authenticates.

use crate::common;

use clap::Parser;
use common::{TestServer, ask};
use twain_server::{Config, ServeArgs, Server, ServerError};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

#[test]
fn an_empty_requirepass_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    for addr in ["127.0.0.1:0", "0.0.0.0:0"] {
        let mut config = Config::new(dir.path());
        config.addr = addr.to_string();
        config.requirepass = Some(String::new());
        match Server::bind(config) {
            Err(ServerError::InvalidOption(msg)) => assert!(msg.contains("--requirepass"), "{msg}"),
            other => panic!("{addr}: {other:?}"),
        }
    }
    let cli = Cli::try_parse_from(["serve", "--requirepass", ""]).unwrap();
    let err = cli.serve.to_config().unwrap_err().to_string();
    assert!(err.contains("--requirepass is empty"), "{err}");
}

#[test]
fn an_empty_auth_never_authenticates() {
    let server = TestServer::start_with(|c| c.requirepass = Some("pw".into()));
    let mut raw = server.raw();
    let wrong = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n";
    assert_eq!(ask(&mut raw, b"AUTH \"\"\r\n", wrong.len()), wrong);
    assert_eq!(ask(&mut raw, b"AUTH default \"\"\r\n", wrong.len()), wrong);
    let noauth = b"-NOAUTH Authentication required.\r\n";
    assert_eq!(ask(&mut raw, b"GET k\r\n", noauth.len()), noauth);
    let hello = ask(&mut raw, b"HELLO 3 AUTH default \"\"\r\n", wrong.len());
    assert_eq!(hello, wrong);
}
