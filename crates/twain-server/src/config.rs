//! The server's options: [`ServeArgs`] as `twain serve` parses them, and the validated
//! [`Config`] the server runs with.

use crate::error::ServerError;
use crate::resp::Limits;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;
use twain::Options;

/// When writes are made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SyncMode {
    /// Every write is synced before it is acknowledged (`WriteOptions::synced()`);
    /// concurrent writers share syncs through the engine's group commit.
    Always,
    /// The value log is synced every `sync_interval` (1 s) when anything was written, like
    /// Redis's `appendfsync everysec`: a crash of the machine loses at most about that much.
    Batch,
    /// The operating system decides when written data reaches the disk.
    Never,
}

/// Where engine calls run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExecMode {
    /// A batch of pipelined requests that only reads (`GET`, `MGET`, `EXISTS`, `STRLEN`,
    /// `PING`, ...: the commands flagged fast and not write) runs on the runtime's own
    /// thread; any other batch runs on the blocking pool. Reads come from memory or the
    /// page cache and are served without a thread hand-off; writes, which may wait for a
    /// sync or a write stall, and slow commands (`SCAN`, `DBSIZE`, `FLUSHDB`, `INFO`)
    /// never hold up a runtime thread.
    Auto,
    /// Every batch on tokio's blocking thread pool (one hand-off per batch).
    Blocking,
    /// Every batch on the runtime's own threads: a slow call stalls every connection
    /// scheduled on that thread. For measurements.
    Inline,
}

/// The command line of `twain serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// The database directory (created if missing). On the command line it is the global
    /// `twain --db DIR` (default `./twain-db`), which the CLI copies here.
    #[arg(skip = PathBuf::from("twain-db"))]
    pub db: PathBuf,
    /// Address to listen on (`HOST:PORT`; port 0 picks a free one, printed at start).
    #[arg(long, default_value = "127.0.0.1:6380")]
    pub addr: String,
    /// When writes become durable: `always` syncs before every reply to a write, `batch`
    /// syncs once a second, `never` leaves it to the operating system.
    #[arg(long, value_enum, default_value_t = SyncMode::Batch)]
    pub sync: SyncMode,
    /// Require `AUTH <password>` (or `HELLO ... AUTH default <password>`) first.
    #[arg(long, value_name = "PASSWORD")]
    pub requirepass: Option<String>,
    /// Allow a non-loopback address without --requirepass.
    #[arg(long)]
    pub unprotected: bool,
    /// Most connections at once (1 to 1,000,000); more are answered with an error and
    /// closed.
    #[arg(long, default_value_t = 10_000)]
    pub max_clients: usize,
    /// Close a connection idle for this many seconds (0: never; at most 604,800, a week).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub timeout: u64,
    /// Drop a client whose request is not complete this many seconds after the previous
    /// one was (0: never; at most 86,400), however steadily its bytes trickle in.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub request_timeout: u64,
    /// Longest bulk string (key or value) in a request (1 byte to 64M); suffixes K, M, G.
    #[arg(long, value_name = "SIZE", default_value = "64M")]
    pub max_bulk: String,
    /// Most arguments in one request, the command name included (1 to 1,048,576).
    #[arg(long, default_value_t = 1 << 20)]
    pub max_args: usize,
    /// Largest request (all its arguments) a connection may buffer (1K to 4G); suffixes
    /// K, M, G.
    #[arg(long, value_name = "SIZE", default_value = "1G")]
    pub max_request: String,
    /// Most reply bytes held for one client (1M to 4G), like Redis's
    /// `client-output-buffer-limit`: a client whose pending replies would pass it is
    /// disconnected. Suffixes K, M, G.
    #[arg(long, value_name = "SIZE", default_value = "128M")]
    pub max_output: String,
    /// Runtime worker threads (1 to 1,024; default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Where engine calls run (see docs/server.md; for measurements).
    #[arg(long, value_enum, default_value_t = ExecMode::Auto)]
    pub exec: ExecMode,
    /// Engine options as `KEY=VALUE`. On the command line they are the global
    /// `twain --set KEY=VALUE`, which the CLI copies here.
    #[arg(skip)]
    pub set: Vec<String>,
}

/// Everything the server runs with. `Config::new(dir)` gives the defaults of `twain serve`
/// with an ephemeral loopback port, as tests want.
#[derive(Debug, Clone)]
pub struct Config {
    /// The database directory.
    pub db_dir: PathBuf,
    /// Engine options.
    pub engine: Options,
    /// Listen address.
    pub addr: String,
    /// Durability of writes.
    pub sync: SyncMode,
    /// How often `SyncMode::Batch` syncs.
    pub sync_interval: Duration,
    /// Password for `AUTH`, if any.
    pub requirepass: Option<String>,
    /// Allow a non-loopback address without a password.
    pub unprotected: bool,
    /// Most connections at once.
    pub max_clients: usize,
    /// Idle connections are closed after this long (`None`: never).
    pub timeout: Option<Duration>,
    /// Bounds on requests.
    pub limits: Limits,
    /// Largest request a connection may buffer, in bytes.
    pub max_request: usize,
    /// Most reply bytes held for one client at once; a client past it is disconnected.
    pub max_output: usize,
    /// Longest a request may take to arrive, from the completion of the previous one
    /// (`None`: no limit).
    pub request_timeout: Option<Duration>,
    /// Runtime worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// Where engine calls run.
    pub exec: ExecMode,
    /// How long shutdown waits for connections to finish their current command.
    pub shutdown_grace: Duration,
}

impl Config {
    /// The defaults of `twain serve` for database directory `db_dir`, listening on a free
    /// loopback port.
    pub fn new(db_dir: impl Into<PathBuf>) -> Config {
        Config {
            db_dir: db_dir.into(),
            engine: Options::default(),
            addr: "127.0.0.1:0".to_string(),
            sync: SyncMode::Batch,
            sync_interval: Duration::from_secs(1),
            requirepass: None,
            unprotected: false,
            max_clients: 10_000,
            timeout: Some(Duration::from_secs(300)),
            limits: Limits {
                max_bulk: twain::MAX_VALUE_SIZE,
                max_elements: 1 << 20,
                ..Limits::default()
            },
            max_request: 1 << 30,
            max_output: 128 << 20,
            request_timeout: Some(Duration::from_secs(60)),
            threads: None,
            exec: ExecMode::Auto,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// The accepted range of every numeric option, as docs/server.md lists them.
pub mod range {
    /// `--max-clients`.
    pub const MAX_CLIENTS: (u64, u64) = (1, 1_000_000);
    /// `--timeout`, in seconds (0: never).
    pub const TIMEOUT_SECS: (u64, u64) = (0, 604_800);
    /// `--request-timeout`, in seconds (0: never).
    pub const REQUEST_TIMEOUT_SECS: (u64, u64) = (0, 86_400);
    /// `--max-bulk`, in bytes: nothing longer can be stored.
    pub const MAX_BULK: (u64, u64) = (1, twain::MAX_VALUE_SIZE as u64);
    /// `--max-args`.
    pub const MAX_ARGS: (u64, u64) = (1, 1 << 20);
    /// `--max-request`, in bytes.
    pub const MAX_REQUEST: (u64, u64) = (1 << 10, 4 << 30);
    /// `--max-output`, in bytes.
    pub const MAX_OUTPUT: (u64, u64) = (1 << 20, 4 << 30);
    /// `--threads`.
    pub const THREADS: (u64, u64) = (1, 1024);
}

/// `value` if it lies in `range`, else a clear error naming the option.
fn in_range(name: &str, value: u64, (lo, hi): (u64, u64)) -> Result<u64, ServerError> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(ServerError::InvalidOption(format!(
            "--{name} {value} is out of range (must be {lo} to {hi})"
        )))
    }
}

/// A `usize` from a `u64` already checked against a range that fits (every range does on a
/// 64-bit target; a 32-bit one gets a clear error instead of a truncation).
fn to_usize(name: &str, value: u64) -> Result<usize, ServerError> {
    usize::try_from(value)
        .map_err(|_| ServerError::InvalidOption(format!("--{name} {value} is too large here")))
}

fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

impl Config {
    /// Checks every option against its documented range ([`range`]) and refuses an empty
    /// password. [`crate::Server::bind`] calls it.
    pub fn validate(&self) -> Result<(), ServerError> {
        if self.requirepass.as_deref() == Some("") {
            return Err(ServerError::InvalidOption(
                "--requirepass is empty: give a password (an unset variable in a script \
                 would otherwise leave the database open)"
                    .to_string(),
            ));
        }
        let longest = crate::request::UNAUTHENTICATED.resp.max_bulk;
        if self.requirepass.as_ref().is_some_and(|p| p.len() > longest) {
            return Err(ServerError::InvalidOption(format!(
                "--requirepass is longer than {longest} bytes, more than a client may send \
                 before it authenticates"
            )));
        }
        in_range("max-clients", as_u64(self.max_clients), range::MAX_CLIENTS)?;
        let secs = |d: Option<Duration>| d.map_or(0, |d| d.as_secs().max(1));
        in_range("timeout", secs(self.timeout), range::TIMEOUT_SECS)?;
        in_range(
            "request-timeout",
            secs(self.request_timeout),
            range::REQUEST_TIMEOUT_SECS,
        )?;
        in_range("max-bulk", as_u64(self.limits.max_bulk), range::MAX_BULK)?;
        in_range(
            "max-args",
            as_u64(self.limits.max_elements),
            range::MAX_ARGS,
        )?;
        in_range("max-request", as_u64(self.max_request), range::MAX_REQUEST)?;
        in_range("max-output", as_u64(self.max_output), range::MAX_OUTPUT)?;
        if let Some(t) = self.threads {
            in_range("threads", as_u64(t), range::THREADS)?;
        }
        Ok(())
    }
}

impl ServeArgs {
    /// Checks the arguments and builds the configuration.
    pub fn to_config(&self) -> Result<Config, ServerError> {
        let size = |name: &str, s: &str, range: (u64, u64)| {
            let n = twain::parse_size(s)
                .map_err(|_| ServerError::InvalidOption(format!("--{name} {s:?} is not a size")))?;
            to_usize(name, in_range(name, n, range)?)
        };
        let count = |name: &str, n: usize, range: (u64, u64)| {
            to_usize(name, in_range(name, as_u64(n), range)?)
        };
        let secs = |name: &str, n: u64, range: (u64, u64)| {
            Ok::<_, ServerError>((in_range(name, n, range)? > 0).then(|| Duration::from_secs(n)))
        };
        // The server keeps a LOG file in the database directory unless told otherwise
        // (`--set info_log=false`).
        let mut engine = Options::default().info_log(true);
        for s in &self.set {
            let (k, v) = s.split_once('=').ok_or_else(|| {
                ServerError::InvalidOption(format!("--set {s:?}: expected KEY=VALUE"))
            })?;
            engine.set(k.trim(), v.trim())?;
        }
        let mut config = Config::new(&self.db);
        config.engine = engine;
        config.addr.clone_from(&self.addr);
        config.sync = self.sync;
        config.requirepass.clone_from(&self.requirepass);
        config.unprotected = self.unprotected;
        config.max_clients = count("max-clients", self.max_clients, range::MAX_CLIENTS)?;
        config.timeout = secs("timeout", self.timeout, range::TIMEOUT_SECS)?;
        config.request_timeout = secs(
            "request-timeout",
            self.request_timeout,
            range::REQUEST_TIMEOUT_SECS,
        )?;
        config.limits.max_bulk = size("max-bulk", &self.max_bulk, range::MAX_BULK)?;
        config.limits.max_elements = count("max-args", self.max_args, range::MAX_ARGS)?;
        config.max_request = size("max-request", &self.max_request, range::MAX_REQUEST)?;
        config.max_output = size("max-output", &self.max_output, range::MAX_OUTPUT)?;
        config.threads = self
            .threads
            .map(|t| count("threads", t, range::THREADS))
            .transpose()?;
        config.exec = self.exec;
        config.validate()?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn parse(args: &[&str]) -> Result<Config, ServerError> {
        let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))
            .map_err(|e| ServerError::InvalidOption(e.to_string()))?;
        cli.serve.to_config()
    }

    #[test]
    fn defaults_are_loopback_and_a_local_directory() {
        let c = parse(&[]).unwrap();
        assert_eq!(c.addr, "127.0.0.1:6380");
        assert_eq!(c.db_dir, PathBuf::from("twain-db"));
        assert_eq!(c.sync, SyncMode::Batch);
        assert_eq!(c.timeout, Some(Duration::from_secs(300)));
        assert_eq!(c.limits.max_bulk, 64 << 20);
        assert_eq!(c.exec, ExecMode::Auto);
        assert!(c.engine.info_log, "the server keeps a LOG file");
        let mut args = Cli::try_parse_from(["serve"]).unwrap().serve;
        args.set = vec!["info_log=false".into()];
        assert!(!args.to_config().unwrap().engine.info_log);
    }

    #[test]
    fn options_are_checked() {
        let c = parse(&["--timeout", "0", "--max-bulk", "1K", "--sync", "always"]).unwrap();
        assert_eq!(c.timeout, None);
        assert_eq!(c.limits.max_bulk, 1024);
        assert_eq!(c.sync, SyncMode::Always);
        assert!(parse(&["--max-bulk", "lots"]).is_err());
        assert!(parse(&["--max-clients", "0"]).is_err());
        let with_sets = |sets: &[&str]| {
            let mut cli = Cli::try_parse_from(["serve"]).map_err(|e| e.to_string())?;
            cli.serve.set = sets.iter().map(|s| s.to_string()).collect();
            cli.serve.to_config().map_err(|e| e.to_string())
        };
        assert!(with_sets(&["memtable_size"]).is_err());
        assert!(with_sets(&["no_such_option=1"]).is_err());
        assert_eq!(
            with_sets(&["memtable_size=1M"])
                .unwrap()
                .engine
                .memtable_size,
            1 << 20
        );
    }
}
