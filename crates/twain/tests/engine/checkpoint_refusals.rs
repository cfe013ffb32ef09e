//! `Db::checkpoint` refuses what it cannot do, with a clear error and nothing written to
//! the database: a directory that holds anything, the database's own directory, and a
//! read-only open (which cannot flush). An empty existing directory is fine.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options};

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default().fs(fs)
}

#[test]
fn a_checkpoint_refuses_a_used_directory_and_a_read_only_open() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open("/db", options(Arc::clone(&fs))).unwrap();
    db.put("k", "v").unwrap();

    fs.create_dir_all("/busy".as_ref()).unwrap();
    mem.write_file("/busy/notes.txt".as_ref(), b"mine").unwrap();
    let e = db.checkpoint("/busy", true).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(e.to_string().contains("not empty"), "{e}");

    let e = db.checkpoint("/db", true).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");

    fs.create_dir_all("/empty".as_ref()).unwrap();
    db.checkpoint("/empty", true).unwrap();
    drop(db);
    let cp = Db::open("/empty", options(Arc::clone(&fs))).unwrap();
    assert_eq!(cp.get("k").unwrap().as_deref(), Some(&b"v"[..]));
    drop(cp);

    let ro = Db::open_read_only("/db", options(Arc::clone(&fs))).unwrap();
    let e = ro.checkpoint("/cp", true).unwrap_err();
    assert!(matches!(e, Error::ReadOnly(_)), "{e}");
    assert!(
        !fs.exists("/cp".as_ref()).unwrap(),
        "nothing made for a refused checkpoint"
    );
}
