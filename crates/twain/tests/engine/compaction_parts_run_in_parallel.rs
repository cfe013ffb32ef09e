//! A compaction split into key-range parts (`max_subcompactions`) merges them at the same
//! time: each part's first output table is held at its creation until another part has
//! reached the same point, which only happens if two parts are in flight at once. The
//! result equals what was written, and the statistics count the parts.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use twain::fs::{FaultFs, Fs, MemFs, OpEvent, OpKind, OpPhase};
use twain::{Db, Options};

/// Rendezvous of table creations: `arrived` counts them, `met` records whether a second
/// one came while the first waited.
#[derive(Default)]
struct Gate {
    state: Mutex<(bool, usize, bool)>,
    cv: Condvar,
}

impl Gate {
    fn arm(&self) {
        *self.state.lock().unwrap() = (true, 0, false);
    }

    fn met(&self) -> bool {
        self.state.lock().unwrap().2
    }

    /// Called before a table is created: the first waits (up to a minute) for a second.
    fn pass(&self) {
        let mut st = self.state.lock().unwrap();
        if !st.0 {
            return;
        }
        st.1 += 1;
        if st.1 >= 2 {
            // Two creations in flight: the gate opens for good.
            *st = (false, st.1, true);
            self.cv.notify_all();
            return;
        }
        let (st, _) = self
            .cv
            .wait_timeout_while(st, Duration::from_secs(60), |s| !s.2)
            .unwrap();
        drop(st);
    }
}

#[test]
fn two_parts_of_one_compaction_run_at_once() {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let gate = Arc::new(Gate::default());
    let g = Arc::clone(&gate);
    faults.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if e.op == OpKind::Create
            && e.phase == OpPhase::Before
            && e.path.extension().is_some_and(|x| x == "sst")
        {
            g.pass();
        }
    })));
    let opts = Options::default()
        .fs(Arc::new(faults.clone()) as Arc<dyn Fs>)
        .target_file_size(4 << 10)
        .l0_compaction_trigger(100)
        .l0_slowdown_trigger(200)
        .l0_stop_trigger(300)
        .max_subcompactions(2)
        .gc_enabled(false);
    let db = Db::open("/db", opts).unwrap();
    // Three L0 tables over disjoint key ranges: the compaction can cut between them.
    let mut expect = Vec::new();
    for t in 0..3u32 {
        for i in 0..200u32 {
            let k = format!("k{t}-{i:04}");
            let v = vec![(t * 7 + i) as u8; if i % 5 == 0 { 1000 } else { 100 }];
            db.put(&k, &v).unwrap();
            expect.push((k.into_bytes(), v));
        }
        db.flush().unwrap();
    }
    let before = db.stats().unwrap();
    gate.arm();
    db.compact_range(None, None).unwrap();
    assert!(
        gate.met(),
        "the parts of the compaction created their tables one after the other"
    );
    let after = db.stats().unwrap();
    assert!(after.split_compactions > before.split_compactions);
    assert!(after.compaction_parts >= before.compaction_parts + 2);
    let got: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(|kv| kv.unwrap()).collect();
    assert_eq!(got, expect);
    drop(db);
    // Persisted across opens, like every cumulative counter.
    let reopened = Db::open(
        "/db",
        Options::default().fs(Arc::new(faults.clone()) as Arc<dyn Fs>),
    )
    .unwrap();
    let totals = reopened.stats().unwrap().totals;
    assert!(totals.split_compactions >= 1 && totals.compaction_parts >= 2);
}
