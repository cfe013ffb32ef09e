//! Model test: random sequences of writes, range deletions, reads, scans, snapshots,
//! flushes, compactions and reopens, checked step by step against a `BTreeMap`.
//!
//! Small memtables, value files and level targets make every background path run: flushes,
//! value file rolls, compactions with drop records, recovery from the value log.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{Db, Options, WriteBatch, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

#[derive(Debug, Clone)]
enum Op {
    Put(u8, usize, u8),
    Delete(u8),
    /// `delete_range(key(a), key(b))`; refused when `key(a) > key(b)`.
    DeleteRange(u8, u8),
    /// Puts (`Some`), deletes (`None`) and, at the end, a range deletion.
    Batch(Vec<(u8, Option<(usize, u8)>)>, Option<(u8, u8)>),
    Get(u8),
    Scan(u8, u8, bool),
    Prefix(u8, bool),
    TakeSnapshot,
    CheckSnapshot(usize, u8),
    DropSnapshot(usize),
    Flush,
    Compact,
    Gc,
    Reopen,
}

fn key(k: u8) -> Vec<u8> {
    format!("key{:02}", k % 60).into_bytes()
}

fn value(len: usize, fill: u8) -> Vec<u8> {
    (0..len).map(|i| fill.wrapping_add(i as u8)).collect()
}

fn value_len() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..40, 60usize..700]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        20 => (any::<u8>(), value_len(), any::<u8>()).prop_map(|(k, l, f)| Op::Put(k, l, f)),
        5 => any::<u8>().prop_map(Op::Delete),
        2 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Op::DeleteRange(a, b)),
        4 => (
            proptest::collection::vec(
                (any::<u8>(), proptest::option::of((value_len(), any::<u8>()))),
                1..8
            ),
            proptest::option::weighted(0.25, (any::<u8>(), any::<u8>()))
        )
            .prop_map(|(e, r)| Op::Batch(e, r)),
        8 => any::<u8>().prop_map(Op::Get),
        3 => (any::<u8>(), any::<u8>(), any::<bool>()).prop_map(|(a, b, r)| Op::Scan(a, b, r)),
        2 => (0u8..6, any::<bool>()).prop_map(|(p, r)| Op::Prefix(p, r)),
        2 => Just(Op::TakeSnapshot),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(i, k)| Op::CheckSnapshot(i, k)),
        1 => any::<usize>().prop_map(Op::DropSnapshot),
        2 => Just(Op::Flush),
        1 => Just(Op::Compact),
        1 => Just(Op::Gc),
        1 => Just(Op::Reopen),
    ]
}

fn options(fs: &Arc<dyn Fs>) -> Options {
    options_in(fs, twain::GcMode::DropRecords)
}

fn options_in(fs: &Arc<dyn Fs>, gc_mode: twain::GcMode) -> Options {
    Options::default()
        .gc_mode(gc_mode)
        .fs(Arc::clone(fs))
        .memtable_size(64 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .l1_target_size(64 << 10)
        .target_file_size(64 << 10)
        .block_size(512)
        // Value GC runs in the background and on demand (Op::Gc), in both modes.
        .gc_threshold(0.8)
}

fn scan_model(m: &Model, lo: Bound<Vec<u8>>, hi: Bound<Vec<u8>>) -> Vec<(Vec<u8>, Vec<u8>)> {
    if let (Bound::Included(a), Bound::Excluded(b)) = (&lo, &hi)
        && a >= b
    {
        return Vec::new();
    }
    m.range((lo, hi))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn collect(it: impl Iterator<Item = twain::Result<twain::KvPair>>) -> Vec<(Vec<u8>, Vec<u8>)> {
    it.map(|r| r.expect("iteration error")).collect()
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    run_with_stats(ops).map(|_| ())
}

/// Runs `ops` and returns the statistics of the last session before the final reopen,
/// summed with earlier sessions' flush and compaction counts.
fn run_with_stats(ops: Vec<Op>) -> Result<twain::Stats, TestCaseError> {
    run_in(ops, options)
}

/// Three placement classes, large values compressed with LZ4 by the writer, medium ones
/// with zstd by the flush into transient files (about half the values compress: see
/// [`value`]).
fn compressed_options(fs: &Arc<dyn Fs>) -> Options {
    options(fs)
        .medium_threshold(48)
        .inline_threshold(320)
        .value_compression(twain::Compression::Lz4)
        .medium_value_compression(twain::Compression::Zstd)
}

/// Levels sized from the biggest one up: L0 compacts into the base level, past the empty
/// levels above it (`LevelSizing::Dynamic`, the default, here with small targets), and
/// tables are picked round-robin, not by overlap (the default).
fn dynamic_level_options(fs: &Arc<dyn Fs>) -> Options {
    options(fs)
        .level_sizing(twain::LevelSizing::Dynamic)
        .compaction_priority(twain::CompactionPriority::RoundRobin)
        .l1_target_size(16 << 10)
        .level_size_ratio(4)
}

fn run_in(
    ops: Vec<Op>,
    options: fn(&Arc<dyn Fs>) -> Options,
) -> Result<twain::Stats, TestCaseError> {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    let dir = std::path::Path::new("/db");
    let mut db = Db::open(dir, options(&fs)).unwrap();
    let mut model = Model::new();
    let mut snaps: Vec<(twain::Snapshot, Model)> = Vec::new();
    let mut totals = (0u64, 0u64, 0u64, 0u64);
    for op in ops {
        match op {
            Op::Put(k, l, f) => {
                db.put(key(k), value(l, f)).unwrap();
                model.insert(key(k), value(l, f));
            }
            Op::Delete(k) => {
                db.delete(key(k)).unwrap();
                model.remove(&key(k));
            }
            Op::DeleteRange(a, b) => {
                let (a, b) = (key(a), key(b));
                let r = db.delete_range(&a, &b);
                if a > b {
                    prop_assert!(matches!(r, Err(twain::Error::InvalidArgument(_))));
                } else {
                    r.unwrap();
                    model.retain(|k, _| *k < a || *k >= b);
                }
            }
            Op::Batch(entries, range) => {
                let mut b = WriteBatch::new();
                for (k, v) in entries {
                    match v {
                        Some((l, f)) => {
                            b.put(key(k), value(l, f));
                            model.insert(key(k), value(l, f));
                        }
                        None => {
                            b.delete(key(k));
                            model.remove(&key(k));
                        }
                    }
                }
                if let Some((lo, hi)) = range {
                    let (lo, hi) = (key(lo), key(hi));
                    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
                    b.delete_range(&lo, &hi);
                    model.retain(|k, _| *k < lo || *k >= hi);
                }
                db.write(b, &WriteOptions::default()).unwrap();
            }
            Op::Get(k) => {
                prop_assert_eq!(db.get(key(k)).unwrap(), model.get(&key(k)).cloned());
            }
            Op::Scan(a, b, rev) => {
                let (a, b) = (key(a), key(b));
                let got = if rev {
                    let mut v = collect(db.range(a.clone()..b.clone()).rev());
                    v.reverse();
                    v
                } else {
                    collect(db.range(a.clone()..b.clone()))
                };
                prop_assert_eq!(
                    got,
                    scan_model(&model, Bound::Included(a), Bound::Excluded(b))
                );
            }
            Op::Prefix(p, rev) => {
                let prefix = format!("key{p}").into_bytes();
                let mut got = if rev {
                    collect(db.prefix(&prefix).rev())
                } else {
                    collect(db.prefix(&prefix))
                };
                if rev {
                    got.reverse();
                }
                let want: Vec<_> = model
                    .iter()
                    .filter(|(k, _)| k.starts_with(&prefix))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                prop_assert_eq!(got, want);
            }
            Op::TakeSnapshot => snaps.push((db.snapshot(), model.clone())),
            Op::CheckSnapshot(i, k) => {
                if !snaps.is_empty() {
                    let (s, m) = &snaps[i % snaps.len()];
                    prop_assert_eq!(s.get(key(k)).unwrap(), m.get(&key(k)).cloned());
                    prop_assert_eq!(
                        collect(s.iter()),
                        scan_model(m, Bound::Unbounded, Bound::Unbounded)
                    );
                }
            }
            Op::DropSnapshot(i) => {
                if !snaps.is_empty() {
                    snaps.remove(i % snaps.len());
                }
            }
            Op::Flush => db.flush().unwrap(),
            Op::Compact => db.compact_range(None, None).unwrap(),
            Op::Gc => {
                db.gc().unwrap();
            }
            Op::Reopen => {
                snaps.clear();
                let s = db.stats().unwrap();
                totals.0 += s.flushes;
                totals.1 += s.compactions;
                totals.2 += s.drop_records;
                totals.3 += s.gc_runs;
                drop(db);
                db = Db::open(dir, options(&fs)).unwrap();
            }
        }
    }
    // Everything, both directions, and once more after a reopen.
    let all = scan_model(&model, Bound::Unbounded, Bound::Unbounded);
    prop_assert_eq!(collect(db.iter()), all.clone());
    let mut rev = collect(db.iter().rev());
    rev.reverse();
    prop_assert_eq!(rev, all.clone());
    snaps.clear();
    let mut stats = db.stats().unwrap();
    stats.flushes += totals.0;
    stats.compactions += totals.1;
    stats.drop_records += totals.2;
    stats.gc_runs += totals.3;
    drop(db);
    let db = Db::open(dir, options(&fs)).unwrap();
    prop_assert_eq!(collect(db.iter()), all);
    Ok(stats)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn engine_matches_btreemap(ops in proptest::collection::vec(op(), 1..300)) {
        run(ops)?;
    }

    #[test]
    fn engine_with_compressed_values_matches_btreemap(
        ops in proptest::collection::vec(op(), 1..300)
    ) {
        run_in(ops, compressed_options)?;
    }

    #[test]
    fn engine_with_dynamic_levels_matches_btreemap(
        ops in proptest::collection::vec(op(), 1..300)
    ) {
        run_in(ops, dynamic_level_options)?;
    }
}

/// Enough writes to roll value files, flush many memtables and compact several levels.
#[test]
fn long_run_matches_btreemap() {
    long_run(options);
}

/// The same with values compressed in every class that separates them.
#[test]
fn long_run_with_compressed_values_matches_btreemap() {
    long_run(compressed_options);
}

/// The same with dynamic level sizing.
#[test]
fn long_run_with_dynamic_levels_matches_btreemap() {
    long_run(dynamic_level_options);
}

fn long_run(options: fn(&Arc<dyn Fs>) -> Options) {
    let mut ops = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..30000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let k = (x % 60) as u8;
        ops.push(match x % 23 {
            0 => Op::Delete(k),
            1 if i % 301 == 0 => Op::DeleteRange(k, k.wrapping_add((x >> 20) as u8 % 12)),
            1 if i % 500 == 0 => Op::Reopen,
            2 => Op::Get(k),
            3 if i % 97 == 0 => Op::TakeSnapshot,
            4 => Op::CheckSnapshot(i as usize, k),
            5 if i % 1000 == 0 => Op::Compact,
            6 if i % 700 == 0 => Op::Gc,
            _ => Op::Put(k, (x % 900) as usize, (x >> 8) as u8),
        });
    }
    let stats = run_in(ops, options).unwrap();
    // The run must have exercised the background paths it exists to check.
    assert!(stats.flushes >= 10, "flushes: {}", stats.flushes);
    assert!(stats.compactions >= 3, "compactions: {}", stats.compactions);
    assert!(stats.drop_records > 0, "no drop records");
    assert!(stats.value_files.len() >= 2, "no value file rolled");
    assert!(stats.gc_runs > 0, "value GC never ran");
}
