//! Connection and server commands: `PING`, `ECHO`, `HELLO`, `AUTH`, `QUIT`, `SELECT`,
//! `CLIENT`, `COMMAND`, `CONFIG GET`. None touches the database.

use super::{COMMANDS, Ctx, Spec, err_not_integer, err_subcommand, err_syntax, is, lookup};
use crate::config::SyncMode;
use crate::glob::Glob;
use crate::resp::{Frame, Protocol, parse_i64};

/// `PING [message]`.
pub fn ping(_ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match args {
        [_] => Frame::Simple("PONG".to_string()),
        [_, msg] => Frame::Bulk(msg.clone()),
        _ => super::err_arity("ping"),
    }
}

/// `ECHO message`.
pub fn echo(_ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    Frame::Bulk(args[1].clone())
}

/// Compares a password in time independent of where it differs.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// Checks a user name and password against `--requirepass` (the only user is `default`).
fn check_credentials(ctx: &mut Ctx<'_>, user: &[u8], password: &[u8]) -> Frame {
    let Some(expected) = &ctx.shared.config.requirepass else {
        return Frame::error(
            "ERR AUTH <password> called without any password configured for the default \
             user. Are you sure your configuration is correct?",
        );
    };
    // An empty password never authenticates, whatever the configuration says.
    let valid = !password.is_empty() && !expected.is_empty();
    if valid && user == b"default" && same_secret(password, expected.as_bytes()) {
        ctx.session.authenticated = true;
        Frame::ok()
    } else {
        Frame::error("WRONGPASS invalid username-password pair or user is disabled.")
    }
}

/// `AUTH [username] password`.
pub fn auth(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match args {
        [_, password] => check_credentials(ctx, b"default", password),
        [_, user, password] => check_credentials(ctx, user, password),
        _ => err_syntax(),
    }
}

/// `HELLO [protover [AUTH username password] [SETNAME name]]`: authenticates, picks the
/// protocol and names the connection, all or nothing; replies with facts about the server.
pub fn hello(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let mut protocol = ctx.session.protocol;
    let mut credentials = None;
    let mut name = None;
    if let Some(version) = args.get(1) {
        protocol = match parse_i64(version) {
            Some(2) => Protocol::Resp2,
            Some(3) => Protocol::Resp3,
            Some(_) => return Frame::error("NOPROTO unsupported protocol version"),
            None => return Frame::error("ERR Protocol version is not an integer or out of range"),
        };
    }
    let mut i = 2;
    while let Some(opt) = args.get(i) {
        match (args.get(i + 1), args.get(i + 2)) {
            (Some(user), Some(password)) if is(opt, "AUTH") => {
                credentials = Some((user, password));
                i += 3;
            }
            (Some(n), _) if is(opt, "SETNAME") => {
                if let Err(reply) = valid_name(n) {
                    return reply;
                }
                name = Some(n.clone());
                i += 2;
            }
            _ => {
                return Frame::error(format!(
                    "ERR Syntax error in HELLO option '{}'",
                    String::from_utf8_lossy(opt)
                ));
            }
        }
    }
    if let Some((user, password)) = credentials {
        let reply = check_credentials(ctx, user, password);
        if matches!(reply, Frame::Error(_)) {
            return reply;
        }
    }
    if !ctx.session.authenticated {
        return Frame::error(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise \
             the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the \
             client and select the RESP protocol version at the same time",
        );
    }
    ctx.session.protocol = protocol;
    if name.is_some() {
        ctx.session.name = name;
    }
    let text = |s: &str| Frame::bulk(s.as_bytes());
    let proto = match protocol {
        Protocol::Resp2 => 2,
        Protocol::Resp3 => 3,
    };
    Frame::Map(vec![
        (text("server"), text("twain")),
        (text("version"), text(env!("CARGO_PKG_VERSION"))),
        (text("proto"), Frame::Integer(proto)),
        (
            text("id"),
            Frame::Integer(i64::try_from(ctx.session.id).unwrap_or(i64::MAX)),
        ),
        (text("mode"), text("standalone")),
        (text("role"), text("master")),
        (text("modules"), Frame::Array(Vec::new())),
    ])
}

/// `QUIT`: `+OK`, then the connection closes.
pub fn quit(ctx: &mut Ctx<'_>, _args: &[Vec<u8>]) -> Frame {
    ctx.session.closing = true;
    Frame::ok()
}

/// `SELECT index`: there is one database, 0.
pub fn select(_ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match parse_i64(&args[1]) {
        Some(0) => Frame::ok(),
        Some(_) => Frame::error("ERR DB index is out of range"),
        None => err_not_integer(),
    }
}

/// A client name may not hold spaces or control characters, as in Redis.
fn valid_name(name: &[u8]) -> Result<(), Frame> {
    if name.iter().all(|&b| (b'!'..=b'~').contains(&b)) {
        Ok(())
    } else {
        Err(Frame::error(
            "ERR Client names cannot contain spaces, newlines or special characters.",
        ))
    }
}

/// `CLIENT SETNAME name | GETNAME | ID | SETINFO attr value`.
pub fn client(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let sub = &args[1];
    match args.get(2..).unwrap_or_default() {
        [name] if is(sub, "SETNAME") => match valid_name(name) {
            Ok(()) => {
                ctx.session.name = (!name.is_empty()).then(|| name.clone());
                Frame::ok()
            }
            Err(reply) => reply,
        },
        [] if is(sub, "GETNAME") => ctx.session.name.clone().map_or(Frame::Null, Frame::Bulk),
        [] if is(sub, "ID") => Frame::Integer(i64::try_from(ctx.session.id).unwrap_or(i64::MAX)),
        // Client libraries announce themselves (LIB-NAME, LIB-VER); nothing keeps it.
        [_, _] if is(sub, "SETINFO") => Frame::ok(),
        _ if ["SETNAME", "GETNAME", "ID", "SETINFO"]
            .iter()
            .any(|w| is(sub, w)) =>
        {
            super::err_arity(&format!(
                "client|{}",
                String::from_utf8_lossy(sub).to_lowercase()
            ))
        }
        _ => err_subcommand(sub, "client"),
    }
}

/// One command as `COMMAND` and `COMMAND INFO` describe it (Redis 7's ten fields).
fn describe(spec: &Spec) -> Frame {
    let flags = spec
        .flags
        .iter()
        .map(|f| Frame::Simple((*f).to_string()))
        .collect();
    let (first, last, step) = spec.keys;
    Frame::Array(vec![
        Frame::bulk(spec.name.as_bytes()),
        Frame::Integer(spec.arity),
        Frame::Set(flags),
        Frame::Integer(first),
        Frame::Integer(last),
        Frame::Integer(step),
        Frame::Set(Vec::new()),
        Frame::Array(Vec::new()),
        Frame::Array(Vec::new()),
        Frame::Array(Vec::new()),
    ])
}

/// `COMMAND`, `COMMAND COUNT`, `COMMAND INFO name...`, `COMMAND LIST`, `COMMAND DOCS`
/// (an empty map: no documentation is served).
pub fn command(_ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(sub) = args.get(1) else {
        return Frame::Array(COMMANDS.iter().map(describe).collect());
    };
    let rest = args.get(2..).unwrap_or_default();
    if is(sub, "COUNT") && rest.is_empty() {
        Frame::Integer(i64::try_from(COMMANDS.len()).unwrap_or(i64::MAX))
    } else if is(sub, "INFO") {
        Frame::Array(
            rest.iter()
                .map(|name| lookup(name).map_or(Frame::Null, describe))
                .collect(),
        )
    } else if is(sub, "LIST") && rest.is_empty() {
        Frame::Array(
            COMMANDS
                .iter()
                .map(|s| Frame::bulk(s.name.as_bytes()))
                .collect(),
        )
    } else if is(sub, "DOCS") {
        Frame::Map(Vec::new())
    } else {
        err_subcommand(sub, "command")
    }
}

/// `CONFIG GET pattern...`: a few read-only parameters, so that tools which ask (such as
/// `redis-benchmark`) get sensible answers. Nothing can be set.
pub fn config(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let sub = &args[1];
    if !is(sub, "GET") {
        return err_subcommand(sub, "config");
    }
    let patterns = args.get(2..).unwrap_or_default();
    if patterns.is_empty() {
        return super::err_arity("config|get");
    }
    let c = &ctx.shared.config;
    let params = [
        (
            "appendonly",
            if c.sync == SyncMode::Never {
                "no"
            } else {
                "yes"
            }
            .to_string(),
        ),
        (
            "appendfsync",
            match c.sync {
                SyncMode::Always => "always",
                SyncMode::Batch => "everysec",
                SyncMode::Never => "no",
            }
            .to_string(),
        ),
        ("save", String::new()),
        ("databases", "1".to_string()),
        ("maxclients", c.max_clients.to_string()),
        ("timeout", c.timeout.map_or(0, |t| t.as_secs()).to_string()),
        ("proto-max-bulk-len", c.limits.max_bulk.to_string()),
    ];
    let globs: Vec<Glob> = patterns
        .iter()
        .map(|p| Glob::new(&p.to_ascii_lowercase()))
        .collect();
    Frame::Map(
        params
            .into_iter()
            .filter(|(name, _)| globs.iter().any(|g| g.matches(name.as_bytes())))
            .map(|(name, value)| {
                (
                    Frame::bulk(name.as_bytes()),
                    Frame::bulk(value.into_bytes()),
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::config::Config;

    fn with_password() -> Conn {
        let mut config = Config::new("/db");
        config.requirepass = Some("secret".into());
        Conn::with(config)
    }

    #[test]
    fn ping_and_echo() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["PING"]), Frame::Simple("PONG".into()));
        assert_eq!(c.run(&["PING", "hi"]), bulk("hi"));
        assert!(is_err(&c.run(&["PING", "a", "b"]), "ERR wrong number"));
        assert_eq!(c.run(&["ECHO", "x y"]), bulk("x y"));
    }

    #[test]
    fn auth_gates_commands() {
        let mut c = with_password();
        assert!(is_err(&c.run(&["SET", "k", "v"]), "NOAUTH"));
        assert!(is_err(&c.run(&["AUTH", "wrong"]), "WRONGPASS"));
        assert!(is_err(&c.run(&["AUTH", "admin", "secret"]), "WRONGPASS"));
        assert_eq!(c.run(&["AUTH", "secret"]), Frame::ok());
        assert_eq!(c.run(&["SET", "k", "v"]), Frame::ok());
        assert_eq!(c.run(&["AUTH", "default", "secret"]), Frame::ok());
    }

    #[test]
    fn auth_without_a_password_configured_is_an_error() {
        let mut c = Conn::new();
        assert!(is_err(
            &c.run(&["AUTH", "x"]),
            "ERR AUTH <password> called without"
        ));
    }

    #[test]
    fn hello_switches_protocol_and_can_authenticate() {
        let mut c = with_password();
        assert!(is_err(
            &c.run(&["HELLO", "3"]),
            "NOAUTH HELLO must be called"
        ));
        assert_eq!(c.session.protocol, Protocol::Resp2);
        assert!(is_err(
            &c.run(&["HELLO", "3", "AUTH", "default", "no"]),
            "WRONGPASS"
        ));
        let Frame::Map(pairs) =
            c.run(&["HELLO", "3", "AUTH", "default", "secret", "SETNAME", "me"])
        else {
            panic!("HELLO must reply with a map")
        };
        assert!(pairs.contains(&(bulk("proto"), Frame::Integer(3))));
        assert!(pairs.contains(&(bulk("server"), bulk("twain"))));
        assert_eq!(c.session.protocol, Protocol::Resp3);
        assert!(c.session.authenticated);
        assert_eq!(c.run(&["CLIENT", "GETNAME"]), bulk("me"));
        assert!(is_err(&c.run(&["HELLO", "4"]), "NOPROTO"));
        assert!(is_err(&c.run(&["HELLO", "x"]), "ERR Protocol version"));
        assert!(is_err(
            &c.run(&["HELLO", "2", "FOO"]),
            "ERR Syntax error in HELLO"
        ));
        assert_eq!(c.session.protocol, Protocol::Resp3);
        assert!(matches!(c.run(&["HELLO"]), Frame::Map(_)));
        assert!(matches!(c.run(&["HELLO", "2"]), Frame::Map(_)));
        assert_eq!(c.session.protocol, Protocol::Resp2);
    }

    #[test]
    fn select_only_zero() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["SELECT", "0"]), Frame::ok());
        assert!(is_err(
            &c.run(&["SELECT", "1"]),
            "ERR DB index is out of range"
        ));
        assert!(is_err(
            &c.run(&["SELECT", "x"]),
            "ERR value is not an integer"
        ));
    }

    #[test]
    fn quit_marks_the_session_closing() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["QUIT"]), Frame::ok());
        assert!(c.session.closing);
    }

    #[test]
    fn client_names() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["CLIENT", "GETNAME"]), Frame::Null);
        assert_eq!(c.run(&["CLIENT", "SETNAME", "worker-1"]), Frame::ok());
        assert_eq!(c.run(&["client", "getname"]), bulk("worker-1"));
        assert!(is_err(
            &c.run(&["CLIENT", "SETNAME", "a b"]),
            "ERR Client names"
        ));
        assert_eq!(
            c.run(&["CLIENT", "SETINFO", "LIB-NAME", "redis-py"]),
            Frame::ok()
        );
        assert_eq!(c.run(&["CLIENT", "ID"]), Frame::Integer(1));
        assert!(is_err(
            &c.run(&["CLIENT", "KILL", "x"]),
            "ERR unknown subcommand 'KILL'"
        ));
        assert!(is_err(
            &c.run(&["CLIENT", "GETNAME", "x"]),
            "ERR wrong number"
        ));
        assert_eq!(c.run(&["CLIENT", "SETNAME", ""]), Frame::ok());
        assert_eq!(c.run(&["CLIENT", "GETNAME"]), Frame::Null);
    }

    #[test]
    fn command_introspection() {
        let mut c = Conn::new();
        let count = COMMANDS.len() as i64;
        assert_eq!(c.run(&["COMMAND", "COUNT"]), Frame::Integer(count));
        let Frame::Array(all) = c.run(&["COMMAND"]) else {
            panic!()
        };
        assert_eq!(all.len() as i64, count);
        let Frame::Array(info) = c.run(&["COMMAND", "INFO", "get", "nope"]) else {
            panic!()
        };
        let Frame::Array(get) = &info[0] else {
            panic!()
        };
        assert_eq!(get[..2], [bulk("get"), Frame::Integer(2)]);
        assert_eq!(info[1], Frame::Null);
        assert_eq!(c.run(&["COMMAND", "DOCS"]), Frame::Map(Vec::new()));
        assert!(is_err(
            &c.run(&["COMMAND", "FOO"]),
            "ERR unknown subcommand"
        ));
    }

    #[test]
    fn config_get_answers_a_few_parameters() {
        let mut c = Conn::new();
        assert_eq!(
            c.run(&["CONFIG", "GET", "save"]),
            Frame::Map(vec![(bulk("save"), bulk(""))])
        );
        let Frame::Map(append) = c.run(&["CONFIG", "GET", "append*"]) else {
            panic!()
        };
        assert_eq!(append.len(), 2);
        assert_eq!(c.run(&["CONFIG", "GET", "nothing"]), Frame::Map(Vec::new()));
        assert!(is_err(
            &c.run(&["CONFIG", "SET", "save", ""]),
            "ERR unknown subcommand"
        ));
    }
}
