//! `Db::stats` still answers when a table's data block is damaged: the pass behind
//! `live_bytes` fails (`Db::refresh_live_bytes` returns the corruption, and the background's
//! pass fails alike), so the figure falls back to `referenced_bytes` and says why, in the
//! struct, the text and the JSON.

use crate::dbutil;

use dbutil::{key, small_opts};
use twain::Db;

#[test]
fn stats_with_a_damaged_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..200 {
        db.put(key(i), vec![b'v'; 40]).unwrap();
    }
    db.flush().unwrap();
    db.close().unwrap();
    let table = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "sst"))
        .expect("a table");
    let mut bytes = std::fs::read(&table).unwrap();
    // Inside the first data block, right after the file header.
    for b in &mut bytes[40..60] {
        *b ^= 0x5a;
    }
    std::fs::write(&table, bytes).unwrap();

    let db = Db::open(dir.path(), small_opts()).unwrap();
    let err = db.refresh_live_bytes().expect_err("the pass must fail");
    assert!(err.is_corruption(), "{err}");
    let s = db.stats().unwrap();
    let why = s.live_bytes_error.clone().expect("the pass must fail");
    assert_eq!(s.live_bytes_age, None);
    assert!(why.contains("sst"), "{why}");
    assert_eq!(s.live_bytes, s.referenced_bytes);
    assert_eq!(s.reclaimable_shadowed_bytes, 0);
    assert!(
        s.to_text().contains("live data        unread"),
        "{}",
        s.to_text()
    );
    assert!(s.to_json().contains("\"live_bytes_error\":\""));
}
