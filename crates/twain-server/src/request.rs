//! [`RequestReader`]: reads requests from a connection's bytes as they arrive, in one pass.
//!
//! [`crate::resp::parse_request`] parses a request from the start of a buffer and gives up
//! (`Ok(None)`) when it is incomplete; called again after every read, it would re-scan the
//! whole request each time, which is quadratic in the request's size. The reader instead
//! keeps its place between calls: headers and arguments already read are consumed, the
//! body of a bulk string is copied out as its bytes arrive (into a buffer that grows to the
//! announced length at most), and the search for a line's end resumes where it stopped. So
//! every received byte is examined a bounded number of times, whatever the chunking, and
//! the connection's input buffer never holds more than a partial header line plus one
//! read. [`RequestReader::scanned`] counts the bytes examined, so tests can check it.

use crate::resp::{Limits, ProtocolError, Request, parse_i64, split_inline, unterminated_too_long};

/// The bounds a request is read under: the protocol limits and the largest whole request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    /// Bulk length, argument count and line length limits.
    pub resp: Limits,
    /// Most bytes of one request (its headers included).
    pub max_request: usize,
}

/// Before authentication (with `--requirepass`), requests are read under these bounds
/// (Redis allows about 1 KiB of arguments to unauthenticated clients): enough for
/// `HELLO 3 AUTH default <password> SETNAME <name>`, too little to hold memory.
pub const UNAUTHENTICATED: RequestLimits = RequestLimits {
    resp: Limits {
        max_bulk: 1024,
        max_elements: 8,
        max_depth: 1,
        max_line: 4096,
    },
    max_request: 4096,
};

/// Where the reader is in the current request.
#[derive(Debug, Default)]
enum State {
    /// Between requests.
    #[default]
    Idle,
    /// In a multibulk request: the arguments still to come.
    Args(usize),
    /// Reading the body of a bulk string of this length; then the arguments still to come.
    Body { len: usize, rest: usize },
}

/// Reads requests incrementally (see the module documentation). One per connection.
#[derive(Debug, Default)]
pub struct RequestReader {
    state: State,
    /// The arguments read so far of the current request.
    args: Request,
    /// The body of the bulk string being read (CR LF included once complete).
    body: Vec<u8>,
    /// Bytes of the unconsumed input already searched for a line end in vain.
    searched: usize,
    /// Bytes of the current request consumed so far.
    request_bytes: usize,
    /// Bytes examined since the reader was made.
    scanned: u64,
}

impl RequestReader {
    /// A reader between requests.
    pub fn new() -> RequestReader {
        RequestReader::default()
    }

    /// Bytes examined so far (line searches and bulk bodies; each received byte once,
    /// plus the bytes of a header line searched again after a read that split it).
    pub fn scanned(&self) -> u64 {
        self.scanned
    }

    /// Whether part of a request has been read (the rest is awaited).
    pub fn in_request(&self) -> bool {
        !matches!(self.state, State::Idle) || self.searched > 0
    }

    /// Reads from `input`, the bytes not consumed yet (those of earlier calls that it did
    /// not consume, followed by new ones). Returns how many bytes at its start are consumed
    /// (the caller drops them before the next call) and the request they complete, if any;
    /// `(n, None)` means the bytes ran out first. A [`ProtocolError`] means the connection
    /// must close.
    pub fn next(
        &mut self,
        input: &[u8],
        limits: &RequestLimits,
    ) -> Result<(usize, Option<Request>), ProtocolError> {
        let mut pos = 0;
        loop {
            let rest = input.get(pos..).unwrap_or_default();
            match self.state {
                State::Idle => {
                    let Some(&first) = rest.first() else {
                        return Ok((pos, None));
                    };
                    let header = first == b'*';
                    let Some((line, used)) = self.line(rest, header, &limits.resp)? else {
                        return Ok((pos, None));
                    };
                    pos += used;
                    self.add_bytes(used, limits)?;
                    if !header {
                        return self.finish_inline(line, limits).map(|r| (pos, Some(r)));
                    }
                    let n = header_count(line.get(1..).unwrap_or_default(), &limits.resp)?;
                    if n == 0 {
                        return Ok((pos, Some(self.take())));
                    }
                    self.args = Vec::with_capacity(n.min(1024));
                    self.state = State::Args(n);
                }
                State::Args(n) => {
                    let Some(&first) = rest.first() else {
                        return Ok((pos, None));
                    };
                    if first != b'$' {
                        return Err(ProtocolError::ExpectedBulk(first));
                    }
                    let Some((line, used)) = self.line(rest, true, &limits.resp)? else {
                        return Ok((pos, None));
                    };
                    let len = bulk_len(line.get(1..).unwrap_or_default(), &limits.resp)?;
                    pos += used;
                    self.add_bytes(used, limits)?;
                    self.body = Vec::with_capacity(len.saturating_add(2).min(16 << 10));
                    self.state = State::Body { len, rest: n - 1 };
                }
                State::Body { len, rest: left } => {
                    let want = len + 2 - self.body.len();
                    let got = rest.len().min(want);
                    if got == 0 {
                        return Ok((pos, None));
                    }
                    self.add_bytes(got, limits)?;
                    grow_towards(&mut self.body, got, len + 2);
                    self.body
                        .extend_from_slice(rest.get(..got).unwrap_or_default());
                    self.scanned += got as u64;
                    pos += got;
                    if self.body.len() < len + 2 {
                        return Ok((pos, None));
                    }
                    if !self.body.ends_with(b"\r\n") {
                        return Err(ProtocolError::MissingCrlf);
                    }
                    self.body.truncate(len);
                    self.args.push(std::mem::take(&mut self.body));
                    if left == 0 {
                        return Ok((pos, Some(self.take())));
                    }
                    self.state = State::Args(left);
                }
            }
        }
    }

    /// The next line of `rest` (without CR LF for a `header`, which must end so; without
    /// LF and an optional CR for an inline command) and the bytes it takes with its end, or
    /// `None` if its end has not arrived. The search resumes after the bytes searched by
    /// the previous call.
    fn line<'a>(
        &mut self,
        rest: &'a [u8],
        is_header: bool,
        limits: &Limits,
    ) -> Result<Option<(&'a [u8], usize)>, ProtocolError> {
        let from = self.searched.min(rest.len());
        let unsearched = rest.get(from..).unwrap_or_default();
        let found = unsearched.iter().position(|&b| b == b'\n');
        self.scanned += found.map_or(unsearched.len(), |i| i + 1) as u64;
        let Some(i) = found else {
            self.searched = rest.len();
            if unterminated_too_long(rest, limits.max_line) {
                return Err(ProtocolError::LineTooLong);
            }
            return Ok(None);
        };
        self.searched = 0;
        let nl = from + i;
        let raw = rest.get(..nl).unwrap_or_default();
        let text = raw.strip_suffix(b"\r");
        let line = match (text, is_header) {
            (Some(t), _) => t,
            (None, false) => raw,
            (None, true) => return Err(ProtocolError::MissingCrlf),
        };
        if line.len() > limits.max_line {
            return Err(ProtocolError::LineTooLong);
        }
        Ok(Some((line, nl + 1)))
    }

    fn finish_inline(
        &mut self,
        line: &[u8],
        limits: &RequestLimits,
    ) -> Result<Request, ProtocolError> {
        self.scanned += line.len() as u64;
        let args = split_inline(line)?;
        if args.len() > limits.resp.max_elements {
            return Err(ProtocolError::TooManyElements {
                count: args.len() as u64,
                max: limits.resp.max_elements,
            });
        }
        self.request_bytes = 0;
        Ok(args)
    }

    /// Counts `n` more bytes of the current request against the request limit.
    fn add_bytes(&mut self, n: usize, limits: &RequestLimits) -> Result<(), ProtocolError> {
        self.request_bytes = self.request_bytes.saturating_add(n);
        if self.request_bytes > limits.max_request {
            return Err(ProtocolError::RequestTooLarge(limits.max_request));
        }
        Ok(())
    }

    /// The finished request; the reader is back between requests.
    fn take(&mut self) -> Request {
        self.state = State::Idle;
        self.request_bytes = 0;
        std::mem::take(&mut self.args)
    }
}

/// Reserves room for `more` bytes in `body`, doubling its capacity as a `Vec` does but
/// never past `cap`, the announced length: a large body is allocated once at its size at
/// most, and only as its bytes arrive.
fn grow_towards(body: &mut Vec<u8>, more: usize, cap: usize) {
    let needed = body.len() + more;
    if needed > body.capacity() {
        let target = needed.max(body.capacity().saturating_mul(2)).min(cap);
        body.reserve_exact(target - body.len());
    }
}

/// The argument count of a multibulk header (a negative count is an empty request).
fn header_count(digits: &[u8], limits: &Limits) -> Result<usize, ProtocolError> {
    let n = parse_i64(digits).ok_or(ProtocolError::InvalidMultibulkLength)?;
    if n <= 0 {
        return Ok(0);
    }
    let count = n.unsigned_abs();
    match usize::try_from(count) {
        Ok(c) if c <= limits.max_elements => Ok(c),
        _ => Err(ProtocolError::TooManyElements {
            count,
            max: limits.max_elements,
        }),
    }
}

/// The length of a bulk argument (a null or negative length is an error in a request).
fn bulk_len(digits: &[u8], limits: &Limits) -> Result<usize, ProtocolError> {
    let n = parse_i64(digits).ok_or(ProtocolError::InvalidBulkLength)?;
    if n < 0 {
        return Err(ProtocolError::InvalidBulkLength);
    }
    let len = n.unsigned_abs();
    match usize::try_from(len) {
        Ok(l) if l <= limits.max_bulk => Ok(l),
        _ => Err(ProtocolError::BulkTooLarge {
            len,
            max: limits.max_bulk,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resp::parse_request;

    fn limits() -> RequestLimits {
        RequestLimits {
            resp: Limits::default(),
            max_request: 1 << 30,
        }
    }

    /// Feeds `bytes` in chunks of `chunk`, as reads would deliver them.
    fn feed(
        bytes: &[u8],
        chunk: usize,
        limits: &RequestLimits,
    ) -> Result<Vec<Request>, ProtocolError> {
        let mut reader = RequestReader::new();
        let mut input = Vec::new();
        let mut out = Vec::new();
        for piece in bytes.chunks(chunk) {
            input.extend_from_slice(piece);
            loop {
                let (used, req) = reader.next(&input, limits)?;
                input.drain(..used);
                match req {
                    Some(r) => out.push(r),
                    None => break,
                }
            }
        }
        Ok(out)
    }

    #[test]
    fn any_chunking_gives_what_the_whole_buffer_parser_gives() {
        let bytes = b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\nPING\r\n*0\r\n\
                      GET \"a b\"\n*1\r\n$0\r\n\r\n";
        let mut expected = Vec::new();
        let mut rest: &[u8] = bytes;
        while let Some((r, n)) = parse_request(rest, &Limits::default()).unwrap() {
            expected.push(r);
            rest = &rest[n..];
        }
        for chunk in 1..=bytes.len() {
            assert_eq!(feed(bytes, chunk, &limits()).unwrap(), expected, "{chunk}");
        }
    }

    #[test]
    fn limits_are_enforced() {
        let small = RequestLimits {
            resp: Limits {
                max_bulk: 4,
                max_elements: 3,
                ..Limits::default()
            },
            max_request: 30,
        };
        let err = |b: &[u8]| feed(b, 1, &small).unwrap_err();
        assert!(matches!(
            err(b"*4\r\n"),
            ProtocolError::TooManyElements { .. }
        ));
        assert!(matches!(
            err(b"*1\r\n$5\r\n"),
            ProtocolError::BulkTooLarge { .. }
        ));
        assert_eq!(err(b"*1\r\n$-1\r\n"), ProtocolError::InvalidBulkLength);
        assert_eq!(err(b"*1\r\n:1\r\n"), ProtocolError::ExpectedBulk(b':'));
        assert_eq!(err(b"*1\r\n$1\r\nxyz"), ProtocolError::MissingCrlf);
        assert_eq!(err(b"*1\n"), ProtocolError::MissingCrlf);
        assert_eq!(
            err(b"*3\r\n$4\r\nxxxx\r\n$4\r\nxxxx\r\n$4\r\nxxxx\r\n"),
            ProtocolError::RequestTooLarge(30)
        );
        assert!(matches!(
            err(b"a b c d\r\n"),
            ProtocolError::TooManyElements { .. }
        ));
        let long = vec![b'x'; Limits::default().max_line + 2];
        assert_eq!(
            feed(&long, 7, &limits()).unwrap_err(),
            ProtocolError::LineTooLong
        );
    }

    #[test]
    fn a_large_body_is_allocated_at_its_length() {
        let mut bytes = b"*2\r\n$4\r\nECHO\r\n$1000000\r\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'v', 1_000_000));
        bytes.extend_from_slice(b"\r\n");
        let mut reader = RequestReader::new();
        let mut input = Vec::new();
        for piece in bytes.chunks(4096) {
            input.extend_from_slice(piece);
            let (used, req) = reader.next(&input, &limits()).unwrap();
            input.drain(..used);
            if let Some(r) = req {
                assert_eq!(r[1].len(), 1_000_000);
                assert!(r[1].capacity() <= 1_000_002, "{}", r[1].capacity());
                return;
            }
            assert!(input.len() < 4096);
        }
        panic!("the request never completed");
    }
}
