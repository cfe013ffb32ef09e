//! Glob patterns as Redis's `MATCH` understands them: `*` any run of bytes, `?` one byte,
//! `[abc]`, `[a-z]`, `[^a]` a set of bytes, `\x` the byte `x`. Matching is byte-wise and
//! case-sensitive, and takes O(pattern × key) time at worst (no exponential backtracking).
//!
//! A pattern's literal prefix (the bytes before its first wildcard) bounds a SCAN to a key
//! range; a pattern that is a literal prefix followed by one `*` needs no other filter.

/// One element of a compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Byte(u8),
    AnyByte,
    AnyRun,
    Class {
        negated: bool,
        ranges: Vec<(u8, u8)>,
    },
}

/// A compiled glob pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    tokens: Vec<Token>,
}

impl Glob {
    /// Compiles `pattern`. Every byte string is a pattern: an unterminated `[` set ends at
    /// the end of the pattern, a trailing `\` is a literal backslash.
    pub fn new(pattern: &[u8]) -> Glob {
        let mut tokens = Vec::new();
        let mut i = 0;
        while let Some(&b) = pattern.get(i) {
            i += 1;
            let token = match b {
                b'*' => Token::AnyRun,
                b'?' => Token::AnyByte,
                b'\\' => match pattern.get(i) {
                    Some(&escaped) => {
                        i += 1;
                        Token::Byte(escaped)
                    }
                    None => Token::Byte(b'\\'),
                },
                b'[' => {
                    let (class, next) = class(pattern, i);
                    i = next;
                    class
                }
                other => Token::Byte(other),
            };
            // Runs of `*` match what one does.
            if !(token == Token::AnyRun && tokens.last() == Some(&Token::AnyRun)) {
                tokens.push(token);
            }
        }
        Glob { tokens }
    }

    /// The bytes every matching key starts with.
    pub fn literal_prefix(&self) -> Vec<u8> {
        self.tokens
            .iter()
            .map_while(|t| match t {
                Token::Byte(b) => Some(*b),
                _ => None,
            })
            .collect()
    }

    /// Whether every key starting with [`literal_prefix`](Self::literal_prefix) matches
    /// (the pattern is `prefix*`).
    pub fn is_prefix_pattern(&self) -> bool {
        let literal = self
            .tokens
            .iter()
            .take_while(|t| matches!(t, Token::Byte(_)))
            .count();
        self.tokens.len() == literal + 1 && self.tokens.last() == Some(&Token::AnyRun)
    }

    /// Whether `key` matches the whole pattern.
    pub fn matches(&self, key: &[u8]) -> bool {
        let (mut p, mut k) = (0, 0);
        // Where the last `*` was, and the key position it is currently made to cover up to.
        let mut star: Option<(usize, usize)> = None;
        while let Some(&byte) = key.get(k) {
            match self.tokens.get(p) {
                Some(Token::AnyRun) => {
                    star = Some((p, k));
                    p += 1;
                    continue;
                }
                Some(t) if single(t, byte) => {
                    p += 1;
                    k += 1;
                    continue;
                }
                _ => {}
            }
            match star {
                Some((sp, sk)) => {
                    p = sp + 1;
                    k = sk + 1;
                    star = Some((sp, sk + 1));
                }
                None => return false,
            }
        }
        self.tokens
            .get(p..)
            .is_some_and(|rest| rest.iter().all(|t| *t == Token::AnyRun))
    }
}

/// Whether a single-byte token matches `b`.
fn single(t: &Token, b: u8) -> bool {
    match t {
        Token::Byte(x) => *x == b,
        Token::AnyByte => true,
        Token::AnyRun => false,
        Token::Class { negated, ranges } => {
            ranges.iter().any(|&(lo, hi)| lo <= b && b <= hi) != *negated
        }
    }
}

/// Parses a `[...]` set whose body starts at `i`; returns it and the index after `]`.
fn class(pattern: &[u8], mut i: usize) -> (Token, usize) {
    let negated = pattern.get(i) == Some(&b'^');
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    loop {
        match pattern.get(i..).unwrap_or_default() {
            [] => break,
            [b']', ..] => {
                i += 1;
                break;
            }
            [b'\\', c, ..] => {
                ranges.push((*c, *c));
                i += 2;
            }
            [lo, b'-', hi, ..] if *hi != b']' => {
                ranges.push(((*lo).min(*hi), (*lo).max(*hi)));
                i += 3;
            }
            [c, ..] => {
                ranges.push((*c, *c));
                i += 1;
            }
        }
    }
    (Token::Class { negated, ranges }, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, k: &str) -> bool {
        Glob::new(p.as_bytes()).matches(k.as_bytes())
    }

    #[test]
    fn wildcards() {
        assert!(m("*", ""));
        assert!(m("*", "anything"));
        assert!(m("user:*", "user:1"));
        assert!(!m("user:*", "use"));
        assert!(m("h?llo", "hello"));
        assert!(!m("h?llo", "hllo"));
        assert!(m("h*llo", "heeeello"));
        assert!(m("*a*b*c", "xxaxxbxxc"));
        assert!(!m("*a*b*c", "xxaxxbxx"));
        assert!(m("a**b", "ab"));
    }

    #[test]
    fn sets_and_escapes() {
        assert!(m("h[ae]llo", "hallo"));
        assert!(!m("h[ae]llo", "hillo"));
        assert!(m("h[^e]llo", "hallo"));
        assert!(!m("h[^e]llo", "hello"));
        assert!(m("h[a-b]llo", "hbllo"));
        assert!(m("h[b-a]llo", "hallo"));
        assert!(m("a\\*b", "a*b"));
        assert!(!m("a\\*b", "axb"));
        assert!(m("[\\]]", "]"));
        assert!(m("a\\", "a\\"));
        assert!(m("[abc", "b"));
    }

    #[test]
    fn literal_prefixes() {
        let g = Glob::new(b"user:\\*x*");
        assert_eq!(g.literal_prefix(), b"user:*x");
        assert!(g.is_prefix_pattern());
        assert!(!Glob::new(b"user:*:name").is_prefix_pattern());
        assert!(!Glob::new(b"user").is_prefix_pattern());
        assert!(Glob::new(b"*").is_prefix_pattern());
        assert_eq!(Glob::new(b"?x").literal_prefix(), b"");
    }

    #[test]
    fn matching_is_not_exponential() {
        let key = "a".repeat(5000);
        let pattern = format!("{}b", "*a".repeat(50));
        let start = std::time::Instant::now();
        assert!(!m(&pattern, &key));
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
