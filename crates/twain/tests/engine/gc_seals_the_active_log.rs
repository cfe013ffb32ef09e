//! `Db::gc_report` seals the active value file when it holds the garbage (issue 10's first
//! scenario, scaled down): every key imported four times into one large log file, then a
//! complete GC. Before, GC never touched the active file and nothing came back; now the
//! log is sealed (rolled to a new file), the old versions' drops recorded by garbage
//! compaction, the file collected, and the directory ends within 1.1 of the live bytes
//! plus the floor, in both GC modes, with every key intact after a reopen.

use crate::spaceutil;

use spaceutil::*;
use twain::{Db, GcMode, Options, StayReason};

/// Large enough that the four imports fit in one file.
const FILE: u64 = 64 << 20;

fn opts(mode: GcMode) -> Options {
    (options(mode, FILE))
        // Nothing in the background: the complete GC does all of it.
        .gc_enabled(false)
}

fn one_log_file_comes_back(mode: GcMode) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts(mode)).unwrap();
    let mut model = Model::new();
    for round in 0..4 {
        import(&db, &mut model, round);
    }
    db.compact_range(None, None).unwrap();
    let before = space_amp(dir.path(), &model);
    assert!(before > 3.0, "four versions of everything: {before:.2}");
    // The garbage is all in the active file (FILE holds the whole history): GC must seal
    // it to collect anything.
    let report = db.gc_report().unwrap();
    assert!(report.logs_sealed >= 1, "{report}");
    assert!(report.collected >= 1, "{report}");
    let after = space_amp(dir.path(), &model);
    // The floor here is an empty active file and the spare: a few bytes each.
    assert!(
        after <= 1.1,
        "space amplification {after:.3} after gc:\n{report}"
    );
    for f in &report.files {
        assert!(
            matches!(
                f.reason,
                StayReason::Active | StayReason::Live | StayReason::WithinTarget
            ),
            "{report}"
        );
    }
    check(&db, &model);
    db.close().unwrap();
    let db = Db::open(dir.path(), opts(mode)).unwrap();
    check(&db, &model);
    // A second complete GC has nothing left to gain and seals nothing.
    let again = db.gc_report().unwrap();
    assert_eq!((again.logs_sealed, again.collected), (0, 0), "{again}");
}

#[test]
fn drop_records_mode_seals_and_collects_the_active_log() {
    one_log_file_comes_back(GcMode::DropRecords);
}

#[test]
fn lsm_lookup_mode_seals_and_collects_the_active_log() {
    one_log_file_comes_back(GcMode::LsmLookup);
}

#[test]
fn vlog_mode_seals_and_collects_the_active_log() {
    one_log_file_comes_back(GcMode::Vlog);
}
