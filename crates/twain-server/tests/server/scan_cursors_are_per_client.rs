//! Issue 19, finding 11 (network fairness): SCAN cursors were sequential numbers in one
//! table for the whole server, so a client could guess another's cursor and use it up, or
//! evict it by creating 110,000 cursors. Each connection now owns its cursors: they are
//! random, work only where they were handed out, and a connection's table holds at most
//! 16, forgetting its own oldest.

use crate::common;

use common::TestServer;
use twain_server::cursor::MAX_CURSORS;

fn scan(con: &mut redis::Connection, cursor: &str) -> redis::RedisResult<(String, Vec<String>)> {
    redis::cmd("SCAN")
        .arg(cursor)
        .arg("COUNT")
        .arg(1)
        .query(con)
}

#[test]
fn cursors_belong_to_their_connection() {
    let server = TestServer::start();
    let mut a = server.client();
    for i in 0..50 {
        let _: () = redis::cmd("SET")
            .arg(format!("k{i:02}"))
            .arg(i)
            .query(&mut a)
            .unwrap();
    }
    let (ca, _) = scan(&mut a, "0").unwrap();
    let (ca2, _) = scan(&mut a, "0").unwrap();
    assert_ne!(ca, "0");
    let (x, y): (u64, u64) = (ca.parse().unwrap(), ca2.parse().unwrap());
    assert!(
        x.abs_diff(y) > 1 << 20,
        "cursors {x} and {y} look sequential"
    );

    // Another connection can neither use A's cursor nor push it out.
    let mut b = server.client();
    let err = scan(&mut b, &ca).unwrap_err();
    assert!(err.to_string().contains("invalid cursor"), "{err}");
    for _ in 0..1000 {
        scan(&mut b, "0").unwrap();
    }
    let (next, keys) = scan(&mut a, &ca).unwrap();
    assert_eq!(keys, ["k01"]);
    assert_ne!(next, "0");

    // A connection's own oldest cursors go first once it holds too many.
    let (first, _) = scan(&mut a, "0").unwrap();
    let mut last = String::new();
    for _ in 0..MAX_CURSORS {
        last = scan(&mut a, "0").unwrap().0;
    }
    assert!(
        scan(&mut a, &first)
            .unwrap_err()
            .to_string()
            .contains("invalid cursor")
    );
    assert_eq!(scan(&mut a, &last).unwrap().1, ["k01"]);
}
