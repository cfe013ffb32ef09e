//! The cached `Stats::live_bytes` follows the database: after writes (overwrites, deletes,
//! inline and separated values), a flush and a wait for the background, the figure is the
//! model's exactly, and `stats` says it is current. Writes after the pass make it say how
//! far behind it is until the next version's pass.

use crate::dbutil;

use dbutil::{BACKGROUND_DEADLINE, Rng, key, small_opts, wait_until};
use std::collections::BTreeMap;
use twain::{Db, Stats};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn model_live(m: &Model) -> u64 {
    m.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum()
}

/// Waits until the background's pass covers the current state; returns those statistics.
fn settled(db: &Db) -> Stats {
    let mut last = None;
    let current = wait_until(BACKGROUND_DEADLINE, || {
        let s = db.stats().unwrap();
        let done = s.live_bytes_is_current();
        last = Some(s);
        done
    });
    let s = last.unwrap();
    assert!(current, "the live figure never caught up:\n{}", s.to_text());
    s
}

#[test]
fn live_bytes_become_exact_after_the_background_settles() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    let mut model = Model::new();
    let mut rng = Rng::new(7);
    for round in 0..4u64 {
        for op in 0..1200u64 {
            let k = key(rng.below(500));
            if rng.percent(20) {
                db.delete(&k).unwrap();
                model.remove(&k);
            } else {
                let len = [10, 300, 900][rng.below(3) as usize];
                let v: Vec<u8> = format!("{round}:{op}:").bytes().cycle().take(len).collect();
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
        }
        db.flush().unwrap();
        let s = settled(&db);
        assert_eq!(s.live_bytes, model_live(&model), "round {round}");
        assert!(s.live_bytes_error.is_none());
        assert!(
            s.to_text().contains("live pass        current"),
            "{}",
            s.to_text()
        );
    }

    // A write after the pass: the figure says it is behind (unless a new version's pass
    // already caught it), and the pass on demand brings it up to date.
    db.put(key(9999), b"late").unwrap();
    model.insert(key(9999), b"late".to_vec());
    let s = db.stats().unwrap();
    assert!(
        s.live_bytes_is_current() || s.live_bytes_writes_behind > 0,
        "{}",
        s.to_text()
    );
    assert_eq!(db.refresh_live_bytes().unwrap(), model_live(&model));
    let s = db.stats().unwrap();
    assert_eq!(s.live_bytes, model_live(&model));
    assert!(s.to_json().contains("\"live_bytes_writes_behind\":0"));
}
