//! Repair with one SSTable damaged (a byte of a data block flipped): the table goes to
//! `lost/` as damaged; every key it did not hold reads exactly as written; a key it held
//! reads as absent or as a value it once had; the database opens, takes writes and passes
//! `check`.

use crate::repairutil;
use repairutil::*;
use twain::fs::{Fs, MemFs};

#[test]
fn damaged_table_is_set_aside() {
    let fs = MemFs::new();
    let (model, history) = build(&fs, 3000);
    let name = largest_table(&fs);
    let p = path(&name);
    let suspect = table_keys(&fs, &p);
    fs.corrupt(&p, fs.file_size(&p).unwrap() / 3, 0x40).unwrap();

    let report = repair(&fs);
    assert!(report.reused_manifest.is_none());
    let aside = report.set_aside.iter().find(|s| s.file == p).unwrap();
    assert!(aside.damaged, "{}", report.to_text());
    assert!(aside.reason.contains("corruption"), "{}", aside.reason);
    assert!(!report.is_lossless());
    assert!(!report.tables_recovered.contains(&p));
    assert!(lost_names(&fs).contains(&name));

    let db = open_repaired(&fs);
    assert_only_suspects_differ(&db, &model, &history, &suspect);
}
