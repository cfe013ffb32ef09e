//! The commands. One table ([`COMMANDS`]) names every command with its arity, flags and
//! key positions: dispatch, the arity check, authentication and `COMMAND` all read it. The
//! handlers live in one module per family: `connection`, `strings`, `expiry`, `keyspace`,
//! `info`.

mod connection;
mod expiry;
mod info;
mod keyspace;
mod strings;

pub use strings::write_pairs;

use crate::resp::{Frame, parse_i64};
use crate::session::Session;
use crate::shared::Shared;

/// What a handler runs with: the server's shared state and its connection's session.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// The server's shared state.
    pub shared: &'a Shared,
    /// The connection's state.
    pub session: &'a mut Session,
}

/// A command's implementation: gets the whole request (name first) with its arity
/// already checked, returns the reply.
pub type Handler = fn(&mut Ctx<'_>, &[Vec<u8>]) -> Frame;

/// One command.
#[derive(Debug)]
pub struct Spec {
    /// Lower-case name.
    pub name: &'static str,
    /// Redis's convention: `n` exactly n arguments (the name included), `-n` at least n.
    pub arity: i64,
    /// Redis's command flags; `no_auth` commands run before authentication.
    pub flags: &'static [&'static str],
    /// Positions of the first and last key argument and the step between keys (`-1` as
    /// last: the last argument), as `COMMAND` reports them.
    pub keys: (i64, i64, i64),
    /// The implementation.
    pub handler: Handler,
}

const READ: &[&str] = &["readonly", "fast"];
const WRITE: &[&str] = &["write", "denyoom"];
const WRITE_FAST: &[&str] = &["write", "denyoom", "fast"];
/// Writes that add no data (Redis's `EXPIRE`, `PERSIST`, `GETEX`).
const WRITE_FAST_NO_OOM: &[&str] = &["write", "fast"];
const NO_AUTH: &[&str] = &["noscript", "loading", "stale", "fast", "no_auth"];
const CONN: &[&str] = &["noscript", "loading", "stale", "fast"];

macro_rules! spec {
    ($name:literal, $arity:expr, $flags:expr, $keys:expr, $handler:path) => {
        Spec {
            name: $name,
            arity: $arity,
            flags: $flags,
            keys: $keys,
            handler: $handler,
        }
    };
}

/// Every command the server knows, the most frequent first (lookup is a linear scan).
pub static COMMANDS: &[Spec] = &[
    spec!("get", 2, READ, (1, 1, 1), strings::get),
    spec!("set", -3, WRITE, (1, 1, 1), strings::set),
    spec!("mget", -2, READ, (1, -1, 1), strings::mget),
    spec!("mset", -3, WRITE, (1, -1, 2), strings::mset),
    spec!("incr", 2, WRITE_FAST, (1, 1, 1), strings::incr),
    spec!("incrby", 3, WRITE_FAST, (1, 1, 1), strings::incrby),
    spec!("decr", 2, WRITE_FAST, (1, 1, 1), strings::decr),
    spec!("decrby", 3, WRITE_FAST, (1, 1, 1), strings::decrby),
    spec!("del", -2, &["write"], (1, -1, 1), keyspace::del),
    spec!("exists", -2, READ, (1, -1, 1), keyspace::exists),
    spec!("setnx", 3, WRITE_FAST, (1, 1, 1), strings::setnx),
    spec!("getset", 3, WRITE_FAST, (1, 1, 1), strings::getset),
    spec!("append", 3, WRITE_FAST, (1, 1, 1), strings::append),
    spec!("strlen", 2, READ, (1, 1, 1), strings::strlen),
    spec!("setex", 4, WRITE, (1, 1, 1), strings::setex),
    spec!("psetex", 4, WRITE, (1, 1, 1), strings::psetex),
    spec!("getex", -2, WRITE_FAST_NO_OOM, (1, 1, 1), strings::getex),
    spec!("expire", -3, WRITE_FAST_NO_OOM, (1, 1, 1), expiry::expire),
    spec!("pexpire", -3, WRITE_FAST_NO_OOM, (1, 1, 1), expiry::pexpire),
    spec!(
        "expireat",
        -3,
        WRITE_FAST_NO_OOM,
        (1, 1, 1),
        expiry::expireat
    ),
    spec!(
        "pexpireat",
        -3,
        WRITE_FAST_NO_OOM,
        (1, 1, 1),
        expiry::pexpireat
    ),
    spec!("ttl", 2, READ, (1, 1, 1), expiry::ttl),
    spec!("pttl", 2, READ, (1, 1, 1), expiry::pttl),
    spec!("expiretime", 2, READ, (1, 1, 1), expiry::expiretime),
    spec!("pexpiretime", 2, READ, (1, 1, 1), expiry::pexpiretime),
    spec!("persist", 2, WRITE_FAST_NO_OOM, (1, 1, 1), expiry::persist),
    spec!("touch", -2, READ, (1, -1, 1), keyspace::touch),
    spec!("type", 2, READ, (1, 1, 1), keyspace::key_type),
    spec!("scan", -2, &["readonly"], (0, 0, 0), keyspace::scan),
    spec!("keys", 2, &["readonly"], (0, 0, 0), keyspace::keys),
    spec!(
        "randomkey",
        1,
        &["readonly"],
        (0, 0, 0),
        keyspace::random_key
    ),
    spec!("dbsize", 1, &["readonly"], (0, 0, 0), keyspace::dbsize),
    spec!("flushdb", -1, &["write"], (0, 0, 0), keyspace::flushdb),
    spec!("flushall", -1, &["write"], (0, 0, 0), keyspace::flushdb),
    spec!("ping", -1, &["fast"], (0, 0, 0), connection::ping),
    spec!("echo", 2, &["fast"], (0, 0, 0), connection::echo),
    spec!("hello", -1, NO_AUTH, (0, 0, 0), connection::hello),
    spec!("auth", -2, NO_AUTH, (0, 0, 0), connection::auth),
    spec!("quit", -1, NO_AUTH, (0, 0, 0), connection::quit),
    spec!("select", 2, CONN, (0, 0, 0), connection::select),
    spec!("client", -2, CONN, (0, 0, 0), connection::client),
    spec!(
        "command",
        -1,
        &["loading", "stale"],
        (0, 0, 0),
        connection::command
    ),
    spec!(
        "config",
        -2,
        &["loading", "stale"],
        (0, 0, 0),
        connection::config
    ),
    spec!("info", -1, &["loading", "stale"], (0, 0, 0), info::info),
];

/// The command named `name`, in any case.
pub fn lookup(name: &[u8]) -> Option<&'static Spec> {
    COMMANDS
        .iter()
        .find(|s| s.name.len() == name.len() && s.name.as_bytes().eq_ignore_ascii_case(name))
}

/// Whether `request` only reads and is quick: its command is flagged `fast` and not
/// `write` (an unknown command, answered with an error, counts as quick).
pub fn is_quick_read(request: &[Vec<u8>]) -> bool {
    request
        .first()
        .and_then(|name| lookup(name))
        .is_none_or(|s| s.flags.contains(&"fast") && !s.flags.contains(&"write"))
}

/// Runs one request (REQUIRES: not empty) as Redis does: an unknown command, then a wrong
/// number of arguments, then a missing authentication is refused, in that order.
pub fn execute(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let Some(name) = args.first() else {
        return Frame::error("ERR empty command");
    };
    let Some(spec) = lookup(name) else {
        return unknown_command(args);
    };
    if !arity_ok(spec.arity, args.len()) {
        return err_arity(spec.name);
    }
    if !ctx.session.authenticated && !spec.flags.contains(&"no_auth") {
        return Frame::error("NOAUTH Authentication required.");
    }
    (spec.handler)(ctx, args)
}

fn arity_ok(arity: i64, n: usize) -> bool {
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    if arity >= 0 { n == arity } else { n >= -arity }
}

/// Whether `arg` is `word`, ignoring ASCII case.
pub fn is(arg: &[u8], word: &str) -> bool {
    arg.eq_ignore_ascii_case(word.as_bytes())
}

/// Text of a client-supplied argument for an error message, cut to `max` bytes.
fn shown(arg: &[u8], max: usize) -> String {
    String::from_utf8_lossy(arg.get(..max.min(arg.len())).unwrap_or_default()).into_owned()
}

/// `-ERR syntax error`.
pub fn err_syntax() -> Frame {
    Frame::error("ERR syntax error")
}

/// The reply to an argument that should be an integer and is not.
pub fn err_not_integer() -> Frame {
    Frame::error("ERR value is not an integer or out of range")
}

/// The reply to a wrong number of arguments.
pub fn err_arity(name: &str) -> Frame {
    Frame::error(format!(
        "ERR wrong number of arguments for '{name}' command"
    ))
}

/// The reply to an unknown subcommand of `command`.
pub fn err_subcommand(sub: &[u8], command: &str) -> Frame {
    Frame::error(format!(
        "ERR unknown subcommand '{}'. Try {} HELP.",
        shown(sub, 128),
        command.to_ascii_uppercase()
    ))
}

/// The reply to a failed engine call: the engine's message under `ERR`, or `MISCONF`
/// when the database refuses writes after an I/O failure.
pub fn err_engine(e: &twain::Error) -> Frame {
    match e {
        twain::Error::InvalidArgument(msg) => Frame::error(format!("ERR {msg}")),
        twain::Error::ReadOnly(_) => Frame::error(format!("MISCONF {e}")),
        _ => Frame::error(format!("ERR {e}")),
    }
}

/// An integer argument, or the error reply.
pub fn int_arg(arg: &[u8]) -> Result<i64, Frame> {
    parse_i64(arg).ok_or_else(err_not_integer)
}

/// Redis's reply to an unknown command: the name and the start of the arguments, each
/// quoted, about 128 bytes of them at most.
fn unknown_command(args: &[Vec<u8>]) -> Frame {
    let name = args.first().map(|n| shown(n, 128)).unwrap_or_default();
    let mut listed = String::new();
    for arg in args.iter().skip(1) {
        if listed.len() >= 128 {
            break;
        }
        listed.push_str(&format!("'{}' ", shown(arg, 128 - listed.len())));
    }
    Frame::error(format!(
        "ERR unknown command '{name}', with args beginning with: {listed}"
    ))
}

#[cfg(test)]
pub(crate) mod testing {
    //! A store on an in-memory file system, and a way to run commands against it.

    use super::*;
    use crate::config::{Config, SyncMode};
    use crate::resp::{Protocol, encode, parse_frame};
    use crate::shared::Counters;
    use crate::store::Store;
    use std::sync::Arc;

    /// A server's shared state over a fresh in-memory database.
    pub fn shared_with(config: Config) -> Shared {
        let engine = config.engine.clone().fs(Arc::new(twain::fs::MemFs::new()));
        let db = twain::Db::open("/db", engine).unwrap();
        Shared {
            store: Store::new(db, SyncMode::Never),
            config,
            counters: Counters::default(),
            started: std::time::Instant::now(),
            local_addr: "127.0.0.1:6380".parse().unwrap(),
        }
    }

    /// The time a [`Conn::clocked`] starts at, in milliseconds since the Unix epoch
    /// (2023-11-14T22:13:20Z).
    pub const T0: u64 = 1_700_000_000_000;

    /// A test connection: runs commands given as words.
    pub struct Conn {
        /// The shared state.
        pub shared: Shared,
        /// The session.
        pub session: Session,
    }

    impl Conn {
        /// A connection to a fresh database with default options.
        pub fn new() -> Conn {
            Conn::with(Config::new("/db"))
        }

        /// A connection to a fresh database whose expiry clock is the one returned, set
        /// at [`T0`].
        pub fn clocked() -> (Conn, twain::ManualClock) {
            let clock = twain::ManualClock::new(T0);
            let mut config = Config::new("/db");
            config.engine.clock = Arc::new(clock.clone());
            (Conn::with(config), clock)
        }

        /// A connection to a fresh database with `config`.
        pub fn with(config: Config) -> Conn {
            let required = config.requirepass.is_some();
            Conn {
                shared: shared_with(config),
                session: Session::new(1, required),
            }
        }

        /// Runs a command.
        pub fn run(&mut self, words: &[&str]) -> Frame {
            let args: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
            self.run_args(&args)
        }

        /// Runs a command given as byte strings.
        pub fn run_args(&mut self, args: &[Vec<u8>]) -> Frame {
            let mut ctx = Ctx {
                shared: &self.shared,
                session: &mut self.session,
            };
            let reply = execute(&mut ctx, args);
            // Every reply must survive the wire in both protocols.
            for proto in [Protocol::Resp2, Protocol::Resp3] {
                let mut out = Vec::new();
                encode(&reply, proto, &mut out);
                let (_, used) = parse_frame(&out, &Default::default()).unwrap().unwrap();
                assert_eq!(used, out.len());
            }
            reply
        }
    }

    /// A bulk string frame.
    pub fn bulk(s: &str) -> Frame {
        Frame::bulk(s.as_bytes())
    }

    /// Whether `f` is an error starting with `prefix`.
    pub fn is_err(f: &Frame, prefix: &str) -> bool {
        matches!(f, Frame::Error(e) if e.starts_with(prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn unknown_commands_quote_their_arguments() {
        let mut c = Conn::new();
        assert_eq!(
            c.run(&["NOPE", "a", "b c"]),
            Frame::error("ERR unknown command 'NOPE', with args beginning with: 'a' 'b c' ")
        );
        let long = "x".repeat(300);
        let Frame::Error(e) = c.run(&["nope", &long, "y"]) else {
            panic!("not an error")
        };
        assert!(e.len() < 300, "{e}");
    }

    #[test]
    fn arity_is_checked_before_authentication() {
        let mut config = crate::config::Config::new("/db");
        config.requirepass = Some("pw".into());
        let mut c = Conn::with(config);
        assert_eq!(c.run(&["get"]), err_arity("get"));
        assert!(is_err(&c.run(&["get", "k"]), "NOAUTH"));
        assert!(is_err(&c.run(&["ping"]), "NOAUTH"));
        assert!(is_err(&c.run(&["bogus"]), "ERR unknown command"));
    }

    #[test]
    fn names_are_case_insensitive() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["PiNg"]), Frame::Simple("PONG".into()));
        assert!(lookup(b"GET").is_some());
        assert!(lookup(b"GETX").is_none());
    }

    #[test]
    fn only_reads_that_take_no_time_are_quick() {
        let quick = |words: &[&str]| {
            let req: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
            is_quick_read(&req)
        };
        assert!(quick(&["GET", "k"]) && quick(&["mget", "a", "b"]) && quick(&["PING"]));
        assert!(quick(&["NOSUCH"]) && quick(&["TTL", "k"]) && quick(&["PEXPIRETIME", "k"]));
        for slow in [
            "SET", "INCR", "DEL", "SCAN", "DBSIZE", "FLUSHDB", "INFO", "EXPIRE",
        ] {
            assert!(!quick(&[slow]), "{slow}");
        }
    }

    #[test]
    fn every_command_is_listed_once() {
        for (i, s) in COMMANDS.iter().enumerate() {
            assert_eq!(s.name, s.name.to_ascii_lowercase());
            assert!(COMMANDS.iter().skip(i + 1).all(|o| o.name != s.name));
        }
    }
}
