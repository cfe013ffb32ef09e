//! Random bursts of overwrites and deletes over contiguous key ranges (clustered garbage)
//! mixed with scattered updates, with complete GCs in between, checked against a BTreeMap
//! model: GC punches some files and rewrites others, and every key always reads its model
//! value. Iterators opened before a burst and read only after the GC that follows see
//! exactly the state of their opening: the records they still need are never punched
//! under them (the punch waits for them), and the punch happens once they are gone.

use std::sync::Arc;
use twain::Db;
use twain::fs::{Fs, MemFs};

use crate::punchutil;
use punchutil::{DIR, Model, assert_check_ok, assert_model, key, options};

/// xorshift64*: deterministic choices.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

const KEYS: u64 = 800;

fn value(k: u64, round: u64, rng: &mut Rng) -> Vec<u8> {
    let len = 300 + rng.below(1200) as usize;
    let mut v = format!("{k}/{round}:").into_bytes();
    v.resize(len, b'a' + (round % 26) as u8);
    v
}

#[test]
fn random_bursts_with_punching_gc_match_the_model() {
    let mem = MemFs::new();
    let fs: Arc<dyn Fs> = Arc::new(mem.clone());
    let mut db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
    let mut rng = Rng(0x70c4);
    let mut model = Model::new();
    for k in 0..KEYS {
        let v = value(k, 0, &mut rng);
        db.put(key(k as u32), &v).unwrap();
        model.insert(key(k as u32), v);
    }
    let mut held_iterators = 0;
    for round in 1..=14u64 {
        // An iterator opened now and read after the GC must see this state.
        let held = (round % 4 == 0).then(|| (db.iter(), model.clone()));
        // With an iterator held, always a long burst: its garbage is punched.
        let burst = if held.is_some() { 0 } else { rng.below(3) };
        match burst {
            0 | 1 => {
                let start = rng.below(KEYS / 2);
                let len = if held.is_some() {
                    300
                } else {
                    50 + rng.below(250)
                };
                let delete = rng.below(4) == 0;
                for k in start..(start + len).min(KEYS) {
                    let kk = key(k as u32);
                    if delete {
                        db.delete(&kk).unwrap();
                        model.remove(&kk);
                    } else {
                        let v = value(k, round, &mut rng);
                        db.put(&kk, &v).unwrap();
                        model.insert(kk, v);
                    }
                }
            }
            _ => {
                for _ in 0..60 {
                    let k = rng.below(KEYS);
                    let v = value(k, round, &mut rng);
                    db.put(key(k as u32), &v).unwrap();
                    model.insert(key(k as u32), v);
                }
            }
        }
        db.gc().unwrap();
        if let Some((it, then)) = held {
            let seen: Model = it.map(|r| r.unwrap()).collect();
            assert!(
                seen == then,
                "round {round}: an older iterator saw another state"
            );
            held_iterators += 1;
        }
        assert_model(&db, &model);
        if round % 5 == 0 {
            db.close().unwrap();
            db = Db::open(DIR, options(Arc::clone(&fs))).unwrap();
            assert_model(&db, &model);
        }
    }
    db.gc().unwrap();
    let stats = db.stats().unwrap();
    assert!(held_iterators >= 3);
    assert!(stats.totals.gc_punch_runs > 0, "no file was punched");
    assert!(stats.totals.gc_runs > 0, "no file was rewritten");
    assert!(stats.totals.gc_punched_bytes > 0);
    assert_model(&db, &model);
    db.close().unwrap();
    assert_check_ok(fs);
}
