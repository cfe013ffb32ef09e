//! A seekable cursor against a `BTreeMap` model: random mixes of `seek`,
//! `seek_for_prev`, `seek_to_first`, `seek_to_last`, `next` and `prev` on one iterator
//! over a database spread over the memtable, L0, deeper levels and value files, within
//! many ranges, yield exactly what the model says, with the value prefetcher on and off,
//! for the plain iterator and the one with pinned (shared) values alike.

use crate::dbutil;

use dbutil::{
    Model, Rng, all_bounds, assert_layered, bound_keys, key, layered_db, layered_opts, model_range,
};
use std::ops::Bound;
use twain::{Db, DbIterator, KvPair, Pinned};

/// The cursor calls, on a plain or a pinned iterator (its values copied for comparing).
trait Cursor {
    fn seek(&mut self, key: &[u8]);
    fn seek_for_prev(&mut self, key: &[u8]);
    fn seek_to_first(&mut self);
    fn seek_to_last(&mut self);
    fn step(&mut self) -> Option<KvPair>;
    fn step_back(&mut self) -> Option<KvPair>;
}

macro_rules! cursor {
    ($ty:ty, $own:expr) => {
        impl Cursor for $ty {
            fn seek(&mut self, key: &[u8]) {
                <$ty>::seek(self, key)
            }
            fn seek_for_prev(&mut self, key: &[u8]) {
                <$ty>::seek_for_prev(self, key)
            }
            fn seek_to_first(&mut self) {
                <$ty>::seek_to_first(self)
            }
            fn seek_to_last(&mut self) {
                <$ty>::seek_to_last(self)
            }
            fn step(&mut self) -> Option<KvPair> {
                self.next().map(|r| $own(r.expect("next")))
            }
            fn step_back(&mut self) -> Option<KvPair> {
                self.prev().map(|r| $own(r.expect("prev")))
            }
        }
    };
}

cursor!(DbIterator, |kv: KvPair| kv);
cursor!(Pinned, |(k, v): twain::PinnedPair| (k, v.to_vec()));

const N: u64 = 1200;

/// Where the model cursor stands (the same meaning as the iterator's).
#[derive(Debug, Clone)]
enum Pos {
    Start,
    End,
    /// Before key k: next yields the first `>= k`.
    Before(Vec<u8>),
    /// At or just after k: next yields the first `> k`, prev the last `< k` (At) or
    /// `<= k` (After).
    At(Vec<u8>),
    After(Vec<u8>),
}

struct ModelCursor {
    pairs: Vec<KvPair>,
    pos: Pos,
}

impl ModelCursor {
    fn next(&mut self) -> Option<KvPair> {
        let found = match &self.pos {
            Pos::Start => self.pairs.first(),
            Pos::End => None,
            Pos::Before(k) => self.pairs.iter().find(|(x, _)| x >= k),
            Pos::At(k) | Pos::After(k) => self.pairs.iter().find(|(x, _)| x > k),
        }
        .cloned();
        self.pos = match &found {
            Some((k, _)) => Pos::At(k.clone()),
            None => Pos::End,
        };
        found
    }

    fn prev(&mut self) -> Option<KvPair> {
        let found = match &self.pos {
            Pos::Start => None,
            Pos::End => self.pairs.last(),
            Pos::Before(k) | Pos::At(k) => self.pairs.iter().rev().find(|(x, _)| x < k),
            Pos::After(k) => self.pairs.iter().rev().find(|(x, _)| x <= k),
        }
        .cloned();
        self.pos = match &found {
            Some((k, _)) => Pos::At(k.clone()),
            None => Pos::Start,
        };
        found
    }
}

fn target(rng: &mut Rng, model: &Model, bounds: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(4) {
        0 => bounds[rng.below(bounds.len() as u64) as usize].clone(),
        1 => key(rng.below(N + 30)),
        2 => [key(rng.below(N)), b"\x00".to_vec()].concat(),
        _ => model
            .keys()
            .nth(rng.below(model.len() as u64) as usize)
            .cloned()
            .unwrap_or_default(),
    }
}

fn run_ops(
    it: &mut dyn Cursor,
    model: &Model,
    (lo, hi): (&Bound<Vec<u8>>, &Bound<Vec<u8>>),
    rng: &mut Rng,
    ops: usize,
) -> usize {
    let pairs = model_range(model, lo, hi);
    let mut m = ModelCursor {
        pairs,
        pos: Pos::Start,
    };
    let bounds = bound_keys(N);
    let in_lo = |k: &[u8]| match lo {
        Bound::Included(l) => k >= l.as_slice(),
        Bound::Excluded(l) => k > l.as_slice(),
        Bound::Unbounded => true,
    };
    let in_hi = |k: &[u8]| match hi {
        Bound::Included(h) => k <= h.as_slice(),
        Bound::Excluded(h) => k < h.as_slice(),
        Bound::Unbounded => true,
    };
    let mut log: Vec<String> = Vec::new();
    let mut yielded = 0;
    for _ in 0..ops {
        let (got, want) = match rng.below(10) {
            0 => {
                let t = target(rng, model, &bounds);
                log.push(format!("seek {}", String::from_utf8_lossy(&t)));
                it.seek(&t);
                m.pos = if in_lo(&t) {
                    Pos::Before(t)
                } else {
                    Pos::Start
                };
                continue;
            }
            1 => {
                let t = target(rng, model, &bounds);
                log.push(format!("seek_for_prev {}", String::from_utf8_lossy(&t)));
                it.seek_for_prev(&t);
                m.pos = if in_hi(&t) { Pos::After(t) } else { Pos::End };
                continue;
            }
            2 if rng.percent(30) => {
                log.push("seek_to_first".into());
                it.seek_to_first();
                m.pos = Pos::Start;
                continue;
            }
            3 if rng.percent(30) => {
                log.push("seek_to_last".into());
                it.seek_to_last();
                m.pos = Pos::End;
                continue;
            }
            2..=5 => {
                log.push("prev".into());
                (it.step_back(), m.prev())
            }
            6 => {
                // A run of steps forward: long enough for the prefetcher to start and grow.
                let n = rng.below(80);
                log.push(format!("next x{n}"));
                for _ in 0..n {
                    let (got, want) = (it.step(), m.next());
                    assert!(
                        got == want,
                        "after {:?}",
                        &log[log.len().saturating_sub(12)..]
                    );
                    yielded += usize::from(got.is_some());
                }
                continue;
            }
            _ => {
                log.push("next".into());
                (it.step(), m.next())
            }
        };
        let show = |kv: &Option<KvPair>| {
            kv.as_ref()
                .map(|(k, _)| String::from_utf8_lossy(k).into_owned())
        };
        assert_eq!(
            show(&got),
            show(&want),
            "range ({lo:?}, {hi:?}) after {:?}",
            &log[log.len().saturating_sub(12)..]
        );
        assert!(got == want, "value differs for {:?}", show(&got));
        yielded += usize::from(got.is_some());
    }
    yielded
}

fn check(db: &Db, model: &Model, seed: u64) {
    let mut rng = Rng::new(seed);
    let bounds = all_bounds(&bound_keys(N));
    let mut ranges = vec![(Bound::Unbounded, Bound::Unbounded)];
    for _ in 0..24 {
        let lo = bounds[rng.below(bounds.len() as u64) as usize].clone();
        let hi = bounds[rng.below(bounds.len() as u64) as usize].clone();
        ranges.push((lo, hi));
    }
    for (i, (lo, hi)) in ranges.iter().enumerate() {
        let it = db.range((lo.clone(), hi.clone()));
        if i % 2 == 0 {
            run_ops(&mut { it }, model, (lo, hi), &mut rng, 300);
        } else {
            run_ops(&mut it.into_pinned(), model, (lo, hi), &mut rng, 300);
        }
    }
    // A long mix on the whole database, plain and pinned.
    let whole = (&Bound::Unbounded, &Bound::Unbounded);
    let yielded = run_ops(&mut db.iter(), model, whole, &mut rng, 4000);
    assert!(yielded > 2000, "the mix yielded only {yielded} entries");
    let yielded = run_ops(
        &mut db.range_pinned::<&[u8], _>(..),
        model,
        whole,
        &mut rng,
        4000,
    );
    assert!(
        yielded > 2000,
        "the pinned mix yielded only {yielded} entries"
    );
}

#[test]
fn random_seeks_and_steps_match_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (db, model) = layered_db(dir.path(), N, 14);
    assert_layered(&db);
    let s = db.stats().unwrap();
    assert!(!s.value_files.is_empty(), "no separated values");
    // Prefetching whatever reads cost (files in the page cache read too fast otherwise).
    drop(db);
    let opts = layered_opts()
        .prefetch_threads(3)
        .prefetch_min_read_micros(0);
    let db = Db::open(dir.path(), opts).unwrap();
    check(&db, &model, 7);
    let s = db.stats().unwrap();
    assert!(s.prefetch_reads > 0, "the prefetcher never ran");

    // Reads counted fast whatever they cost: the cursor reads each window itself.
    drop(db);
    let opts = layered_opts()
        .prefetch_threads(3)
        .prefetch_min_read_micros(1_000_000);
    let db = Db::open(dir.path(), opts).unwrap();
    check(&db, &model, 9);
    let s = db.stats().unwrap();
    assert!(s.prefetch_reads > 0, "the cursor read no window");

    // The same without prefetching.
    drop(db);
    let opts = layered_opts().prefetch_threads(0);
    let db = Db::open(dir.path(), opts).unwrap();
    check(&db, &model, 8);
    assert_eq!(db.stats().unwrap().prefetch_reads, 0);
}
