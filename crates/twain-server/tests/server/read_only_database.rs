//! A database the server can only open read-only (a read-only mount) is served for reads;
//! writes get the read-only error; shutdown neither flushes nor syncs it, and ends cleanly.

use crate::common;

use common::{TestServer, error_text};
use std::path::Path;
use std::sync::Arc;
use twain::fs::{FaultFs, Fs, MemFs};
use twain::{Db, Options};

#[test]
fn a_read_only_database_serves_reads_refuses_writes_and_shuts_down_cleanly() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let opts = Options::default().fs(Arc::new(faults.clone()) as Arc<dyn Fs>);
    let dir = Path::new("/served");
    {
        let db = Db::open(dir, opts.clone()).unwrap();
        db.put("greeting", "hello").unwrap();
        db.close().unwrap();
    }
    // The mount turns read-only: every mutating call fails with EROFS.
    faults.set_read_only(true);
    let server = TestServer::start_in(dir, |c| c.engine = opts.clone());
    let mut con = server.client();
    let got: Option<String> = redis::cmd("GET").arg("greeting").query(&mut con).unwrap();
    assert_eq!(got.as_deref(), Some("hello"));
    let err = redis::cmd("SET")
        .arg("greeting")
        .arg("bye")
        .query::<()>(&mut con)
        .unwrap_err();
    assert!(
        error_text(&err).contains("read-only"),
        "{}",
        error_text(&err)
    );
    drop(con);
    server
        .stop()
        .expect("a read-only database shuts down cleanly");
}
