//! Running a compaction part on a compaction worker (Co-KV offload), the host's side of
//! the conversation in `format::worker_protocol`: connect, say hello with the database's
//! identity and the token, send the job, wait for its outcome while progress messages
//! keep arriving. Every failure comes back as a [`RemoteError`]; the host then runs the
//! part itself (`db::compact`). Nothing here installs or trusts anything: the outcome is
//! checked by `compaction::validate` before it is used.

use super::job::{PartJob, PartOutcome};
use crate::format::compaction_job::{KIND_OUTCOME, decode_outcome, encode_job};
use crate::format::worker_protocol::{
    self as wire, Hello, KIND_FAILURE, KIND_PROGRESS, KIND_WELCOME, MAX_FRAME, MAX_HELLO_FRAME,
};
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often a waiting host wakes to check whether it should stop.
const WAKE: Duration = Duration::from_millis(200);

/// Where a compaction worker listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// A Unix socket at this path (`unix:PATH`).
    Unix(PathBuf),
    /// A TCP address (`tcp:HOST:PORT`); a token is required.
    Tcp(String),
}

impl Address {
    /// Parses `unix:PATH` or `tcp:HOST:PORT`.
    pub fn parse(s: &str) -> Result<Address, String> {
        if let Some(path) = s.strip_prefix("unix:") {
            if path.is_empty() {
                return Err("unix: needs a socket path".into());
            }
            return Ok(Address::Unix(PathBuf::from(path)));
        }
        if let Some(addr) = s.strip_prefix("tcp:") {
            let port = addr.rsplit_once(':').map(|(_, p)| p);
            if port.and_then(|p| p.parse::<u16>().ok()).is_none() {
                return Err(format!("tcp:{addr} is not HOST:PORT"));
            }
            return Ok(Address::Tcp(addr.to_string()));
        }
        Err(format!("{s:?} is neither unix:PATH nor tcp:HOST:PORT"))
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Unix(p) => write!(f, "unix:{}", p.display()),
            Address::Tcp(a) => write!(f, "tcp:{a}"),
        }
    }
}

/// A connected stream to or from a worker.
pub enum Stream {
    /// Over a Unix socket.
    Unix(UnixStream),
    /// Over TCP.
    Tcp(TcpStream),
}

impl Stream {
    /// Sets the read timeout.
    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.set_read_timeout(t),
            Stream::Tcp(s) => s.set_read_timeout(t),
        }
    }

    /// Sets the write timeout.
    pub fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.set_write_timeout(t),
            Stream::Tcp(s) => s.set_write_timeout(t),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.flush(),
            Stream::Tcp(s) => s.flush(),
        }
    }
}

/// How the host reaches its worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadTarget {
    /// Where the worker listens.
    pub address: Address,
    /// The token (empty: none; required over TCP).
    pub token: Vec<u8>,
    /// How long the worker may stay silent (no progress, no outcome) before it is given up.
    pub timeout: Duration,
}

/// Why an offloaded part came back without a usable outcome.
#[derive(Debug)]
pub enum RemoteError {
    /// The worker could not be reached or the connection broke.
    Io(io::Error),
    /// The worker stayed silent past the timeout.
    Timeout(Duration),
    /// The worker kept sending progress, but its merge did not move for this long.
    Stalled(Duration),
    /// The worker sent bytes that are not the message expected.
    Garbage(String),
    /// The worker refused the connection or failed the part.
    Failed(wire::Failure),
    /// The worker serves another database.
    WrongDatabase(String),
    /// The host stopped waiting (it is closing, or another part failed).
    Stopped,
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemoteError::Io(e) => write!(f, "connection: {e}"),
            RemoteError::Timeout(_) => write!(f, "no word from the worker within the timeout"),
            RemoteError::Stalled(t) => write!(f, "the worker's merge did not move for {t:?}"),
            RemoteError::Garbage(what) => write!(f, "garbage from the worker: {what}"),
            RemoteError::Failed(x) => write!(f, "worker says {:?}: {}", x.code, x.message),
            RemoteError::WrongDatabase(id) => {
                write!(f, "the worker serves another database ({id})")
            }
            RemoteError::Stopped => write!(f, "stopped"),
        }
    }
}

impl From<io::Error> for RemoteError {
    fn from(e: io::Error) -> RemoteError {
        RemoteError::Io(e)
    }
}

/// Connects to `target`'s worker and says hello for the database `identity`; `stopped`
/// is asked while waiting for the answer.
pub fn connect(
    target: &OffloadTarget,
    identity: &str,
    stopped: &dyn Fn() -> bool,
) -> Result<Stream, RemoteError> {
    let mut stream = match &target.address {
        Address::Unix(path) => Stream::Unix(UnixStream::connect(path)?),
        Address::Tcp(addr) => {
            let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{addr}: no address"));
            let mut connected = None;
            for a in addr.to_socket_addrs()? {
                match TcpStream::connect_timeout(&a, target.timeout) {
                    Ok(s) => {
                        let _ = s.set_nodelay(true);
                        connected = Some(s);
                        break;
                    }
                    Err(e) => last = e,
                }
            }
            Stream::Tcp(connected.ok_or(last)?)
        }
    };
    stream.set_write_timeout(Some(target.timeout))?;
    stream.set_read_timeout(Some(target.timeout))?;
    let hello = Hello {
        identity: identity.to_string(),
        token: target.token.clone(),
        progress_ms: progress_interval(target.timeout).as_millis() as u64,
    };
    wire::write_frame(&mut stream, &wire::encode_hello(&hello))?;
    let deadline = Instant::now() + target.timeout;
    let reply = read_frame_within(&mut stream, MAX_HELLO_FRAME, deadline, stopped)?;
    match kind(&reply)? {
        KIND_WELCOME => {
            let theirs = wire::decode_welcome(&reply).map_err(garbage)?;
            if theirs != identity {
                return Err(RemoteError::WrongDatabase(theirs));
            }
            Ok(stream)
        }
        KIND_FAILURE => Err(failure(&reply)),
        k => Err(RemoteError::Garbage(format!(
            "message kind {k} instead of a welcome"
        ))),
    }
}

/// Runs `job` on the worker behind `stream` and returns its outcome; `stopped` is asked
/// while waiting, and a yes drops the connection (the worker then stops the part and
/// removes its outputs).
pub fn run(
    stream: &mut Stream,
    job: &PartJob,
    timeout: Duration,
    stopped: &dyn Fn() -> bool,
) -> Result<PartOutcome, RemoteError> {
    wire::write_frame(stream, &encode_job(job))?;
    // The newest progress count and when it last rose: a worker whose merge stopped
    // moving is given up after four timeouts even while it keeps sending progress.
    let (mut entries, mut moved) = (0u64, Instant::now());
    loop {
        let msg = read_frame_within(stream, MAX_FRAME, Instant::now() + timeout, stopped)?;
        match kind(&msg)? {
            KIND_PROGRESS => {
                let n = wire::decode_progress(&msg).map_err(garbage)?;
                if n > entries {
                    (entries, moved) = (n, Instant::now());
                } else if moved.elapsed() > timeout * 4 {
                    return Err(RemoteError::Stalled(moved.elapsed()));
                }
            }
            KIND_OUTCOME => return decode_outcome(&msg).map_err(garbage),
            KIND_FAILURE => return Err(failure(&msg)),
            k => {
                return Err(RemoteError::Garbage(format!(
                    "message kind {k} during a job"
                )));
            }
        }
    }
}

/// Reads one frame of at most `max` bytes, all of it before `deadline`, asking `stopped`
/// every 200 ms: a peer that trickles bytes holds the reader no longer than a silent one.
/// Memory grows with the bytes that arrive.
pub fn read_frame_within(
    stream: &mut Stream,
    max: u32,
    deadline: Instant,
    stopped: &dyn Fn() -> bool,
) -> Result<Vec<u8>, RemoteError> {
    let mut header = [0u8; 4];
    let mut got = 0;
    while got < header.len() {
        got += read_some(stream, &mut header[got..], deadline, stopped)?;
    }
    let len = u32::from_le_bytes(header);
    if len > max {
        return Err(RemoteError::Garbage(format!(
            "frame of {len} bytes (at most {max})"
        )));
    }
    let len = len as usize;
    let mut msg = Vec::with_capacity(len.min(64 << 10));
    let mut chunk = vec![0u8; len.min(64 << 10)];
    while msg.len() < len {
        let want = (len - msg.len()).min(chunk.len());
        let n = read_some(stream, &mut chunk[..want], deadline, stopped)?;
        msg.extend_from_slice(&chunk[..n]);
    }
    Ok(msg)
}

/// Reads at least one byte into `buf` before `deadline`.
fn read_some(
    stream: &mut Stream,
    buf: &mut [u8],
    deadline: Instant,
    stopped: &dyn Fn() -> bool,
) -> Result<usize, RemoteError> {
    loop {
        if stopped() {
            return Err(RemoteError::Stopped);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(RemoteError::Timeout(left));
        }
        stream.set_read_timeout(Some(left.min(WAKE)))?;
        match stream.read(buf) {
            Ok(0) => return Err(RemoteError::Io(io::ErrorKind::UnexpectedEof.into())),
            Ok(n) => return Ok(n),
            Err(e) if is_timeout(&e) || e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(RemoteError::Io(e)),
        }
    }
}

/// How often the worker is asked to send progress: a quarter of the timeout, between
/// 50 ms and 5 s.
pub fn progress_interval(timeout: Duration) -> Duration {
    (timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(5))
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

fn kind(msg: &[u8]) -> Result<u8, RemoteError> {
    wire::kind_of(msg).map_err(garbage)
}

fn garbage(e: crate::format::coding::DecodeError) -> RemoteError {
    RemoteError::Garbage(e.to_string())
}

fn failure(msg: &[u8]) -> RemoteError {
    match wire::decode_failure(msg) {
        Ok(f) => RemoteError::Failed(f),
        Err(e) => garbage(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse() {
        assert_eq!(
            Address::parse("unix:/tmp/w.sock").unwrap(),
            Address::Unix("/tmp/w.sock".into())
        );
        assert_eq!(
            Address::parse("tcp:127.0.0.1:7000").unwrap(),
            Address::Tcp("127.0.0.1:7000".into())
        );
        assert_eq!(
            Address::parse("tcp:[::1]:7000").unwrap().to_string(),
            "tcp:[::1]:7000"
        );
        for bad in [
            "",
            "unix:",
            "tcp:host",
            "tcp:host:99999",
            "http://x",
            "/tmp/w.sock",
        ] {
            assert!(Address::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn progress_comes_well_inside_the_timeout() {
        assert_eq!(
            progress_interval(Duration::from_secs(2)),
            Duration::from_millis(500)
        );
        assert_eq!(
            progress_interval(Duration::from_millis(10)),
            Duration::from_millis(50)
        );
        assert_eq!(
            progress_interval(Duration::from_secs(600)),
            Duration::from_secs(5)
        );
    }
}
