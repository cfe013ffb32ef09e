//! String commands: `GET`, `SET`, `SETNX`, `GETSET`, `MGET`, `MSET`, `APPEND`, `STRLEN`,
//! `INCR`, `INCRBY`, `DECR`, `DECRBY`. Every write holds its keys' stripes; a
//! read-modify-write holds them from the read to the end of the write.

use super::{Ctx, err_arity, err_engine, err_not_integer, err_syntax, int_arg, is};
use crate::resp::{Frame, parse_i64};
use std::borrow::Cow;
use twain::WriteBatch;

/// What a read-modify-write decided: the new value to write (or none), and the reply.
type Decision<'v> = Result<(Option<Cow<'v, [u8]>>, Frame), Frame>;

/// Reads `key`, lets `decide` choose the write and the reply, and applies the write, all
/// under the key's stripe so no other write to the key lands in between.
fn read_modify_write<'v>(
    ctx: &Ctx<'_>,
    key: &[u8],
    decide: impl FnOnce(Option<Vec<u8>>) -> Decision<'v>,
) -> Frame {
    let store = &ctx.shared.store;
    let held = store.lock([key]);
    let old = match store.get(key) {
        Ok(v) => v,
        Err(e) => return err_engine(&e),
    };
    let (new, reply) = match decide(old) {
        Ok(d) => d,
        Err(reply) => return reply,
    };
    if let Some(value) = new {
        let mut batch = WriteBatch::new();
        batch.put(key, value);
        if let Err(e) = store.write(&held, batch) {
            return err_engine(&e);
        }
    }
    reply
}

/// Writes `pairs` as one atomic batch under their stripes; `+OK` or the engine's error.
pub fn write_pairs<'a>(ctx: &Ctx<'_>, pairs: impl Iterator<Item = (&'a [u8], &'a [u8])>) -> Frame {
    let store = &ctx.shared.store;
    let mut batch = WriteBatch::new();
    let mut keys = Vec::new();
    for (k, v) in pairs {
        batch.put(k, v);
        keys.push(k);
    }
    let held = store.lock(keys);
    match store.write(&held, batch) {
        Ok(()) => Frame::ok(),
        Err(e) => err_engine(&e),
    }
}

fn value_or_null(v: Option<Vec<u8>>) -> Frame {
    v.map_or(Frame::Null, Frame::Bulk)
}

/// `GET key`.
pub fn get(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.shared.store.get(&args[1]) {
        Ok(v) => value_or_null(v),
        Err(e) => err_engine(&e),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Condition {
    Always,
    IfAbsent,
    IfPresent,
}

/// `SET key value [NX|XX] [GET]`. The expiry options (`EX`, `PX`, `EXAT`, `PXAT`,
/// `KEEPTTL`) are refused: the engine has no key expiry.
pub fn set(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let (key, value) = (&args[1], &args[2]);
    let mut condition = Condition::Always;
    let mut get = false;
    let mut expiry: Option<&str> = None;
    let mut i = 3;
    while let Some(opt) = args.get(i) {
        let with_arg = ["EX", "PX", "EXAT", "PXAT"]
            .into_iter()
            .find(|w| is(opt, w));
        if let Some(word) = with_arg {
            if expiry.is_some() || args.get(i + 1).is_none() {
                return err_syntax();
            }
            expiry = Some(word);
            i += 1;
        } else if is(opt, "KEEPTTL") && expiry.is_none() {
            expiry = Some("KEEPTTL");
        } else if is(opt, "NX") && condition == Condition::Always {
            condition = Condition::IfAbsent;
        } else if is(opt, "XX") && condition == Condition::Always {
            condition = Condition::IfPresent;
        } else if is(opt, "GET") {
            get = true;
        } else {
            return err_syntax();
        }
        i += 1;
    }
    if let Some(word) = expiry {
        return Frame::error(format!(
            "ERR {word} is not supported: twain has no key expiry (TTL) yet"
        ));
    }
    if condition == Condition::Always && !get {
        return write_pairs(ctx, std::iter::once((key.as_slice(), value.as_slice())));
    }
    read_modify_write(ctx, key, |old| {
        let allowed = match condition {
            Condition::Always => true,
            Condition::IfAbsent => old.is_none(),
            Condition::IfPresent => old.is_some(),
        };
        let reply = if get {
            value_or_null(old)
        } else if allowed {
            Frame::ok()
        } else {
            Frame::Null
        };
        Ok((allowed.then_some(Cow::Borrowed(value.as_slice())), reply))
    })
}

/// `SETNX key value`: 1 if it set the key, 0 if the key existed.
pub fn setnx(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let value = args[2].as_slice();
    read_modify_write(ctx, &args[1], |old| match old {
        Some(_) => Ok((None, Frame::Integer(0))),
        None => Ok((Some(Cow::Borrowed(value)), Frame::Integer(1))),
    })
}

/// `GETSET key value`: sets the key, returns its old value.
pub fn getset(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let value = args[2].as_slice();
    read_modify_write(ctx, &args[1], |old| {
        Ok((Some(Cow::Borrowed(value)), value_or_null(old)))
    })
}

/// `MGET key...`: every value read from one snapshot.
pub fn mget(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let snapshot = ctx.shared.store.db().snapshot();
    let mut values = Vec::with_capacity(args.len() - 1);
    for key in &args[1..] {
        match snapshot.get(key) {
            Ok(v) => values.push(value_or_null(v)),
            Err(e) => return err_engine(&e),
        }
    }
    Frame::Array(values)
}

/// `MSET key value [key value ...]`: one atomic batch.
pub fn mset(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let pairs = &args[1..];
    if !pairs.len().is_multiple_of(2) {
        return err_arity("mset");
    }
    write_pairs(
        ctx,
        pairs
            .chunks_exact(2)
            .map(|p| (p[0].as_slice(), p[1].as_slice())),
    )
}

/// `APPEND key value`: the length of the new value.
pub fn append(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let suffix = args[2].as_slice();
    read_modify_write(ctx, &args[1], |old| {
        let mut value = old.unwrap_or_default();
        value.extend_from_slice(suffix);
        let len = i64::try_from(value.len()).unwrap_or(i64::MAX);
        Ok((Some(Cow::Owned(value)), Frame::Integer(len)))
    })
}

/// `STRLEN key`: 0 for a missing key.
pub fn strlen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.shared.store.get(&args[1]) {
        Ok(v) => Frame::Integer(v.map_or(0, |v| i64::try_from(v.len()).unwrap_or(i64::MAX))),
        Err(e) => err_engine(&e),
    }
}

/// Adds `delta` to the integer stored at `key` (0 if missing).
fn add(ctx: &Ctx<'_>, key: &[u8], delta: i64) -> Frame {
    read_modify_write(ctx, key, |old| {
        let current = match old {
            None => 0,
            Some(v) => parse_i64(&v).ok_or_else(err_not_integer)?,
        };
        let new = current
            .checked_add(delta)
            .ok_or_else(|| Frame::error("ERR increment or decrement would overflow"))?;
        let text = new.to_string().into_bytes();
        Ok((Some(Cow::Owned(text)), Frame::Integer(new)))
    })
}

/// `INCR key`.
pub fn incr(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    add(ctx, &args[1], 1)
}

/// `DECR key`.
pub fn decr(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    add(ctx, &args[1], -1)
}

/// `INCRBY key increment`.
pub fn incrby(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match int_arg(&args[2]) {
        Ok(delta) => add(ctx, &args[1], delta),
        Err(reply) => reply,
    }
}

/// `DECRBY key decrement`.
pub fn decrby(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match int_arg(&args[2]).map(i64::checked_neg) {
        Ok(Some(delta)) => add(ctx, &args[1], delta),
        Ok(None) => Frame::error("ERR decrement would overflow"),
        Err(reply) => reply,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::resp::Frame;

    #[test]
    fn get_and_set() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
        assert_eq!(c.run(&["SET", "k", "v"]), Frame::ok());
        assert_eq!(c.run(&["GET", "k"]), bulk("v"));
        assert_eq!(c.run(&["SET", "k", ""]), Frame::ok());
        assert_eq!(c.run(&["GET", "k"]), bulk(""));
    }

    #[test]
    fn set_conditions_and_get() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["SET", "k", "1", "XX"]), Frame::Null);
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
        assert_eq!(c.run(&["SET", "k", "1", "nx"]), Frame::ok());
        assert_eq!(c.run(&["SET", "k", "2", "NX"]), Frame::Null);
        assert_eq!(c.run(&["SET", "k", "3", "XX", "GET"]), bulk("1"));
        assert_eq!(c.run(&["SET", "k", "4", "NX", "GET"]), bulk("3"));
        assert_eq!(c.run(&["GET", "k"]), bulk("3"));
        assert_eq!(c.run(&["SET", "new", "x", "GET"]), Frame::Null);
        assert_eq!(c.run(&["GET", "new"]), bulk("x"));
    }

    #[test]
    fn set_refuses_bad_and_expiry_options() {
        let mut c = Conn::new();
        assert!(is_err(
            &c.run(&["SET", "k", "v", "NX", "XX"]),
            "ERR syntax error"
        ));
        assert!(is_err(
            &c.run(&["SET", "k", "v", "BOGUS"]),
            "ERR syntax error"
        ));
        assert!(is_err(&c.run(&["SET", "k", "v", "EX"]), "ERR syntax error"));
        for opt in [
            &["EX", "10"][..],
            &["px", "5"],
            &["EXAT", "1"],
            &["PXAT", "1"],
            &["KEEPTTL"],
        ] {
            let mut words = vec!["SET", "k", "v"];
            words.extend_from_slice(opt);
            let reply = c.run(&words);
            assert!(is_err(&reply, "ERR"), "{reply:?}");
            let Frame::Error(msg) = reply else {
                unreachable!()
            };
            assert!(msg.contains("not supported"), "{msg}");
        }
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
    }

    #[test]
    fn setnx_and_getset() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["SETNX", "k", "a"]), Frame::Integer(1));
        assert_eq!(c.run(&["SETNX", "k", "b"]), Frame::Integer(0));
        assert_eq!(c.run(&["GETSET", "k", "c"]), bulk("a"));
        assert_eq!(c.run(&["GETSET", "other", "d"]), Frame::Null);
        assert_eq!(c.run(&["GET", "k"]), bulk("c"));
    }

    #[test]
    fn mget_and_mset() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["MSET", "a", "1", "b", "2"]), Frame::ok());
        assert_eq!(
            c.run(&["MGET", "a", "missing", "b"]),
            Frame::Array(vec![bulk("1"), Frame::Null, bulk("2")])
        );
        assert!(is_err(&c.run(&["MSET", "a", "1", "b"]), "ERR wrong number"));
        assert_eq!(c.run(&["GET", "a"]), bulk("1"));
    }

    #[test]
    fn append_and_strlen() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["STRLEN", "k"]), Frame::Integer(0));
        assert_eq!(c.run(&["APPEND", "k", "ab"]), Frame::Integer(2));
        assert_eq!(c.run(&["APPEND", "k", "cde"]), Frame::Integer(5));
        assert_eq!(c.run(&["GET", "k"]), bulk("abcde"));
        assert_eq!(c.run(&["STRLEN", "k"]), Frame::Integer(5));
    }

    #[test]
    fn counters() {
        let mut c = Conn::new();
        assert_eq!(c.run(&["INCR", "n"]), Frame::Integer(1));
        assert_eq!(c.run(&["INCRBY", "n", "41"]), Frame::Integer(42));
        assert_eq!(c.run(&["DECR", "n"]), Frame::Integer(41));
        assert_eq!(c.run(&["DECRBY", "n", "-9"]), Frame::Integer(50));
        assert_eq!(c.run(&["GET", "n"]), bulk("50"));
        assert_eq!(c.run(&["DECRBY", "fresh", "5"]), Frame::Integer(-5));
    }

    #[test]
    fn counters_refuse_non_integers_and_overflow() {
        let mut c = Conn::new();
        c.run(&["SET", "s", "abc"]);
        c.run(&["SET", "big", &i64::MAX.to_string()]);
        c.run(&["SET", "spaced", " 1"]);
        assert!(is_err(
            &c.run(&["INCR", "s"]),
            "ERR value is not an integer"
        ));
        assert!(is_err(
            &c.run(&["INCR", "spaced"]),
            "ERR value is not an integer"
        ));
        assert!(is_err(
            &c.run(&["INCR", "big"]),
            "ERR increment or decrement would overflow"
        ));
        assert!(is_err(
            &c.run(&["INCRBY", "n", "1.5"]),
            "ERR value is not an integer"
        ));
        assert!(is_err(
            &c.run(&["DECRBY", "n", &i64::MIN.to_string()]),
            "ERR decrement would overflow"
        ));
        assert_eq!(c.run(&["GET", "big"]), bulk(&i64::MAX.to_string()));
        assert_eq!(c.run(&["GET", "n"]), Frame::Null);
    }

    #[test]
    fn engine_limits_become_error_replies() {
        let mut c = Conn::new();
        let long_key = vec![b'k'; twain::MAX_KEY_SIZE + 1];
        let reply = c.run_args(&[b"SET".to_vec(), long_key.clone(), b"v".to_vec()]);
        assert!(is_err(&reply, "ERR"), "{reply:?}");
        let reply = c.run_args(&[b"INCR".to_vec(), long_key]);
        assert!(is_err(&reply, "ERR"), "{reply:?}");
    }
}
