//! Repair with one SSTable deleted: `check` finds the manifest naming a missing table, so
//! repair rebuilds from what is left; every key the table did not hold reads exactly as
//! written, and the writes still in the log come back too.

use crate::repairutil;
use repairutil::*;
use twain::fs::{Fs, MemFs};

#[test]
fn missing_table_is_rebuilt_around() {
    let fs = MemFs::new();
    let (model, history) = build(&fs, 3000);
    let name = largest_table(&fs);
    let p = path(&name);
    let suspect = table_keys(&fs, &p);
    fs.remove_file(&p).unwrap();

    let report = repair(&fs);
    assert!(report.reused_manifest.is_none(), "{}", report.to_text());
    assert_eq!(report.lost_entries, 0);
    assert_eq!(report.missing, vec![p.clone()], "{}", report.to_text());
    assert!(!report.is_lossless());
    let db = open_repaired(&fs);
    assert_only_suspects_differ(&db, &model, &history, &suspect);
    // The unflushed writes were replayed from the log.
    for i in 3000..3200 {
        assert_eq!(db.get(key(i)).unwrap(), Some(value(i, 0)));
    }
}
