//! Repair with a value log damaged in the stretch the next open replays (after the flushed
//! point, not the newest log): its original goes to `lost/`, it keeps its intact prefix and
//! is sealed again (open requires a seal on every log but the last), so the logs after it
//! still replay. Only the writes after the damage in that file are gone; the report notes
//! the gap in sequence numbers.

use crate::repairutil;
use repairutil::*;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options};

fn big_memtable(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(16 << 20)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .gc_enabled(false)
}

#[test]
fn damaged_log_in_the_replayed_stretch_is_cut_and_sealed() {
    let fs = MemFs::new();
    let db = Db::open(Path::new(DIR), big_memtable(&fs)).unwrap();
    let mut model = Model::new();
    for i in 0..3000u32 {
        db.put(key(i), value(i, 0)).unwrap();
        model.insert(key(i), value(i, 0));
    }
    drop(db);
    assert!(
        files_ending(&fs, ".sst").is_empty(),
        "nothing may be flushed"
    );
    let logs = files_ending(&fs, ".vlog");
    assert!(logs.len() >= 4, "{logs:?}");
    let name = &logs[2];
    let p = path(name);
    let len = fs.file_size(&p).unwrap();
    fs.corrupt(&p, len / 2, 0x20).unwrap();

    let opts = big_memtable(&fs).create_if_missing(false);
    let report = twain::repair(Path::new(DIR), &opts).unwrap();
    eprintln!("{}", report.to_text());
    let aside = report.set_aside.iter().find(|s| s.file == p).unwrap();
    assert!(aside.damaged);
    assert!(aside.kept_prefix.is_some_and(|k| k <= len / 2));
    assert!(
        report.notes.iter().any(|n| n.contains("sequence numbers")),
        "{}",
        report.to_text()
    );

    assert_check_ok(&fs);
    let db = Db::open(Path::new(DIR), opts.clone()).unwrap();
    let got = contents(&db);
    // The keys that are gone were written one after another: the damaged file's tail.
    let gone: Vec<u32> = (0..3000u32)
        .filter(|i| !got.contains_key(&key(*i)))
        .collect();
    assert!(!gone.is_empty());
    let (lo, hi) = (gone[0], gone[gone.len() - 1]);
    assert_eq!(gone.len() as u32, hi - lo + 1, "gone keys are not one run");
    assert!(hi < 2999, "the logs after the damaged one must replay");
    for (k, v) in &got {
        assert_eq!(model.get(k), Some(v), "key {}", show(k));
    }
    db.put("after-repair", "works").unwrap();
    drop(db);
    assert_check_ok(&fs);
}
