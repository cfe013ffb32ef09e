//! Repair takes the database's LOCK: it refuses a database that is open, and changes
//! nothing in it.

mod repairutil;
use repairutil::*;
use std::path::Path;
use twain::fs::MemFs;
use twain::{Db, Error};

#[test]
fn repair_refuses_an_open_database() {
    let fs = MemFs::new();
    let db = Db::open(Path::new(DIR), options(&fs)).unwrap();
    db.put("k", "v").unwrap();
    let before = fs.file_names(Path::new(DIR));
    let err = twain::repair(Path::new(DIR), &existing(&fs)).unwrap_err();
    assert!(matches!(err, Error::Locked(_)), "{err}");
    assert_eq!(fs.file_names(Path::new(DIR)), before);
    assert!(lost_names(&fs).is_empty());
    assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
}
