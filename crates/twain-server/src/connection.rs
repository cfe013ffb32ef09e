//! One client connection: reads requests, runs each batch of pipelined requests (on the
//! runtime thread or the blocking pool, see [`ExecMode`]), writes the replies. A protocol error is
//! answered with `-ERR Protocol error: ...` and closes the connection; so does a request
//! larger than `max_request`. A connection idle for `timeout`, or whose client does not
//! take its replies within `timeout`, is closed; at shutdown a connection finishes the
//! batch it is running and closes.

use crate::commands;
use crate::config::ExecMode;
use crate::exec::run_batch;
use crate::resp::{Frame, Request, encode, parse_request};
use crate::session::Session;
use crate::shared::{Counters, Shared};
use std::io;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

/// Bytes read from the socket at a time (at least).
const READ_CHUNK: usize = 16 << 10;

/// Most requests run as one batch.
const MAX_BATCH: usize = 1024;

/// Buffers that grew beyond this are shrunk back after use.
const KEEP_CAPACITY: usize = 1 << 20;

/// Decrements the count of open connections when the connection ends.
struct Open<'a>(&'a Shared);

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.counters.connected.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What was parsed from the input buffer.
struct Parsed {
    requests: Vec<Request>,
    /// Why the connection must close after the requests run.
    error: Option<String>,
    /// Whether complete requests may remain in the buffer (the batch was full).
    more: bool,
}

/// Serves one connection until the client leaves, misbehaves, idles out or the server
/// shuts down. REQUIRES: the caller counted it in `counters.connected`.
pub async fn serve(
    shared: Arc<Shared>,
    mut stream: TcpStream,
    mut shutdown: watch::Receiver<bool>,
) {
    let _open = Open(&shared);
    let id = shared.counters.next_id();
    let mut session = Session::new(id, shared.config.requirepass.is_some());
    let mut input = Vec::with_capacity(READ_CHUNK);
    let mut out = Vec::with_capacity(READ_CHUNK);
    loop {
        let parsed = parse_batch(&shared, &mut input);
        if !parsed.requests.is_empty() {
            match execute(&shared, session, parsed.requests, out).await {
                Some((s, o)) => (session, out) = (s, o),
                // The batch panicked: a bug, reported by the runtime; drop the client.
                None => return,
            }
        }
        if let Some(msg) = parsed.error {
            Counters::add(&shared.counters.protocol_errors, 1);
            encode(
                &Frame::error(format!("ERR Protocol error: {msg}")),
                session.protocol,
                &mut out,
            );
            session.closing = true;
        }
        if !out.is_empty() {
            if write_all(&mut stream, &out, shared.config.timeout)
                .await
                .is_err()
            {
                return;
            }
            out.clear();
            out.shrink_to(KEEP_CAPACITY);
        }
        if session.closing || *shutdown.borrow() {
            break;
        }
        if parsed.more {
            continue;
        }
        input.shrink_to(KEEP_CAPACITY.max(input.len()));
        input.reserve(READ_CHUNK);
        let read = tokio::select! {
            r = read_some(&mut stream, &mut input, shared.config.timeout) => r,
            _ = shutdown.changed() => break,
        };
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
    let _ = stream.shutdown().await;
}

/// Reads what is available into `input`; fails with `TimedOut` after `timeout` idle.
async fn read_some(
    stream: &mut TcpStream,
    input: &mut Vec<u8>,
    timeout: Option<Duration>,
) -> io::Result<usize> {
    match timeout {
        None => stream.read_buf(input).await,
        Some(t) => tokio::time::timeout(t, stream.read_buf(input))
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into())),
    }
}

/// Writes `out` whole; fails with `TimedOut` if the client has not taken it after
/// `timeout` (a client that stops reading its replies is dropped like an idle one).
async fn write_all(
    stream: &mut TcpStream,
    out: &[u8],
    timeout: Option<Duration>,
) -> io::Result<()> {
    match timeout {
        None => stream.write_all(out).await,
        Some(t) => tokio::time::timeout(t, stream.write_all(out))
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into())),
    }
}

/// Takes the complete requests (up to a batch) from the front of `input`.
fn parse_batch(shared: &Shared, input: &mut Vec<u8>) -> Parsed {
    let config = &shared.config;
    let mut parsed = Parsed {
        requests: Vec::new(),
        error: None,
        more: false,
    };
    let mut used = 0;
    while parsed.requests.len() < MAX_BATCH {
        match parse_request(input.get(used..).unwrap_or_default(), &config.limits) {
            Ok(Some((request, n))) => {
                used += n;
                parsed.requests.push(request);
            }
            Ok(None) => break,
            Err(e) => {
                parsed.error = Some(e.to_string());
                break;
            }
        }
    }
    input.drain(..used);
    parsed.more = parsed.requests.len() == MAX_BATCH;
    if parsed.error.is_none() && !parsed.more && input.len() > config.max_request {
        parsed.error = Some(format!(
            "request larger than {} bytes (--max-request)",
            config.max_request
        ));
    }
    parsed
}

/// Runs a batch where [`ExecMode`] says; `None` if it panicked.
async fn execute(
    shared: &Arc<Shared>,
    mut session: Session,
    requests: Vec<Request>,
    mut out: Vec<u8>,
) -> Option<(Session, Vec<u8>)> {
    let inline = match shared.config.exec {
        ExecMode::Inline => true,
        ExecMode::Blocking => false,
        ExecMode::Auto => requests.iter().all(|r| commands::is_quick_read(r)),
    };
    if inline {
        run_batch(shared, &mut session, &requests, &mut out);
        return Some((session, out));
    }
    let shared = Arc::clone(shared);
    tokio::task::spawn_blocking(move || {
        run_batch(&shared, &mut session, &requests, &mut out);
        (session, out)
    })
    .await
    .ok()
}
