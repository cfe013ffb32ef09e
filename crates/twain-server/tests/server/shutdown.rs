//! Graceful shutdown: connections (idle or busy) are closed, every acknowledged write is in
//! the database afterwards — even with `--sync never`, because shutdown flushes and closes
//! it — and `Server::run` returns `Ok`.

use crate::common;

use common::{TestServer, exchange};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use twain_server::SyncMode;

#[test]
fn acknowledged_writes_survive_a_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_in(dir.path(), |c| c.sync = SyncMode::Never);
    let mut idle = server.raw();
    let acked = Arc::new(Mutex::new(Vec::new()));
    let started = Arc::new(AtomicBool::new(false));
    let writer = {
        let (acked, started) = (Arc::clone(&acked), Arc::clone(&started));
        let mut con = server.client();
        std::thread::spawn(move || {
            for batch in 0.. {
                let mut pipe = redis::pipe();
                for i in 0..50 {
                    pipe.set(format!("k{batch}:{i}"), format!("v{batch}:{i}"))
                        .ignore();
                }
                if pipe.query::<()>(&mut con).is_err() {
                    return batch;
                }
                acked.lock().unwrap().push(batch);
                started.store(true, Ordering::Release);
            }
            unreachable!()
        })
    };
    while !started.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    server.stop().unwrap();
    let batches = writer.join().unwrap();
    assert!(batches > 0);
    assert_eq!(exchange(&mut idle, b""), b"", "idle connections are closed");

    let db = twain::Db::open(dir.path(), twain::Options::default()).unwrap();
    let acked = acked.lock().unwrap();
    for batch in acked.iter() {
        for i in 0..50 {
            let v = db.get(format!("k{batch}:{i}")).unwrap();
            assert_eq!(
                v,
                Some(format!("v{batch}:{i}").into_bytes()),
                "k{batch}:{i}"
            );
        }
    }
    // Flushed at shutdown: nothing is left to replay from the log.
    assert!(db.stats().unwrap().levels.iter().any(|l| l.files > 0));
}

#[test]
fn a_restarted_server_serves_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_in(dir.path(), |_| {});
    let mut con = server.client();
    let _: () = redis::cmd("MSET")
        .arg("a")
        .arg("1")
        .arg("b")
        .arg("2")
        .query(&mut con)
        .unwrap();
    drop(con);
    server.stop().unwrap();
    let server = TestServer::start_in(dir.path(), |_| {});
    let mut con = server.client();
    let got: Vec<String> = redis::cmd("MGET")
        .arg("a")
        .arg("b")
        .query(&mut con)
        .unwrap();
    assert_eq!(got, ["1", "2"]);
}
