//! Iterators over handles that value GC made stale: the values come from SVTable searches
//! that start where the previous search in the same table ended (forward walks). Scans in
//! both directions, from many starting points, over keys spread across several rewritten
//! tables, must return exactly the model's pairs.

use twain::fs::MemFs;

use crate::gcutil::database_with_stale_handles;

fn collect(it: impl Iterator<Item = twain::Result<(Vec<u8>, Vec<u8>)>>) -> Vec<(Vec<u8>, Vec<u8>)> {
    it.map(|r| r.unwrap()).collect()
}

#[test]
fn scans_over_stale_handles_return_the_model() {
    let fs = MemFs::new();
    let (db, model) = database_with_stale_handles(&fs);
    let snap = db.snapshot();
    let before = db.stats().unwrap().svtable_searches;
    let all: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    // Through a snapshot first (the same values; fix-ups may follow), then the database.
    assert_eq!(collect(snap.iter()), all);
    assert!(
        db.stats().unwrap().svtable_searches > before,
        "the scan did not read through stale handles"
    );
    assert_eq!(collect(db.iter()), all);
    let mut reversed = all.clone();
    reversed.reverse();
    assert_eq!(collect(db.iter().rev()), reversed);
    for start in (0..400u32).step_by(7) {
        for len in [1u32, 5, 33] {
            let (lo, hi) = (format!("k{start:04}"), format!("k{:04}", start + len));
            let expected: Vec<_> = model
                .range(lo.clone().into_bytes()..hi.clone().into_bytes())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            assert_eq!(
                collect(db.range(lo.clone()..hi.clone())),
                expected,
                "{lo}..{hi}"
            );
            let mut back = expected.clone();
            back.reverse();
            assert_eq!(
                collect(db.range(lo.clone()..hi.clone()).rev()),
                back,
                "{lo}..{hi} reversed"
            );
        }
    }
}

#[test]
fn a_scan_and_a_get_interleaved_agree_with_the_model() {
    let fs = MemFs::new();
    let (db, model) = database_with_stale_handles(&fs);
    let mut it = db.iter();
    for (k, v) in &model {
        let (got_k, got_v) = it.next().unwrap().unwrap();
        assert_eq!((&got_k, &got_v), (k, v));
        // A get of a key further on, between two steps of the walk.
        let ahead = model.range(k.clone()..).nth(17);
        if let Some((ak, av)) = ahead {
            assert_eq!(db.get(ak).unwrap().as_ref(), Some(av));
        }
    }
    assert!(it.next().is_none());
}
