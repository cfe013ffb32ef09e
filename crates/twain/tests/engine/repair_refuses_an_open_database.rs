//! Repair takes the database's LOCK: it refuses a database that is open, and changes
//! nothing in it.

use crate::repairutil;
use repairutil::*;
use std::path::Path;
use twain::fs::MemFs;
use twain::{Db, Error};

#[test]
fn repair_refuses_an_open_database() {
    let fs = MemFs::new();
    let db = Db::open(Path::new(DIR), options(&fs)).unwrap();
    db.put("k", "v").unwrap();
    // The log thread creates the spare value file in the background: wait (boundedly)
    // for it, so that the listing is not taken while it appears.
    let vlogs = |fs: &MemFs| {
        let names = fs.file_names(Path::new(DIR));
        names.iter().filter(|n| n.ends_with(".vlog")).count()
    };
    let start = std::time::Instant::now();
    while vlogs(&fs) < 2 && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let before = fs.file_names(Path::new(DIR));
    let err = twain::repair(Path::new(DIR), &existing(&fs)).unwrap_err();
    assert!(matches!(err, Error::Locked(_)), "{err}");
    assert_eq!(fs.file_names(Path::new(DIR)), before);
    assert!(lost_names(&fs).is_empty());
    assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
}
