//! How keys and values appear on the command line and in `scan` / `import` lines.
//!
//! Arguments are taken as UTF-8 bytes, or as hex with `--hex`. Output is printable: `scan`
//! writes every byte that is not printable ASCII (and the backslash) as `\xNN`, or
//! everything as hex with `--hex`, so one `key<TAB>value` line holds any pair and `import`
//! reads it back byte for byte.

use twain::{Error, Result};

/// The encoding chosen by `--hex`.
#[derive(Debug, Clone, Copy)]
pub struct Text {
    /// Keys and values are hex.
    pub hex: bool,
}

impl Text {
    /// The bytes of a command-line argument.
    pub fn arg(&self, what: &str, s: &str) -> Result<Vec<u8>> {
        if self.hex {
            hex::decode(s).map_err(|e| Error::InvalidArgument(format!("{what} {s:?}: {e}")))
        } else {
            Ok(s.as_bytes().to_vec())
        }
    }

    /// The printable form of `bytes` in a `scan` line.
    pub fn show(&self, bytes: &[u8]) -> String {
        if self.hex {
            hex::encode(bytes)
        } else {
            twain::dump::escape(bytes)
        }
    }

    /// The bytes of a field printed by [`Text::show`].
    pub fn parse(&self, field: &str) -> std::result::Result<Vec<u8>, String> {
        if self.hex {
            hex::decode(field).map_err(|e| e.to_string())
        } else {
            unescape(field)
        }
    }
}

/// The inverse of [`twain::dump::escape`]: `\xNN` is the byte `NN`; other characters are
/// their UTF-8 bytes.
fn unescape(field: &str) -> std::result::Result<Vec<u8>, String> {
    let bytes = field.as_bytes();
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
            .filter(|d| d[0] == b'x')
            .and_then(|d| std::str::from_utf8(&d[1..]).ok())
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
            assert_eq!(t.parse(&shown).unwrap(), all);
        }
    }

    #[test]
    fn bad_escapes_and_bad_hex_are_errors() {
        let t = Text { hex: false };
        for bad in ["\\", "\\x", "\\x4", "\\xzz", "a\\n"] {
            assert!(t.parse(bad).is_err(), "{bad:?}");
        }
        let h = Text { hex: true };
        assert!(h.parse("abc").is_err());
        assert!(h.arg("key", "zz").is_err());
        assert_eq!(h.arg("key", "6b").unwrap(), b"k");
    }
}
