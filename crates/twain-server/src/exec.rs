//! Running a batch of pipelined requests: in order, each reply encoded in the session's
//! protocol. A run of consecutive plain `SET key value` and `MSET` requests is coalesced
//! into one atomic engine write (their replies are all `+OK`, or all the same error), so a
//! pipeline of writes costs one group commit — and with `--sync always` one sync — instead
//! of one per command. Nothing reads between them, so no one can tell the difference.

use crate::commands::{self, Ctx, is};
use crate::resp::{Request, encode};
use crate::session::Session;
use crate::shared::{Counters, Shared};

/// Most key and value bytes coalesced into one engine write.
const MAX_COALESCED_BYTES: usize = 8 << 20;

/// Runs `requests` in order for `session`, appending every reply to `out`. Empty requests
/// are skipped; after `QUIT` the rest are dropped.
pub fn run_batch(shared: &Shared, session: &mut Session, requests: &[Request], out: &mut Vec<u8>) {
    let mut done = 0;
    let mut commands = 0;
    while let Some(rest) = requests.get(done..).filter(|r| !r.is_empty()) {
        if session.closing {
            break;
        }
        let run = if session.authenticated {
            blind_write_run(rest)
        } else {
            0
        };
        if run >= 2 {
            let batch = rest.get(..run).unwrap_or_default();
            let ctx = Ctx {
                shared,
                session: &mut *session,
            };
            let reply = commands::write_pairs(&ctx, batch.iter().flat_map(pairs));
            for _ in 0..run {
                encode(&reply, session.protocol, out);
            }
            done += run;
            commands += run;
            continue;
        }
        if let Some(request) = rest.first().filter(|r| !r.is_empty()) {
            let mut ctx = Ctx {
                shared,
                session: &mut *session,
            };
            let reply = commands::execute(&mut ctx, request);
            encode(&reply, session.protocol, out);
            commands += 1;
        }
        done += 1;
    }
    Counters::add(&shared.counters.commands, commands as u64);
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
        let mut out = Vec::new();
        run_batch(&c.shared, &mut c.session, requests, &mut out);
        String::from_utf8(out).unwrap()
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
