//! Reverse iteration (`.rev()`) yields exactly the forward result reversed, for every kind
//! of bound, for prefixes, and for keys whose versions are spread over every tier.

use crate::dbutil;

use dbutil::{
    all_bounds, assert_layered, assert_pairs_eq, bound_keys, collect, collect_rev, layered_db,
    model_prefix, model_range, show,
};
use twain::Db;

const N: u64 = 1500;

#[test]
fn rev_is_forward_reversed_for_every_combination_of_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 11);
    assert_layered(&db);
    let bounds = all_bounds(&bound_keys(N));
    for lo in &bounds {
        for hi in &bounds {
            let what = format!("range ({lo:?}, {hi:?})");
            let back = collect_rev(db.range((lo.clone(), hi.clone())));
            let mut want = model_range(&model, lo, hi);
            want.reverse();
            assert_pairs_eq(&back, &want, &what);
        }
    }
}

#[test]
fn rev_of_prefix_is_forward_reversed() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 12);
    for p in [
        &b""[..],
        b"a",
        b"a\xff",
        b"a\xff\xff",
        b"k00",
        b"k0100",
        b"\xff",
        b"\xff\xff",
        b"nothing",
    ] {
        let forward = collect(db.prefix(p));
        let mut back = collect_rev(db.prefix(p));
        back.reverse();
        assert_pairs_eq(&back, &forward, &format!("prefix {}", show(p)));
        assert_pairs_eq(
            &forward,
            &model_prefix(&model, p),
            &format!("prefix {}", show(p)),
        );
    }
}

/// Walking backwards meets a key's versions oldest first; the iterator must still yield
/// the newest visible one, and skip keys whose newest version is a tombstone even when
/// older live versions sit in deeper tiers.
#[test]
fn rev_yields_the_newest_version_when_versions_span_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), dbutil::small_opts()).unwrap();
    let big = |tag: u8| vec![tag; 500];
    // Tier 1: bottom level.
    for k in ["a", "b", "c", "d", "e"] {
        db.put(k, big(1)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    // Tier 2: L0.
    db.put("a", "a2").unwrap();
    db.delete("b").unwrap();
    db.put("c", big(2)).unwrap();
    db.flush().unwrap();
    // Tier 3: memtable.
    db.put("b", "b3").unwrap();
    db.delete("c").unwrap();
    db.put("d", "d3").unwrap();
    db.delete("e").unwrap();
    db.put("e", big(3)).unwrap();
    db.delete("e").unwrap();

    let want: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (b"a".to_vec(), b"a2".to_vec()),
        (b"b".to_vec(), b"b3".to_vec()),
        (b"d".to_vec(), b"d3".to_vec()),
    ];
    assert_pairs_eq(&collect(db.iter()), &want, "forward");
    let mut back = collect_rev(db.iter());
    back.reverse();
    assert_pairs_eq(&back, &want, "reverse");
    // Ranges ending on a deleted key and on a key with hidden versions.
    let mut back = collect_rev(db.range("a"..="c"));
    back.reverse();
    assert_pairs_eq(&back, &want[..2], "reverse a..=c");
    let mut back = collect_rev(db.range("b"..="e"));
    back.reverse();
    assert_pairs_eq(&back, &want[1..], "reverse b..=e");
}
