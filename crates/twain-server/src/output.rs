//! [`Output`]: the replies of one connection not yet written to its socket.
//!
//! Replies are encoded into a small buffer; a bulk string of [`OWN_SEGMENT`] bytes or more
//! (a large value) is not copied but kept as its own segment, written from where the engine
//! put it. The connection writes the output out whenever it holds [`FLUSH_BYTES`] or more
//! ([`Output::should_flush`]), so a batch of pipelined requests, or an `MGET` of many large
//! values, never accumulates: what is held is at most about `FLUSH_BYTES` plus one reply
//! element. A reply that would take the held bytes past the connection's limit
//! (`--max-output`, like Redis's `client-output-buffer-limit`) is dropped instead and the
//! output marked [`Output::over_limit`]: the connection is then closed.

use crate::resp::{Frame, Protocol, encode};
use std::collections::VecDeque;
use std::io;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The connection writes its output out once this much is held.
pub const FLUSH_BYTES: usize = 64 << 10;

/// Bulk strings at least this long are kept as they are, not copied into the buffer.
pub const OWN_SEGMENT: usize = 16 << 10;

/// The buffer keeps at most this capacity between flushes.
const KEEP_CAPACITY: usize = 1 << 20;

/// Encoded replies not yet written, in order. Not shared.
#[derive(Debug)]
pub struct Output {
    /// Everything before `buf`, in order.
    segments: VecDeque<Vec<u8>>,
    /// Replies being encoded (after every segment).
    buf: Vec<u8>,
    /// Bytes held (segments and buffer).
    held: usize,
    /// Most bytes held at once.
    limit: usize,
    /// A reply was dropped because it would have passed `limit`.
    over: bool,
}

impl Output {
    /// Empty output that holds at most `limit` bytes.
    pub fn new(limit: usize) -> Output {
        Output {
            segments: VecDeque::new(),
            buf: Vec::with_capacity(16 << 10),
            held: 0,
            limit,
            over: false,
        }
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.held
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// Whether enough is held that it should be written before more is produced.
    pub fn should_flush(&self) -> bool {
        self.held >= FLUSH_BYTES || self.over
    }

    /// Whether a reply was dropped for passing the limit (the connection must close).
    pub fn over_limit(&self) -> bool {
        self.over
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether `n` more bytes fit; if not, marks the output over its limit.
    fn room_for(&mut self, n: usize) -> bool {
        if self.over || self.held.saturating_add(n) > self.limit {
            self.over = true;
            return false;
        }
        true
    }

    /// Appends `frame` as `proto` writes it; a large bulk string is kept, not copied.
    pub fn frame(&mut self, frame: Frame, proto: Protocol) {
        match frame {
            Frame::Bulk(value) => self.bulk(value),
            other => {
                let before = self.buf.len();
                encode(&other, proto, &mut self.buf);
                let added = self.buf.len() - before;
                if self.room_for(added) {
                    self.held += added;
                } else {
                    self.buf.truncate(before);
                }
            }
        }
    }

    /// Appends a bulk string (the same in both protocols).
    pub fn bulk(&mut self, value: Vec<u8>) {
        let mut len_header = Vec::with_capacity(24);
        len_header.push(b'$');
        len_header.extend_from_slice(value.len().to_string().as_bytes());
        len_header.extend_from_slice(b"\r\n");
        let total = len_header.len() + value.len() + 2;
        if !self.room_for(total) {
            return;
        }
        self.held += total;
        self.buf.extend_from_slice(&len_header);
        if value.len() >= OWN_SEGMENT {
            self.segments.push_back(std::mem::take(&mut self.buf));
            self.segments.push_back(value);
        } else {
            self.buf.extend_from_slice(&value);
        }
        self.buf.extend_from_slice(b"\r\n");
    }

    /// Appends the header of an array of `n` elements (which the caller appends next).
    /// An array is written the same in both protocols.
    pub fn array_header(&mut self, n: usize) {
        let before = self.buf.len();
        self.buf.push(b'*');
        self.buf.extend_from_slice(n.to_string().as_bytes());
        self.buf.extend_from_slice(b"\r\n");
        let added = self.buf.len() - before;
        if self.room_for(added) {
            self.held += added;
        } else {
            self.buf.truncate(before);
        }
    }

    /// Writes everything held to `stream`; fails with `TimedOut` if the client has not
    /// taken a segment within `timeout` (a client that stops reading is dropped like an idle
    /// one). Empty afterwards, whatever the outcome.
    pub async fn write_to(
        &mut self,
        stream: &mut TcpStream,
        timeout: Option<Duration>,
    ) -> io::Result<()> {
        let result = self.write_segments(stream, timeout).await;
        self.segments.clear();
        self.buf.clear();
        self.buf.shrink_to(KEEP_CAPACITY);
        self.held = 0;
        result
    }

    async fn write_segments(
        &mut self,
        stream: &mut TcpStream,
        timeout: Option<Duration>,
    ) -> io::Result<()> {
        while let Some(segment) = self.segments.pop_front() {
            write_all(stream, &segment, timeout).await?;
        }
        write_all(stream, &self.buf, timeout).await
    }

    /// Everything held, as one byte string (for tests).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut all: Vec<u8> = self.segments.iter().flatten().copied().collect();
        all.extend_from_slice(&self.buf);
        all
    }
}

/// Writes `bytes` whole within `timeout`.
async fn write_all(
    stream: &mut TcpStream,
    bytes: &[u8],
    timeout: Option<Duration>,
) -> io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    match timeout {
        None => stream.write_all(bytes).await,
        Some(t) => tokio::time::timeout(t, stream.write_all(bytes))
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_encode_as_the_encoder_does() {
        let mut out = Output::new(1 << 20);
        let big = vec![b'v'; OWN_SEGMENT + 1];
        let frames = [
            Frame::ok(),
            Frame::Bulk(b"small".to_vec()),
            Frame::Bulk(big.clone()),
            Frame::Null,
        ];
        let mut expected = Vec::new();
        for f in frames {
            encode(&f, Protocol::Resp3, &mut expected);
            out.frame(f, Protocol::Resp3);
        }
        out.array_header(2);
        out.bulk(b"a".to_vec());
        out.bulk(big);
        encode(
            &Frame::Array(vec![
                Frame::Bulk(b"a".to_vec()),
                Frame::Bulk(vec![b'v'; OWN_SEGMENT + 1]),
            ]),
            Protocol::Resp2,
            &mut expected,
        );
        assert_eq!(out.to_bytes(), expected);
        assert_eq!(out.len(), expected.len());
        assert!(out.should_flush() == (expected.len() >= FLUSH_BYTES));
    }

    #[test]
    fn a_reply_past_the_limit_is_dropped_and_marks_the_output() {
        let mut out = Output::new(100);
        out.frame(Frame::ok(), Protocol::Resp2);
        assert!(!out.over_limit());
        out.bulk(vec![0; 200]);
        assert!(out.over_limit() && out.should_flush());
        assert_eq!(out.to_bytes(), b"+OK\r\n");
    }
}
