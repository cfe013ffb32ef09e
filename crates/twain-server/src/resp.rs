//! RESP, the Redis serialization protocol, versions 2 and 3: the [`Frame`] type, its
//! encoder, a streaming frame parser, and the request reader the server uses (a multibulk
//! array of bulk strings, or an inline command line as telnet or `redis-cli` may send).
//!
//! Parsing is incremental: every parser takes the bytes received so far and returns
//! `Ok(None)` while a frame is incomplete, `Ok(Some((frame, consumed)))` once one is whole,
//! or a [`ProtocolError`] for bytes that can never become a valid frame. Sizes, counts and
//! nesting are bounded by [`Limits`] *before* anything is allocated for them. Nothing here
//! panics on any input.

use std::fmt;

/// The protocol a connection speaks: decides how RESP3-only frames are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// RESP2, the default of every new connection.
    Resp2,
    /// RESP3, chosen with `HELLO 3`.
    Resp3,
}

/// One RESP value. Every RESP3 type but attributes is represented.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// `+OK`: a line of text without CR or LF.
    Simple(String),
    /// `-ERR message`: the first word is the error code.
    Error(String),
    /// `:42`.
    Integer(i64),
    /// `$3\r\nfoo`: binary-safe bytes.
    Bulk(Vec<u8>),
    /// `*2\r\n...`.
    Array(Vec<Frame>),
    /// The null reply: `_` in RESP3, `$-1` (a null bulk string) in RESP2.
    Null,
    /// RESP3 `,3.14` (a bulk string in RESP2).
    Double(f64),
    /// RESP3 `#t` / `#f` (the integer 1 or 0 in RESP2).
    Boolean(bool),
    /// RESP3 `(123...` (a bulk string in RESP2).
    BigNumber(String),
    /// RESP3 `=len\r\ntxt:text`: text with a three-letter format (a bulk string of the text
    /// in RESP2).
    Verbatim {
        /// The format, e.g. `txt` or `mkd`.
        format: [u8; 3],
        /// The text.
        text: Vec<u8>,
    },
    /// RESP3 `!len\r\n...`: a binary-safe error (a simple error in RESP2).
    BulkError(Vec<u8>),
    /// RESP3 `%`: key-value pairs in order (a flat array in RESP2).
    Map(Vec<(Frame, Frame)>),
    /// RESP3 `~` (an array in RESP2).
    Set(Vec<Frame>),
    /// RESP3 `>`: an out-of-band push (an array in RESP2).
    Push(Vec<Frame>),
}

impl Frame {
    /// `+OK`.
    pub fn ok() -> Frame {
        Frame::Simple("OK".to_string())
    }

    /// An error reply; `msg` starts with its code, e.g. `"ERR syntax error"`.
    pub fn error(msg: impl Into<String>) -> Frame {
        Frame::Error(msg.into())
    }

    /// A bulk string.
    pub fn bulk(bytes: impl Into<Vec<u8>>) -> Frame {
        Frame::Bulk(bytes.into())
    }
}

/// Bounds on what the parsers accept. Every check happens before allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest bulk string (and verbatim string or bulk error), in bytes.
    pub max_bulk: usize,
    /// Most elements in one aggregate (array, set, push; pairs in a map), and most
    /// arguments in one request.
    pub max_elements: usize,
    /// Deepest nesting of aggregates (a request is one level).
    pub max_depth: usize,
    /// Longest header or inline command line, CR LF excluded.
    pub max_line: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bulk: 512 << 20,
            max_elements: 1 << 20,
            max_depth: 64,
            max_line: 64 << 10,
        }
    }
}

/// Bytes that can never become a valid frame or request. The connection that sent them is
/// answered with `-ERR Protocol error: ...` and closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A frame starts with a byte that is no RESP type.
    #[error("unknown frame type '{}'", show_byte(*.0))]
    UnknownType(u8),
    /// An element of a request is not a bulk string.
    #[error("expected '$', got '{}'", show_byte(*.0))]
    ExpectedBulk(u8),
    /// An aggregate's count is not a number, or out of range.
    #[error("invalid multibulk length")]
    InvalidMultibulkLength,
    /// A bulk length is not a number, or negative where that is not allowed.
    #[error("invalid bulk length")]
    InvalidBulkLength,
    /// A bulk string is longer than [`Limits::max_bulk`].
    #[error("bulk length {len} exceeds the limit of {max} bytes")]
    BulkTooLarge {
        /// The announced length.
        len: u64,
        /// The limit.
        max: usize,
    },
    /// An aggregate or request has more elements than [`Limits::max_elements`].
    #[error("{count} elements exceed the limit of {max}")]
    TooManyElements {
        /// The announced count.
        count: u64,
        /// The limit.
        max: usize,
    },
    /// Aggregates nest deeper than [`Limits::max_depth`].
    #[error("frames nested deeper than {0}")]
    TooDeep(usize),
    /// A header or inline line is longer than [`Limits::max_line`].
    #[error("too big inline request")]
    LineTooLong,
    /// A line or bulk string is not followed by CR LF.
    #[error("expected CRLF")]
    MissingCrlf,
    /// An integer frame does not hold an integer.
    #[error("invalid integer")]
    InvalidInteger,
    /// A double frame does not hold a number.
    #[error("invalid double")]
    InvalidDouble,
    /// A boolean frame holds neither `t` nor `f`.
    #[error("invalid boolean")]
    InvalidBoolean,
    /// A big number holds something else than an optional sign and digits.
    #[error("invalid big number")]
    InvalidBigNumber,
    /// A verbatim string is too short for its `fmt:` prefix.
    #[error("invalid verbatim string")]
    InvalidVerbatim,
    /// A simple string or error is not UTF-8.
    #[error("simple string is not UTF-8")]
    InvalidUtf8,
    /// RESP3 attributes (`|`) are not supported.
    #[error("attributes are not supported")]
    Attribute,
    /// A request is longer, in bytes, than the connection may buffer.
    #[error("request larger than {0} bytes")]
    RequestTooLarge(usize),
    /// An inline command has an unterminated quote, or a closing quote not followed by a
    /// space.
    #[error("unbalanced quotes in request")]
    UnbalancedQuotes,
}

fn show_byte(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        (b as char).to_string()
    } else {
        format!("\\x{b:02x}")
    }
}

/// The outcome of a parser: `None` while more bytes are needed.
pub type Parsed<T> = Result<Option<(T, usize)>, ProtocolError>;

/// A request: the command name and its arguments. Empty for a blank inline line or an
/// empty multibulk, which the server ignores.
pub type Request = Vec<Vec<u8>>;

/// Parses one frame from the start of `buf`.
pub fn parse_frame(buf: &[u8], limits: &Limits) -> Parsed<Frame> {
    let mut r = Reader {
        buf,
        pos: 0,
        limits,
    };
    Ok(r.frame(0)?.map(|f| (f, r.pos)))
}

/// Parses one request from the start of `buf`: a multibulk array of bulk strings if it
/// starts with `*`, else an inline command line (space-separated words, with `"..."` and
/// `'...'` quoting as `redis-cli` understands it).
pub fn parse_request(buf: &[u8], limits: &Limits) -> Parsed<Request> {
    let mut r = Reader {
        buf,
        pos: 0,
        limits,
    };
    let parsed = match buf.first() {
        None => None,
        Some(b'*') => r.multibulk()?,
        Some(_) => r.inline()?,
    };
    Ok(parsed.map(|req| (req, r.pos)))
}

/// Appends `frame` to `out` as `proto` writes it. Simple strings and errors have any CR or
/// LF replaced by a space, so the output is always one valid frame.
pub fn encode(frame: &Frame, proto: Protocol, out: &mut Vec<u8>) {
    let resp3 = proto == Protocol::Resp3;
    match frame {
        Frame::Simple(s) => line(out, b'+', s.as_bytes()),
        Frame::Error(s) => line(out, b'-', s.as_bytes()),
        Frame::Integer(n) => {
            out.push(b':');
            push_int(out, *n);
            out.extend_from_slice(b"\r\n");
        }
        Frame::Bulk(b) => blob(out, b'$', b),
        Frame::Array(items) => aggregate(out, b'*', items, proto),
        Frame::Null if resp3 => out.extend_from_slice(b"_\r\n"),
        Frame::Null => out.extend_from_slice(b"$-1\r\n"),
        Frame::Double(d) if resp3 => line(out, b',', format_double(*d).as_bytes()),
        Frame::Double(d) => blob(out, b'$', format_double(*d).as_bytes()),
        Frame::Boolean(b) if resp3 => line(out, b'#', if *b { b"t" } else { b"f" }),
        Frame::Boolean(b) => encode(&Frame::Integer(i64::from(*b)), proto, out),
        Frame::BigNumber(n) if resp3 => line(out, b'(', n.as_bytes()),
        Frame::BigNumber(n) => blob(out, b'$', n.as_bytes()),
        Frame::Verbatim { format, text } if resp3 => {
            let mut body = Vec::with_capacity(4 + text.len());
            body.extend_from_slice(format);
            body.push(b':');
            body.extend_from_slice(text);
            blob(out, b'=', &body);
        }
        Frame::Verbatim { text, .. } => blob(out, b'$', text),
        Frame::BulkError(e) if resp3 => blob(out, b'!', e),
        // A simple error is text: bytes that are not UTF-8 become U+FFFD.
        Frame::BulkError(e) => line(out, b'-', String::from_utf8_lossy(e).as_bytes()),

        Frame::Map(pairs) => {
            let (tag, count) = if resp3 {
                (b'%', pairs.len())
            } else {
                (b'*', pairs.len() * 2)
            };
            header(out, tag, count);
            for (k, v) in pairs {
                encode(k, proto, out);
                encode(v, proto, out);
            }
        }
        Frame::Set(items) => aggregate(out, if resp3 { b'~' } else { b'*' }, items, proto),
        Frame::Push(items) => aggregate(out, if resp3 { b'>' } else { b'*' }, items, proto),
    }
}

/// RESP3's spelling of a double: `inf`, `-inf`, `nan`, or Rust's shortest exact form.
fn format_double(d: f64) -> String {
    if d.is_nan() {
        "nan".to_string()
    } else {
        d.to_string()
    }
}

fn line(out: &mut Vec<u8>, tag: u8, text: &[u8]) {
    out.push(tag);
    out.extend(
        text.iter()
            .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b }),
    );
    out.extend_from_slice(b"\r\n");
}

fn header(out: &mut Vec<u8>, tag: u8, n: usize) {
    out.push(tag);
    push_int(out, i64::try_from(n).unwrap_or(i64::MAX));
    out.extend_from_slice(b"\r\n");
}

fn blob(out: &mut Vec<u8>, tag: u8, bytes: &[u8]) {
    header(out, tag, bytes.len());
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
}

fn aggregate(out: &mut Vec<u8>, tag: u8, items: &[Frame], proto: Protocol) {
    header(out, tag, items.len());
    for item in items {
        encode(item, proto, out);
    }
}

/// Appends the decimal digits of `n`.
fn push_int(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = n.unsigned_abs();
    loop {
        i -= 1;
        // `v % 10` is below 10, so the cast cannot truncate.
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(i..).unwrap_or_default());
}

/// A position in the received bytes. Every method returns `Ok(None)` when the bytes end
/// before the item does, leaving `pos` wherever it got to (callers then drop the reader).
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    limits: &'a Limits,
}

impl<'a> Reader<'a> {
    /// The next line without its CR LF.
    fn line(&mut self) -> Result<Option<&'a [u8]>, ProtocolError> {
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            if unterminated_too_long(rest, self.limits.max_line) {
                return Err(ProtocolError::LineTooLong);
            }
            return Ok(None);
        };
        if nl > self.limits.max_line + 1 {
            return Err(ProtocolError::LineTooLong);
        }
        let Some(cr) = nl.checked_sub(1).filter(|&cr| rest.get(cr) == Some(&b'\r')) else {
            return Err(ProtocolError::MissingCrlf);
        };
        self.pos += nl + 1;
        Ok(rest.get(..cr))
    }

    /// A header line holding a decimal integer (optional `-`, digits only).
    fn int_line(&mut self, err: ProtocolError) -> Result<Option<i64>, ProtocolError> {
        match self.line()? {
            None => Ok(None),
            Some(l) => parse_i64(l).map(Some).ok_or(err),
        }
    }

    /// An aggregate's count from its header (`-1` and below mean null).
    fn count(&mut self, pairs: bool) -> Result<Option<Option<usize>>, ProtocolError> {
        let Some(n) = self.int_line(ProtocolError::InvalidMultibulkLength)? else {
            return Ok(None);
        };
        if n < 0 {
            return Ok(Some(None));
        }
        let count = n.unsigned_abs();
        let elements = if pairs {
            count.saturating_mul(2)
        } else {
            count
        };
        match usize::try_from(count) {
            Ok(c) if elements <= self.limits.max_elements as u64 => Ok(Some(Some(c))),
            _ => Err(ProtocolError::TooManyElements {
                count,
                max: self.limits.max_elements,
            }),
        }
    }

    /// The length header of a blob (`-1` for null is returned as `None` inside).
    fn blob_len(&mut self) -> Result<Option<Option<usize>>, ProtocolError> {
        let Some(n) = self.int_line(ProtocolError::InvalidBulkLength)? else {
            return Ok(None);
        };
        if n == -1 {
            return Ok(Some(None));
        }
        if n < 0 {
            return Err(ProtocolError::InvalidBulkLength);
        }
        let len = n.unsigned_abs();
        match usize::try_from(len) {
            Ok(l) if l <= self.limits.max_bulk => Ok(Some(Some(l))),
            _ => Err(ProtocolError::BulkTooLarge {
                len,
                max: self.limits.max_bulk,
            }),
        }
    }

    /// `len` bytes followed by CR LF.
    fn blob_body(&mut self, len: usize) -> Result<Option<Vec<u8>>, ProtocolError> {
        let start = self.pos;
        let Some(end) = start.checked_add(len) else {
            return Err(ProtocolError::InvalidBulkLength);
        };
        match self.buf.get(end..end.saturating_add(2)) {
            None if self.buf.len() < end.saturating_add(2) => return Ok(None),
            Some(b"\r\n") => {}
            _ => return Err(ProtocolError::MissingCrlf),
        }
        self.pos = end + 2;
        Ok(self.buf.get(start..end).map(<[u8]>::to_vec))
    }

    /// A length-prefixed blob; `None` inside for the RESP2 null (`-1`).
    fn blob(&mut self) -> Result<Option<Option<Vec<u8>>>, ProtocolError> {
        match self.blob_len()? {
            None => Ok(None),
            Some(None) => Ok(Some(None)),
            Some(Some(len)) => Ok(self.blob_body(len)?.map(Some)),
        }
    }

    fn text_line(&mut self) -> Result<Option<String>, ProtocolError> {
        match self.line()? {
            None => Ok(None),
            Some(l) => String::from_utf8(l.to_vec())
                .map(Some)
                .map_err(|_| ProtocolError::InvalidUtf8),
        }
    }

    fn items(&mut self, n: usize, depth: usize) -> Result<Option<Vec<Frame>>, ProtocolError> {
        let mut items = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            match self.frame(depth + 1)? {
                None => return Ok(None),
                Some(f) => items.push(f),
            }
        }
        Ok(Some(items))
    }

    fn frame(&mut self, depth: usize) -> Result<Option<Frame>, ProtocolError> {
        let Some(&tag) = self.buf.get(self.pos) else {
            return Ok(None);
        };
        let aggregate = matches!(tag, b'*' | b'%' | b'~' | b'>');
        if aggregate && depth >= self.limits.max_depth {
            return Err(ProtocolError::TooDeep(self.limits.max_depth));
        }
        self.pos += 1;
        let frame = match tag {
            b'+' => self.text_line()?.map(Frame::Simple),
            b'-' => self.text_line()?.map(Frame::Error),
            b':' => self
                .int_line(ProtocolError::InvalidInteger)?
                .map(Frame::Integer),
            b'$' => self.blob()?.map(|b| b.map_or(Frame::Null, Frame::Bulk)),
            b'!' => self
                .blob()?
                .map(|b| b.map_or(Frame::Null, Frame::BulkError)),
            b'=' => match self.blob()? {
                None => None,
                Some(None) => Some(Frame::Null),
                Some(Some(b)) => Some(verbatim(b)?),
            },
            b'_' => match self.line()? {
                None => None,
                Some([]) => Some(Frame::Null),
                Some(_) => return Err(ProtocolError::MissingCrlf),
            },
            b',' => match self.line()? {
                None => None,
                Some(l) => Some(Frame::Double(
                    parse_double(l).ok_or(ProtocolError::InvalidDouble)?,
                )),
            },
            b'#' => match self.line()? {
                None => None,
                Some(b"t") => Some(Frame::Boolean(true)),
                Some(b"f") => Some(Frame::Boolean(false)),
                Some(_) => return Err(ProtocolError::InvalidBoolean),
            },
            b'(' => match self.text_line()? {
                None => None,
                Some(n) if is_big_number(&n) => Some(Frame::BigNumber(n)),
                Some(_) => return Err(ProtocolError::InvalidBigNumber),
            },
            b'*' | b'~' | b'>' => match self.count(false)? {
                None => None,
                Some(None) => Some(Frame::Null),
                Some(Some(n)) => self.items(n, depth)?.map(|items| match tag {
                    b'*' => Frame::Array(items),
                    b'~' => Frame::Set(items),
                    _ => Frame::Push(items),
                }),
            },
            b'%' => match self.count(true)? {
                None => None,
                Some(None) => Some(Frame::Null),
                Some(Some(n)) => self.items(n * 2, depth)?.map(pairs),
            },
            b'|' => return Err(ProtocolError::Attribute),
            other => return Err(ProtocolError::UnknownType(other)),
        };
        Ok(frame)
    }

    fn multibulk(&mut self) -> Result<Option<Request>, ProtocolError> {
        self.pos += 1;
        let Some(n) = self.count(false)? else {
            return Ok(None);
        };
        let n = n.unwrap_or(0);

        let mut args = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            match self.buf.get(self.pos) {
                None => return Ok(None),
                Some(b'$') => self.pos += 1,
                Some(&other) => return Err(ProtocolError::ExpectedBulk(other)),
            }
            match self.blob()? {
                None => return Ok(None),
                Some(None) => return Err(ProtocolError::InvalidBulkLength),
                Some(Some(arg)) => args.push(arg),
            }
        }
        Ok(Some(args))
    }

    fn inline(&mut self) -> Result<Option<Request>, ProtocolError> {
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            if unterminated_too_long(rest, self.limits.max_line) {
                return Err(ProtocolError::LineTooLong);
            }
            return Ok(None);
        };
        let raw = rest.get(..nl).unwrap_or_default();
        let text = raw.strip_suffix(b"\r").unwrap_or(raw);
        if text.len() > self.limits.max_line {
            return Err(ProtocolError::LineTooLong);
        }
        let args = split_inline(text)?;
        if args.len() > self.limits.max_elements {
            return Err(ProtocolError::TooManyElements {
                count: args.len() as u64,
                max: self.limits.max_elements,
            });
        }
        self.pos += nl + 1;
        Ok(Some(args))
    }
}

/// Whether `rest`, a line whose LF has not arrived, is already longer than `max_line`
/// bytes can be (it may hold `max_line` bytes and the CR of their CR LF).
pub(crate) fn unterminated_too_long(rest: &[u8], max_line: usize) -> bool {
    rest.len() > max_line.saturating_add(1)
        || (rest.len() == max_line.saturating_add(1) && rest.last() != Some(&b'\r'))
}

fn pairs(items: Vec<Frame>) -> Frame {
    let mut it = items.into_iter();
    let mut out = Vec::with_capacity(it.len() / 2);
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        out.push((k, v));
    }
    Frame::Map(out)
}

fn verbatim(body: Vec<u8>) -> Result<Frame, ProtocolError> {
    match (body.get(..3), body.get(3)) {
        (Some(&[a, b, c]), Some(b':')) => Ok(Frame::Verbatim {
            format: [a, b, c],
            text: body.get(4..).unwrap_or_default().to_vec(),
        }),
        _ => Err(ProtocolError::InvalidVerbatim),
    }
}

/// A strict decimal `i64`, as Redis reads integers: an optional `-`, then digits without
/// leading zeros (`0` alone is fine, `-0` is not); no spaces, no `+`.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    let leading_zero = digits.len() > 1 && digits.first() == Some(&b'0');
    if digits.is_empty()
        || digits.len() > 19
        || leading_zero
        || (neg && digits == b"0")
        || !digits.iter().all(u8::is_ascii_digit)
    {
        return None;
    }

    let mut v: i64 = 0;
    for &d in digits {
        let d = i64::from(d - b'0');
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

fn parse_double(l: &[u8]) -> Option<f64> {
    match l {
        b"inf" => Some(f64::INFINITY),
        b"-inf" => Some(f64::NEG_INFINITY),
        b"nan" => Some(f64::NAN),
        _ => {
            let s = std::str::from_utf8(l).ok()?;
            let plain = s
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
            if plain { s.parse().ok() } else { None }
        }
    }
}

fn is_big_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Splits an inline command line into words, as Redis does: blanks separate words;
/// `"..."` quotes understand `\n \r \t \b \a \\ \"` and `\xHH`; `'...'` quotes only `\'`.
/// A closing quote must be followed by a blank or the end of the line.
pub fn split_inline(line: &[u8]) -> Result<Vec<Vec<u8>>, ProtocolError> {
    let mut words = Vec::new();
    let mut i = 0;
    loop {
        while line.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let Some(&first) = line.get(i) else {
            return Ok(words);
        };
        let mut word = Vec::new();
        match first {
            b'"' => i = double_quoted(line, i + 1, &mut word)?,
            b'\'' => i = single_quoted(line, i + 1, &mut word)?,
            _ => {
                while let Some(&b) = line.get(i).filter(|b| !b.is_ascii_whitespace()) {
                    word.push(b);
                    i += 1;
                }
            }
        }
        words.push(word);
    }
}

/// Reads a `"`-quoted word starting after the quote; returns the index after it.
fn double_quoted(line: &[u8], mut i: usize, word: &mut Vec<u8>) -> Result<usize, ProtocolError> {
    loop {
        match line.get(i..) {
            None | Some([]) => return Err(ProtocolError::UnbalancedQuotes),
            Some([b'\\', b'x', h, l, ..]) if hex(*h).is_some() && hex(*l).is_some() => {
                word.push(hex(*h).unwrap_or(0) * 16 + hex(*l).unwrap_or(0));
                i += 4;
            }
            Some([b'\\', c, ..]) => {
                word.push(match c {
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'b' => 8,
                    b'a' => 7,
                    other => *other,
                });
                i += 2;
            }
            Some([b'"', rest @ ..]) => return after_quote(rest, i + 1),
            Some([c, ..]) => {
                word.push(*c);
                i += 1;
            }
        }
    }
}

/// Reads a `'`-quoted word starting after the quote; returns the index after it.
fn single_quoted(line: &[u8], mut i: usize, word: &mut Vec<u8>) -> Result<usize, ProtocolError> {
    loop {
        match line.get(i..) {
            None | Some([]) => return Err(ProtocolError::UnbalancedQuotes),
            Some([b'\\', b'\'', ..]) => {
                word.push(b'\'');
                i += 2;
            }
            Some([b'\'', rest @ ..]) => return after_quote(rest, i + 1),
            Some([c, ..]) => {
                word.push(*c);
                i += 1;
            }
        }
    }
}

fn after_quote(rest: &[u8], next: usize) -> Result<usize, ProtocolError> {
    match rest.first() {
        None => Ok(next),
        Some(b) if b.is_ascii_whitespace() => Ok(next),
        Some(_) => Err(ProtocolError::UnbalancedQuotes),
    }
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Protocol::Resp2 => f.write_str("2"),
            Protocol::Resp3 => f.write_str("3"),
        }
    }
}

#[cfg(test)]
mod tests;
