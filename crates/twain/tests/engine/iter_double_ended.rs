//! A `DbIterator` used from both ends: `next()` and `next_back()` interleaved in any
//! order never yield a key twice, the front stays ascending and the back descending, and
//! together they yield exactly the range; once the cursors meet, both ends are done.

use crate::dbutil;

use dbutil::{
    Model, Rng, all_bounds, assert_layered, assert_pairs_eq, bound_keys, key, layered_db,
    model_range, show,
};
use std::ops::Bound;
use twain::{Db, KvPair};

const N: u64 = 1500;

/// Drains `(lo, hi)` with a random mix of `next` and `next_back` and checks the result.
fn drain_interleaved(
    db: &Db,
    model: &Model,
    lo: &Bound<Vec<u8>>,
    hi: &Bound<Vec<u8>>,
    rng: &mut Rng,
    front_percent: u64,
) {
    let what = format!("range ({lo:?}, {hi:?}), front {front_percent}%");
    let mut it = db.range((lo.clone(), hi.clone()));
    let mut front: Vec<KvPair> = Vec::new();
    let mut back: Vec<KvPair> = Vec::new();
    loop {
        let from_front = rng.percent(front_percent);
        let item = if from_front {
            it.next()
        } else {
            it.next_back()
        };
        match item {
            Some(r) => {
                let kv = r.expect("iterator item");
                if from_front {
                    front.push(kv);
                } else {
                    back.push(kv);
                }
            }
            None => break,
        }
    }
    // Done from both ends, and it stays done.
    assert!(it.next().is_none(), "{what}: next after the end");
    assert!(it.next_back().is_none(), "{what}: next_back after the end");
    assert!(it.next().is_none(), "{what}: next after the end, again");

    assert!(
        front.windows(2).all(|w| w[0].0 < w[1].0),
        "{what}: front not strictly ascending"
    );
    assert!(
        back.windows(2).all(|w| w[0].0 > w[1].0),
        "{what}: back not strictly descending"
    );
    if let (Some(f), Some(b)) = (front.last(), back.last()) {
        assert!(
            f.0 < b.0,
            "{what}: the ends crossed: front reached {}, back reached {}",
            show(&f.0),
            show(&b.0)
        );
    }
    let mut all = front;
    all.extend(back.into_iter().rev());
    assert_pairs_eq(&all, &model_range(model, lo, hi), &what);
}

#[test]
fn random_interleavings_yield_exactly_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 21);
    assert_layered(&db);
    let mut rng = Rng::new(99);
    let bounds = all_bounds(&bound_keys(N));
    for lo in &bounds {
        for hi in &bounds {
            let bias = [50, 10, 90][rng.below(3) as usize];
            drain_interleaved(&db, &model, lo, hi, &mut rng, bias);
        }
    }
}

#[test]
fn strict_alternation_meets_in_the_middle() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 22);
    for (lo, hi) in [
        (key(10), key(60)),
        (key(10), key(61)),
        (key(0), key(N)),
        (b"".to_vec(), b"\xff\xff\xff\xff".to_vec()),
    ] {
        let want = model_range(
            &model,
            &Bound::Included(lo.clone()),
            &Bound::Excluded(hi.clone()),
        );
        let mut it = db.range(lo.clone()..hi.clone());
        let mut front = Vec::new();
        let mut back = Vec::new();
        while let Some(kv) = it.next() {
            front.push(kv.unwrap());
            match it.next_back() {
                Some(kv) => back.push(kv.unwrap()),
                None => break,
            }
        }
        assert_eq!(
            front.len() + back.len(),
            want.len(),
            "{}..{}: yielded count",
            show(&lo),
            show(&hi)
        );
        assert!(front.len() == back.len() || front.len() == back.len() + 1);
        front.extend(back.into_iter().rev());
        assert_pairs_eq(&front, &want, "alternation");
    }
}

#[test]
fn back_first_then_front_and_single_key_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 23);
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);

    // Take the last three from the back, then drain from the front.
    let mut it = db.iter();
    let tail: Vec<KvPair> = (0..3).map(|_| it.next_back().unwrap().unwrap()).collect();
    let head: Vec<KvPair> = it.by_ref().map(|r| r.unwrap()).collect();
    assert!(it.next_back().is_none());
    let mut joined = head;
    joined.extend(tail.into_iter().rev());
    assert_pairs_eq(&joined, &all, "back three, then front");

    // A one-key range gives its key once, whichever end asks first.
    let (k, v) = all[all.len() / 2].clone();
    let mut it = db.range(k.clone()..=k.clone());
    assert_eq!(it.next().unwrap().unwrap(), (k.clone(), v.clone()));
    assert!(it.next_back().is_none());
    let mut it = db.range(k.clone()..=k.clone());
    assert_eq!(it.next_back().unwrap().unwrap(), (k.clone(), v.clone()));
    assert!(it.next().is_none());

    // An excluded start is honoured by the back cursor alone.
    let start = all[10].0.clone();
    let stop = all[14].0.clone();
    let it = db.range((Bound::Excluded(start), Bound::Included(stop)));
    let back: Vec<KvPair> = it.rev().map(|r| r.unwrap()).collect();
    let want: Vec<KvPair> = all[11..=14].iter().rev().cloned().collect();
    assert_pairs_eq(&back, &want, "excluded start from the back");
}
