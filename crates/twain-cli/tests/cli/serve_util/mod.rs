//! Runs the real `twain serve` binary on a free loopback port, and a minimal RESP client
//! over a raw socket that knows exactly which replies arrived.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::time::Duration;
use twain_server::resp::{Frame, Limits, Protocol, encode, parse_frame};

/// A running `twain serve` process.
pub struct Serve {
    pub child: Child,
    pub addr: String,
}

impl Serve {
    /// Starts `twain serve --db DIR --addr 127.0.0.1:0 EXTRA...` and waits until it
    /// listens.
    pub fn start(dir: &Path, extra: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_twain"))
            .arg("serve")
            .arg("--db")
            .arg(dir)
            .args(["--addr", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start twain serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read the first line");
        let addr = line
            .split("listening on ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        Serve { child, addr }
    }

    /// A client connection.
    pub fn connect(&self) -> Client {
        Client::connect(&self.addr)
    }

    /// Sends SIGTERM and waits for the exit; returns the status and what went to stderr.
    pub fn terminate(self) -> (ExitStatus, String) {
        self.signal("TERM");
        self.wait()
    }

    /// Sends a signal by name (`TERM`, `INT`, `KILL`).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Waits for the exit; returns the status and what went to stderr.
    pub fn wait(mut self) -> (ExitStatus, String) {
        let status = self.child.wait().expect("wait for twain serve");
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = ChildStderr::read_to_string(&mut e, &mut err);
        }
        (status, err)
    }
}

/// A RESP client over a raw socket.
pub struct Client {
    stream: TcpStream,
    input: Vec<u8>,
}

impl Client {
    /// Connects to `addr`.
    pub fn connect(addr: &str) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Client {
            stream,
            input: Vec::new(),
        }
    }

    /// Sends the commands in one write (a pipeline).
    pub fn send(&mut self, commands: &[Vec<Vec<u8>>]) -> std::io::Result<()> {
        let mut out = Vec::new();
        for args in commands {
            let frame = Frame::Array(args.iter().cloned().map(Frame::Bulk).collect());
            encode(&frame, Protocol::Resp2, &mut out);
        }
        self.stream.write_all(&out)
    }

    /// Reads the next reply; an error once the connection is gone.
    pub fn reply(&mut self) -> std::io::Result<Frame> {
        loop {
            match parse_frame(&self.input, &Limits::default()) {
                Ok(Some((frame, used))) => {
                    self.input.drain(..used);
                    return Ok(frame);
                }
                Ok(None) => {}
                Err(e) => return Err(std::io::Error::other(e)),
            }
            let mut chunk = [0u8; 16 << 10];
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            self.input.extend_from_slice(&chunk[..n]);
        }
    }

    /// Runs one command and returns its reply.
    pub fn call(&mut self, args: &[&[u8]]) -> Frame {
        self.send(&[args.iter().map(|a| a.to_vec()).collect()])
            .expect("send");
        self.reply().expect("reply")
    }
}
