//! Keyspace commands through a real Redis client: DEL and EXISTS count keys, SCAN walks
//! every key once through the client's own cursor loop (which parses the cursor as a u64),
//! DBSIZE counts exactly, FLUSHDB empties, INFO has its sections.

use crate::common;

use common::TestServer;
use redis::Commands;
use std::collections::BTreeSet;

#[test]
fn del_and_exists() {
    let server = TestServer::start();
    let mut con = server.client();
    let _: () = con.mset(&[("a", "1"), ("b", "2"), ("c", "3")]).unwrap();
    assert_eq!(con.exists::<_, i64>(&["a", "b", "x"]).unwrap(), 2);
    assert_eq!(con.del::<_, i64>(&["a", "b", "x"]).unwrap(), 2);
    assert_eq!(con.exists::<_, i64>(&["a", "b", "c"]).unwrap(), 1);
}

#[test]
fn scan_iterators_of_the_client_see_every_key_once() {
    let server = TestServer::start();
    let mut con = server.client();
    let mut pipe = redis::pipe();
    for i in 0..2000 {
        pipe.set(format!("user:{i}"), i).ignore();
        pipe.set(format!("item:{i}"), i).ignore();
    }
    let _: () = pipe.query(&mut con).unwrap();

    let all: Vec<String> = con
        .scan::<String>()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(all.len(), 4000);
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), 4000);

    let users: BTreeSet<String> = con
        .scan_match::<_, String>("user:*")
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let want: BTreeSet<String> = (0..2000).map(|i| format!("user:{i}")).collect();
    assert_eq!(users, want);

    let glob: BTreeSet<String> = con
        .scan_match::<_, String>("*:1?")
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let want: BTreeSet<String> = (10..20)
        .flat_map(|i| [format!("user:{i}"), format!("item:{i}")])
        .collect();
    assert_eq!(glob, want);
}

#[test]
fn a_manual_scan_with_count_pages_in_key_order() {
    let server = TestServer::start();
    let mut con = server.client();
    for i in 0..25 {
        let _: () = con.set(format!("k{i:02}"), i).unwrap();
    }
    let mut cursor = "0".to_string();
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let (next, keys): (String, Vec<String>) = redis::cmd("SCAN")
            .arg(&cursor)
            .arg("COUNT")
            .arg(10)
            .query(&mut con)
            .unwrap();
        assert!(keys.len() <= 10);
        seen.extend(keys);
        pages += 1;
        if next == "0" {
            break;
        }
        cursor = next;
    }
    assert_eq!(pages, 3);
    let want: Vec<String> = (0..25).map(|i| format!("k{i:02}")).collect();
    assert_eq!(seen, want);
}

#[test]
fn dbsize_and_flushdb() {
    let server = TestServer::start();
    let mut con = server.client();
    for i in 0..300 {
        let _: () = con.set(format!("k{i}"), "v").unwrap();
    }
    let _: () = con.set("k1", "again").unwrap();
    let _: i64 = con.del("k2").unwrap();
    assert_eq!(redis::cmd("DBSIZE").query::<i64>(&mut con).unwrap(), 299);
    let _: () = redis::cmd("FLUSHDB").query(&mut con).unwrap();
    assert_eq!(redis::cmd("DBSIZE").query::<i64>(&mut con).unwrap(), 0);
    assert_eq!(con.get::<_, Option<String>>("k1").unwrap(), None);
    let keys: Vec<String> = con
        .scan::<String>()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(keys.is_empty());
}

#[test]
fn info_reports_its_sections() {
    let server = TestServer::start();
    let mut con = server.client();
    let _: () = con.set("k", "v").unwrap();
    let info: String = redis::cmd("INFO").query(&mut con).unwrap();
    for needle in [
        "# Server\r\n",
        "redis_version:",
        "# Clients\r\nconnected_clients:1\r\n",
        "# Stats\r\n",
        "total_commands_processed:",
        "# Keyspace\r\ndb0:keys=1,",
        "# Twain\r\n",
        "user_ops:1\r\n",
    ] {
        assert!(info.contains(needle), "{needle:?} not in {info}");
    }
    let port = format!("tcp_port:{}\r\n", server.addr.port());
    assert!(info.contains(&port));
    let only: String = redis::cmd("INFO").arg("keyspace").query(&mut con).unwrap();
    assert!(
        only.starts_with("# Keyspace") && !only.contains("# Server"),
        "{only}"
    );
}
