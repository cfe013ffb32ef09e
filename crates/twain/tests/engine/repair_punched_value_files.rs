//! Repair of a database whose value GC punched holes, with the manifest that named the
//! punched runs lost. In a value log, repair steps over the holes (zeroed blocks with an
//! intact record after them) instead of cutting the file at the first one; in an SVTable, it
//! takes the entries that do not read back and that the drop file names dead as punched out.
//! Either way it loses nothing, names the holes in its report, and records them as punched
//! runs again, so every scanner of the repaired database skips them and the freed space
//! stays freed.

use crate::punchutil;
use crate::repairutil;

use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

#[test]
fn a_punched_log_survives_the_loss_of_its_manifest() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(punchutil::DIR, punchutil::options(Arc::clone(&fs))).unwrap();
    let model = punchutil::clustered(&db);
    repair_after_punching(&mem, db, model, ".vlog");
}

#[test]
fn a_punched_svtable_survives_the_loss_of_its_manifest() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(punchutil::DIR, punchutil::options(Arc::clone(&fs))).unwrap();
    let mut model = punchutil::scattered(&db);
    db.gc().unwrap();
    assert_eq!(db.stats().unwrap().value_files[0].epoch, 1, "an SVTable");
    // The SVTable starts with the odd keys below 250: overwriting keys 0..200 leaves one
    // dead run at its start.
    for k in 0..200u32 {
        db.put(punchutil::key(k), punchutil::value(k, 2)).unwrap();
        model.insert(punchutil::key(k), punchutil::value(k, 2));
    }
    db.compact_range(None, None).unwrap();
    repair_after_punching(&mem, db, model, "-1.svt");
}

/// Punches `db` by a complete GC, loses the manifest, repairs, and checks the outcome for
/// the punched file, whose name ends in `suffix`.
fn repair_after_punching(mem: &MemFs, db: Db, model: punchutil::Model, suffix: &str) {
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let gc = db.gc_report().unwrap();
    assert!(gc.punched >= 1, "{gc}");
    let stats = db.stats().unwrap();
    let punched = stats
        .value_files
        .iter()
        .find(|f| f.punched_bytes > 0)
        .expect("a punched value file")
        .clone();
    let name = match punched.epoch {
        0 => format!("{:06}.vlog", punched.number),
        e => format!("{:06}-{e}.svt", punched.number),
    };
    assert!(name.ends_with(suffix), "{name}");
    let blocks_before = punchutil::value_file_blocks(mem)[&name];
    db.close().unwrap();

    for m in repairutil::files_ending(mem, ".manifest") {
        mem.remove_file(&repairutil::path(&m)).unwrap();
    }
    let report = repairutil::repair(mem);
    assert!(report.is_lossless(), "{}", report.to_text());
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains(&name) && (n.contains("hole") || n.contains("punched"))),
        "{}",
        report.to_text()
    );
    assert!(
        !repairutil::lost_names(mem).contains(&name),
        "the punched log was set aside: {}",
        report.to_text()
    );
    repairutil::assert_repaired(mem, &model);
    let mut model = model;
    model.insert(b"after-repair".to_vec(), b"works".to_vec());

    // The holes are punched runs again: counted, skipped, and still free.
    let db = Db::open(punchutil::DIR, punchutil::options(Arc::clone(&fs))).unwrap();
    let stats = db.stats().unwrap();
    assert!(punchutil::file(&stats, punched.number).punched_bytes > 0);
    assert_eq!(punchutil::value_file_blocks(mem)[&name], blocks_before);
    punchutil::assert_model(&db, &model);
    // A complete GC may collect what is left; nothing is lost either way.
    db.gc_report().unwrap();
    punchutil::assert_model(&db, &model);
    db.close().unwrap();
    punchutil::assert_check_ok(fs);
}
