//! `Db::contains_key` and `Snapshot::contains_key` answer whether a key has a value
//! (present, not deleted, not hidden by a range deletion, not expired) without reading a
//! separated value.

use crate::dbutil::small_opts;
use std::sync::Arc;
use twain::{Db, ManualClock};

#[test]
fn contains_key_answers_without_reading_values() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let db = Db::open(dir.path(), small_opts().clock(Arc::new(clock.clone()))).unwrap();
    let big = vec![7u8; 4000];
    for k in ["a", "b", "c", "d"] {
        db.put(k, &big).unwrap();
    }
    db.put_with_expiry("e", &big, 2_000).unwrap();
    db.flush().unwrap();
    let snap = db.snapshot();
    db.delete("b").unwrap();
    db.delete_range("c", "d").unwrap();
    clock.advance(5_000);
    let reads = db.stats().unwrap().value_reads;
    assert!(db.contains_key("a").unwrap());
    assert!(!db.contains_key("b").unwrap(), "deleted");
    assert!(!db.contains_key("c").unwrap(), "range-deleted");
    assert!(
        db.contains_key("d").unwrap(),
        "the range's end is not deleted"
    );
    assert!(!db.contains_key("e").unwrap(), "expired");
    assert!(!db.contains_key("zz").unwrap(), "never written");
    assert!(snap.contains_key("b").unwrap() && snap.contains_key("c").unwrap());
    assert!(
        !snap.contains_key("e").unwrap(),
        "expiry is time, not a version"
    );
    db.flush().unwrap();
    assert!(!db.contains_key("c").unwrap());
    assert!(snap.contains_key("c").unwrap());
    assert_eq!(db.stats().unwrap().value_reads, reads, "a value was read");
}
