//! [`Shared`]: what every connection of a server shares — the store, the configuration,
//! the counters `INFO` reports. Thread-safe (behind an `Arc`).

use crate::config::Config;
use crate::store::Store;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// The state shared by every connection. Thread-safe.
#[derive(Debug)]
pub struct Shared {
    /// The database.
    pub store: Store,
    /// The server's configuration.
    pub config: Config,
    /// Counters for `INFO`.
    pub counters: Counters,
    /// When the server started.
    pub started: Instant,
    /// The address it listens on.
    pub local_addr: SocketAddr,
}

/// Server-wide counters. Thread-safe; relaxed atomics (they are statistics).
#[derive(Debug, Default)]
pub struct Counters {
    /// Connections open now.
    pub connected: AtomicUsize,
    /// Connections accepted since start, rejected ones included.
    pub connections_received: AtomicU64,
    /// Connections refused because `max_clients` were open.
    pub rejected: AtomicU64,
    /// Commands run.
    pub commands: AtomicU64,
    /// Connections closed for a protocol error.
    pub protocol_errors: AtomicU64,
    /// Syncs of the value log by `--sync batch`'s periodic task.
    pub periodic_syncs: AtomicU64,
    /// Connections closed because a reply would pass `--max-output`.
    pub output_limit_closes: AtomicU64,
    /// Connections closed because a request passed `--request-timeout`.
    pub request_timeouts: AtomicU64,

    next_id: AtomicU64,
}

impl Counters {
    /// A new connection id (1, 2, ...).
    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Adds `n` to a counter.
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}
