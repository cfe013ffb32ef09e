//! The background keeps the space amplification at `space_amp_target` without `compact`
//! or `gc` being asked for (issue 10, item 1): a database whose whole history sits in the
//! active log file has that file sealed and collected once the foreground is quiet, in
//! both GC modes; and a database too small for its files says it is at its floor instead
//! of claiming to reclaim. Inline values' garbage, in the key store, is compacted away
//! the same way.

use crate::spaceutil;

use spaceutil::*;
use std::time::{Duration, Instant};
use twain::{Db, GcMode, SpaceTarget};

/// Large enough that the four imports fit in one file.
const FILE: u64 = 64 << 20;

/// Waits (up to a minute) until the statistics say `done`; panics with them otherwise.
fn wait_for_stats(
    db: &Db,
    what: &str,
    mut done: impl FnMut(&twain::Stats) -> bool,
) -> twain::Stats {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = db.stats().unwrap();
        if s.live_bytes_is_current() && done(&s) {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "{what} after a minute:\n{}",
            s.to_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn one_log_file_comes_back_unaided(mode: GcMode) {
    let dir = tempfile::tempdir().unwrap();
    let opts = || options(mode, FILE);
    let db = Db::open(dir.path(), opts()).unwrap();
    let target = db.stats().unwrap().space_amp_target;
    let mut model = Model::new();
    for round in 0..4 {
        import(&db, &mut model, round);
    }
    let before = space_amp(dir.path(), &model);
    assert!(before > 3.0, "four versions of everything: {before:.2}");
    let amp = wait_for_space(&db, dir.path(), &model, target);
    eprintln!("{mode:?}: {before:.2} -> {amp:.2}");
    let s = wait_for_stats(&db, "the target is not met", |s| {
        s.space_target() == SpaceTarget::Met
    });
    assert!(s.logs_sealed_for_gc >= 1, "{}", s.to_text());
    assert!(s.gc_runs + s.gc_punch_runs >= 1, "{}", s.to_text());
    check(&db, &model);
    db.close().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    check(&db, &model);
}

#[test]
fn drop_records_mode_seals_and_collects_the_log_unaided() {
    one_log_file_comes_back_unaided(GcMode::DropRecords);
}

#[test]
fn lsm_lookup_mode_seals_and_collects_the_log_unaided() {
    one_log_file_comes_back_unaided(GcMode::LsmLookup);
}

#[test]
fn vlog_mode_seals_and_collects_the_log_unaided() {
    one_log_file_comes_back_unaided(GcMode::Vlog);
}

#[test]
fn a_tiny_database_reports_its_floor() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), options(GcMode::DropRecords, FILE)).unwrap();
    let mut model = Model::new();
    for i in 0..3 {
        db.put(key(i), value(0, i)).unwrap();
        model.insert(key(i), value(0, i));
    }
    db.flush().unwrap();
    db.refresh_live_bytes().unwrap();
    let s = wait_for_stats(&db, "no floor reported", |s| {
        matches!(s.space_target(), SpaceTarget::AtFloor { .. })
    });
    let SpaceTarget::AtFloor { floor } = s.space_target() else {
        unreachable!()
    };
    let amp = s.space_amplification().unwrap();
    assert!(
        floor > s.space_amp_target && floor <= amp,
        "{}",
        s.to_text()
    );
    assert!(
        s.to_text().contains("out of reach: the floor is"),
        "{}",
        s.to_text()
    );
    check(&db, &model);
}

/// Inline values leave their garbage in the key store, not in value files: four versions of
/// every key in four L0 tables (below the L0 compaction trigger, so no size compaction
/// runs) are compacted down to one once the foreground is quiet.
#[test]
fn shadowed_inline_versions_are_compacted_away_unaided() {
    let dir = tempfile::tempdir().unwrap();
    let opts = || {
        // No size compaction ever runs (L0 never reaches its trigger): only garbage
        // compactions can take the shadowed versions away. With a trigger of 8, the 20
        // flushes below made size compactions that, on a loaded machine, could finish the
        // job before any garbage compaction was picked.
        (options(GcMode::DropRecords, 4 << 20))
            .inline_threshold(4096)
            .l0_compaction_trigger(1000)
            .l0_slowdown_trigger(1000)
            .l0_stop_trigger(1000)
    };
    let db = Db::open(dir.path(), opts()).unwrap();
    let target = db.stats().unwrap().space_amp_target;
    let mut model = Model::new();
    for round in 0..4 {
        import(&db, &mut model, round);
        db.flush().unwrap();
    }
    // Up to four versions of everything (the background may have begun already: under
    // the writes, one garbage compaction per log file rolled).
    let before = space_amp(dir.path(), &model);
    let amp = wait_for_space(&db, dir.path(), &model, target);
    eprintln!("inline: {before:.2} -> {amp:.2}");
    let s = db.stats().unwrap();
    assert!(s.garbage_compactions >= 1, "{}", s.to_text());
    assert_eq!(
        s.gc_runs + s.gc_punch_runs,
        0,
        "nothing separated to collect"
    );
    check(&db, &model);
    db.close().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    check(&db, &model);
}
