//! A database whose manifest predates the counters field (tag 11) still opens: its data is
//! all there and the cumulative counters start from zero, then persist from that open on.

use crate::dbutil;

use dbutil::{key, small_opts};
use std::path::Path;
use twain::Db;
use twain::format::file_header::FILE_HEADER_LEN;
use twain::format::manifest::VersionEdit;
use twain::format::names::{FileType, current_path, file_path, parse_current};
use twain::format::record::{Frame, decode_frame, put_frame};

/// Rewrites the live manifest without any counters field, as an older engine wrote it.
fn strip_counters(dir: &Path) {
    let number = parse_current(&std::fs::read(current_path(dir)).unwrap()).unwrap();
    let path = file_path(dir, FileType::Manifest, number);
    let bytes = std::fs::read(&path).unwrap();
    let mut out = bytes[..FILE_HEADER_LEN].to_vec();
    let mut offset = FILE_HEADER_LEN;
    let mut stripped = 0;
    while let Frame::Good { payload, frame_len } = decode_frame(&bytes[offset..]) {
        let mut edit = VersionEdit::decode(payload).unwrap();
        stripped += usize::from(edit.counters.take().is_some());
        let encoded = edit.encode();
        put_frame(&mut out, &encoded);
        offset += frame_len;
    }
    assert_eq!(offset, bytes.len(), "the manifest has a damaged frame");
    assert!(stripped > 0, "the manifest held no counters to strip");
    std::fs::write(&path, out).unwrap();
}

#[test]
fn old_manifest_without_counters_opens() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..300 {
        db.put(key(i), vec![b'v'; 512]).unwrap();
    }
    db.flush().unwrap();
    db.close().unwrap();
    strip_counters(dir.path());

    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..300 {
        assert_eq!(db.get(key(i)).unwrap(), Some(vec![b'v'; 512]));
    }
    let s = db.stats().unwrap();
    assert_eq!(s.totals, s.since_open(), "counters start from zero");
    assert_eq!(s.totals.user_bytes_written, 0);
    db.put(b"more", b"x").unwrap();
    db.flush().unwrap();
    let written = db.stats().unwrap().user_bytes_written;
    db.close().unwrap();

    let db = Db::open(dir.path(), small_opts()).unwrap();
    assert_eq!(db.stats().unwrap().totals.user_bytes_written, written);
}
