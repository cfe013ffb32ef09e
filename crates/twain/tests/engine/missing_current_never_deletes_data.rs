//! Regression (issue 19, finding 2): with `CURRENT` deleted, an open with
//! `create_if_missing` (what `put`, `import`, `load` and `serve` do) created a fresh
//! database in the same directory and removed the old tables, SVTables and manifest as
//! orphans: after one `put`, 1,565 of 3,000 keys were gone. Open must refuse, point to
//! `twain repair`, and leave every file as it was.

use crate::repairutil;
use repairutil::*;
use std::path::Path;
use twain::fs::{Fs, MemFs};
use twain::{Db, Error};

fn snapshot(fs: &MemFs) -> Vec<(String, Vec<u8>)> {
    let mut names = fs.file_names(Path::new(DIR));
    names.sort();
    names
        .into_iter()
        .filter(|n| n != "LOCK")
        .map(|n| {
            let bytes = fs.read_file(&path(&n)).unwrap();
            (n, bytes)
        })
        .collect()
}

#[test]
fn missing_current_never_deletes_data() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 3000);
    fs.remove_file(&path("CURRENT")).unwrap();
    let before = snapshot(&fs);
    assert!(before.iter().any(|(n, _)| n.ends_with(".sst")));

    // The probe's `twain put`: open with create_if_missing, then write.
    let put = Db::open(Path::new(DIR), options(&fs)).and_then(|db| db.put("k", "v"));
    let err = put.expect_err("a put over a database without CURRENT must fail");
    match &err {
        Error::Corruption { file, what, .. } => {
            assert!(file.ends_with("CURRENT"), "{err}");
            assert!(what.contains("twain repair"), "{err}");
        }
        e => panic!("expected corruption naming CURRENT, got {e}"),
    }
    // Without create_if_missing the answer is the same, not "no database".
    let err = Db::open(Path::new(DIR), existing(&fs)).err().unwrap();
    assert!(err.to_string().contains("twain repair"), "{err}");
    assert_eq!(snapshot(&fs), before, "open changed the directory");

    // And repair brings every key back.
    let report = repair(&fs);
    assert!(report.is_lossless(), "{}", report.to_text());
    assert_repaired(&fs, &model);
}

#[test]
fn an_empty_directory_is_still_created() {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new(DIR)).unwrap();
    let db = Db::open(Path::new(DIR), options(&fs)).unwrap();
    db.put("k", "v").unwrap();
    assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
}

#[test]
fn a_manifest_left_by_a_crash_during_creation_does_not_block_it() {
    // A crash while a database is created can leave its first manifest without CURRENT;
    // no write can have happened (the value log comes after CURRENT).
    let fs = MemFs::new();
    fs.create_dir_all(Path::new(DIR)).unwrap();
    fs.write_file(&path("000001.manifest"), b"twainMAN")
        .unwrap();
    let db = Db::open(Path::new(DIR), options(&fs)).unwrap();
    db.put("k", "v").unwrap();
    assert_eq!(db.get("k").unwrap(), Some(b"v".to_vec()));
}
