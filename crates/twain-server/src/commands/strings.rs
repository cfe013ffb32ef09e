//! String commands: `GET`, `SET`, `SETNX`, `GETSET`, `SETEX`, `PSETEX`, `GETEX`, `MGET`,
//! `MSET`, `APPEND`, `STRLEN`, `INCR`, `INCRBY`, `DECR`, `DECRBY`. Every write holds its
//! keys' stripes; a read-modify-write holds them from the read to the end of the write.
//!
//! Expiry follows Redis: a write of a whole new value (`SET` without `KEEPTTL`, `GETSET`,
//! `MSET`, `SETNX`) clears the key's expiry; a change of the value (`APPEND`, `INCR`, ...)
//! keeps it, rewriting the new value with the same expiry time.

use super::expiry::{Unit, now, put, set_expire_at};
use super::{Ctx, err_arity, err_engine, err_not_integer, err_syntax, int_arg, is};
use crate::locks::KeyGuard;
use crate::resp::{Frame, parse_i64};
use crate::store::Store;
use std::borrow::Cow;
use twain::{KeyExpiry, WriteBatch};

/// A key's value and expiry time (`None`: never) as read, or `None` for a missing key.
type Current = Option<(Vec<u8>, Option<u64>)>;

/// What a read-modify-write decided: the new value to write with its expiry time (or no
/// write), and the reply.
type Decision<'v> = Result<(Option<(Cow<'v, [u8]>, Option<u64>)>, Frame), Frame>;

/// Reads `key` and its expiry, lets `decide` choose the write and the reply, and applies
/// the write, all under the key's stripe so no other write to the key lands in between.
fn read_modify_write<'v>(
    ctx: &Ctx<'_>,
    key: &[u8],
    decide: impl FnOnce(Current) -> Decision<'v>,
) -> Frame {
    let store = &ctx.shared.store;
    let held = store.lock([key]);
    let old = match store.db().get_with_expiry(key) {
        Ok(v) => v,
        Err(e) => return err_engine(&e),
    };
    let (new, reply) = match decide(old) {
        Ok(d) => d,
        Err(reply) => return reply,
    };
    if let Some((value, expires_at)) = new
        && let Err(e) = write_one(store, &held, key, &value, expires_at)
    {
        return e;
    }
    reply
}

/// Writes one pair expiring at `expires_at` (`None`: never).
/// REQUIRES: `held` holds the key's stripe.
fn write_one(
    store: &Store,
    held: &KeyGuard<'_>,
    key: &[u8],
    value: &[u8],
    expires_at: Option<u64>,
) -> Result<(), Frame> {
    let mut batch = WriteBatch::new();
    put(&mut batch, key, value, expires_at);
    store.write(held, batch).map_err(|e| err_engine(&e))
}

/// Writes `pairs` as one atomic batch under their stripes; `+OK` or the engine's error.
/// The pairs never expire.
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

/// The expiry option of a `SET` or a `GETEX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExpiryOption {
    /// None: `SET` writes a pair that never expires, `GETEX` changes nothing.
    Unset,
    /// `KEEPTTL` (`SET`): the key keeps its expiry time.
    Keep,
    /// `PERSIST` (`GETEX`): the key's expiry is removed.
    Persist,
    /// `EX`, `PX` (`relative` to now), `EXAT`, `PXAT`.
    Time { unit: Unit, relative: bool },
}

/// The options of a `SET` or a `GETEX`.
#[derive(Debug)]
struct StringOptions<'a> {
    condition: Condition,
    get: bool,
    expiry: ExpiryOption,
    /// The argument of the `EX`/`PX`/`EXAT`/`PXAT` option.
    time: &'a [u8],
}

/// Parses the options of `SET` (`set`: after its value) or `GETEX` (after its key) as
/// Redis does: `NX`, `XX`, `GET`, `KEEPTTL` only for `SET`, `PERSIST` only for `GETEX`;
/// `NX` excludes `XX` and the expiry options exclude each other, but any option may be
/// repeated (the last time given counts); anything else is `-ERR syntax error`.
fn string_options(opts: &[Vec<u8>], set: bool) -> Result<StringOptions<'_>, Frame> {
    const TIMED: [(&str, Unit, bool); 4] = [
        ("EX", Unit::Seconds, true),
        ("PX", Unit::Millis, true),
        ("EXAT", Unit::Seconds, false),
        ("PXAT", Unit::Millis, false),
    ];
    let mut o = StringOptions {
        condition: Condition::Always,
        get: false,
        expiry: ExpiryOption::Unset,
        time: &[],
    };
    let mut i = 0;
    while let Some(opt) = opts.get(i) {
        if let Some(&(_, unit, relative)) = TIMED.iter().find(|(w, ..)| is(opt, w)) {
            let this = ExpiryOption::Time { unit, relative };
            let free = o.expiry == ExpiryOption::Unset || o.expiry == this;
            let Some(time) = opts.get(i + 1).filter(|_| free) else {
                return Err(err_syntax());
            };
            o.expiry = this;
            o.time = time;
            i += 2;
            continue;
        }
        let expiry_free = |e: ExpiryOption| o.expiry == ExpiryOption::Unset || o.expiry == e;
        if set && is(opt, "NX") && o.condition != Condition::IfPresent {
            o.condition = Condition::IfAbsent;
        } else if set && is(opt, "XX") && o.condition != Condition::IfAbsent {
            o.condition = Condition::IfPresent;
        } else if set && is(opt, "GET") {
            o.get = true;
        } else if set && is(opt, "KEEPTTL") && expiry_free(ExpiryOption::Keep) {
            o.expiry = ExpiryOption::Keep;
        } else if !set && is(opt, "PERSIST") && expiry_free(ExpiryOption::Persist) {
            o.expiry = ExpiryOption::Persist;
        } else {
            return Err(err_syntax());
        }
        i += 1;
    }
    Ok(o)
}

/// `SET key value [NX|XX] [GET] [EX s|PX ms|EXAT unix-s|PXAT unix-ms|KEEPTTL]`. Without
/// an expiry option the pair never expires; a time already past is accepted and leaves
/// the key expired (missing). Only `NX`, `XX`, `GET` and `KEEPTTL` read the key (its
/// expiry without its value, unless `GET`).
pub fn set(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let (key, value) = (args[1].as_slice(), args[2].as_slice());
    let o = match string_options(&args[3..], true) {
        Ok(o) => o,
        Err(reply) => return reply,
    };
    let expires_at = match o.expiry {
        ExpiryOption::Time { unit, relative } => {
            match set_expire_at(o.time, unit, relative, now(ctx), "set") {
                Ok(at) => Some(at),
                Err(reply) => return reply,
            }
        }
        _ => None,
    };
    let store = &ctx.shared.store;
    if o.condition == Condition::Always && !o.get && o.expiry != ExpiryOption::Keep {
        if expires_at.is_none() {
            return write_pairs(ctx, std::iter::once((key, value)));
        }
        let held = store.lock([key]);
        return match write_one(store, &held, key, value, expires_at) {
            Ok(()) => Frame::ok(),
            Err(reply) => reply,
        };
    }
    let held = store.lock([key]);
    let (found, old_value, old_expiry) = if o.get {
        match store.db().get_with_expiry(key) {
            Ok(Some((v, at))) => (true, Some(v), at),
            Ok(None) => (false, None, None),
            Err(e) => return err_engine(&e),
        }
    } else {
        match store.db().expiry(key) {
            Ok(KeyExpiry::Missing) => (false, None, None),
            Ok(KeyExpiry::Never) => (true, None, None),
            Ok(KeyExpiry::At(t)) => (true, None, Some(t)),
            Err(e) => return err_engine(&e),
        }
    };
    let allowed = match o.condition {
        Condition::Always => true,
        Condition::IfAbsent => !found,
        Condition::IfPresent => found,
    };
    if allowed {
        let expires_at = if o.expiry == ExpiryOption::Keep {
            old_expiry
        } else {
            expires_at
        };
        if let Err(reply) = write_one(store, &held, key, value, expires_at) {
            return reply;
        }
    }
    if o.get {
        value_or_null(old_value)
    } else if allowed {
        Frame::ok()
    } else {
        Frame::Null
    }
}

/// `SETEX key seconds value` and `PSETEX key milliseconds value`: sets the key to expire
/// after the time, which must be positive.
fn set_for(ctx: &Ctx<'_>, args: &[Vec<u8>], unit: Unit, command: &str) -> Frame {
    let (key, value) = (args[1].as_slice(), args[3].as_slice());
    let at = match set_expire_at(&args[2], unit, true, now(ctx), command) {
        Ok(at) => at,
        Err(reply) => return reply,
    };
    let store = &ctx.shared.store;
    let held = store.lock([key]);
    match write_one(store, &held, key, value, Some(at)) {
        Ok(()) => Frame::ok(),
        Err(reply) => reply,
    }
}

/// `SETEX key seconds value`.
pub fn setex(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    set_for(ctx, args, Unit::Seconds, "setex")
}

/// `PSETEX key milliseconds value`.
pub fn psetex(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    set_for(ctx, args, Unit::Millis, "psetex")
}

/// `GETEX key [EX s|PX ms|EXAT unix-s|PXAT unix-ms|PERSIST]`: the value (null for a missing
/// key, whatever the time given), after which the key gets the expiry asked for (the value
/// rewritten with it); an `EXAT`/`PXAT` time not after now deletes it. Without an option,
/// a `GET`.
pub fn getex(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = args[1].as_slice();
    let o = match string_options(&args[2..], false) {
        Ok(o) => o,
        Err(reply) => return reply,
    };
    if o.expiry == ExpiryOption::Unset {
        return get(ctx, args);
    }
    let store = &ctx.shared.store;
    let held = store.lock([key]);
    let (value, old_expiry) = match store.db().get_with_expiry(key) {
        Ok(Some(found)) => found,
        Ok(None) => return Frame::Null,
        Err(e) => return err_engine(&e),
    };
    let mut batch = WriteBatch::new();
    match o.expiry {
        ExpiryOption::Time { unit, relative } => {
            let now = now(ctx);
            match set_expire_at(o.time, unit, relative, now, "getex") {
                Ok(at) if u64::try_from(now).is_ok_and(|now| at <= now) => {
                    batch.delete(key);
                }
                Ok(at) => put(&mut batch, key, &value, Some(at)),
                Err(reply) => return reply,
            }
        }
        ExpiryOption::Persist if old_expiry.is_some() => put(&mut batch, key, &value, None),
        _ => {}
    }
    if !batch.is_empty()
        && let Err(e) = store.write(&held, batch)
    {
        return err_engine(&e);
    }
    Frame::Bulk(value)
}

/// `SETNX key value`: 1 if it set the key, 0 if the key existed.
pub fn setnx(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let value = args[2].as_slice();
    read_modify_write(ctx, &args[1], |old| match old {
        Some(_) => Ok((None, Frame::Integer(0))),
        None => Ok((Some((Cow::Borrowed(value), None)), Frame::Integer(1))),
    })
}

/// `GETSET key value`: sets the key (clearing its expiry), returns its old value.
pub fn getset(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let value = args[2].as_slice();
    read_modify_write(ctx, &args[1], |old| {
        let reply = value_or_null(old.map(|(v, _)| v));
        Ok((Some((Cow::Borrowed(value), None)), reply))
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

/// `MSET key value [key value ...]`: one atomic batch; the keys lose any expiry.
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

/// `APPEND key value`: the length of the new value. The key keeps its expiry.
pub fn append(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let suffix = args[2].as_slice();
    read_modify_write(ctx, &args[1], |old| {
        let (mut value, expires_at) = old.unwrap_or_default();
        value.extend_from_slice(suffix);
        let len = i64::try_from(value.len()).unwrap_or(i64::MAX);
        Ok((Some((Cow::Owned(value), expires_at)), Frame::Integer(len)))
    })
}

/// `STRLEN key`: 0 for a missing key.
pub fn strlen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    match ctx.shared.store.get(&args[1]) {
        Ok(v) => Frame::Integer(v.map_or(0, |v| i64::try_from(v.len()).unwrap_or(i64::MAX))),
        Err(e) => err_engine(&e),
    }
}

/// Adds `delta` to the integer stored at `key` (0 if missing). The key keeps its expiry.
fn add(ctx: &Ctx<'_>, key: &[u8], delta: i64) -> Frame {
    read_modify_write(ctx, key, |old| {
        let (current, expires_at) = match old {
            None => (0, None),
            Some((v, at)) => (parse_i64(&v).ok_or_else(err_not_integer)?, at),
        };
        let new = current
            .checked_add(delta)
            .ok_or_else(|| Frame::error("ERR increment or decrement would overflow"))?;
        let text = new.to_string().into_bytes();
        Ok((Some((Cow::Owned(text), expires_at)), Frame::Integer(new)))
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
    fn set_refuses_bad_options() {
        let mut c = Conn::new();
        for bad in [
            &["NX", "XX"][..],
            &["XX", "NX"],
            &["BOGUS"],
            &["EX"],
            &["EX", "10", "PX", "10"],
            &["EXAT", "10", "KEEPTTL"],
            &["KEEPTTL", "PXAT", "10"],
            &["PERSIST"],
        ] {
            let mut words = vec!["SET", "k", "v"];
            words.extend_from_slice(bad);
            assert_eq!(c.run(&words), Frame::error("ERR syntax error"), "{bad:?}");
        }
        // Repeats are accepted, as Redis accepts them.
        assert_eq!(
            c.run(&["SET", "k", "v", "NX", "nx", "KEEPTTL", "KEEPTTL"]),
            Frame::ok()
        );
        assert_eq!(c.run(&["GET", "k"]), bulk("v"));
    }

    #[test]
    fn set_expiry_options() {
        let (mut c, clock) = Conn::clocked();
        let t0 = T0 as i64;
        assert_eq!(c.run(&["SET", "k", "v", "EX", "100"]), Frame::ok());
        assert_eq!(c.run(&["PTTL", "k"]), Frame::Integer(100_000));
        assert_eq!(c.run(&["SET", "k", "v", "px", "1500"]), Frame::ok());
        assert_eq!(c.run(&["PTTL", "k"]), Frame::Integer(1_500));
        let at = (T0 / 1000 + 7).to_string();
        assert_eq!(c.run(&["SET", "k", "v", "EXAT", &at]), Frame::ok());
        assert_eq!(c.run(&["PEXPIRETIME", "k"]), Frame::Integer(t0 + 7_000));
        let at = (T0 + 30).to_string();
        assert_eq!(c.run(&["SET", "k", "v", "GET", "PXAT", &at]), bulk("v"));
        assert_eq!(c.run(&["PEXPIRETIME", "k"]), Frame::Integer(t0 + 30));
        // The last of a repeated option counts.
        assert_eq!(c.run(&["SET", "k", "v", "EX", "1", "EX", "9"]), Frame::ok());
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(9));
        // A time already past leaves the key expired.
        assert_eq!(c.run(&["SET", "k", "v", "PXAT", "1"]), Frame::ok());
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
        // XX on that missing key sets nothing; NX sets it with its expiry.
        assert_eq!(c.run(&["SET", "k", "v", "XX", "EX", "5"]), Frame::Null);
        assert_eq!(c.run(&["SET", "k", "v", "NX", "EX", "5"]), Frame::ok());
        assert_eq!(c.run(&["SET", "k", "w", "NX", "EX", "50"]), Frame::Null);
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(5));
        clock.advance(5_000);
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
    }

    #[test]
    fn set_refuses_times_out_of_range() {
        let (mut c, _clock) = Conn::clocked();
        let invalid = Frame::error("ERR invalid expire time in 'set' command");
        for (opt, time) in [
            ("EX", "0"),
            ("PX", "-1"),
            ("EXAT", "0"),
            ("PXAT", "-100"),
            ("EX", "9223372036854776"),
            ("EX", "9223372036854775"), // fits in milliseconds, not once now is added
            ("PX", "9223372036854775807"),
        ] {
            assert_eq!(
                c.run(&["SET", "k", "v", opt, time]),
                invalid,
                "{opt} {time}"
            );
        }
        assert!(is_err(
            &c.run(&["SET", "k", "v", "EX", "1.5"]),
            "ERR value is not an integer"
        ));
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
        assert_eq!(
            c.run(&["SET", "k", "v", "PXAT", "9223372036854775807"]),
            Frame::ok()
        );
        assert_eq!(
            c.run(&["PEXPIRETIME", "k"]),
            Frame::Integer(9_223_372_036_854_775_807)
        );
    }

    #[test]
    fn set_clears_the_expiry_unless_keepttl() {
        let (mut c, _clock) = Conn::clocked();
        c.run(&["SET", "k", "v", "EX", "100"]);
        assert_eq!(c.run(&["SET", "k", "w", "KEEPTTL"]), Frame::ok());
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(100));
        assert_eq!(c.run(&["SET", "k", "x", "XX", "KEEPTTL", "GET"]), bulk("w"));
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(100));
        assert_eq!(c.run(&["SET", "k", "y"]), Frame::ok());
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(-1));
        assert_eq!(c.run(&["SET", "new", "v", "KEEPTTL"]), Frame::ok());
        assert_eq!(c.run(&["TTL", "new"]), Frame::Integer(-1));
        assert_eq!(c.run(&["GET", "k"]), bulk("y"));
    }

    #[test]
    fn whole_writes_clear_the_expiry_and_changes_keep_it() {
        let (mut c, _clock) = Conn::clocked();
        for k in ["a", "b", "c", "d", "e"] {
            c.run(&["SET", k, "1", "EX", "100"]);
        }
        c.run(&["GETSET", "a", "2"]);
        c.run(&["MSET", "b", "2", "x", "1"]);
        c.run(&["APPEND", "c", "2"]);
        c.run(&["INCR", "d"]);
        c.run(&["DECRBY", "e", "5"]);
        let ttls: Vec<Frame> = ["a", "b", "c", "d", "e", "x"]
            .iter()
            .map(|k| c.run(&["TTL", k]))
            .collect();
        let want = [-1, -1, 100, 100, 100, -1].map(Frame::Integer);
        assert_eq!(ttls, want);
        assert_eq!(
            c.run(&["MGET", "a", "b", "c", "d", "e"]),
            Frame::Array(vec![
                bulk("2"),
                bulk("2"),
                bulk("12"),
                bulk("2"),
                bulk("-4")
            ])
        );
        // SETNX on a key that expired sets one without expiry.
        c.run(&["PEXPIRE", "a", "0"]);
        assert_eq!(c.run(&["SETNX", "a", "n"]), Frame::Integer(1));
        assert_eq!(c.run(&["TTL", "a"]), Frame::Integer(-1));
    }

    #[test]
    fn setex_and_psetex() {
        let (mut c, clock) = Conn::clocked();
        assert_eq!(c.run(&["SETEX", "k", "10", "v"]), Frame::ok());
        assert_eq!(c.run(&["PTTL", "k"]), Frame::Integer(10_000));
        assert_eq!(c.run(&["PSETEX", "p", "250", "w"]), Frame::ok());
        assert_eq!(c.run(&["PTTL", "p"]), Frame::Integer(250));
        clock.advance(250);
        assert_eq!(
            c.run(&["MGET", "k", "p"]),
            Frame::Array(vec![bulk("v"), Frame::Null])
        );
        for (cmd, time) in [
            ("SETEX", "0"),
            ("PSETEX", "-1"),
            ("SETEX", "9223372036854776"),
        ] {
            let want = format!(
                "ERR invalid expire time in '{}' command",
                cmd.to_lowercase()
            );
            assert_eq!(c.run(&[cmd, "x", time, "v"]), Frame::error(want));
        }
        assert!(is_err(
            &c.run(&["SETEX", "x", "ten", "v"]),
            "ERR value is not"
        ));
        assert!(is_err(&c.run(&["SETEX", "x", "10"]), "ERR wrong number"));
        assert_eq!(c.run(&["EXISTS", "x"]), Frame::Integer(0));
    }

    #[test]
    fn getex_reads_and_sets_the_expiry() {
        let (mut c, clock) = Conn::clocked();
        assert_eq!(c.run(&["GETEX", "k"]), Frame::Null);
        // A missing key is null before the time is judged.
        assert_eq!(c.run(&["GETEX", "k", "EX", "-1"]), Frame::Null);
        assert_eq!(c.run(&["GETEX", "k", "EX", "x"]), Frame::Null);
        c.run(&["SET", "k", "v"]);
        assert_eq!(c.run(&["GETEX", "k"]), bulk("v"));
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(-1));
        assert_eq!(c.run(&["GETEX", "k", "EX", "100"]), bulk("v"));
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(100));
        assert_eq!(c.run(&["GETEX", "k"]), bulk("v"));
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(100));
        assert_eq!(c.run(&["GETEX", "k", "PX", "500"]), bulk("v"));
        assert_eq!(c.run(&["PTTL", "k"]), Frame::Integer(500));
        let at = (T0 / 1000 + 60).to_string();
        assert_eq!(c.run(&["GETEX", "k", "EXAT", &at]), bulk("v"));
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(60));
        assert_eq!(c.run(&["GETEX", "k", "persist"]), bulk("v"));
        assert_eq!(c.run(&["TTL", "k"]), Frame::Integer(-1));
        assert_eq!(c.run(&["GETEX", "k", "PERSIST"]), bulk("v"));
        assert_eq!(
            c.run(&["GETEX", "k", "EX", "0"]),
            Frame::error("ERR invalid expire time in 'getex' command")
        );
        for bad in [
            &["NX"][..],
            &["KEEPTTL"],
            &["GET"],
            &["EX"],
            &["EX", "1", "PERSIST"],
        ] {
            let mut words = vec!["GETEX", "k"];
            words.extend_from_slice(bad);
            assert_eq!(c.run(&words), Frame::error("ERR syntax error"), "{bad:?}");
        }
        // A past EXAT/PXAT returns the value, then deletes the key.
        assert_eq!(c.run(&["GETEX", "k", "PXAT", &T0.to_string()]), bulk("v"));
        assert_eq!(c.run(&["EXISTS", "k"]), Frame::Integer(0));
        c.run(&["SET", "k", "v"]);
        assert_eq!(c.run(&["GETEX", "k", "PX", "10"]), bulk("v"));
        clock.advance(10);
        assert_eq!(c.run(&["GETEX", "k", "PERSIST"]), Frame::Null);
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
