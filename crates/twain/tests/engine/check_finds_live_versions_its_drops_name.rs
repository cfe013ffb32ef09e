//! `twain check` reports a live version every copy of which a counted drop names: value
//! GC acts on the drops alone, so the next GC of that file would discard a version every
//! read still finds. Engines before aade362 could leave such a database (a relocated copy
//! written beside a dropped copy of the same version in one log). Drops that no manifest
//! edit counts are not acted on (the next open cuts them off), so they are only a note.
//! Nor is a dropped sequence that a log holds twice (the state those engines left): value
//! GC keeps one copy of it, and the check says so in a note.

use crate::dbutil::table_value_handles;
use crate::gcutil::{manual_gc_options, value};
use std::path::Path;
use std::sync::Arc;
use twain::Db;
use twain::check::{CheckOptions, CheckReport, check};
use twain::format::drops::encode_block;
use twain::format::file_header::{FileKind, encode_header};
use twain::format::handle::ValueHandle;
use twain::format::names::drop_file_path;
use twain::format::record::put_frame;
use twain::format::vlog::RelocationWriter;
use twain::fs::{Fs, MemFs};
use twain::vlog::read_drop_file;

const DIR: &str = "/db";

/// Two rounds of 20 separated values, each flushed, then one compaction: the first
/// round's drops are counted in the drop files of its value files. Returns the live
/// handles, and a value file with a drop file and a live handle into it, with its drops.
fn dropped_then_live(fs: &MemFs) -> (ValueHandle, Vec<u8>, u64, Vec<(u64, u32)>) {
    let db = Db::open(DIR, manual_gc_options(fs)).unwrap();
    for tag in ["a", "b"] {
        for i in 0..20 {
            db.put(format!("k{i:02}"), value(tag, i)).unwrap();
        }
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
    let handles = table_value_handles(&db, fs, DIR);
    db.close().unwrap();
    assert!(report(fs).is_ok(), "{:?}", report(fs));
    for (key, seq, h) in handles {
        let path = drop_file_path(Path::new(DIR), h.file, h.epoch);
        let drops = read_drop_file(fs, &path, h.file).unwrap();
        if !drops.set.is_empty() {
            return (h, key, seq, drops.set.into_iter().collect());
        }
    }
    panic!("no live handle into a value file with drops");
}

fn report(fs: &MemFs) -> CheckReport {
    let fs: Arc<dyn Fs> = Arc::new(fs.clone());
    check(
        Path::new(DIR),
        &CheckOptions {
            fs,
            ..CheckOptions::default()
        },
    )
    .unwrap()
}

/// Writes a drop file for value file `number` (epoch 0) holding `blocks`.
fn write_drop_file(fs: &MemFs, number: u64, blocks: &[Vec<(u64, u32)>]) {
    let mut bytes = encode_header(FileKind::Drops, number).to_vec();
    for block in blocks {
        put_frame(&mut bytes, &encode_block(block));
    }
    let path = drop_file_path(Path::new(DIR), number, 0);
    let mut f = fs.create(&path).unwrap();
    f.append(&bytes).unwrap();
    f.sync_data().unwrap();
}

#[test]
fn a_counted_drop_naming_the_only_copy_of_a_live_version_is_a_problem() {
    let fs = MemFs::new();
    let (h, key, seq, mut drops) = dropped_then_live(&fs);
    assert_eq!(h.epoch, 0);
    // Swap one counted drop for the live version's sequence, with its entry's length: the
    // count and every drop's match with an entry stay right, only the judgment is wrong.
    drops[0] = (seq, h.len);
    drops.sort_unstable();
    write_drop_file(&fs, h.file, &[drops]);

    let r = report(&fs);
    assert_eq!(r.problems.len(), 1, "{r:?}");
    let p = &r.problems[0];
    assert_eq!(p.file, Path::new(DIR).join(format!("{:06}.vlog", h.file)));
    assert_eq!(p.offset, Some(h.offset));
    let shown = String::from_utf8(key.clone()).unwrap();
    assert!(
        p.what
            .contains(&format!("key {shown} (sequence {seq}) is live")),
        "{p:?}"
    );

    // Every read still finds it: only a GC would lose it.
    let opts = manual_gc_options(&fs);
    let db = Db::open_read_only(DIR, opts).unwrap();
    let i: u32 = shown[1..].parse().unwrap();
    assert_eq!(db.get(&key).unwrap(), Some(value("b", i)));
}

#[test]
fn an_uncounted_drop_of_a_live_version_is_not_a_problem() {
    let fs = MemFs::new();
    let (h, _, seq, drops) = dropped_then_live(&fs);
    assert_eq!(h.epoch, 0);
    // A block after the counted ones: a flush or compaction appended it and its edit never
    // landed. The next open cuts it off; the check notes it.
    write_drop_file(&fs, h.file, &[drops, vec![(seq, h.len)]]);
    let r = report(&fs);
    assert!(r.is_ok(), "{r:?}");
    assert!(
        r.notes
            .iter()
            .any(|n| n.what.contains("1 drops not counted by the manifest")),
        "{r:?}"
    );
}

#[test]
fn a_dropped_sequence_a_log_holds_twice_is_kept_by_gc() {
    let fs = MemFs::new();
    let (h, key, seq, mut drops) = dropped_then_live(&fs);
    assert_eq!(h.epoch, 0);
    let shown = String::from_utf8(key.clone()).unwrap();
    let i: u32 = shown[1..].parse().unwrap();
    // A second copy of the live version at the end of its log (as a relocation record:
    // the next open replays it), and a counted drop of its sequence.
    let log = Path::new(DIR).join(format!("{:06}.vlog", h.file));
    let end = fs.file_size(&log).unwrap();
    let mut frame = Vec::new();
    let mut w = RelocationWriter::begin(&mut frame, end);
    w.add(&mut frame, seq, &key, &value("b", i));
    w.finish(&mut frame);
    let mut f = fs.open_append(&log).unwrap();
    f.append(&frame).unwrap();
    f.sync_data().unwrap();
    drops[0] = (seq, h.len);
    drops.sort_unstable();
    write_drop_file(&fs, h.file, &[drops]);

    let r = report(&fs);
    assert!(r.is_ok(), "{r:?}");
    assert!(
        r.notes
            .iter()
            .any(|n| n.what.contains("1 live versions have a dropped copy")),
        "{r:?}"
    );

    // A complete GC (it seals the log and collects it) keeps the version.
    let db = Db::open(DIR, manual_gc_options(&fs)).unwrap();
    let gc = db.gc_report().unwrap();
    assert!(gc.collected + gc.punched > 0, "{gc:?}");
    assert_eq!(db.get(&key).unwrap(), Some(value("b", i)));
    db.close().unwrap();
    let r = report(&fs);
    assert!(r.is_ok(), "{r:?}");
}
