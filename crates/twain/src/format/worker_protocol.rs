//! The conversation between a host and a compaction worker over a stream (a Unix socket or
//! TCP), `docs/format/compaction-job.md` "Connection": length-prefixed frames, each one
//! message in the envelope of [`super::compaction_job`]; a hello that names the database
//! and carries the token, the worker's welcome or refusal, then jobs, each answered by
//! progress messages and one outcome or failure.

use super::coding::{DecodeError, put_len_prefixed, put_varint};
use super::compaction_job::{ENVELOPE_LEN, MAGIC, VERSION, begin, close, finish, open};
use std::io::{self, Read, Write};

/// Message kind: the host's hello (after [`super::compaction_job::KIND_OUTCOME`]).
pub const KIND_HELLO: u8 = 3;
/// Message kind: the worker accepts the hello.
pub const KIND_WELCOME: u8 = 4;
/// Message kind: the worker refuses the hello or failed a job.
pub const KIND_FAILURE: u8 = 5;
/// Message kind: the worker is still running the job.
pub const KIND_PROGRESS: u8 = 6;
/// The largest frame either side reads: 256 MiB (a part's outcome of drop records).
pub const MAX_FRAME: u32 = 256 << 20;
/// The largest frame read before the hello is accepted: 64 KiB.
pub const MAX_HELLO_FRAME: u32 = 64 << 10;
/// The longest identity or token a hello may carry.
const MAX_FIELD: usize = 4096;

/// Why a worker refused or failed. DO NOT CHANGE THESE VALUES: they are on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum FailureCode {
    /// The hello named another database.
    WrongDatabase = 1,
    /// The token was missing or wrong.
    Unauthorized = 2,
    /// A message could not be decoded.
    BadMessage = 3,
    /// The part failed while running (the worker removed its outputs).
    PartFailed = 4,
    /// The worker serves its connection limit.
    Busy = 5,
}

impl FailureCode {
    fn from_u8(b: u8) -> Option<FailureCode> {
        Some(match b {
            1 => FailureCode::WrongDatabase,
            2 => FailureCode::Unauthorized,
            3 => FailureCode::BadMessage,
            4 => FailureCode::PartFailed,
            5 => FailureCode::Busy,
            _ => return None,
        })
    }
}

/// The host's first message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// The identity of the host's database (`format::identity`).
    pub identity: String,
    /// The token the worker was started with (empty: none).
    pub token: Vec<u8>,
    /// How often the worker sends progress while it runs a job, in milliseconds.
    pub progress_ms: u64,
}

/// A worker's refusal or a job's failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Why.
    pub code: FailureCode,
    /// In words.
    pub message: String,
}

/// Encodes a hello.
pub fn encode_hello(h: &Hello) -> Vec<u8> {
    let mut b = begin(KIND_HELLO);
    put_len_prefixed(&mut b, h.identity.as_bytes());
    put_len_prefixed(&mut b, &h.token);
    put_varint(&mut b, h.progress_ms);
    finish(b)
}

/// Decodes a hello.
pub fn decode_hello(msg: &[u8]) -> Result<Hello, DecodeError> {
    let mut d = open(msg, KIND_HELLO)?;
    let identity = field(&mut d, "identity")?;
    let identity = String::from_utf8(identity).map_err(|_| d.error("identity is not UTF-8"))?;
    let token = field(&mut d, "token")?;
    let progress_ms = d.varint("progress interval")?;
    close(&d)?;
    Ok(Hello {
        identity,
        token,
        progress_ms,
    })
}

/// Encodes a welcome: the worker's database identity.
pub fn encode_welcome(identity: &str) -> Vec<u8> {
    let mut b = begin(KIND_WELCOME);
    put_len_prefixed(&mut b, identity.as_bytes());
    finish(b)
}

/// Decodes a welcome into the worker's database identity.
pub fn decode_welcome(msg: &[u8]) -> Result<String, DecodeError> {
    let mut d = open(msg, KIND_WELCOME)?;
    let identity = field(&mut d, "identity")?;
    close(&d)?;
    String::from_utf8(identity).map_err(|_| DecodeError::new(ENVELOPE_LEN, "identity not UTF-8"))
}

/// Encodes a failure.
pub fn encode_failure(f: &Failure) -> Vec<u8> {
    let mut b = begin(KIND_FAILURE);
    b.push(f.code as u8);
    put_len_prefixed(&mut b, f.message.as_bytes());
    finish(b)
}

/// Decodes a failure.
pub fn decode_failure(msg: &[u8]) -> Result<Failure, DecodeError> {
    let mut d = open(msg, KIND_FAILURE)?;
    let b = d.u8("failure code")?;
    let code = FailureCode::from_u8(b).ok_or_else(|| d.error(format!("failure code {b}")))?;
    let message = String::from_utf8_lossy(d.len_prefixed("message")?).into_owned();
    close(&d)?;
    Ok(Failure { code, message })
}

/// Encodes a progress message: entries the job has merged so far.
pub fn encode_progress(entries: u64) -> Vec<u8> {
    let mut b = begin(KIND_PROGRESS);
    put_varint(&mut b, entries);
    finish(b)
}

/// Decodes a progress message.
pub fn decode_progress(msg: &[u8]) -> Result<u64, DecodeError> {
    let mut d = open(msg, KIND_PROGRESS)?;
    let n = d.varint("entries")?;
    close(&d)?;
    Ok(n)
}

/// The kind of message `msg` claims to be (its envelope is checked when it is decoded).
pub fn kind_of(msg: &[u8]) -> Result<u8, DecodeError> {
    if msg.len() < ENVELOPE_LEN || msg.get(..4) != Some(&MAGIC[..]) {
        return Err(DecodeError::new(0, "not a compaction worker message"));
    }
    match (msg.get(4), msg.get(5)) {
        (Some(&VERSION), Some(&kind)) => Ok(kind),
        (v, _) => Err(DecodeError::new(
            4,
            format!("message version {v:?}; this build speaks {VERSION}"),
        )),
    }
}

fn field(d: &mut super::coding::Decoder<'_>, what: &str) -> Result<Vec<u8>, DecodeError> {
    let bytes = d.len_prefixed(what)?;
    if bytes.len() > MAX_FIELD {
        return Err(d.error(format!(
            "{what} of {} bytes (at most {MAX_FIELD})",
            bytes.len()
        )));
    }
    Ok(bytes.to_vec())
}

/// Writes `msg` as one frame: its length (u32 LE), then its bytes.
pub fn write_frame(w: &mut impl Write, msg: &[u8]) -> io::Result<()> {
    let len = u32::try_from(msg.len())
        .ok()
        .filter(|&l| l <= MAX_FRAME)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("message of {} bytes (at most {MAX_FRAME})", msg.len()),
            )
        })?;
    let mut frame = Vec::with_capacity(4 + msg.len());
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(msg);
    w.write_all(&frame)?;
    w.flush()
}

/// Reads one frame of at most `max` bytes. Memory grows with the bytes that arrive, not
/// with the length the frame claims. A stream that ends between frames is
/// `UnexpectedEof`; a frame over `max` is `InvalidData`.
pub fn read_frame(r: &mut impl Read, max: u32) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len);
    if len > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {len} bytes (at most {max})"),
        ));
    }
    let mut msg = Vec::with_capacity((len as usize).min(64 << 10));
    r.take(u64::from(len)).read_to_end(&mut msg)?;
    if msg.len() != len as usize {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("frame ends after {} of {len} bytes", msg.len()),
        ));
    }
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let h = Hello {
            identity: "0123456789abcdef0123456789abcdef".into(),
            token: b"secret".to_vec(),
            progress_ms: 500,
        };
        assert_eq!(decode_hello(&encode_hello(&h)).unwrap(), h);
        assert_eq!(kind_of(&encode_hello(&h)).unwrap(), KIND_HELLO);
        assert_eq!(decode_welcome(&encode_welcome("abc")).unwrap(), "abc");
        let f = Failure {
            code: FailureCode::Unauthorized,
            message: "wrong token".into(),
        };
        assert_eq!(decode_failure(&encode_failure(&f)).unwrap(), f);
        assert_eq!(decode_progress(&encode_progress(12345)).unwrap(), 12345);
    }

    #[test]
    fn damaged_messages_are_errors() {
        let msg = encode_hello(&Hello {
            identity: "id".into(),
            token: Vec::new(),
            progress_ms: 1,
        });
        for i in 0..msg.len() {
            assert!(decode_hello(&msg[..i]).is_err(), "truncated at {i}");
            let mut m = msg.clone();
            m[i] ^= 0x10;
            assert!(decode_hello(&m).is_err(), "flipped byte {i}");
        }
        // A failure code this build does not know.
        let mut b = begin(KIND_FAILURE);
        b.push(99);
        put_len_prefixed(&mut b, b"?");
        assert!(decode_failure(&finish(b)).is_err());
        // An oversized token.
        let big = encode_hello(&Hello {
            identity: "id".into(),
            token: vec![b'x'; MAX_FIELD + 1],
            progress_ms: 1,
        });
        assert!(
            decode_hello(&big)
                .unwrap_err()
                .to_string()
                .contains("token")
        );
        assert!(kind_of(b"nonsense-bytes").is_err());
    }

    #[test]
    fn frames_are_bounded_and_checked() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"hello").unwrap();
        write_frame(&mut buf, b"").unwrap();
        let mut r = buf.as_slice();
        assert_eq!(read_frame(&mut r, 16).unwrap(), b"hello");
        assert_eq!(read_frame(&mut r, 16).unwrap(), b"");
        assert_eq!(
            read_frame(&mut r, 16).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        // A frame longer than allowed is refused before its bytes are read.
        let mut r: &[u8] = &[0xff, 0xff, 0xff, 0x7f, 1, 2, 3];
        assert_eq!(
            read_frame(&mut r, MAX_FRAME).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        // A frame that claims more than arrives is cut, and nothing near the claim is
        // allocated.
        let mut r: &[u8] = &[0x00, 0x00, 0x00, 0x0f, 1, 2, 3];
        assert_eq!(
            read_frame(&mut r, MAX_FRAME).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }

    /// The constants and failure codes of `docs/format/compaction-job.md` are this code's.
    #[test]
    fn the_format_document_matches_the_code() {
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../docs/format/compaction-job.md"),
        )
        .unwrap();
        for (name, value) in [
            ("KIND_HELLO", u64::from(KIND_HELLO)),
            ("KIND_WELCOME", u64::from(KIND_WELCOME)),
            ("KIND_FAILURE", u64::from(KIND_FAILURE)),
            ("KIND_PROGRESS", u64::from(KIND_PROGRESS)),
            ("MAX_FRAME", u64::from(MAX_FRAME)),
            ("MAX_HELLO_FRAME", u64::from(MAX_HELLO_FRAME)),
        ] {
            let row = format!("| `{name}` | {value} |");
            assert!(doc.contains(&row), "no row {row}");
        }
        for code in [
            FailureCode::WrongDatabase,
            FailureCode::Unauthorized,
            FailureCode::BadMessage,
            FailureCode::PartFailed,
            FailureCode::Busy,
        ] {
            let row = format!("| {} `{code:?}` |", code as u8);
            assert!(doc.contains(&row), "no row {row}");
        }
    }
}
