//! `twain scan`: keys and values in order, in the printable form of [`crate::text`].

use crate::text::Text;
use clap::Args;
use std::io::Write;
use std::ops::Bound;
use twain::{Db, KvPair, Result};

/// Arguments of `twain scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// First key (inclusive).
    #[arg(long)]
    from: Option<String>,
    /// Last key (exclusive).
    #[arg(long)]
    to: Option<String>,
    /// Only keys with this prefix; with --from/--to, only the keys in both ranges.
    #[arg(long)]
    prefix: Option<String>,
    /// Walk backwards.
    #[arg(long)]
    reverse: bool,
    /// Stop after this many pairs.
    #[arg(long)]
    limit: Option<usize>,
    /// Print keys only, one a line; no value file is read.
    #[arg(long, conflicts_with = "count")]
    keys_only: bool,
    /// Print only how many keys there are (no value file is read).
    #[arg(long)]
    count: bool,
}

/// A key range: its lower and upper bound.
type Range = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// Scans `db` as `args` ask, writing lines to `out`; `w` turns a failed write into the
/// command's error.
pub fn run(
    db: &Db,
    text: Text,
    args: &ScanArgs,
    out: &mut dyn Write,
    w: fn(std::io::Error) -> twain::Error,
) -> Result<()> {
    let key = |k: &Option<String>, what| k.as_deref().map(|k| text.arg(what, k)).transpose();
    let range = intersect(
        key(&args.prefix, "prefix")?,
        key(&args.from, "--from")?,
        key(&args.to, "--to")?,
    );
    let limit = args.limit.unwrap_or(usize::MAX);
    let Some(range) = range else {
        // An empty range: nothing to print, or a count of 0.
        if args.count {
            writeln!(out, "0").map_err(w)?;
        }
        return Ok(());
    };
    let iter = db.range(range);
    if args.keys_only || args.count {
        let keys = iter.into_keys();
        let keys: Box<dyn Iterator<Item = Result<Vec<u8>>>> = match args.reverse {
            true => Box::new(keys.rev()),
            false => Box::new(keys),
        };
        let mut n = 0u64;
        for k in keys.take(limit) {
            let k = k?;
            n += 1;
            if !args.count {
                writeln!(out, "{}", text.show(&k)).map_err(w)?;
            }
        }
        if args.count {
            writeln!(out, "{n}").map_err(w)?;
        }
    } else {
        let pairs: Box<dyn Iterator<Item = Result<KvPair>>> = match args.reverse {
            true => Box::new(iter.rev()),
            false => Box::new(iter),
        };
        for kv in pairs.take(limit) {
            let (k, v) = kv?;
            writeln!(out, "{}\t{}", text.show(&k), text.show(&v)).map_err(w)?;
        }
    }
    Ok(())
}

/// The keys that start with `prefix` (if any) and lie in `[from, to)` (each bound if any),
/// or `None` when no key can.
fn intersect(prefix: Option<Vec<u8>>, from: Option<Vec<u8>>, to: Option<Vec<u8>>) -> Option<Range> {
    let (prefix_from, prefix_to) = match prefix {
        Some(p) => {
            let end = prefix_end(&p);
            (Some(p), end)
        }
        None => (None, None),
    };
    let lower = match (from, prefix_from) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let upper = match (to, prefix_to) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    if let (Some(lo), Some(hi)) = (&lower, &upper)
        && lo >= hi
    {
        return None;
    }
    Some((
        lower.map_or(Bound::Unbounded, Bound::Included),
        upper.map_or(Bound::Unbounded, Bound::Excluded),
    ))
}

/// The least key greater than every key starting with `prefix`, or `None` if there is
/// none (`prefix` is all `0xff` bytes, or empty).
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[u8]) -> Option<Vec<u8>> {
        Some(s.to_vec())
    }

    #[test]
    fn the_range_is_the_intersection_of_prefix_and_from_to() {
        let inc = |s: &[u8]| Bound::Included(s.to_vec());
        let exc = |s: &[u8]| Bound::Excluded(s.to_vec());
        assert_eq!(
            intersect(v(b"user:"), v(b"user:5"), None),
            Some((inc(b"user:5"), exc(b"user;")))
        );
        assert_eq!(
            intersect(v(b"user:"), v(b"a"), v(b"user:7")),
            Some((inc(b"user:"), exc(b"user:7")))
        );
        assert_eq!(intersect(v(b"user:"), v(b"v"), None), None);
        assert_eq!(intersect(v(b"user:"), None, v(b"user:")), None);
        assert_eq!(intersect(None, v(b"b"), v(b"a")), None);
        assert_eq!(
            intersect(v(b"\xff"), None, None),
            Some((inc(b"\xff"), Bound::Unbounded))
        );
        assert_eq!(
            intersect(None, None, None),
            Some((Bound::Unbounded, Bound::Unbounded))
        );
    }

    #[test]
    fn prefix_end_increments_the_last_byte_below_0xff() {
        assert_eq!(prefix_end(b"ab"), v(b"ac"));
        assert_eq!(prefix_end(b"a\xff"), v(b"b"));
        assert_eq!(prefix_end(b"\xff\xff"), None);
        assert_eq!(prefix_end(b""), None);
    }
}
