//! Issue 19, finding 7, swept: one flipped byte at every few offsets of a sealed value file
//! (frame headers, batch headers, keys, values, sync marker), in both GC modes. For each
//! damaged copy, value GC either collects the file or sets it aside, and:
//!
//! - `Db::gc` succeeds and the database stays writable;
//! - if the file was collected, every key reads back its value — GC never drops a live
//!   record it could not read;
//! - if it was set aside, every key reads back its value or a `Corruption` naming the file;
//! - nothing panics.
//!
//! The same for an SVTable (drop-records mode). Prints the number of copies collected and
//! set aside.

use twain::fs::{CrashOptions, MemFs};
use twain::{Db, Error, GcMode, Options};

use crate::gcutil;
use gcutil::{file_of, manual_gc_options, sealed_file_with_drops, value, value_file_path};

const DIR: &str = "/db";

/// The value each key must read back.
type Expected = Box<dyn Fn(u32) -> Vec<u8>>;

/// The database of the sweep, closed: a sealed value file whose `k0010..k0020` are dead,
/// at epoch 0 (`svtable` false) or, after GC and overwrites of `k0000..k0010`, at epoch 1.
fn build(mode: GcMode, svtable: bool) -> (MemFs, u64, Expected) {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs, mode)).unwrap();
    if !svtable {
        let first = sealed_file_with_drops(&db, 10..20);
        db.close().unwrap();
        let expected = |i| value(if (10..20).contains(&i) { "b" } else { "a" }, i);
        return (fs, first, Box::new(expected));
    }
    let first = gcutil::first_file_collected_once(&db);
    for i in 0..10u32 {
        db.put(format!("k{i:04}"), value("c", i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    db.close().unwrap();
    let expected = |i| {
        let tag = match i {
            0..10 => "c",
            40..60 => "b",
            _ => "a",
        };
        value(tag, i)
    };
    (fs, first, Box::new(expected))
}

fn options(fs: &MemFs, mode: GcMode) -> Options {
    manual_gc_options(fs).gc_mode(mode)
}

fn sweep(mode: GcMode, svtable: bool) {
    let (base, first, expected) = build(mode, svtable);
    let opts = |fs: &MemFs| options(fs, mode);
    let pristine = base.crash(&CrashOptions::drop_unsynced());
    let epoch = u32::from(svtable);
    let path = value_file_path(DIR, first, epoch);
    let bytes = pristine.read_file(&path).unwrap();
    // Every third byte up to the 20 KiB "roll" value, then a few inside it and after.
    let roll_at = bytes.windows(64).position(|w| w == [0u8; 64]).unwrap();
    let offsets = (0..roll_at)
        .step_by(3)
        .chain((roll_at..bytes.len()).step_by(997))
        .chain(roll_at.max(bytes.len() - 200)..bytes.len());
    let (mut collected, mut set_aside, mut failures) = (0, 0, Vec::new());
    for at in offsets {
        let fs = pristine.crash(&CrashOptions::drop_unsynced());
        fs.corrupt(&path, at as u64, 0x20).unwrap();
        let db = Db::open(DIR, opts(&fs)).unwrap();
        let ctx = format!("{mode:?}, epoch {epoch}, byte {at}");
        if let Err(e) = db.gc() {
            failures.push(format!("{ctx}: gc failed: {e}"));
            continue;
        }
        let aside = !db.gc_set_aside().is_empty();
        match (aside, file_of(&db, first).map(|f| f.epoch)) {
            (true, Some(e)) if e == epoch => set_aside += 1,
            (false, Some(e)) if e == epoch + 1 => collected += 1,
            (false, None) => collected += 1,
            other => failures.push(format!("{ctx}: set aside / epoch {other:?}")),
        }
        for i in 0..60u32 {
            match db.get(format!("k{i:04}")) {
                Ok(Some(v)) if v == expected(i) => {}
                Err(Error::Corruption { file, .. }) if aside && file == path => {}
                other => failures.push(format!("{ctx}: k{i:04}: {other:?}")),
            }
        }
        if let Err(e) = db.put("after", "x").and_then(|_| db.health()) {
            failures.push(format!("{ctx}: not writable: {e}"));
        }
    }
    println!(
        "{mode:?}, epoch {epoch}: damaged copies collected {collected}, set aside {set_aside}"
    );
    assert!(collected > 0 && set_aside > 0);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn drop_records_mode_never_loses_a_live_record_to_damage() {
    sweep(GcMode::DropRecords, false);
}

#[test]
fn drop_records_mode_never_loses_a_live_record_to_damage_in_an_svtable() {
    sweep(GcMode::DropRecords, true);
}

#[test]
fn lsm_lookup_mode_never_loses_a_live_record_to_damage() {
    sweep(GcMode::LsmLookup, false);
}

#[test]
fn vlog_mode_never_loses_a_live_record_to_damage() {
    sweep(GcMode::Vlog, false);
}
