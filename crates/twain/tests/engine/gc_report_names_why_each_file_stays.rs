//! `Db::gc_report` says per value file left why it stays: the file being written is
//! active, a file with no dead record is live, a file a sliver dead is below the
//! threshold, and a file whose overwritten records a live snapshot still reads is pinned
//! by the snapshot (lsm-lookup mode). Once the snapshot is released, the pinned files go.

use std::collections::BTreeSet;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, GcMode, Options, StayReason};

fn value(tag: &str, i: u32) -> Vec<u8> {
    let mut v = format!("{tag}-{i}-").into_bytes();
    v.resize(1000, b'v');
    v
}

fn reasons(report: &twain::GcReport) -> BTreeSet<&'static str> {
    report.files.iter().map(|f| f.reason.as_str()).collect()
}

#[test]
fn the_report_names_why_each_value_file_stays() {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(1 << 20)
        .value_file_size(16 << 10)
        // The 1000-byte values are large (separated in the log), not medium.
        .inline_threshold(256)
        .l0_compaction_trigger(100)
        .l0_slowdown_trigger(100)
        .l0_stop_trigger(100)
        .gc_enabled(false)
        .gc_mode(GcMode::LsmLookup);
    let db = Db::open("/db", opts).unwrap();
    let (live, sliver, pinned) = (
        |i| format!("l{i:03}"),
        |i| format!("s{i:03}"),
        |i| format!("p{i:03}"),
    );
    for i in 0..40 {
        db.put(live(i), value("old", i)).unwrap();
    }
    for i in 0..60 {
        db.put(sliver(i), value("old", i)).unwrap();
    }
    for i in 0..40 {
        db.put(pinned(i), value("old", i)).unwrap();
    }
    // At most one dead record in each of the sliver files (about 16 records each).
    for i in (0..60).step_by(30) {
        db.put(sliver(i), value("new", i)).unwrap();
    }
    // Half of every pinned file dead now; the other half overwritten under a snapshot.
    for i in (0..40).step_by(2) {
        db.put(pinned(i), value("new", i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    let snapshot = db.snapshot();
    for i in (1..40).step_by(2) {
        db.put(pinned(i), value("new", i)).unwrap();
    }

    let report = db.gc_report().unwrap();
    let got = reasons(&report);
    for want in [
        StayReason::Active,
        StayReason::Live,
        StayReason::BelowThreshold,
        StayReason::PinnedBySnapshot,
    ] {
        assert!(got.contains(want.as_str()), "no {want:?} file:\n{report}");
    }
    for f in &report.files {
        match f.reason {
            StayReason::Live => assert_eq!(f.live_fraction, 1.0, "{report}"),
            StayReason::BelowThreshold => assert!(f.live_fraction >= report.threshold),
            StayReason::PinnedBySnapshot => assert!(f.live_fraction < report.threshold),
            _ => {}
        }
    }
    // The snapshot still reads what it saw.
    assert_eq!(snapshot.get(pinned(1)).unwrap(), Some(value("old", 1)));
    drop(snapshot);
    let report = db.gc_report().unwrap();
    assert!(report.collected >= 1, "{report}");
    assert!(
        !reasons(&report).contains(StayReason::PinnedBySnapshot.as_str()),
        "{report}"
    );
    for i in 0..40 {
        assert_eq!(db.get(pinned(i)).unwrap(), Some(value("new", i)));
        assert_eq!(db.get(live(i)).unwrap(), Some(value("old", i)));
    }
}
