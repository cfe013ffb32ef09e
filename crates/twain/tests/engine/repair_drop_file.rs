//! Repair with a drop file missing or damaged: drop files only tell GC which records are
//! dead, so losing one loses no key. A damaged one goes to `lost/` (GC then keeps more
//! than it must, never less), and every key reads as written.

use crate::repairutil;
use repairutil::*;
use twain::fs::{Fs, MemFs};

fn largest_drop_file(fs: &MemFs) -> String {
    files_ending(fs, ".drop")
        .into_iter()
        .max_by_key(|n| fs.file_size(&path(n)).unwrap())
        .unwrap()
}

#[test]
fn missing_drop_file_loses_nothing() {
    let fs = MemFs::new();
    let (model, _) = build(&fs, 3000);
    let name = largest_drop_file(&fs);
    fs.remove_file(&path(&name)).unwrap();

    let report = repair(&fs);
    assert_eq!(report.lost_entries, 0, "{}", report.to_text());
    assert!(!report.drop_files.contains(&path(&name)));
    assert_repaired(&fs, &model);
}

/// Overwrites even keys below 300 in two compacted rounds, so that the oldest value log's
/// drop file gets two blocks.
fn two_drop_blocks(fs: &MemFs, model: &mut Model) {
    let db = twain::Db::open(std::path::Path::new(DIR), existing(fs)).unwrap();
    for range in [0..150u32, 150..300] {
        for i in range.filter(|i| i.is_multiple_of(2)) {
            db.put(key(i), value(i, 9)).unwrap();
            model.insert(key(i), value(i, 9));
        }
        db.compact_range(None, None).unwrap();
    }
}

#[test]
fn damaged_drop_file_is_set_aside() {
    let fs = MemFs::new();
    let (mut model, _) = build(&fs, 3000);
    two_drop_blocks(&fs, &mut model);
    let name = files_ending(&fs, ".drop").into_iter().next().unwrap();
    // Damage the first block; later intact blocks make it corruption, not a torn append.
    fs.corrupt(&path(&name), 24 + 8, 0x10).unwrap();

    let report = repair(&fs);
    let aside = report
        .set_aside
        .iter()
        .find(|s| s.file == path(&name))
        .unwrap_or_else(|| panic!("{}", report.to_text()));
    assert!(aside.damaged);
    assert!(lost_names(&fs).contains(&name));
    assert_eq!(report.lost_entries, 0);
    assert_repaired(&fs, &model);
}
