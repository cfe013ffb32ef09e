//! Running a batch of pipelined requests: in order, each reply encoded in the session's
//! protocol. A run of consecutive plain `SET key value` and `MSET` requests is coalesced
//! into one atomic engine write (their replies are all `+OK`, or all the same error), so a
//! pipeline of writes costs one group commit — and with `--sync always` one sync — instead
//! of one per command. Nothing reads between them, so no one can tell the difference.
//!
//! A batch runs in steps: [`run_batch`] stops as soon as the output holds enough to be
//! written ([`Output::should_flush`]), and the connection writes it before the next step,
//! so replies are bounded in bytes however many requests a batch holds. `MGET` is streamed
//! the same way, a value at a time from one snapshot: an `MGET` naming a large value many
//! times holds one of them at a time, not all. (An engine error while an `MGET` is
//! streaming becomes that key's element of the array, as the array's header is already
//! written.)

use crate::commands::{self, Ctx, err_engine, is};
use crate::output::Output;
use crate::resp::{Frame, Request};
use crate::session::Session;
use crate::shared::{Counters, Shared};

/// Most key and value bytes coalesced into one engine write.
const MAX_COALESCED_BYTES: usize = 8 << 20;

/// Pipelined requests being run, and how far they got. Moved between threads with the
/// session and output.
#[derive(Debug)]
pub struct Batch {
    requests: Vec<Request>,
    /// The first request not finished.
    next: usize,
    /// The progress of an `MGET` (`requests[next]`) that has started streaming.
    mget: Option<Mget>,
}

/// An `MGET` partly answered: the snapshot it reads and the next key to read.
#[derive(Debug)]
struct Mget {
    snapshot: twain::Snapshot,
    next_key: usize,
}

impl Batch {
    /// A batch of `requests`, none run yet.
    pub fn new(requests: Vec<Request>) -> Batch {
        Batch {
            requests,
            next: 0,
            mget: None,
        }
    }

    /// Whether every request has been answered (or dropped after `QUIT`).
    pub fn is_done(&self) -> bool {
        self.next >= self.requests.len()
    }

    /// Whether any request needs more than a quick read (see [`commands::is_quick_read`]).
    pub fn is_quick(&self) -> bool {
        self.requests
            .get(self.next..)
            .unwrap_or_default()
            .iter()
            .all(|r| commands::is_quick_read(r))
    }
}

/// Runs the requests of `batch` in order for `session`, appending every reply to `out`,
/// until the batch is done or `out` should be written first ([`Output::should_flush`]).
/// Empty requests are skipped; after `QUIT` the rest are dropped.
pub fn run_batch(shared: &Shared, session: &mut Session, batch: &mut Batch, out: &mut Output) {
    let mut commands = 0;
    while !out.should_flush() {
        if session.closing {
            batch.next = batch.requests.len();
            break;
        }
        let Some(rest) = batch.requests.get(batch.next..).filter(|r| !r.is_empty()) else {
            break;
        };
        let run = if session.authenticated {
            blind_write_run(rest)
        } else {
            0
        };
        if run >= 2 {
            let requests = rest.get(..run).unwrap_or_default();
            let ctx = Ctx {
                shared,
                session: &mut *session,
            };
            let reply = commands::write_pairs(&ctx, requests.iter().flat_map(pairs));
            for _ in 0..run {
                out.frame(reply.clone(), session.protocol);
            }
            batch.next += run;
            commands += run;
            continue;
        }
        let Some(request) = rest.first() else {
            break;
        };
        if request.is_empty() {
            batch.next += 1;
            continue;
        }
        let streamed = session.authenticated
            && request.len() >= 2
            && request.first().is_some_and(|name| is(name, "MGET"));
        if streamed {
            let keys = request.get(1..).unwrap_or_default();
            batch.mget = mget_step(shared, session, batch.mget.take(), keys, out);
            if batch.mget.is_some() {
                break;
            }
        } else {
            let mut ctx = Ctx {
                shared,
                session: &mut *session,
            };
            let reply = commands::execute(&mut ctx, request);
            out.frame(reply, session.protocol);
        }
        commands += 1;
        batch.next += 1;
    }
    Counters::add(&shared.counters.commands, commands as u64);
}

/// Streams the reply to `MGET keys`: starts it (the array header and a snapshot) unless
/// `progress` continues it, then appends values until the output should be written.
/// Returns the progress if keys remain.
fn mget_step(
    shared: &Shared,
    session: &Session,
    progress: Option<Mget>,
    keys: &[Vec<u8>],
    out: &mut Output,
) -> Option<Mget> {
    let mut m = progress.unwrap_or_else(|| {
        out.array_header(keys.len());
        Mget {
            snapshot: shared.store.db().snapshot(),
            next_key: 0,
        }
    });
    while let Some(key) = keys.get(m.next_key) {
        if out.should_flush() {
            return Some(m);
        }
        match m.snapshot.get(key) {
            Ok(Some(value)) => out.bulk(value),
            Ok(None) => out.frame(Frame::Null, session.protocol),
            Err(e) => out.frame(err_engine(&e), session.protocol),
        }
        m.next_key += 1;
    }
    None
}

/// Whether `request` only writes key-value pairs and always replies `+OK`: `SET key value`
/// without options, or `MSET` with whole pairs, within the engine's size limits.
fn is_blind_write(request: &Request) -> bool {
    let Some((name, args)) = request.split_first() else {
        return false;
    };
    let plain = (is(name, "SET") && args.len() == 2)
        || (is(name, "MSET") && !args.is_empty() && args.len().is_multiple_of(2));
    plain
        && args.chunks_exact(2).all(|p| match p {
            [k, v] => k.len() <= twain::MAX_KEY_SIZE && v.len() <= twain::MAX_VALUE_SIZE,
            _ => false,
        })
}

/// The key-value pairs of a blind write.
fn pairs(request: &Request) -> impl Iterator<Item = (&[u8], &[u8])> {
    request
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(2)
        .filter_map(|p| match p {
            [k, v] => Some((k.as_slice(), v.as_slice())),
            _ => None,
        })
}

/// How many requests at the start of `requests` are blind writes that fit in one batch.
fn blind_write_run(requests: &[Request]) -> usize {
    let mut bytes = 0;
    requests
        .iter()
        .take_while(|r| {
            bytes += r.iter().map(Vec::len).sum::<usize>();
            is_blind_write(r) && bytes <= MAX_COALESCED_BYTES
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::Conn;
    use crate::resp::Protocol;

    fn req(words: &[&str]) -> Request {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    fn run(c: &mut Conn, requests: &[Request]) -> String {
        let mut out = Output::new(1 << 30);
        let mut batch = Batch::new(requests.to_vec());
        while !batch.is_done() {
            run_batch(&c.shared, &mut c.session, &mut batch, &mut out);
        }
        String::from_utf8(out.to_bytes()).unwrap()
    }

    #[test]
    fn only_plain_sets_and_msets_coalesce() {
        let sets = [req(&["SET", "a", "1"]), req(&["mset", "b", "2", "c", "3"])];
        assert_eq!(blind_write_run(&sets), 2);
        assert_eq!(blind_write_run(&[req(&["SET", "a", "1", "NX"])]), 0);
        assert_eq!(blind_write_run(&[req(&["MSET", "a"])]), 0);
        assert_eq!(
            blind_write_run(&[req(&["GET", "a"]), req(&["SET", "a", "1"])]),
            0
        );
        let huge = vec![b"SET".to_vec(), b"k".to_vec(), vec![0; MAX_COALESCED_BYTES]];
        assert_eq!(blind_write_run(&[req(&["SET", "a", "1"]), huge]), 1);
    }

    #[test]
    fn a_pipeline_runs_in_order_with_coalesced_writes() {
        let mut c = Conn::new();
        let out = run(
            &mut c,
            &[
                req(&["SET", "a", "1"]),
                req(&["SET", "b", "2"]),
                req(&["MSET", "a", "3", "c", "4"]),
                req(&["GET", "a"]),
                req(&[]),
                req(&["INCR", "c"]),
                req(&["SET", "c", "x"]),
                req(&["GET", "c"]),
            ],
        );
        assert_eq!(
            out,
            "+OK\r\n+OK\r\n+OK\r\n$1\r\n3\r\n:5\r\n+OK\r\n$1\r\nx\r\n"
        );
        assert_eq!(
            c.shared
                .counters
                .commands
                .load(std::sync::atomic::Ordering::Relaxed),
            7
        );
    }

    #[test]
    fn nothing_runs_after_quit_and_nothing_coalesces_before_auth() {
        let mut config = crate::config::Config::new("/db");
        config.requirepass = Some("pw".into());
        let mut c = Conn::with(config);
        let out = run(
            &mut c,
            &[
                req(&["SET", "a", "1"]),
                req(&["SET", "b", "2"]),
                req(&["AUTH", "pw"]),
                req(&["QUIT"]),
                req(&["SET", "c", "3"]),
            ],
        );
        assert_eq!(
            out,
            "-NOAUTH Authentication required.\r\n-NOAUTH Authentication required.\r\n+OK\r\n+OK\r\n"
        );
        assert_eq!(c.shared.store.get(b"a").unwrap(), None);
        assert_eq!(c.shared.store.get(b"c").unwrap(), None);
    }

    #[test]
    fn a_step_stops_once_enough_output_is_held() {
        use crate::output::FLUSH_BYTES;
        let mut c = Conn::new();
        let value = "v".repeat(40 << 10);
        run(&mut c, &[req(&["SET", "big", &value])]);
        let mut words = vec!["MGET"];
        words.extend(std::iter::repeat_n("big", 10));
        let mut batch = Batch::new(vec![req(&words), req(&["GET", "big"]), req(&["PING"])]);
        let mut out = Output::new(1 << 30);
        let mut steps = 0;
        let mut total = 0;
        while !batch.is_done() {
            run_batch(&c.shared, &mut c.session, &mut batch, &mut out);
            assert!(out.len() < FLUSH_BYTES + value.len() + 32, "{}", out.len());
            total += out.to_bytes().len();
            out = Output::new(1 << 30);
            steps += 1;
        }
        assert!(steps >= 6, "{steps}");
        // `*10`, eleven `$40960` bulks (MGET then GET), `+PONG`.
        assert_eq!(total, 5 + 11 * (10 + value.len()) + 7);
    }

    #[test]
    fn replies_follow_the_session_protocol() {
        let mut c = Conn::new();
        let out = run(
            &mut c,
            &[req(&["GET", "x"]), req(&["HELLO", "3"]), req(&["GET", "x"])],
        );
        assert!(out.starts_with("$-1\r\n%7\r\n"), "{out}");
        assert!(out.ends_with("_\r\n"), "{out}");
        assert_eq!(c.session.protocol, Protocol::Resp3);
    }
}
