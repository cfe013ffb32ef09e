//! Issue 19, finding 7: in lsm-lookup mode, value GC judges records by looking them up in
//! the tree. A damaged table met by those lookups is corruption too: GC cannot establish
//! which records are live, so it sets the value file aside (naming the table), and the
//! database stays writable instead of turning read-only.

use std::path::Path;
use twain::fs::MemFs;
use twain::{Db, GcMode};

use crate::gcutil;
use gcutil::{file_of, manual_gc_options, sealed_file_with_drops, value};

const DIR: &str = "/db";

#[test]
fn a_damaged_table_met_by_gc_lookups_sets_the_value_file_aside() {
    let fs = MemFs::new();
    let opts = manual_gc_options(&fs).gc_mode(GcMode::LsmLookup);
    let db = Db::open(DIR, opts).unwrap();
    let first = sealed_file_with_drops(&db, 10..20);
    let tables: Vec<_> = fs
        .file_names(Path::new(DIR))
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .collect();
    assert_eq!(tables.len(), 1, "{tables:?}");
    let table = Path::new(DIR).join(&tables[0]);
    fs.corrupt(&table, 100, 0x20).unwrap(); // inside the first data block
    db.gc().unwrap();
    let aside = db.gc_set_aside();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(aside[0].number, first);
    assert_eq!(aside[0].file, table);
    assert_eq!(file_of(&db, first).unwrap().epoch, 0);
    db.health().unwrap();
    db.put("after", value("c", 1)).unwrap();
    assert_eq!(db.get("after").unwrap(), Some(value("c", 1)));
    assert!(db.get("k0000").unwrap_err().is_corruption());
}
