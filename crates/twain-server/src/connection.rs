//! One client connection: reads requests (with a [`RequestReader`], in one pass however
//! the bytes arrive), runs each batch of pipelined requests in steps (on the runtime
//! thread or the blocking pool, see [`ExecMode`]), and writes the replies out whenever
//! [`Output::should_flush`] says so, so they never pile up.
//!
//! A connection is closed, after `-ERR ...` where it can be told:
//! - on a protocol error, or a request larger than `max_request`;
//! - before authentication (with `--requirepass`), on a request past the small bounds of
//!   [`UNAUTHENTICATED`] (requests are then read one at a time, so the bounds change as
//!   soon as `AUTH` succeeds);
//! - when a request is still incomplete `request_timeout` after the previous one
//!   completed (or its first byte arrived), however steadily its bytes trickle in;
//! - when a reply would take the held output past `max_output` (logged);
//! - when idle for `timeout`, or when its client does not take its replies within `timeout`;
//! - at shutdown, once the batch it is running is done.

use crate::config::ExecMode;
use crate::exec::{Batch, run_batch};
use crate::output::Output;
use crate::request::{RequestLimits, RequestReader, UNAUTHENTICATED};
use crate::resp::{Frame, ProtocolError, Request};
use crate::session::Session;
use crate::shared::{Counters, Shared};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

/// Bytes read from the socket at a time (at least).
const READ_CHUNK: usize = 16 << 10;

/// Most requests run as one batch.
const MAX_BATCH: usize = 1024;

/// The input buffer keeps at most this capacity between reads.
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

/// Why a read ended without bytes.
enum ReadEnd {
    /// The client closed, the socket failed or the connection idled out.
    Gone,
    /// The request in progress passed its deadline.
    Deadline,
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
    let config = &shared.config;
    let mut session = Session::new(id, config.requirepass.is_some());
    let mut reader = RequestReader::new();
    let mut input = Vec::with_capacity(READ_CHUNK);
    let mut out = Output::new(config.max_output);
    // When the request in progress must be complete.
    let mut deadline: Option<Instant> = None;
    loop {
        let parsed = parse_batch(&shared, &mut reader, &mut input, session.authenticated);
        if !parsed.requests.is_empty() {
            deadline = None;
            let mut batch = Batch::new(parsed.requests);
            loop {
                match execute(&shared, session, batch, out).await {
                    Some(step) => (session, batch, out) = step,
                    // The batch panicked: a bug, reported by the runtime; drop the client.
                    None => return,
                }
                if out.over_limit() {
                    Counters::add(&shared.counters.output_limit_closes, 1);
                    let peer = stream
                        .peer_addr()
                        .map(|a| a.to_string())
                        .unwrap_or_default();
                    crate::log!(
                        "client {id} ({peer}) closed: a reply would hold more than {} bytes \
                         (--max-output)",
                        out.limit()
                    );
                    return;
                }
                if batch.is_done() {
                    break;
                }
                if out.write_to(&mut stream, config.timeout).await.is_err() {
                    return;
                }
            }
        }
        if let Some(msg) = parsed.error {
            Counters::add(&shared.counters.protocol_errors, 1);
            out.frame(
                Frame::error(format!("ERR Protocol error: {msg}")),
                session.protocol,
            );
            session.closing = true;
        }
        if !out.is_empty() && out.write_to(&mut stream, config.timeout).await.is_err() {
            return;
        }
        if session.closing || *shutdown.borrow() {
            break;
        }
        if parsed.more {
            continue;
        }
        let pending = reader.in_request() || !input.is_empty();
        deadline = match (pending, deadline, config.request_timeout) {
            (false, _, _) | (_, _, None) => None,
            (true, Some(d), _) => Some(d),
            (true, None, Some(limit)) => Some(Instant::now() + limit),
        };
        input.shrink_to(KEEP_CAPACITY.max(input.len()));
        input.reserve(READ_CHUNK);
        let read = tokio::select! {
            r = read_some(&mut stream, &mut input, config.timeout, deadline) => r,
            _ = shutdown.changed() => break,
        };
        match read {
            Ok(()) => {}
            Err(ReadEnd::Gone) => return,
            Err(ReadEnd::Deadline) => {
                Counters::add(&shared.counters.request_timeouts, 1);
                let limit = config.request_timeout.unwrap_or_default();
                out.frame(
                    Frame::error(format!(
                        "ERR request not complete within {limit:?} (--request-timeout)"
                    )),
                    session.protocol,
                );
                let _ = out.write_to(&mut stream, config.timeout).await;
                break;
            }
        }
    }
    let _ = stream.shutdown().await;
}

/// Reads what is available into `input`, waiting at most `idle` and never past
/// `deadline`.
async fn read_some(
    stream: &mut TcpStream,
    input: &mut Vec<u8>,
    idle: Option<Duration>,
    deadline: Option<Instant>,
) -> Result<(), ReadEnd> {
    let now = Instant::now();
    let by_deadline = deadline.map(|d| d.saturating_duration_since(now));
    let (wait, end) = match (idle, by_deadline) {
        (Some(i), Some(d)) if d <= i => (Some(d), ReadEnd::Deadline),
        (None, Some(d)) => (Some(d), ReadEnd::Deadline),
        (i, _) => (i, ReadEnd::Gone),
    };
    let read = match wait {
        None => stream.read_buf(input).await,
        Some(t) => match tokio::time::timeout(t, stream.read_buf(input)).await {
            Ok(r) => r,
            Err(_) => return Err(end),
        },
    };
    match read {
        Ok(0) | Err(_) => Err(ReadEnd::Gone),
        Ok(_) => Ok(()),
    }
}

/// Takes the complete requests (up to a batch; one before authentication) from `input`,
/// consuming what they used and what `reader` took of an incomplete one.
fn parse_batch(
    shared: &Shared,
    reader: &mut RequestReader,
    input: &mut Vec<u8>,
    authenticated: bool,
) -> Parsed {
    let config = &shared.config;
    let (limits, max_batch) = if authenticated {
        let limits = RequestLimits {
            resp: config.limits,
            max_request: config.max_request,
        };
        (limits, MAX_BATCH)
    } else {
        (UNAUTHENTICATED, 1)
    };
    let mut parsed = Parsed {
        requests: Vec::new(),
        error: None,
        more: false,
    };
    let mut used = 0;
    while parsed.requests.len() < max_batch {
        match reader.next(input.get(used..).unwrap_or_default(), &limits) {
            Ok((n, request)) => {
                used += n;
                match request {
                    Some(r) => parsed.requests.push(r),
                    None => break,
                }
            }
            Err(e) => {
                parsed.error = Some(describe(&e, authenticated));
                break;
            }
        }
    }
    input.drain(..used);
    parsed.more = parsed.error.is_none() && parsed.requests.len() == max_batch;
    parsed
}

/// The text of a protocol error, naming the option or state behind a size limit.
fn describe(e: &ProtocolError, authenticated: bool) -> String {
    match (e, authenticated) {
        (ProtocolError::RequestTooLarge(_), true) => format!("{e} (--max-request)"),
        (_, true) => e.to_string(),
        (_, false) => format!("{e} before authentication"),
    }
}

/// Runs a step of a batch where [`ExecMode`] says; `None` if it panicked.
async fn execute(
    shared: &Arc<Shared>,
    mut session: Session,
    mut batch: Batch,
    mut out: Output,
) -> Option<(Session, Batch, Output)> {
    let inline = match shared.config.exec {
        ExecMode::Inline => true,
        ExecMode::Blocking => false,
        ExecMode::Auto => batch.is_quick(),
    };
    if inline {
        run_batch(shared, &mut session, &mut batch, &mut out);
        return Some((session, batch, out));
    }
    let shared = Arc::clone(shared);
    tokio::task::spawn_blocking(move || {
        run_batch(&shared, &mut session, &mut batch, &mut out);
        (session, batch, out)
    })
    .await
    .ok()
}
