//! `--sync`: with `always` every acknowledged write was synced by its group commit; with
//! `batch` the periodic task syncs the log while writes come in; with `never` nothing
//! syncs the log while the server runs.

use crate::common;

use common::TestServer;
use redis::Commands;
use std::time::{Duration, Instant};
use twain_server::SyncMode;

/// `name:value` from the INFO text.
fn info_field(con: &mut redis::Connection, name: &str) -> u64 {
    let info: String = redis::cmd("INFO").query(con).unwrap();
    let prefix = format!("{name}:");
    info.split("\r\n")
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {info}"))
}

fn write_some(con: &mut redis::Connection) {
    for i in 0..20 {
        let _: () = con.set(format!("k{i}"), i).unwrap();
    }
}

#[test]
fn always_syncs_every_write_group() {
    let server = TestServer::start_with(|c| c.sync = SyncMode::Always);
    let mut con = server.client();
    write_some(&mut con);
    let groups = info_field(&mut con, "write_groups");
    assert!(groups >= 1);
    assert_eq!(info_field(&mut con, "synced_groups"), groups);
}

#[test]
fn batch_syncs_periodically() {
    let server = TestServer::start_with(|c| {
        c.sync = SyncMode::Batch;
        c.sync_interval = Duration::from_millis(50);
    });
    let mut con = server.client();
    // Writes with pauses longer than the interval, until the periodic task has synced
    // twice: on a loaded machine it may not get a turn in every pause.
    let start = Instant::now();
    loop {
        write_some(&mut con);
        std::thread::sleep(Duration::from_millis(60));
        if info_field(&mut con, "periodic_syncs") >= 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the periodic task never synced twice"
        );
    }
    assert_eq!(info_field(&mut con, "synced_groups"), 0);
}

#[test]
fn never_leaves_syncing_to_the_os() {
    let server = TestServer::start_with(|c| c.sync = SyncMode::Never);
    let mut con = server.client();
    write_some(&mut con);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(info_field(&mut con, "synced_groups"), 0);
    assert_eq!(info_field(&mut con, "periodic_syncs"), 0);
}
