//! Key expiry: `EXPIRE`, `PEXPIRE`, `EXPIREAT`, `PEXPIREAT` (with `NX`, `XX`, `GT`, `LT`),
//! `TTL`, `PTTL`, `EXPIRETIME`, `PEXPIRETIME`, `PERSIST`, and the time arithmetic `SET`,
//! `SETEX`, `PSETEX` and `GETEX` share with them.
//!
//! An expiry time is absolute: milliseconds since the Unix epoch by the database's clock
//! ([`twain::Db::now_millis`]), which the engine judges every read by, so an expired key
//! is never returned. The engine keeps the time with the pair, so a command that changes
//! a key's expiry rewrites its value, under the key's stripe as any read-modify-write.
//! Times are Redis's signed 64-bit milliseconds, with Redis's overflow checks.

use super::{Ctx, err_engine, int_arg, is, shown};
use crate::resp::Frame;
use twain::{KeyExpiry, WriteBatch};

/// The unit of a time argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Seconds (`EXPIRE`, `EX`, ...).
    Seconds,
    /// Milliseconds (`PEXPIRE`, `PX`, ...).
    Millis,
}

/// Redis's reply to an expire time out of range; `command` in lower case.
pub fn err_expire_time(command: &str) -> Frame {
    Frame::error(format!("ERR invalid expire time in '{command}' command"))
}

/// The database's clock, in Redis's signed milliseconds.
pub fn now(ctx: &Ctx<'_>) -> i64 {
    signed(ctx.shared.store.db().now_millis())
}

/// An engine time as Redis's signed milliseconds.
fn signed(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}

/// The absolute expiry time of `SET`'s `EX`/`PX`/`EXAT`/`PXAT`, `SETEX`, `PSETEX` and
/// `GETEX`'s options, from the argument `arg` in `unit`, added to `now` when `relative`.
/// As Redis: not an integer is `ERR value is not an integer or out of range`; zero, a
/// negative time or an overflow is [`err_expire_time`].
pub fn set_expire_at(
    arg: &[u8],
    unit: Unit,
    relative: bool,
    now: i64,
    command: &str,
) -> Result<u64, Frame> {
    let n = int_arg(arg)?;
    let invalid = || err_expire_time(command);
    if n <= 0 {
        return Err(invalid());
    }
    let millis = match unit {
        Unit::Seconds => n.checked_mul(1000).ok_or_else(invalid)?,
        Unit::Millis => n,
    };
    let at = if relative {
        millis.checked_add(now).ok_or_else(invalid)?
    } else {
        millis
    };
    u64::try_from(at)
        .ok()
        .filter(|&t| t > 0)
        .ok_or_else(invalid)
}

/// Adds a put of `key` to `batch` that expires at `expires_at`, or never (`None`).
pub fn put(batch: &mut WriteBatch, key: &[u8], value: &[u8], expires_at: Option<u64>) {
    match expires_at {
        Some(at) => batch.put_with_expiry(key, value, at),
        None => batch.put(key, value),
    };
}

/// The options of the `EXPIRE` family.
#[derive(Debug, Default, Clone, Copy)]
struct Conditions {
    /// Only if the key has no expiry.
    nx: bool,
    /// Only if the key has an expiry.
    xx: bool,
    /// Only if the new time is after the current one (no expiry counts as infinite).
    gt: bool,
    /// Only if the new time is before the current one (no expiry counts as infinite).
    lt: bool,
}

/// Parses `[NX|XX|GT|LT ...]` (repeats allowed) with Redis's errors.
fn conditions(opts: &[Vec<u8>]) -> Result<Conditions, Frame> {
    let mut c = Conditions::default();
    for opt in opts {
        if is(opt, "NX") {
            c.nx = true;
        } else if is(opt, "XX") {
            c.xx = true;
        } else if is(opt, "GT") {
            c.gt = true;
        } else if is(opt, "LT") {
            c.lt = true;
        } else {
            return Err(Frame::error(format!(
                "ERR Unsupported option {}",
                shown(opt, 128)
            )));
        }
    }
    if c.nx && (c.xx || c.gt || c.lt) {
        return Err(Frame::error(
            "ERR NX and XX, GT or LT options at the same time are not compatible",
        ));
    }
    if c.gt && c.lt {
        return Err(Frame::error(
            "ERR GT and LT options at the same time are not compatible",
        ));
    }
    Ok(c)
}

impl Conditions {
    /// Whether a key whose expiry is `current` (`None`: never) may get the time `when`.
    fn allow(self, current: Option<i64>, when: i64) -> bool {
        match current {
            None => !self.xx && !self.gt,
            Some(current) => {
                let refused =
                    self.nx || (self.gt && when <= current) || (self.lt && when >= current);
                !refused
            }
        }
    }
}

/// `EXPIRE`, `PEXPIRE`, `EXPIREAT`, `PEXPIREAT key time [NX|XX|GT|LT]`: 1 if the expiry
/// was set (or the key deleted, for a time not after now), 0 if the key is missing or a
/// condition failed. `relative` times are added to now.
fn expire_generic(
    ctx: &Ctx<'_>,
    args: &[Vec<u8>],
    unit: Unit,
    relative: bool,
    command: &str,
) -> Frame {
    let (key, time) = (args[1].as_slice(), args[2].as_slice());
    let conditions = match conditions(&args[3..]) {
        Ok(c) => c,
        Err(reply) => return reply,
    };
    let mut when = match int_arg(time) {
        Ok(n) => n,
        Err(reply) => return reply,
    };
    if unit == Unit::Seconds {
        match when.checked_mul(1000) {
            Some(ms) => when = ms,
            None => return err_expire_time(command),
        }
    }
    let store = &ctx.shared.store;
    let held = store.lock([key]);
    let now = now(ctx);
    if relative {
        match when.checked_add(now) {
            Some(at) => when = at,
            None => return err_expire_time(command),
        }
    }
    let current = match store.db().expiry(key) {
        Ok(KeyExpiry::Missing) => return Frame::Integer(0),
        Ok(KeyExpiry::Never) => None,
        Ok(KeyExpiry::At(t)) => Some(signed(t)),
        Err(e) => return err_engine(&e),
    };
    if !conditions.allow(current, when) {
        return Frame::Integer(0);
    }
    let mut batch = WriteBatch::new();
    match u64::try_from(when).ok().filter(|_| when > now) {
        // Already past: the key is deleted, as Redis does.
        None => {
            batch.delete(key);
        }
        Some(at) => match store.db().get_with_expiry(key) {
            Ok(Some((value, _))) => put(&mut batch, key, &value, Some(at)),
            // Expired between the two reads.
            Ok(None) => return Frame::Integer(0),
            Err(e) => return err_engine(&e),
        },
    }
    match store.write(&held, batch) {
        Ok(()) => Frame::Integer(1),
        Err(e) => err_engine(&e),
    }
}

/// `EXPIRE key seconds [NX|XX|GT|LT]`.
pub fn expire(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    expire_generic(ctx, args, Unit::Seconds, true, "expire")
}

/// `PEXPIRE key milliseconds [NX|XX|GT|LT]`.
pub fn pexpire(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    expire_generic(ctx, args, Unit::Millis, true, "pexpire")
}

/// `EXPIREAT key unix-seconds [NX|XX|GT|LT]`.
pub fn expireat(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    expire_generic(ctx, args, Unit::Seconds, false, "expireat")
}

/// `PEXPIREAT key unix-milliseconds [NX|XX|GT|LT]`.
pub fn pexpireat(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    expire_generic(ctx, args, Unit::Millis, false, "pexpireat")
}

/// `TTL`, `PTTL`, `EXPIRETIME`, `PEXPIRETIME`: -2 for a missing key, -1 for one without
/// expiry, else the time left (`absolute`: the expiry time), in milliseconds or in seconds
/// rounded to the nearest, as Redis does. No value is read.
fn ttl_generic(ctx: &Ctx<'_>, key: &[u8], unit: Unit, absolute: bool) -> Frame {
    let db = ctx.shared.store.db();
    let at = match db.expiry(key) {
        Ok(KeyExpiry::Missing) => return Frame::Integer(-2),
        Ok(KeyExpiry::Never) => return Frame::Integer(-1),
        Ok(KeyExpiry::At(t)) => signed(t),
        Err(e) => return err_engine(&e),
    };
    let millis = if absolute {
        at
    } else {
        at.saturating_sub(now(ctx))
    }
    .max(0);
    Frame::Integer(match unit {
        Unit::Millis => millis,
        // Rounded without overflow, as Redis replies (9223372036854776 for the largest).
        Unit::Seconds => i64::try_from((i128::from(millis) + 500) / 1000).unwrap_or(i64::MAX),
    })
}

/// `TTL key`: seconds left, rounded.
pub fn ttl(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, &args[1], Unit::Seconds, false)
}

/// `PTTL key`: milliseconds left.
pub fn pttl(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, &args[1], Unit::Millis, false)
}

/// `EXPIRETIME key`: the expiry as a Unix time in seconds, rounded.
pub fn expiretime(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, &args[1], Unit::Seconds, true)
}

/// `PEXPIRETIME key`: the expiry as a Unix time in milliseconds.
pub fn pexpiretime(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    ttl_generic(ctx, &args[1], Unit::Millis, true)
}

/// `PERSIST key`: 1 if the key had an expiry and now has none (its value rewritten as a
/// pair that never expires), 0 if it is missing or had none.
pub fn persist(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Frame {
    let key = args[1].as_slice();
    let store = &ctx.shared.store;
    let held = store.lock([key]);
    match store.db().expiry(key) {
        Ok(KeyExpiry::At(_)) => {}
        Ok(KeyExpiry::Missing | KeyExpiry::Never) => return Frame::Integer(0),
        Err(e) => return err_engine(&e),
    }
    let value = match store.db().get_with_expiry(key) {
        Ok(Some((value, Some(_)))) => value,
        Ok(_) => return Frame::Integer(0),
        Err(e) => return err_engine(&e),
    };
    let mut batch = WriteBatch::new();
    put(&mut batch, key, &value, None);
    match store.write(&held, batch) {
        Ok(()) => Frame::Integer(1),
        Err(e) => err_engine(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    fn int(n: i64) -> Frame {
        Frame::Integer(n)
    }

    #[test]
    fn expire_ttl_and_expiry_by_the_clock() {
        let (mut c, clock) = Conn::clocked();
        assert_eq!(c.run(&["EXPIRE", "k", "10"]), int(0));
        assert_eq!(c.run(&["TTL", "k"]), int(-2));
        assert_eq!(c.run(&["PTTL", "k"]), int(-2));
        c.run(&["SET", "k", "v"]);
        assert_eq!(c.run(&["TTL", "k"]), int(-1));
        assert_eq!(c.run(&["EXPIRETIME", "k"]), int(-1));
        assert_eq!(c.run(&["EXPIRE", "k", "10"]), int(1));
        assert_eq!(c.run(&["PTTL", "k"]), int(10_000));
        assert_eq!(c.run(&["PEXPIRETIME", "k"]), int(T0 as i64 + 10_000));
        assert_eq!(c.run(&["EXPIRETIME", "k"]), int(T0 as i64 / 1000 + 10));
        clock.advance(9_400);
        assert_eq!(c.run(&["TTL", "k"]), int(1)); // 600 ms, rounded
        clock.advance(200);
        assert_eq!(c.run(&["TTL", "k"]), int(0)); // 400 ms
        assert_eq!(c.run(&["GET", "k"]), bulk("v"));
        clock.advance(400);
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
        assert_eq!(c.run(&["TTL", "k"]), int(-2));
        assert_eq!(c.run(&["EXISTS", "k"]), int(0));
        assert_eq!(c.run(&["EXPIRE", "k", "10"]), int(0));
    }

    #[test]
    fn absolute_and_past_times() {
        let (mut c, _clock) = Conn::clocked();
        c.run(&["MSET", "a", "1", "b", "2", "c", "3", "d", "4"]);
        let at = (T0 + 5_000).to_string();
        assert_eq!(c.run(&["PEXPIREAT", "a", &at]), int(1));
        assert_eq!(c.run(&["PTTL", "a"]), int(5_000));
        assert_eq!(c.run(&["EXPIREAT", "a", "4000000000"]), int(1));
        assert_eq!(c.run(&["EXPIRETIME", "a"]), int(4_000_000_000));
        // Now, before now, negative: the key is deleted.
        assert_eq!(c.run(&["PEXPIREAT", "a", &T0.to_string()]), int(1));
        assert_eq!(c.run(&["EXPIRE", "b", "0"]), int(1));
        assert_eq!(c.run(&["PEXPIRE", "c", "-5"]), int(1));
        assert_eq!(c.run(&["EXPIREAT", "d", "1"]), int(1));
        assert_eq!(c.run(&["DBSIZE"]), int(0));
        assert_eq!(c.run(&["EXPIRE", "a", "0"]), int(0));
    }

    #[test]
    fn expire_options() {
        let (mut c, _clock) = Conn::clocked();
        c.run(&["SET", "k", "v"]);
        assert_eq!(c.run(&["EXPIRE", "k", "100", "XX"]), int(0));
        assert_eq!(c.run(&["EXPIRE", "k", "100", "GT"]), int(0));
        assert_eq!(c.run(&["EXPIRE", "k", "100", "LT"]), int(1));
        assert_eq!(c.run(&["EXPIRE", "k", "200", "NX"]), int(0));
        assert_eq!(c.run(&["EXPIRE", "k", "200", "LT"]), int(0));
        assert_eq!(c.run(&["EXPIRE", "k", "100", "GT"]), int(0));
        assert_eq!(c.run(&["EXPIRE", "k", "200", "gt", "xx"]), int(1));
        assert_eq!(c.run(&["TTL", "k"]), int(200));
        assert_eq!(c.run(&["EXPIRE", "k", "50", "LT", "LT"]), int(1));
        assert_eq!(c.run(&["TTL", "k"]), int(50));
        assert_eq!(c.run(&["PERSIST", "k"]), int(1));
        assert_eq!(c.run(&["EXPIRE", "k", "50", "nx"]), int(1));
        assert_eq!(
            c.run(&["EXPIRE", "k", "1", "NX", "XX"]),
            Frame::error("ERR NX and XX, GT or LT options at the same time are not compatible")
        );
        assert_eq!(
            c.run(&["EXPIRE", "k", "1", "GT", "LT"]),
            Frame::error("ERR GT and LT options at the same time are not compatible")
        );
        assert_eq!(
            c.run(&["EXPIRE", "k", "x", "FOO"]),
            Frame::error("ERR Unsupported option FOO")
        );
        assert!(is_err(
            &c.run(&["EXPIRE", "k", "x"]),
            "ERR value is not an integer"
        ));
        assert_eq!(c.run(&["TTL", "k"]), int(50));
    }

    #[test]
    fn overflowing_times_are_refused() {
        let (mut c, _clock) = Conn::clocked();
        c.run(&["SET", "k", "v"]);
        let max = i64::MAX.to_string();
        let min = i64::MIN.to_string();
        for (cmd, time) in [
            ("EXPIRE", max.as_str()),
            ("EXPIRE", "9223372036854776"),
            ("EXPIREAT", min.as_str()),
            ("PEXPIRE", max.as_str()),
        ] {
            assert_eq!(
                c.run(&[cmd, "k", time]),
                err_expire_time(&cmd.to_ascii_lowercase()),
                "{cmd} {time}"
            );
        }
        // The largest that fits is accepted.
        assert_eq!(c.run(&["PEXPIREAT", "k", &max]), int(1));
        assert_eq!(c.run(&["PEXPIRETIME", "k"]), int(i64::MAX));
        assert_eq!(c.run(&["EXPIRETIME", "k"]), int(9_223_372_036_854_776));
        assert_eq!(
            c.run(&["EXPIRE", "k", "9223372036854775"]),
            err_expire_time("expire")
        );
        assert_eq!(c.run(&["PEXPIRE", "k", "-9223372036854775808"]), int(1));
        assert_eq!(c.run(&["GET", "k"]), Frame::Null);
    }

    #[test]
    fn persist_removes_the_expiry_and_keeps_the_value() {
        let (mut c, clock) = Conn::clocked();
        assert_eq!(c.run(&["PERSIST", "k"]), int(0));
        c.run(&["SET", "k", "v"]);
        assert_eq!(c.run(&["PERSIST", "k"]), int(0));
        c.run(&["PEXPIRE", "k", "100"]);
        assert_eq!(c.run(&["PERSIST", "k"]), int(1));
        assert_eq!(c.run(&["PERSIST", "k"]), int(0));
        clock.advance(1_000);
        assert_eq!(c.run(&["GET", "k"]), bulk("v"));
        assert_eq!(c.run(&["TTL", "k"]), int(-1));
    }

    #[test]
    fn a_large_value_keeps_its_bytes_through_expire_and_persist() {
        let (mut c, _clock) = Conn::clocked();
        let value = "x".repeat(100_000);
        c.run(&["SET", "big", &value]);
        assert_eq!(c.run(&["EXPIRE", "big", "100"]), int(1));
        assert_eq!(c.run(&["GET", "big"]), bulk(&value));
        assert_eq!(c.run(&["PERSIST", "big"]), int(1));
        assert_eq!(c.run(&["GET", "big"]), bulk(&value));
    }
}
