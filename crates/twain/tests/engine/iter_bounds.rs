//! `Db::range` and `Db::prefix` return exactly the live keys within their bounds, with
//! their newest values, whatever kind of bound is used and wherever the data sits
//! (memtable, L0, deeper levels), through overwrites and deletes.

use crate::dbutil;

use dbutil::{
    Model, all_bounds, assert_layered, assert_pairs_eq, bound_keys, collect, key, layered_db,
    model_prefix, model_range, show,
};
use std::ops::Bound;
use std::time::Instant;
use twain::{Db, Options};

const N: u64 = 1500;

fn model_of(pairs: &[(&[u8], &[u8])]) -> Model {
    pairs
        .iter()
        .map(|(k, v)| (k.to_vec(), v.to_vec()))
        .collect()
}

#[test]
fn every_combination_of_bounds_matches_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 1);
    assert_layered(&db);
    let bounds = all_bounds(&bound_keys(N));
    let start = Instant::now();
    let mut checked = 0;
    for lo in &bounds {
        for hi in &bounds {
            let got = collect(db.range((lo.clone(), hi.clone())));
            let want = model_range(&model, lo, hi);
            assert_pairs_eq(&got, &want, &format!("range ({lo:?}, {hi:?})"));
            checked += 1;
        }
    }
    eprintln!("{checked} ranges in {:?}", start.elapsed());
}

#[test]
fn range_syntax_forms_agree_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 2);
    let (a, b) = (key(100), key(900));
    let inc = |k: &Vec<u8>| Bound::Included(k.clone());
    let exc = |k: &Vec<u8>| Bound::Excluded(k.clone());
    let un = Bound::Unbounded;
    let cases: Vec<(&str, Vec<_>, Vec<_>)> = vec![
        (
            "a..b",
            collect(db.range(a.clone()..b.clone())),
            model_range(&model, &inc(&a), &exc(&b)),
        ),
        (
            "a..=b",
            collect(db.range(a.clone()..=b.clone())),
            model_range(&model, &inc(&a), &inc(&b)),
        ),
        (
            "a..",
            collect(db.range(a.clone()..)),
            model_range(&model, &inc(&a), &un),
        ),
        (
            "..b",
            collect(db.range(..b.clone())),
            model_range(&model, &un, &exc(&b)),
        ),
        (
            "..=b",
            collect(db.range(..=b.clone())),
            model_range(&model, &un, &inc(&b)),
        ),
        (
            "..",
            collect(db.range::<&[u8], _>(..)),
            model_range(&model, &un, &un),
        ),
        ("iter()", collect(db.iter()), model_range(&model, &un, &un)),
        (
            "(Excluded(a), Excluded(b))",
            collect(db.range((exc(&a), exc(&b)))),
            model_range(&model, &exc(&a), &exc(&b)),
        ),
        (
            "(Excluded(a), Included(b))",
            collect(db.range((exc(&a), inc(&b)))),
            model_range(&model, &exc(&a), &inc(&b)),
        ),
        (
            "(Excluded(a), Unbounded)",
            collect(db.range((exc(&a), Bound::<Vec<u8>>::Unbounded))),
            model_range(&model, &exc(&a), &un),
        ),
        (
            "&str range",
            collect(db.range("k00100".."k00900")),
            model_range(&model, &inc(&a), &exc(&b)),
        ),
    ];
    for (what, got, want) in cases {
        assert!(
            !want.is_empty(),
            "{what}: the model range should not be empty"
        );
        assert_pairs_eq(&got, &want, what);
    }
}

#[test]
fn prefix_matches_the_model_including_0xff_and_empty_prefixes() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 3);
    let prefixes: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\x00".to_vec(),
        b"a".to_vec(),
        b"a\xff".to_vec(),
        b"a\xff\xff".to_vec(),
        b"b".to_vec(),
        b"k".to_vec(),
        b"k0".to_vec(),
        b"k001".to_vec(),
        b"k0149".to_vec(),
        key(7),
        key(N + 11),
        b"\xff".to_vec(),
        b"\xff\xff".to_vec(),
        b"\xff\xff\xff\xff".to_vec(),
        b"zzz".to_vec(),
    ];
    for p in &prefixes {
        let got = collect(db.prefix(p));
        let want = model_prefix(&model, p);
        assert_pairs_eq(&got, &want, &format!("prefix {}", show(p)));
    }
    // The empty prefix is everything.
    assert_eq!(collect(db.prefix(b"")).len(), model.len());
}

/// Keys ending in 0xff bytes, where the exclusive upper bound of a prefix must carry into
/// the byte before (and a prefix of only 0xff bytes has no upper bound at all).
#[test]
fn prefix_upper_bound_carries_past_0xff_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), Options::default()).unwrap();
    let model = model_of(&[
        (b"a", b"1"),
        (b"a\xfe", b"2"),
        (b"a\xfe\xff", b"3"),
        (b"a\xff", b"4"),
        (b"a\xff\x00", b"5"),
        (b"a\xff\xff", b"6"),
        (b"a\xff\xff\xff\xff", b"7"),
        (b"b", b"8"),
        (b"b\x00", b"9"),
        (b"\xff", b"10"),
        (b"\xff\xff", b"11"),
        (b"\xff\xff\x00", b"12"),
    ]);
    for (k, v) in &model {
        db.put(k, v).unwrap();
    }
    for round in 0..2 {
        for p in [
            &b"a"[..],
            b"a\xfe",
            b"a\xff",
            b"a\xff\xff",
            b"a\xff\xff\xff",
            b"\xff",
            b"\xff\xff",
            b"\xff\xff\xff",
            b"",
        ] {
            let got = collect(db.prefix(p));
            assert_pairs_eq(
                &got,
                &model_prefix(&model, p),
                &format!("round {round} prefix {}", show(p)),
            );
        }
        db.compact_range(None, None).unwrap();
    }
}

#[test]
fn empty_and_inverted_ranges_yield_nothing_and_point_ranges_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 4);
    let live = model.keys().find(|k| k.starts_with(b"k0")).unwrap().clone();
    let later = key(N - 1);
    assert!(collect(db.range(later.clone()..live.clone())).is_empty());
    assert!(collect(db.range(live.clone()..live.clone())).is_empty());
    assert!(collect(db.range(later.clone()..=live.clone())).is_empty());
    assert!(
        collect(db.range::<&[u8], _>((
            Bound::Excluded(live.as_slice()),
            Bound::Excluded(live.as_slice())
        )))
        .is_empty()
    );
    assert!(
        collect(db.range::<&[u8], _>((
            Bound::Excluded(live.as_slice()),
            Bound::Included(live.as_slice())
        )))
        .is_empty()
    );
    let one = collect(db.range(live.clone()..=live.clone()));
    assert_eq!(one, vec![(live.clone(), model[&live].clone())]);
    // A deleted key as a point range yields nothing.
    let deleted = (0..N).map(key).find(|k| !model.contains_key(k)).unwrap();
    assert!(collect(db.range(deleted.clone()..=deleted.clone())).is_empty());
    // Bounds outside every key.
    assert!(collect(db.range(b"\xff\xff\xff\xff".to_vec()..)).is_empty());
    assert!(collect(db.range(..b"".to_vec())).is_empty());
}
