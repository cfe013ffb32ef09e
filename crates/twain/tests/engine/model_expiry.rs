//! Random operations with expiring puts agree with a model on a clock the test moves:
//! plain and expiring puts of sizes crossing every placement threshold (some already
//! expired when written), deletes, batches, the clock moving forward, flushes, manual
//! compactions, value GC (every mode by seed), complete GCs and reopens. At every check a
//! key's newest write decides: it is visible with its value and expiry time until that
//! time, and absent from then on, through `get`, `expiry`, `multi_get`, scans both ways
//! and key-only scans. Seeds 3 mod 4 keep their values in the hash layout; even seeds let
//! the background run its garbage compactions (and expiry picks) beside the operations.

use crate::dbutil::Rng;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::{Clock, Db, KeyExpiry, ManualClock, Options, WriteBatch, WriteOptions};

const T0: u64 = 1_900_000_000_000;
const KEYS: u64 = 120;

/// Each key's newest write: its value and expiry time.
type Model = BTreeMap<Vec<u8>, (Vec<u8>, Option<u64>)>;

fn opts(seed: u64, clock: &ManualClock) -> Options {
    Options::default()
        .clock(Arc::new(clock.clone()))
        // The hash layout collects its groups in drop-records mode only.
        .gc_mode(match seed % 3 {
            _ if seed % 4 == 3 => twain::GcMode::DropRecords,
            1 => twain::GcMode::LsmLookup,
            2 => twain::GcMode::Vlog,
            _ => twain::GcMode::DropRecords,
        })
        .value_layout(if seed % 4 == 3 {
            twain::ValueLayout::Hash
        } else {
            twain::ValueLayout::Log
        })
        .gc_enabled(seed.is_multiple_of(2))
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .l1_target_size(32 << 10)
        .target_file_size(32 << 10)
        // The hash layout has no medium class.
        .medium_threshold(if seed % 4 == 3 { 400 } else { 24 })
        .inline_threshold(400)
        .l0_compaction_trigger(2)
}

fn key(rng: &mut Rng) -> Vec<u8> {
    format!("k{:03}", rng.below(KEYS)).into_bytes()
}

fn value(rng: &mut Rng, step: u64) -> Vec<u8> {
    let len = match rng.below(3) {
        0 => rng.below(20),
        1 => 30 + rng.below(300),
        _ => 400 + rng.below(1500),
    } as usize;
    let mut v = format!("{step}:").into_bytes();
    v.resize(len.max(v.len()), b'a' + (step % 26) as u8);
    v
}

/// An expiry time near `now`: sometimes past, mostly within the next few hundred ms.
fn expiry(rng: &mut Rng, now: u64) -> u64 {
    (now + rng.below(400)).saturating_sub(50)
}

/// What the model says at `now`: the visible pairs.
fn visible(model: &Model, now: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    model
        .iter()
        .filter(|(_, (_, at))| at.is_none_or(|at| at > now))
        .map(|(k, (v, _))| (k.clone(), v.clone()))
        .collect()
}

fn check(db: &Db, model: &Model, now: u64, rng: &mut Rng, what: &str) {
    let want = visible(model, now);
    let got: Vec<_> = db.iter().map(Result::unwrap).collect();
    assert_eq!(got.len(), want.len(), "{what}: scan length");
    assert!(got == want, "{what}: scan differs");
    let mut back: Vec<_> = db.iter().rev().map(Result::unwrap).collect();
    back.reverse();
    assert!(back == want, "{what}: backward scan differs");
    let keys: Vec<Vec<u8>> = db.keys::<&[u8], _>(..).map(Result::unwrap).collect();
    assert!(
        keys.iter().eq(want.iter().map(|(k, _)| k)),
        "{what}: key-only scan differs"
    );
    let asked: Vec<Vec<u8>> = (0..8).map(|_| key(rng)).collect();
    let refs: Vec<&[u8]> = asked.iter().map(Vec::as_slice).collect();
    let many = db.multi_get(&refs).unwrap();
    for (k, got) in asked.iter().zip(many) {
        let entry = model.get(k).filter(|(_, at)| at.is_none_or(|at| at > now));
        assert_eq!(
            got.as_ref(),
            entry.map(|(v, _)| v),
            "{what}: multi_get {k:?}"
        );
        assert_eq!(
            db.get(k).unwrap().as_ref(),
            entry.map(|(v, _)| v),
            "{what}: get"
        );
        let expected = match entry {
            None => KeyExpiry::Missing,
            Some((_, None)) => KeyExpiry::Never,
            Some((_, Some(at))) => KeyExpiry::At(*at),
        };
        assert_eq!(db.expiry(k).unwrap(), expected, "{what}: expiry of {k:?}");
    }
}

fn run(seed: u64, steps: u64, dir: &Path) {
    let mut rng = Rng::new(seed);
    let clock = ManualClock::new(T0);
    let mut db = Db::open(dir, opts(seed, &clock)).unwrap();
    let mut model = Model::new();
    for step in 0..steps {
        let now = clock.now_millis();
        let what = format!("seed {seed} step {step}");
        match rng.below(100) {
            0..=29 => {
                let (k, v) = (key(&mut rng), value(&mut rng, step));
                db.put(&k, &v).unwrap();
                model.insert(k, (v, None));
            }
            30..=59 => {
                let (k, v) = (key(&mut rng), value(&mut rng, step));
                let at = expiry(&mut rng, now);
                db.put_with_expiry(&k, &v, at).unwrap();
                model.insert(k, (v, Some(at)));
            }
            60..=67 => {
                let k = key(&mut rng);
                db.delete(&k).unwrap();
                model.remove(&k);
            }
            68..=74 => {
                let mut b = WriteBatch::new();
                for _ in 0..1 + rng.below(10) {
                    let (k, v) = (key(&mut rng), value(&mut rng, step));
                    match rng.below(3) {
                        0 => {
                            b.delete(&k);
                            model.remove(&k);
                        }
                        1 => {
                            b.put(&k, &v);
                            model.insert(k, (v, None));
                        }
                        _ => {
                            let at = expiry(&mut rng, now);
                            b.put_with_expiry(&k, &v, at);
                            model.insert(k, (v, Some(at)));
                        }
                    }
                }
                db.write(b, &WriteOptions::default()).unwrap();
            }
            75..=84 => clock.advance(rng.below(120)),
            85..=87 => db.flush().unwrap(),
            88..=89 => db.compact_range(None, None).unwrap(),
            90..=91 => {
                db.gc().unwrap();
            }
            92 => {
                db.gc_report().unwrap();
            }
            93..=94 => {
                db.close().unwrap();
                db = Db::open(dir, opts(seed, &clock)).unwrap();
            }
            _ => check(&db, &model, now, &mut rng, &what),
        }
    }
    check(&db, &model, clock.now_millis(), &mut rng, "the end");
    // Everything expired by now goes with a complete compaction, and the database checks.
    clock.advance(1_000);
    db.compact_range(None, None).unwrap();
    let end = clock.now_millis();
    check(&db, &model, end, &mut rng, "after the last compaction");
    drop(db);
    let opts = twain::check::CheckOptions {
        clock: std::sync::Arc::new(clock.clone()),
        ..Default::default()
    };
    let report = twain::check::check(dir, &opts).unwrap();
    assert!(report.is_ok(), "seed {seed}: {}", report.to_text());
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Four seeds by default (every GC mode, both layouts); more with `TWAIN_MODEL_SEEDS` and
/// `TWAIN_MODEL_STEPS`.
#[test]
fn expiring_puts_agree_with_the_model() {
    let (seeds, steps) = (env("TWAIN_MODEL_SEEDS", 4), env("TWAIN_MODEL_STEPS", 600));
    for seed in 0..seeds {
        let dir = tempfile::tempdir().unwrap();
        run(seed, steps, dir.path());
    }
}
