//! Commands over keys in general: `DEL`, `EXISTS`, `TOUCH`, `TYPE`, `SCAN`, `KEYS`,
//! `RANDOMKEY`, `DBSIZE`, `FLUSHDB` (`FLUSHALL` is the same: there is one database). None
//! of them reads a separated value: keys are listed and tested by key-only iteration.

use super::{Ctx, err_engine, err_syntax, int_arg, is};
use crate::glob::Glob;
use crate::resp::Frame;
use rand::RngExt;
use std::collections::HashSet;
use std::ops::Bound;
use twain::{Db, Snapshot, WriteBatch};

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

/// Whether `key` exists, read by key-only iteration (no value file is read).
fn key_exists(db: &Db, key: &[u8]) -> twain::Result<bool> {
    db.keys(key..=key).next().transpose().map(|k| k.is_some())
}

/// Whether `key` exists as of `snapshot`, read as [`key_exists`].
fn key_exists_at(snapshot: &Snapshot, key: &[u8]) -> twain::Result<bool> {
    let found = snapshot.range(key..=key).into_keys().next();
    found.transpose().map(|k| k.is_some())
}

/// `EXISTS key...`: how many of the keys exist, a key named twice counting twice.
pub fn exists(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    count_existing(ctx.shared.store.db(), &args[1..])
}

/// `TOUCH key...`: as `EXISTS` (Redis's TOUCH only updates the access time of its keys,
/// which twain does not keep).
pub fn touch(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    count_existing(ctx.shared.store.db(), &args[1..])
}

/// How many of `keys` exist, all tested at one snapshot (as Redis answers at one moment).
fn count_existing(db: &Db, keys: &[Vec<u8>]) -> Frame {
    let snapshot = db.snapshot();
    let mut n = 0;
    for key in keys {
        match key_exists_at(&snapshot, key) {
            Ok(true) => n += 1,
            Ok(false) => {}
            Err(e) => return err_engine(&e),
        }
    }
    Frame::Integer(n)
}

/// `TYPE key`: `string` if the key exists (every twain value is a string), else `none`.
pub fn key_type(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match key_exists(ctx.shared.store.db(), &args[1]) {
        Ok(true) => Frame::Simple("string".into()),
        Ok(false) => Frame::Simple("none".into()),
        Err(e) => err_engine(&e),
    }
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
        .keys((lower, prefix_end(&prefix)))
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
            Some(Ok(key)) => {
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

/// `KEYS pattern`: every key matching the glob, in key order. Only the keys under the
/// pattern's literal prefix are visited. The reply is refused once its keys pass the
/// server's output limit (`--max-output`), before it is built whole: use `SCAN` for more.
pub fn keys(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let glob = Glob::new(&args[1]);
    let prefix = glob.literal_prefix();
    let filter = (!glob.is_prefix_pattern()).then_some(&glob);
    let limit = ctx.shared.config.max_output;
    let mut found = Vec::new();
    let mut bytes = 0usize;
    for key in ctx
        .shared
        .store
        .db()
        .keys((Bound::Included(prefix.clone()), prefix_end(&prefix)))
    {
        let key = match key {
            Ok(k) => k,
            Err(e) => return err_engine(&e),
        };
        if filter.is_none_or(|g| g.matches(&key)) {
            // A bulk reply's framing is at most 16 bytes beside the key.
            bytes = bytes.saturating_add(key.len() + 16);
            if bytes > limit {
                return Frame::error(format!(
                    "ERR KEYS reply would exceed the output limit of {limit} bytes; use SCAN"
                ));
            }
            found.push(Frame::Bulk(key));
        }
    }
    Frame::Array(found)
}

/// Keys `RANDOMKEY` steps on at most past the random point it seeks.
const RANDOM_KEY_MAX_STEPS: usize = 32;

/// `RANDOMKEY`: a key drawn at random, or nil on an empty database. A random point is
/// drawn between the first and the last key; the key returned is the first at or after
/// it, stepped on by up to [`RANDOM_KEY_MAX_STEPS`] keys at random (wrapping around), so a
/// dense cluster of keys is not stuck on its first. Keys after large gaps of the key space
/// still come up more often: random, not uniform.
pub fn random_key(ctx: &mut Ctx<'_>, _args: &[Vec<u8>]) -> Frame {
    let db = ctx.shared.store.db();
    let mut all = db.keys::<&[u8], _>(..);
    let (first, last) = match (all.next().transpose(), all.next_back().transpose()) {
        (Err(e), _) | (_, Err(e)) => return err_engine(&e),
        (Ok(None), _) => return Frame::Null,
        (Ok(Some(first)), Ok(None)) => return Frame::Bulk(first),
        (Ok(Some(first)), Ok(Some(last))) => (first, last),
    };
    let mut rng = rand::rng();
    let point = point_between(&first, &last, &mut rng);
    let steps = rng.random_range(0..=RANDOM_KEY_MAX_STEPS);
    let mut keys = db.keys(point..);
    let mut chosen = None;
    for _ in 0..=steps {
        let next = match keys.next() {
            Some(k) => Some(k),
            None => {
                keys = db.keys::<&[u8], _>(..);
                keys.next()
            }
        };
        match next {
            Some(Ok(k)) => chosen = Some(k),
            Some(Err(e)) => return err_engine(&e),
            None => break, // every key was deleted meanwhile
        }
    }
    chosen.map_or(Frame::Null, Frame::Bulk)
}

/// A key `k` with `lo <= k <= hi` (REQUIRES: `lo <= hi`), drawn at random: the common
/// prefix, then at the first differing position a byte between the two, then random bytes.
fn point_between(lo: &[u8], hi: &[u8], rng: &mut impl RngExt) -> Vec<u8> {
    let common = lo.iter().zip(hi).take_while(|(a, b)| a == b).count();
    let mut point = lo[..common].to_vec();
    let (Some(&a), Some(&b)) = (lo.get(common).or(Some(&0)), hi.get(common)) else {
        return point; // lo == hi, or hi is a prefix of lo (impossible when lo <= hi)
    };
    let byte = rng.random_range(a..=b);
    point.push(byte);
    if byte == a && common < lo.len() {
        // Stay at or above lo: its rest, or beyond it.
        point.extend_from_slice(&lo[common + 1..]);
    } else {
        point.extend((0..4).map(|_| rng.random::<u8>()));
    }
    if point.as_slice() > hi {
        return hi.to_vec();
    }
    point
}

/// `DBSIZE`: the exact number of keys, counted by iterating over all of them.
pub fn dbsize(ctx: &mut Ctx<'_>, _args: &[Vec<u8>]) -> Frame {
    let mut n: i64 = 0;
    for key in ctx.shared.store.db().keys::<&[u8], _>(..) {
        if let Err(e) = key {
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
    for key in store.db().keys::<&[u8], _>(..) {
        match key {
            Ok(key) => {
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
    fn type_and_touch() {
        let mut c = Conn::new();
        c.run(&["MSET", "a", "1", "b", "2"]);
        assert_eq!(c.run(&["TYPE", "a"]), Frame::Simple("string".into()));
        assert_eq!(c.run(&["TYPE", "zz"]), Frame::Simple("none".into()));
        assert_eq!(c.run(&["TOUCH", "a", "a", "zz", "b"]), Frame::Integer(3));
        c.run(&["DEL", "a"]);
        assert_eq!(c.run(&["TYPE", "a"]), Frame::Simple("none".into()));
        assert_eq!(c.run(&["TOUCH", "a"]), Frame::Integer(0));
    }

    fn key_list(f: Frame) -> Vec<String> {
        let Frame::Array(keys) = f else {
            panic!("not an array: {f:?}")
        };
        keys.into_iter()
            .map(|k| match k {
                Frame::Bulk(b) => String::from_utf8(b).unwrap(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn keys_lists_matches_in_key_order() {
        let mut c = Conn::new();
        for k in ["user:1", "user:2", "user:10", "users", "item:1", "uzer:1"] {
            c.run(&["SET", k, "v"]);
        }
        assert_eq!(
            key_list(c.run(&["KEYS", "user:*"])),
            ["user:1", "user:10", "user:2"]
        );
        assert_eq!(key_list(c.run(&["KEYS", "*:1"])).len(), 3);
        assert_eq!(key_list(c.run(&["KEYS", "*"])).len(), 6);
        assert_eq!(key_list(c.run(&["KEYS", "users"])), ["users"]);
        assert!(key_list(c.run(&["KEYS", "nothing*"])).is_empty());
    }

    #[test]
    fn keys_refuses_a_reply_past_the_output_limit() {
        let mut config = crate::Config::new("/db");
        config.max_output = 1000;
        let mut c = Conn::with(config);
        for i in 0..100 {
            c.run(&["SET", &format!("key:{i:03}"), "v"]);
        }
        assert!(is_err(
            &c.run(&["KEYS", "*"]),
            "ERR KEYS reply would exceed"
        ));
        assert_eq!(key_list(c.run(&["KEYS", "key:00*"])).len(), 10);
    }

    #[test]
    fn randomkey_draws_existing_keys() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["RANDOMKEY"]), Frame::Null);
        c.run(&["SET", "only", "v"]);
        assert_eq!(c.run(&["RANDOMKEY"]), Frame::Bulk(b"only".to_vec()));
        let keys: Vec<String> = (0..20).map(|i| format!("k{i:02}")).collect();
        for k in &keys {
            c.run(&["SET", k, "v"]);
        }
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let Frame::Bulk(k) = c.run(&["RANDOMKEY"]) else {
                panic!("no key")
            };
            let k = String::from_utf8(k).unwrap();
            assert!(k == "only" || keys.contains(&k), "{k}");
            seen.insert(k);
        }
        // Not uniform, but not stuck on one key either.
        assert!(seen.len() >= 5, "{seen:?}");
    }

    #[test]
    fn random_points_stay_between_their_bounds() {
        let mut rng = rand::rng();
        let cases: [(&[u8], &[u8]); 6] = [
            (b"a", b"z"),
            (b"user:1", b"user:9"),
            (b"ab", b"abc"),
            (b"same", b"same"),
            (b"", b"\xff"),
            (b"a\xff\xff", b"b"),
        ];
        for (lo, hi) in cases {
            for _ in 0..200 {
                let p = point_between(lo, hi, &mut rng);
                assert!(
                    lo <= p.as_slice() && p.as_slice() <= hi,
                    "{lo:?} {p:?} {hi:?}"
                );
            }
        }
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
