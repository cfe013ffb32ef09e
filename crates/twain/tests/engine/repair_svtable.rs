//! Repair with the SVTable that value GC wrote for the first value file deleted or
//! damaged (its value log epoch is gone): exactly the keys whose live value was in it read
//! as deleted, the report names them and the missing or damaged file (a damaged one goes
//! to `lost/`), and every other key reads as written.

use crate::gcutil;
use crate::repairutil;
use gcutil::{first_file_collected_once, manual_gc_options, value};
use repairutil::{Model, assert_lost_exactly_reported, lost_names, path, show};
use std::collections::BTreeSet;
use std::path::Path;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

fn options(fs: &MemFs) -> Options {
    manual_gc_options(fs).create_if_missing(false)
}

/// Runs the GC workload; returns the model and the collected file's number.
fn gc_database(fs: &MemFs) -> (Model, u64) {
    let db = Db::open(Path::new(repairutil::DIR), manual_gc_options(fs)).unwrap();
    let first = first_file_collected_once(&db);
    drop(db);
    let mut model = Model::new();
    for i in 0..60u32 {
        let tag = if i < 40 { "a" } else { "b" };
        model.insert(format!("k{i:04}").into_bytes(), value(tag, i));
    }
    model.insert(b"roll".to_vec(), vec![0u8; 20 << 10]);
    (model, first)
}

/// Checks the repaired database against `model`: the keys lost are those whose value
/// was in the collected file.
fn assert_svtable_values_lost(fs: &MemFs, model: &Model, report: &twain::RepairReport) {
    let db = Db::open(Path::new(repairutil::DIR), options(fs)).unwrap();
    let gone = assert_lost_exactly_reported(&db, model, report);
    let expected: BTreeSet<Vec<u8>> = (0..40u32)
        .map(|i| format!("k{i:04}").into_bytes())
        .collect();
    for k in &expected {
        assert!(gone.contains(k), "key {} survived", show(k));
    }
    for k in &gone {
        assert!(expected.contains(k) || k == b"roll", "key {} lost", show(k));
    }
}

#[test]
fn missing_svtable_loses_only_its_values() {
    let fs = MemFs::new();
    let (model, first) = gc_database(&fs);
    let svt = path(&format!("{first:06}-1.svt"));
    fs.remove_file(&svt).unwrap();

    let report = twain::repair(Path::new(repairutil::DIR), &options(&fs)).unwrap();
    eprintln!("{}", report.to_text());
    assert!(report.missing.contains(&svt), "{}", report.to_text());
    assert!(!report.is_lossless());
    assert_svtable_values_lost(&fs, &model, &report);
}

#[test]
fn damaged_svtable_is_set_aside() {
    let fs = MemFs::new();
    let (model, first) = gc_database(&fs);
    let name = format!("{first:06}-1.svt");
    // The first entry starts after the 24-byte file header.
    fs.corrupt(&path(&name), 24 + 6, 0x01).unwrap();

    let report = twain::repair(Path::new(repairutil::DIR), &options(&fs)).unwrap();
    eprintln!("{}", report.to_text());
    let aside = report
        .set_aside
        .iter()
        .find(|s| s.file == path(&name))
        .unwrap();
    assert!(aside.damaged);
    assert!(lost_names(&fs).contains(&name));
    assert_svtable_values_lost(&fs, &model, &report);
}
