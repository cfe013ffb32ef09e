//! How keys and values appear on the command line and in `scan` / `import` lines.
//!
//! Output is printable: `scan` writes every byte that is not printable ASCII (and the
//! backslash) as `\xNN`, or everything as hex with `--hex`, so one `key<TAB>value` line
//! holds any pair and `import` reads it back byte for byte. Keys and values on the command
//! line are read the same way as `import` reads its fields: UTF-8 with `\xNN` escapes (a
//! backslash is `\x5c`), or hex with `--hex`, so whatever `scan` printed can be pasted.

use twain::{Error, Result};

/// The encoding chosen by `--hex`.
#[derive(Debug, Clone, Copy)]
pub struct Text {
    /// Keys and values are hex.
    pub hex: bool,
}

impl Text {
    /// The bytes of a command-line argument: read as [`Text::parse`] reads a field.
    pub fn arg(&self, what: &str, s: &str) -> Result<Vec<u8>> {
        self.parse(s.as_bytes())
            .map_err(|e| Error::InvalidArgument(format!("{what} {s:?}: {e}")))
    }

    /// The printable form of `bytes` in a `scan` line.
    pub fn show(&self, bytes: &[u8]) -> String {
        if self.hex {
            hex::encode(bytes)
        } else {
            twain::dump::escape(bytes)
        }
    }

    /// The bytes of a field printed by [`Text::show`]. Without `--hex`, bytes other than
    /// escapes stand for themselves, so a field need not be UTF-8.
    pub fn parse(&self, field: &[u8]) -> std::result::Result<Vec<u8>, String> {
        if self.hex {
            hex::decode(field).map_err(|e| e.to_string())
        } else {
            unescape(field)
        }
    }
}

/// The inverse of [`twain::dump::escape`]: `\xNN` is the byte `NN`; other bytes are
/// themselves.
fn unescape(bytes: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let digits = bytes
            .get(i + 1..i + 4)
            .and_then(|d| d.strip_prefix(b"x"))
            // `from_str_radix` alone would take a sign: `\x+5`.
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u8::from_str_radix(d, 16).ok())
            .ok_or_else(|| format!("bad escape at column {}: expected \\xNN", i + 1))?;
        out.push(digits);
        i += 4;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips_through_show_and_parse() {
        let all: Vec<u8> = (0..=255u8).chain(*b"\\x41 \t\n").collect();
        for hex in [false, true] {
            let t = Text { hex };
            let shown = t.show(&all);
            assert!(!shown.contains(['\t', '\n']), "{shown}");
            assert_eq!(t.parse(shown.as_bytes()).unwrap(), all);
        }
    }

    #[test]
    fn bad_escapes_and_bad_hex_are_errors() {
        let t = Text { hex: false };
        for bad in ["\\", "\\x", "\\x4", "\\xzz", "\\x+5", "a\\n"] {
            assert!(t.parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
        let h = Text { hex: true };
        assert!(h.parse(b"abc").is_err());
        assert!(h.parse(b"\xff").is_err());
        assert_eq!(t.parse(b"\xff\\x41").unwrap(), b"\xffA");
        assert!(h.arg("key", "zz").is_err());
        assert_eq!(h.arg("key", "6b").unwrap(), b"k");
        assert!(t.arg("key", "a\\b").is_err());
    }

    #[test]
    fn arguments_take_the_escapes_scan_prints() {
        let t = Text { hex: false };
        assert_eq!(t.arg("key", "a\\x00b\\x5c").unwrap(), b"a\0b\\");
        assert_eq!(t.arg("key", "é").unwrap(), "é".as_bytes());
    }
}
