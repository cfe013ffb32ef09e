//! Repair with a byte flipped in the middle of the oldest value log (sealed, before the
//! flushed point): its original goes to `lost/`, the file keeps its intact prefix (sealed
//! again), and exactly the keys whose newest value lay after the damage read as deleted —
//! the report counts them and names them — while every other key reads as written.

use crate::repairutil;
use repairutil::*;
use twain::fs::{Fs, MemFs};

#[test]
fn damaged_value_log_keeps_its_intact_prefix() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 3000);
    let name = oldest_log(&fs);
    let p = path(&name);
    let len = fs.file_size(&p).unwrap();
    fs.corrupt(&p, len / 2, 0x08).unwrap();

    let report = repair(&fs);
    let aside = report.set_aside.iter().find(|s| s.file == p).unwrap();
    assert!(aside.damaged);
    let kept = aside.kept_prefix.unwrap();
    assert!(kept > 24 && kept <= len / 2, "kept {kept} of {len}");
    // The original is kept whole.
    assert_eq!(fs.file_size(&aside.moved_to).unwrap(), len);
    assert!(report.lost_entries > 0, "{}", report.to_text());
    assert!(!report.lost_keys.is_empty());
    assert!(!report.is_lossless());

    let db = open_repaired(&fs);
    let gone = assert_lost_exactly_reported(&db, &model, &report);
    // Only separated values (even keys) live in the value log.
    assert!(gone.iter().all(|k| {
        let i: u32 = String::from_utf8_lossy(&k[3..]).parse().unwrap();
        i.is_multiple_of(2)
    }));
}
