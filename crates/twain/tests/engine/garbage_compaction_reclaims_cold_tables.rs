//! Cold tables pin dead values no longer (issue 10's second scenario, scaled down): keys
//! imported, compacted, then imported again with new values and flushed. No size
//! compaction is due (L0 stays under its trigger), so no drop record is written for the
//! shadowed versions; the background's garbage compaction pushes the new tables down,
//! which drops the old versions, and the old value files go, in both GC modes, with no
//! `compact` and no `gc` asked for. The test waits (bounded) for the space to come back.

use crate::spaceutil;

use spaceutil::*;
use twain::{Db, GcMode};

const FILE: u64 = 256 << 10;

fn cold_tables_reclaim_unaided(mode: GcMode) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), options(mode, FILE)).unwrap();
    let mut model = Model::new();
    import(&db, &mut model, 0);
    db.compact_range(None, None).unwrap();
    import(&db, &mut model, 1);
    db.flush().unwrap();
    let bound = bound(&model, FILE);
    let amp = wait_for_space(&db, dir.path(), &model, bound);
    assert!(amp <= bound);
    let stats = db.stats().unwrap();
    if mode == GcMode::Vlog {
        // Vlog GC judges the cold tables' records by lookup: no compaction is needed, and
        // none of its drops is recorded.
        assert!(
            stats.garbage_compactions == 0 && stats.drop_records == 0 && stats.gc_runs >= 1,
            "vlog GC needs no garbage compaction: {}",
            stats.to_text()
        );
    } else {
        // Garbage compaction brought the shadowed versions down (lsm-lookup GC may find a
        // few dead by lookup before their drop records come).
        assert!(
            stats.garbage_compactions >= 1 && stats.drop_records > 0,
            "the shadowed versions were compacted: {}",
            stats.to_text()
        );
    }
    check(&db, &model);
    db.close().unwrap();
    let db = Db::open(dir.path(), options(mode, FILE)).unwrap();
    check(&db, &model);
}

#[test]
fn drop_records_mode_reclaims_cold_tables_in_the_background() {
    cold_tables_reclaim_unaided(GcMode::DropRecords);
}

#[test]
fn lsm_lookup_mode_reclaims_cold_tables_in_the_background() {
    cold_tables_reclaim_unaided(GcMode::LsmLookup);
}

#[test]
fn vlog_mode_reclaims_cold_tables_in_the_background() {
    cold_tables_reclaim_unaided(GcMode::Vlog);
}
