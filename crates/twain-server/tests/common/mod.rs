//! A real server on a loopback port over a temporary directory, and clients for it: the
//! `redis` crate, or a raw socket for bytes no client would send.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;
use twain_server::{Config, Server, ServerError, ShutdownHandle};

/// A server running in a thread of the test process. Shut down (and its database closed)
/// by [`TestServer::stop`] or on drop.
pub struct TestServer {
    pub addr: SocketAddr,
    pub dir: PathBuf,
    handle: ShutdownHandle,
    thread: Option<JoinHandle<Result<(), ServerError>>>,
    _tmp: Option<tempfile::TempDir>,
}

impl TestServer {
    /// A server with default options on a fresh directory.
    pub fn start() -> TestServer {
        TestServer::start_with(|_| {})
    }

    /// A server on a fresh directory, with options changed by `adjust`.
    pub fn start_with(adjust: impl FnOnce(&mut Config)) -> TestServer {
        let tmp = tempfile::tempdir().unwrap();
        let mut server = TestServer::start_in(tmp.path(), adjust);
        server._tmp = Some(tmp);
        server
    }

    /// A server on directory `dir` (which the caller keeps).
    pub fn start_in(dir: &Path, adjust: impl FnOnce(&mut Config)) -> TestServer {
        let mut config = Config::new(dir);
        adjust(&mut config);
        let server = Server::bind(config).unwrap();
        let addr = server.local_addr();
        let handle = server.shutdown_handle();
        let thread = std::thread::spawn(move || server.run(false));
        TestServer {
            addr,
            dir: dir.to_path_buf(),
            handle,
            thread: Some(thread),
            _tmp: None,
        }
    }

    /// The `redis://` URL of the server (`query` appended, e.g. `?protocol=resp3`).
    pub fn url(&self, query: &str) -> String {
        format!("redis://{}/{query}", self.addr)
    }

    /// A `redis` crate connection.
    pub fn client(&self) -> redis::Connection {
        let con = redis::Client::open(self.url(""))
            .unwrap()
            .get_connection()
            .unwrap();
        con.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        con
    }

    /// A raw socket.
    pub fn raw(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s
    }

    /// Shuts the server down and returns how `Server::run` ended.
    pub fn stop(mut self) -> Result<(), ServerError> {
        self.handle.shutdown();
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.handle.shutdown();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sends `bytes` and reads until the server closes the connection (or 30 s pass).
pub fn exchange(stream: &mut TcpStream, bytes: &[u8]) -> Vec<u8> {
    stream.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    out
}

/// Sends `bytes` and reads exactly `n` bytes of reply.
pub fn ask(stream: &mut TcpStream, bytes: &[u8], n: usize) -> Vec<u8> {
    stream.write_all(bytes).unwrap();
    let mut out = vec![0; n];
    stream.read_exact(&mut out).unwrap();
    out
}

/// The message of a `redis` crate error reply, as the server wrote it (code included).
pub fn error_text(e: &redis::RedisError) -> String {
    format!("{} {}", e.code().unwrap_or(""), e.detail().unwrap_or(""))
        .trim()
        .to_string()
}
