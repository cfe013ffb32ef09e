//! Issue 19, finding 7: when the length of a damaged frame cannot be trusted (the next
//! frame is not where it says), value GC cannot find anything after it. The rest of the
//! file is unreadable, and live records lie there: the file is set aside, even though the
//! damaged frame's own record is dead, and the database stays writable.

use twain::fs::MemFs;
use twain::{Db, GcMode};

use crate::gcutil;
use gcutil::{
    assert_keys_read_back, file_of, manual_gc_options, sealed_file_with_drops, value,
    value_file_path,
};

const DIR: &str = "/db";

fn damaged_length_makes_the_rest_unreadable(mode: GcMode) {
    let fs = MemFs::new();
    let opts = manual_gc_options(&fs).gc_mode(mode);
    let db = Db::open(DIR, opts).unwrap();
    let first = sealed_file_with_drops(&db, 10..20);
    let path = value_file_path(DIR, first, 0);
    // Each put is one frame: frame header (8), batch header (21), entry header (3), key (5),
    // value. Damage the second byte of the length of k0012's frame (a dead record).
    let bytes = fs.read_file(&path).unwrap();
    let v = value("a", 12);
    let at = bytes.windows(v.len()).position(|w| w == v).unwrap() as u64;
    let frame = at - 8 - 21 - 8;
    fs.corrupt(&path, frame + 5, 0x01).unwrap();

    assert_eq!(db.gc().unwrap(), 0);
    let aside = db.gc_set_aside();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(aside[0].file, path);
    assert_eq!(aside[0].offset, frame);
    assert!(aside[0].what.contains("unreadable"), "{}", aside[0]);
    assert_eq!(file_of(&db, first).unwrap().epoch, 0);
    db.health().unwrap();
    db.put("after", value("c", 1)).unwrap();
    assert_eq!(db.get("after").unwrap(), Some(value("c", 1)));
    // Reads go through handles, not the frames: every live record still reads.
    assert_keys_read_back(&db, 10..20, None);
}

#[test]
fn drop_records_mode_sets_aside_a_file_whose_damaged_frame_length_hides_the_rest() {
    damaged_length_makes_the_rest_unreadable(GcMode::DropRecords);
}

#[test]
fn lsm_lookup_mode_sets_aside_a_file_whose_damaged_frame_length_hides_the_rest() {
    damaged_length_makes_the_rest_unreadable(GcMode::LsmLookup);
}
