//! [`Server`]: binds the listen address (refusing a non-loopback one without a password),
//! opens the database, accepts connections up to `max_clients`, syncs the log once a
//! second in [`SyncMode::Batch`], and on shutdown (SIGINT, SIGTERM or a
//! [`ShutdownHandle`]) stops accepting, lets every connection finish its current batch,
//! then flushes and closes the database.

use crate::config::{Config, SyncMode};
use crate::connection;
use crate::error::ServerError;
use crate::shared::{Counters, Shared};
use crate::store::Store;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use twain::Db;

/// A bound, not yet running server. Owns the database until [`Server::run`] closes it.
#[derive(Debug)]
pub struct Server {
    shared: Arc<Shared>,
    listener: std::net::TcpListener,
    shutdown: Arc<watch::Sender<bool>>,
}

/// Asks a running server to shut down. Cheap to clone; thread-safe.
#[derive(Debug, Clone)]
pub struct ShutdownHandle(Arc<watch::Sender<bool>>);

impl ShutdownHandle {
    /// Starts the shutdown; [`Server::run`] returns once it is complete.
    pub fn shutdown(&self) {
        self.0.send_replace(true);
    }
}

impl Server {
    /// Checks the address, binds it and opens the database.
    pub fn bind(config: Config) -> Result<Server, ServerError> {
        config.validate()?;
        let resolve_err = |source| ServerError::Resolve {
            addr: config.addr.clone(),
            source,
        };
        let addrs: Vec<SocketAddr> = config
            .addr
            .to_socket_addrs()
            .map_err(resolve_err)?
            .collect();
        if addrs.is_empty() {
            return Err(resolve_err(std::io::ErrorKind::NotFound.into()));
        }
        let exposed = addrs.iter().any(|a| !a.ip().is_loopback());
        if exposed && config.requirepass.is_none() && !config.unprotected {
            return Err(ServerError::Unprotected { addr: config.addr });
        }
        let bind_err = |source| ServerError::Bind {
            addr: config.addr.clone(),
            source,
        };
        let listener = std::net::TcpListener::bind(addrs.as_slice()).map_err(bind_err)?;
        listener.set_nonblocking(true).map_err(bind_err)?;
        let local_addr = listener.local_addr().map_err(bind_err)?;
        let db = Db::open(&config.db_dir, config.engine.clone())?;
        let shared = Shared {
            store: Store::new(db, config.sync),
            config,
            counters: Counters::default(),
            started: Instant::now(),
            local_addr,
        };
        Ok(Server {
            shared: Arc::new(shared),
            listener,
            shutdown: Arc::new(watch::channel(false).0),
        })
    }

    /// The address the server listens on (with the port chosen, if 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.shared.local_addr
    }

    /// A handle that shuts the server down.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(Arc::clone(&self.shutdown))
    }

    /// Serves until shut down — by a [`ShutdownHandle`], or by SIGINT or SIGTERM when
    /// `handle_signals` — then flushes and closes the database.
    pub fn run(self, handle_signals: bool) -> Result<(), ServerError> {
        let config = &self.shared.config;
        let grace = config.shutdown_grace;
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.enable_all().thread_name("twain-serve");
        if let Some(threads) = config.threads {
            builder.worker_threads(threads);
        }
        let runtime = builder.build().map_err(ServerError::Runtime)?;
        let Server {
            shared,
            listener,
            shutdown,
        } = self;
        let served = runtime.block_on(serve(
            Arc::clone(&shared),
            listener,
            shutdown,
            handle_signals,
        ));
        // Waits for engine calls still running on the blocking pool.
        runtime.shutdown_timeout(grace);
        let closed = close(shared, grace);
        served.and(closed)
    }
}

/// Accepts connections until shutdown, then waits for them to finish.
async fn serve(
    shared: Arc<Shared>,
    listener: std::net::TcpListener,
    shutdown: Arc<watch::Sender<bool>>,
    handle_signals: bool,
) -> Result<(), ServerError> {
    let listener = TcpListener::from_std(listener).map_err(ServerError::Runtime)?;
    if handle_signals {
        watch_signals(Arc::clone(&shutdown))?;
    }
    let mut stop = shutdown.subscribe();
    let syncer = (shared.config.sync == SyncMode::Batch)
        .then(|| tokio::spawn(sync_periodically(Arc::clone(&shared), shutdown.subscribe())));
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => admit(&shared, stream, &mut connections, &shutdown),
                Err(e) => {
                    // Typically out of file descriptors: wait for some to be closed.
                    crate::log!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = stop.changed() => break,
        }
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let grace = shared.config.shutdown_grace;
    let drained = tokio::time::timeout(grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        crate::log!("closing connections still busy after {grace:?}");
        connections.shutdown().await;
    }
    if let Some(syncer) = syncer {
        let _ = syncer.await;
    }
    Ok(())
}

/// Starts serving `stream`, or refuses it when `max_clients` are connected.
fn admit(
    shared: &Arc<Shared>,
    mut stream: TcpStream,
    connections: &mut JoinSet<()>,
    shutdown: &watch::Sender<bool>,
) {
    let counters = &shared.counters;
    Counters::add(&counters.connections_received, 1);
    if counters.connected.fetch_add(1, Ordering::Relaxed) >= shared.config.max_clients {
        counters.connected.fetch_sub(1, Ordering::Relaxed);
        Counters::add(&counters.rejected, 1);
        tokio::spawn(async move {
            let _ = stream
                .write_all(b"-ERR max number of clients reached\r\n")
                .await;
        });
        return;
    }
    // Replies are written whole; waiting to coalesce them only adds latency.
    let _ = stream.set_nodelay(true);
    connections.spawn(connection::serve(
        Arc::clone(shared),
        stream,
        shutdown.subscribe(),
    ));
}

/// Shuts the server down on the first SIGINT or SIGTERM.
fn watch_signals(shutdown: Arc<watch::Sender<bool>>) -> Result<(), ServerError> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).map_err(ServerError::Runtime)?;
    let mut int = signal(SignalKind::interrupt()).map_err(ServerError::Runtime)?;
    tokio::spawn(async move {
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        crate::log!("{name} received, shutting down");
        shutdown.send_replace(true);
    });
    Ok(())
}

/// [`SyncMode::Batch`]: syncs the value log every `sync_interval` if anything was written.
async fn sync_periodically(shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(shared.config.sync_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        let s = Arc::clone(&shared);
        match tokio::task::spawn_blocking(move || s.store.sync_if_dirty()).await {
            Ok(Ok(true)) => Counters::add(&shared.counters.periodic_syncs, 1),
            Ok(Err(e)) => crate::log!("periodic sync failed: {e}"),
            _ => {}
        }
    }
}

/// Flushes and closes the database once nothing else holds it.
fn close(mut shared: Arc<Shared>, grace: Duration) -> Result<(), ServerError> {
    let deadline = Instant::now() + grace;
    let shared = loop {
        match Arc::try_unwrap(shared) {
            Ok(s) => break s,
            Err(still_shared) if Instant::now() >= deadline => {
                still_shared.store.db().sync()?;
                return Err(ServerError::Shutdown(
                    "engine calls still running; the log is synced, the database not closed"
                        .to_string(),
                ));
            }
            Err(still_shared) => {
                shared = still_shared;
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    };
    let db = shared.store.into_db();
    if db.read_only().is_some() {
        // Opened read-only (e.g. a read-only mount): there is nothing to flush or sync.
        drop(db);
        return Ok(());
    }
    db.flush()?;
    db.close()?;
    Ok(())
}
