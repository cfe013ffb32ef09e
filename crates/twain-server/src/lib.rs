//! `twain serve`: a Redis-protocol (RESP2 and RESP3) server over the twain engine.
//!
//! Clients speak to it as to Redis: strings (`GET`, `SET`, `INCR`, `MSET`, ...), key expiry
//! (`EXPIRE`, `TTL`, `SET ... EX`, ...), `SCAN`, `DEL`, `INFO` and the connection commands,
//! pipelined, from many connections at once.
//! `docs/server.md` lists every command and its limits. The layers:
//!
//! - [`resp`] holds frames, their encoder and parsers (no I/O); [`request`] reads requests
//!   from a connection's bytes in one pass;
//! - [`commands`] the command table and one module per family of commands, run against a
//!   [`store::Store`] (the engine plus striped key locks) for one [`session::Session`];
//! - [`exec`] runs a batch of pipelined requests in steps, with blind writes coalesced and
//!   `MGET` streamed, into an [`output::Output`] that is written out every 64 KiB;
//! - [`connection`] and [`server`] deal with sockets, limits, durability ticks and shutdown;
//!   [`mod@log`] writes their log lines, ignoring a stderr that cannot be written;
//! - [`config`] holds the options.
//!
//! ```no_run
//! use twain_server::{Config, Server};
//! let server = Server::bind(Config::new("/tmp/twain-db"))?;
//! println!("listening on {}", server.local_addr());
//! server.run(true)?; // until SIGINT or SIGTERM
//! # Ok::<(), twain_server::ServerError>(())
//! ```
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod commands;
pub mod config;
pub mod connection;
pub mod cursor;
mod error;
pub mod exec;
pub mod glob;
pub mod locks;
pub mod log;
pub mod output;
pub mod request;
pub mod resp;
pub mod server;
pub mod session;
pub mod shared;
pub mod store;

pub use config::{Config, ExecMode, ServeArgs, SyncMode};
pub use error::ServerError;
pub use server::{Server, ShutdownHandle};

use std::io::Write;

/// Runs `twain serve`: binds, prints `twain serve: listening on ADDR` (a line scripts wait
/// for), serves until SIGINT or SIGTERM, then flushes and closes the database.
pub fn serve(args: &ServeArgs) -> Result<(), ServerError> {
    let config = args.to_config()?;
    let (dir, sync) = (config.db_dir.clone(), config.sync);
    let server = Server::bind(config)?;
    let mut stdout = std::io::stdout();
    let _ = writeln!(
        stdout,
        "twain serve: listening on {}, database {}, sync {}",
        server.local_addr(),
        dir.display(),
        format!("{sync:?}").to_lowercase()
    );
    let _ = stdout.flush();
    server.run(true)?;
    let _ = writeln!(stdout, "twain serve: database flushed and closed");
    Ok(())
}
