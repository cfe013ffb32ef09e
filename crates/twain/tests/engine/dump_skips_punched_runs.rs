//! `twain dump` of a value log that value GC punched reads the punched runs from the
//! database's manifest and skips them: it lists the runs and every record outside them,
//! instead of failing on the zeros inside.

use std::path::Path;
use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{DIR, clustered, options};

#[test]
fn dump_lists_punched_runs_and_the_records_outside_them() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    clustered(&db);
    let first = db.stats().unwrap().value_files[0].number;
    assert!(db.gc_report().unwrap().punched >= 1);
    db.close().unwrap();

    let path = Path::new(DIR).join(format!("{first:06}.vlog"));
    let mut out = Vec::new();
    twain::dump::dump_file(&fs, &path, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("punched run @"), "{text}");
    // Keys 0..200 were overwritten (their records punched); the file's later keys are live.
    assert!(!text.contains("key \"k00000\""), "{text}");
    assert!(text.contains("key \"k00210\""), "{text}");
    assert!(!text.contains("torn tail"), "{text}");

    // A copy of the file outside any database dir has no manifest to say so: dump reports
    // the zeros.
    let copy = Path::new("/elsewhere").join(format!("{first:06}.vlog"));
    mem.create_dir_all(copy.parent().unwrap()).unwrap();
    mem.write_file(&copy, &mem.read_file(&path).unwrap())
        .unwrap();
    let mut out = Vec::new();
    let r = twain::dump::dump_file(&fs, &copy, &mut out);
    let text = String::from_utf8(out).unwrap();
    assert!(r.is_err() || text.contains("torn tail"), "{text}");
}
