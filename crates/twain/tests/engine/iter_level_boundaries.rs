//! Iterators cross the table boundaries of levels that hold many tables, in both
//! directions and from both ends at once, with bounds landing on and between the keys
//! around every boundary.

use crate::dbutil;

use dbutil::{Model, Rng, assert_pairs_eq, collect, collect_rev, model_range, value};
use std::ops::Bound;
use twain::{Db, LevelSizing, Options};

fn key(i: u64) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

/// A database whose bottom level holds many tables, with a second, sparser set of
/// overwrites and deletes in L0 and the memtable. Static sizing puts that level at L1.
fn many_tables(dir: &std::path::Path) -> (Db, Model, u64) {
    let opts = Options::default()
        .level_sizing(LevelSizing::Static)
        .memtable_size(256 << 10)
        .value_file_size(1 << 20)
        .target_file_size(64 << 10)
        .l1_target_size(64 << 20)
        .inline_threshold(64)
        .block_size(1024);
    let db = Db::open(dir, opts).unwrap();
    let n = 12_000u64;
    let mut model = Model::new();
    let mut rng = Rng::new(5);
    for i in 0..n {
        // Mostly inline values, so that the key store is large.
        let v = value(&key(i), i, if i % 10 == 0 { 6 } else { 3 });
        db.put(key(i), &v).unwrap();
        model.insert(key(i), v);
    }
    db.compact_range(None, None).unwrap();
    let files = db.stats().unwrap().levels[1].files;
    assert!(files >= 8, "only {files} tables in L1");
    for i in (0..n).step_by(31) {
        if rng.percent(50) {
            db.delete(key(i)).unwrap();
            model.remove(&key(i));
        } else {
            let v = value(&key(i), n + i, rng.next_u64());
            db.put(key(i), &v).unwrap();
            model.insert(key(i), v);
        }
    }
    db.flush().unwrap();
    for i in (5..n).step_by(97) {
        db.delete(key(i)).unwrap();
        model.remove(&key(i));
    }
    (db, model, n)
}

#[test]
fn full_scans_cross_every_table_boundary_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model, _) = many_tables(dir.path());
    let all = model_range(&model, &Bound::Unbounded, &Bound::Unbounded);
    assert_pairs_eq(&collect(db.iter()), &all, "forward");
    let mut back = collect_rev(db.iter());
    back.reverse();
    assert_pairs_eq(&back, &all, "reverse");
}

#[test]
fn ranges_starting_and_ending_anywhere_match_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model, n) = many_tables(dir.path());
    let mut rng = Rng::new(6);
    for _ in 0..120 {
        // Short ranges somewhere in the key space: most boundaries get hit by some.
        let a = rng.below(n + 10);
        let len = 1 + rng.below(600);
        let lo = match rng.below(3) {
            0 => Bound::Included(key(a)),
            1 => Bound::Excluded(key(a)),
            _ => Bound::Included([key(a), vec![0]].concat()),
        };
        let hi = match rng.below(3) {
            0 => Bound::Included(key(a + len)),
            1 => Bound::Excluded(key(a + len)),
            _ => Bound::Excluded([key(a + len), vec![0]].concat()),
        };
        let want = model_range(&model, &lo, &hi);
        let what = format!("({lo:?}, {hi:?})");
        assert_pairs_eq(&collect(db.range((lo.clone(), hi.clone()))), &want, &what);
        let mut back = collect_rev(db.range((lo.clone(), hi.clone())));
        back.reverse();
        assert_pairs_eq(&back, &want, &format!("rev {what}"));
        // Both ends at once, meeting somewhere inside.
        let mut it = db.range((lo, hi));
        let mut front = Vec::new();
        let mut tail = Vec::new();
        loop {
            let from_front = rng.percent(50);
            let item = if from_front {
                it.next()
            } else {
                it.next_back()
            };
            let Some(kv) = item else { break };
            if from_front {
                front.push(kv.unwrap());
            } else {
                tail.push(kv.unwrap());
            }
        }
        front.extend(tail.into_iter().rev());
        assert_pairs_eq(&front, &want, &format!("both ends {what}"));
    }
}

#[test]
fn point_reads_find_every_key_in_a_multi_table_level() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model, n) = many_tables(dir.path());
    for i in 0..n + 5 {
        assert_eq!(
            db.get(key(i)).unwrap(),
            model.get(&key(i)).cloned(),
            "key {i}"
        );
    }
    // Keys between keys are absent.
    for i in (0..n).step_by(101) {
        assert_eq!(db.get([key(i), vec![0]].concat()).unwrap(), None);
    }
}
