//! Commands over keys in general: `DEL`, `EXISTS`, `SCAN`, `DBSIZE`, `FLUSHDB`
//! (`FLUSHALL` is the same: there is one database).

use super::{Ctx, err_engine, err_syntax, int_arg, is};
use crate::glob::Glob;
use crate::resp::Frame;
use std::collections::HashSet;
use std::ops::Bound;
use twain::WriteBatch;

/// Default and largest keys a SCAN examines per call (Redis's `COUNT`).
const SCAN_DEFAULT_COUNT: usize = 10;

/// A SCAN stops early (COUNT is a hint) once the keys it returns pass this many bytes, so
/// its reply stays small whatever COUNT asks.
const SCAN_MAX_REPLY_BYTES: usize = 1 << 20;

/// FLUSHDB deletes in one atomic batch up to this many bytes of keys, in several beyond.
const FLUSH_BATCH_BYTES: usize = 64 << 20;

/// `DEL key...`: the number of keys that existed. One atomic batch.
pub fn del(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let store = &ctx.shared.store;
    let mut seen = HashSet::new();
    let keys: Vec<&[u8]> = args[1..]
        .iter()
        .map(Vec::as_slice)
        .filter(|k| seen.insert(*k))
        .collect();
    let held = store.lock(keys.iter().copied());
    let mut batch = WriteBatch::new();
    for key in keys {
        match store.get(key) {
            Ok(Some(_)) => {
                batch.delete(key);
            }
            Ok(None) => {}
            Err(e) => return err_engine(&e),
        }
    }
    let deleted = i64::try_from(batch.len()).unwrap_or(i64::MAX);
    if deleted > 0
        && let Err(e) = store.write(&held, batch)
    {
        return err_engine(&e);
    }
    Frame::Integer(deleted)
}

/// `EXISTS key...`: how many of the keys exist, a key named twice counting twice.
pub fn exists(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let snapshot = ctx.shared.store.db().snapshot();
    let mut n = 0;
    for key in &args[1..] {
        match snapshot.get(key) {
            Ok(Some(_)) => n += 1,
            Ok(None) => {}
            Err(e) => return err_engine(&e),
        }
    }
    Frame::Integer(n)
}

/// What a SCAN call asked for.
struct ScanArgs {
    resume_after: Option<Vec<u8>>,
    pattern: Option<Glob>,
    count: usize,
    strings_only: bool,
}

fn scan_args(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<ScanArgs, Frame> {
    let mut scan = ScanArgs {
        resume_after: None,
        pattern: None,
        count: SCAN_DEFAULT_COUNT,
        strings_only: true,
    };
    for opt in args[2..].chunks(2) {
        let (Some(name), Some(value)) = (opt.first(), opt.get(1)) else {
            return Err(err_syntax());
        };
        if is(name, "MATCH") {
            scan.pattern = Some(Glob::new(value));
        } else if is(name, "COUNT") {
            scan.count = int_arg(value)?
                .try_into()
                .ok()
                .filter(|&c| c >= 1)
                .ok_or_else(err_syntax)?;
        } else if is(name, "TYPE") {
            scan.strings_only = is(value, "string");
        } else {
            return Err(err_syntax());
        }
    }
    let cursor = &args[1];
    if cursor.as_slice() != b"0" {
        let invalid = || Frame::error("ERR invalid cursor");
        let id: u64 = std::str::from_utf8(cursor)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(invalid)?;
        scan.resume_after = Some(ctx.session.cursors.take(id).ok_or_else(invalid)?);
    }
    Ok(scan)
}

/// The smallest key greater than every key starting with `prefix` (none if there is no
/// such key: the prefix is empty or all `0xff`).
fn prefix_end(prefix: &[u8]) -> Bound<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Bound::Excluded(end);
        }
    }
    Bound::Unbounded
}

/// `SCAN cursor [MATCH pattern] [COUNT n] [TYPE type]`: examines up to `n` keys in key
/// order after the cursor's key (within the pattern's literal prefix), returns those
/// matching and a cursor for the rest, `0` when the keys are exhausted. See
/// [`crate::cursor`] for what the cursor is.
pub fn scan(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let scan = match scan_args(ctx, args) {
        Ok(s) => s,
        Err(reply) => return reply,
    };
    let prefix = scan
        .pattern
        .as_ref()
        .map(Glob::literal_prefix)
        .unwrap_or_default();
    let filter = scan.pattern.as_ref().filter(|g| !g.is_prefix_pattern());
    let lower = match scan.resume_after {
        Some(k) if k >= prefix => Bound::Excluded(k),
        _ => Bound::Included(prefix.clone()),
    };
    let mut keys = ctx
        .shared
        .store
        .db()
        .range((lower, prefix_end(&prefix)))
        .peekable();
    let mut found = Vec::new();
    let mut found_bytes = 0;
    let mut last = None;
    for _ in 0..scan.count {
        if found_bytes >= SCAN_MAX_REPLY_BYTES {
            break;
        }
        match keys.next() {
            None => break,
            Some(Err(e)) => return err_engine(&e),
            Some(Ok((key, _))) => {
                if scan.strings_only && filter.is_none_or(|g| g.matches(&key)) {
                    found_bytes += key.len();
                    found.push(Frame::Bulk(key.clone()));
                }
                last = Some(key);
            }
        }
    }
    let next = match last {
        Some(key) if keys.peek().is_some() => ctx.session.cursors.save(key),
        _ => 0,
    };
    Frame::Array(vec![
        Frame::Bulk(next.to_string().into_bytes()),
        Frame::Array(found),
    ])
}

/// `DBSIZE`: the exact number of keys, counted by iterating over all of them.
pub fn dbsize(ctx: &mut Ctx<'_>, _args: &[Vec<u8>]) -> Frame {
    let mut n: i64 = 0;
    for kv in ctx.shared.store.db().iter() {
        if let Err(e) = kv {
            return err_engine(&e);
        }
        n += 1;
    }
    Frame::Integer(n)
}

/// `FLUSHDB [ASYNC|SYNC]`: deletes every key while holding every stripe, so no write
/// interleaves. Up to `FLUSH_BATCH_BYTES` of keys go in one atomic batch.
pub fn flushdb(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match args.get(1..) {
        Some([]) => {}
        Some([mode]) if is(mode, "ASYNC") || is(mode, "SYNC") => {}
        _ => return err_syntax(),
    }
    let store = &ctx.shared.store;
    let held = store.lock_all();
    let mut batch = WriteBatch::new();
    for kv in store.db().iter() {
        match kv {
            Ok((key, _)) => {
                batch.delete(key);
            }
            Err(e) => return err_engine(&e),
        }
        if batch.payload_bytes() >= FLUSH_BATCH_BYTES
            && let Err(e) = store.write(&held, std::mem::take(&mut batch))
        {
            return err_engine(&e);
        }
    }
    if !batch.is_empty()
        && let Err(e) = store.write(&held, batch)
    {
        return err_engine(&e);
    }
    Frame::ok()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn scan_page(c: &mut Conn, words: &[&str]) -> (String, Vec<String>) {
        let Frame::Array(parts) = c.run(words) else {
            panic!("not an array")
        };
        let [Frame::Bulk(cursor), Frame::Array(keys)] = parts.as_slice() else {
            panic!("bad scan reply {parts:?}")
        };
        let keys = keys
            .iter()
            .map(|k| match k {
                Frame::Bulk(b) => String::from_utf8(b.clone()).unwrap(),
                other => panic!("{other:?}"),
            })
            .collect();
        (String::from_utf8(cursor.clone()).unwrap(), keys)
    }

    fn scan_all(c: &mut Conn, extra: &[&str]) -> Vec<String> {
        let mut cursor = "0".to_string();
        let mut all = Vec::new();
        loop {
            let mut words = vec!["SCAN", cursor.as_str()];
            words.extend_from_slice(extra);
            let (next, keys) = scan_page(c, &words);
            all.extend(keys);
            if next == "0" {
                return all;
            }
            cursor = next;
        }
    }

    #[test]
    fn del_and_exists_count_keys() {
        let mut c = Conn::new();
        c.run(&["MSET", "a", "1", "b", "2"]);
        assert_eq!(c.run(&["EXISTS", "a", "a", "zz", "b"]), Frame::Integer(3));
        assert_eq!(c.run(&["DEL", "a", "a", "zz"]), Frame::Integer(1));
        assert_eq!(c.run(&["EXISTS", "a"]), Frame::Integer(0));
        assert_eq!(c.run(&["DEL", "a"]), Frame::Integer(0));
    }

    #[test]
    fn scan_walks_every_key_once_in_pages() {
        let mut c = Conn::new();
        let keys: Vec<String> = (0..95).map(|i| format!("key:{i:03}")).collect();
        for k in &keys {
            c.run(&["SET", k, "v"]);
        }
        assert_eq!(scan_all(&mut c, &[]), keys);
        assert_eq!(scan_all(&mut c, &["COUNT", "7"]), keys);
        assert_eq!(scan_all(&mut c, &["COUNT", "1000"]), keys);
        let (cursor, page) = scan_page(&mut c, &["SCAN", "0", "COUNT", "95"]);
        assert_eq!((cursor.as_str(), page.len()), ("0", 95));
    }

    #[test]
    fn scan_match_by_prefix_and_by_glob() {
        let mut c = Conn::new();
        for k in ["user:1", "user:2", "user:10", "users", "item:1", "uzer:1"] {
            c.run(&["SET", k, "v"]);
        }
        assert_eq!(
            scan_all(&mut c, &["MATCH", "user:*", "COUNT", "1"]),
            ["user:1", "user:10", "user:2"]
        );
        assert_eq!(scan_all(&mut c, &["MATCH", "u?er:1"]), ["user:1", "uzer:1"]);
        assert_eq!(
            scan_all(&mut c, &["MATCH", "*:1"]),
            ["item:1", "user:1", "uzer:1"]
        );
        assert_eq!(
            scan_all(&mut c, &["MATCH", "nothing*"]),
            Vec::<String>::new()
        );
        assert_eq!(scan_all(&mut c, &["TYPE", "hash"]), Vec::<String>::new());
        assert_eq!(scan_all(&mut c, &["TYPE", "string"]).len(), 6);
    }

    #[test]
    fn scan_sees_keys_written_between_pages() {
        let mut c = Conn::new();
        c.run(&["MSET", "a", "1", "b", "2", "d", "4"]);
        let (cursor, page) = scan_page(&mut c, &["SCAN", "0", "COUNT", "2"]);
        assert_eq!(page, ["a", "b"]);
        c.run(&["SET", "c", "3"]);
        c.run(&["DEL", "d"]);
        let (cursor, page) = scan_page(&mut c, &["SCAN", &cursor, "COUNT", "2"]);
        assert_eq!((cursor.as_str(), page), ("0", vec!["c".to_string()]));
    }

    #[test]
    fn scan_refuses_bad_cursors_and_options() {
        let mut c = Conn::new();
        c.run(&["MSET", "a", "1", "b", "2"]);
        assert!(is_err(&c.run(&["SCAN", "abc"]), "ERR invalid cursor"));
        assert!(is_err(&c.run(&["SCAN", "12345"]), "ERR invalid cursor"));
        assert!(is_err(
            &c.run(&["SCAN", "0", "COUNT", "0"]),
            "ERR syntax error"
        ));
        assert!(is_err(&c.run(&["SCAN", "0", "COUNT"]), "ERR syntax error"));
        assert!(is_err(
            &c.run(&["SCAN", "0", "LIMIT", "3"]),
            "ERR syntax error"
        ));
        let (cursor, _) = scan_page(&mut c, &["SCAN", "0", "COUNT", "1"]);
        assert_ne!(cursor, "0");
        scan_page(&mut c, &["SCAN", &cursor, "COUNT", "1"]);
        assert!(is_err(&c.run(&["SCAN", &cursor]), "ERR invalid cursor"));
    }

    #[test]
    fn prefix_ends() {
        assert_eq!(prefix_end(b"ab"), Bound::Excluded(b"ac".to_vec()));
        assert_eq!(prefix_end(b"a\xff"), Bound::Excluded(b"b".to_vec()));
        assert_eq!(prefix_end(b"\xff\xff"), Bound::Unbounded);
        assert_eq!(prefix_end(b""), Bound::Unbounded);
    }

    #[test]
    fn dbsize_and_flushdb() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["DBSIZE"]), Frame::Integer(0));
        for i in 0..50 {
            c.run(&["SET", &format!("k{i}"), "v"]);
        }
        c.run(&["DEL", "k7"]);
        assert_eq!(c.run(&["DBSIZE"]), Frame::Integer(49));
        assert!(is_err(&c.run(&["FLUSHDB", "NOW"]), "ERR syntax error"));
        assert_eq!(c.run(&["FLUSHDB"]), Frame::ok());
        assert_eq!(c.run(&["DBSIZE"]), Frame::Integer(0));
        assert_eq!(c.run(&["GET", "k1"]), Frame::Null);
        c.run(&["SET", "after", "1"]);
        assert_eq!(c.run(&["FLUSHALL", "ASYNC"]), Frame::ok());
        assert_eq!(c.run(&["DBSIZE"]), Frame::Integer(0));
    }
}
