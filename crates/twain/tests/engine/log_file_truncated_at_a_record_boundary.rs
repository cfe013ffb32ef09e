//! Regression test (currently failing, so ignored): a value file that is not the last one
//! but still replayed on open (it lies after the flushed point) must not lose records
//! silently when it is cut short exactly at a record boundary.
//!
//! Found by `decoder_mutation.rs` (a truncation of a value file scanned with
//! `may_be_torn = false` returned fewer records without error). Recovery
//! (`replay` in src/db/open.rs) scans each log file after the flushed point with
//! `scan_value_file`; a file cut at a record boundary scans clean, and nothing records how
//! long a rolled log file was until a flush seals it in the manifest. Every synced write in
//! the lost records vanishes while later writes, in later files, survive: a hole.

use std::path::Path;
use std::sync::Arc;
use twain::format::file_header::FILE_HEADER_LEN;
use twain::format::record::{Frame, decode_frame};
use twain::fs::{Fs, MemFs};
use twain::{Db, Error, Options, WriteOptions};

#[test]
fn truncated_middle_log_file_is_corruption_not_a_hole() {
    let fs = MemFs::new();
    let opts = || {
        Options::default()
            .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
            .memtable_size(4 << 20)
            .value_file_size(4096)
            .inline_threshold(64)
    };
    let db = Db::open("/db", opts()).unwrap();
    for i in 0..60u32 {
        db.put_opt(
            format!("k{i:03}"),
            vec![i as u8; 300],
            &WriteOptions::synced(),
        )
        .unwrap();
    }
    db.close().unwrap();
    let mut logs: Vec<String> = fs
        .file_names(Path::new("/db"))
        .into_iter()
        .filter(|n| n.ends_with(".vlog"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 3, "{logs:?}");
    // Cut the second value file after its first record.
    let path = Path::new("/db").join(&logs[1]);
    let bytes = fs.read_file(&path).unwrap();
    let Frame::Good { frame_len, .. } = decode_frame(&bytes[FILE_HEADER_LEN..]) else {
        panic!("no record");
    };
    fs.truncate(&path, (FILE_HEADER_LEN + frame_len) as u64)
        .unwrap();

    match Db::open("/db", opts()) {
        Err(Error::Corruption { file, .. }) => assert_eq!(file, path),
        Err(e) => panic!("expected corruption in {}, got {e}", path.display()),
        Ok(db) => {
            let missing: Vec<u32> = (0..60)
                .filter(|i| db.get(format!("k{i:03}")).unwrap().is_none())
                .collect();
            panic!(
                "opened with synced writes missing from the middle (a hole): {missing:?}; k059 present: {}",
                db.get("k059").unwrap().is_some()
            );
        }
    }
}
