//! Crash test on the in-memory file system: a workload of puts, deletes and batches (some
//! synced) runs while flushes and compactions happen in the background; at random moments
//! a power-loss image of the file system is taken. Every image must open, and the database
//! it holds must equal the state after some prefix of the writes that includes every write
//! acknowledged as synced (no lost sync writes, no holes, nothing resurrected). Reads must
//! never fail: every handle resolves to a record whose key and checksum match.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{CrashOptions, Fs, MemFs};
use twain::{Db, Options, WriteBatch, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Options for a seed: odd seeds hand every group commit to the file system at once
/// (so crashes tear records), even seeds buffer 4 KiB of the log in memory; every third
/// seed uses value files large enough never to roll (a roll syncs the log).
fn options(fs: Arc<dyn Fs>, seed: u64) -> Options {
    Options::default()
        .fs(fs)
        .log_buffer_size(if seed % 2 == 1 { 0 } else { 4096 })
        .value_file_size(if seed.is_multiple_of(3) {
            4 << 20
        } else {
            96 << 10
        })
        .memtable_size(8 << 10)
        .inline_threshold(48)
        .l0_compaction_trigger(2)
        .l1_target_size(96 << 10)
        .target_file_size(64 << 10)
        .block_size(512)
        .gc_threshold(0.8)
        .gc_mode(if seed % 4 == 3 {
            twain::GcMode::LsmLookup
        } else {
            twain::GcMode::DropRecords
        })
}

/// A crash image with the range of write counts its state may reflect.
struct Image {
    fs: MemFs,
    durable_writes: usize,
    issued_writes: usize,
    mode: &'static str,
}

/// Runs the workload, returning the model after every write and the crash images.
fn run_workload(seed: u64, writes: usize) -> (Vec<Model>, Vec<Image>, (u64, u64)) {
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
    let mem = MemFs::new();
    let db = Db::open("/db", options(Arc::new(mem.clone()), seed)).unwrap();
    let mut models = vec![Model::new()];
    let mut images = Vec::new();
    let mut durable = 0;
    for i in 0..writes {
        let mut model = models[i].clone();
        let mut batch = WriteBatch::new();
        for _ in 0..1 + rng.below(3) {
            let key = format!("k{:03}", rng.below(120)).into_bytes();
            if rng.below(6) == 0 {
                batch.delete(&key);
                model.remove(&key);
            } else {
                let len = if rng.below(2) == 0 {
                    rng.below(40)
                } else {
                    60 + rng.below(900)
                };
                let value: Vec<u8> = (0..len)
                    .map(|j| (seed as u8) ^ (i as u8) ^ (j as u8))
                    .collect();
                batch.put(&key, &value);
                model.insert(key, value);
            }
        }
        // Seeds differ in how often they sync: long unsynced stretches let flushes
        // overtake the durable end of the log.
        let sync = rng.below([4, 40, 200][(seed as usize / 2) % 3]) == 0;
        db.write(batch, &WriteOptions::default().sync(sync))
            .unwrap();
        if rng.below(60) == 0 {
            db.gc().unwrap();
        }
        models.push(model);
        if sync {
            durable = i + 1;
        }
        if rng.below(9) == 0 {
            let (opts, mode) = match rng.below(3) {
                0 => (CrashOptions::drop_unsynced(), "drop-unsynced"),
                1 => (CrashOptions::torn(rng.next()), "torn"),
                _ => (CrashOptions::torn_with_garbage(rng.next()), "torn+garbage"),
            };
            images.push(Image {
                fs: mem.crash(&opts),
                durable_writes: durable,
                issued_writes: i + 1,
                mode,
            });
        }
    }
    let s = db.stats().unwrap();
    drop(db);
    (models, images, (s.flushes, s.gc_runs))
}

/// What one image showed: bytes of torn tail truncated, writes lost.
struct Observed {
    torn_bytes: u64,
    lost_writes: usize,
}

fn check_image(seed: u64, models: &[Model], image: &Image) -> Observed {
    let fs: Arc<dyn Fs> = Arc::new(image.fs.clone());
    let db = Db::open(Path::new("/db"), options(Arc::clone(&fs), seed)).unwrap_or_else(|e| {
        panic!(
            "seed {seed}: image after {} writes ({}) does not open: {e}",
            image.issued_writes, image.mode
        )
    });
    let state: Model = db
        .iter()
        .map(|r| {
            r.unwrap_or_else(|e| {
                panic!(
                    "seed {seed}: image after {} writes ({}): read after recovery failed: {e}",
                    image.issued_writes, image.mode
                )
            })
        })
        .collect();

    let torn_bytes = db.stats().unwrap().recovered_torn_bytes;
    let prefix = (image.durable_writes..=image.issued_writes)
        .rev()
        .find(|&p| models[p] == state)
        .unwrap_or_else(|| {
            panic!(
                "seed {seed}: image after {} writes ({}) matches no prefix in {}..={}",
                image.issued_writes, image.mode, image.durable_writes, image.issued_writes
            )
        });
    // Point reads agree with the scan.
    for (k, v) in models[prefix].iter().step_by(7) {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "seed {seed}");
    }
    // The recovered database keeps working and recovers again.
    db.put("after-crash", "yes").unwrap();
    db.flush().unwrap();
    drop(db);
    let db = Db::open(Path::new("/db"), options(fs, seed)).unwrap();
    let mut expected = models[prefix].clone();
    expected.insert(b"after-crash".to_vec(), b"yes".to_vec());
    let again: Model = db
        .iter()
        .map(|r| {
            r.unwrap_or_else(|e| {
                panic!(
                    "seed {seed}: after {} writes ({}): second recovery: {e}",
                    image.issued_writes, image.mode
                )
            })
        })
        .collect();
    assert_eq!(again, expected, "seed {seed}: second recovery differs");
    Observed {
        torn_bytes,
        lost_writes: image.issued_writes - prefix,
    }
}

#[test]
fn every_crash_image_is_a_prefix_holding_all_synced_writes() {
    let (mut checked, mut torn, mut lossy, mut flushes, mut gc_runs) = (0, 0, 0, 0, 0);
    for seed in 1..=12u64 {
        let (models, images, (f, g)) = run_workload(seed, 500);
        flushes += f;
        gc_runs += g;
        for image in &images {
            let seen = check_image(seed, &models, image);
            checked += 1;
            torn += usize::from(seen.torn_bytes > 0);
            lossy += usize::from(seen.lost_writes > 0);
        }
    }
    println!(
        "crash images {checked}, with a torn tail {torn}, losing unsynced writes {lossy}, flushes {flushes}, GC runs {gc_runs}"
    );
    assert!(
        gc_runs >= 10,
        "only {gc_runs} GC runs: the workload does not exercise GC"
    );
    assert!(
        flushes >= 40,
        "only {flushes} flushes: the workload does not exercise flush"
    );
    assert!(checked >= 200, "only {checked} crash images checked");
    // The images must exercise recovery, not only clean states.
    assert!(
        torn >= checked / 10,
        "only {torn} of {checked} images had a torn tail"
    );
    assert!(
        lossy >= checked / 4,
        "only {lossy} of {checked} images lost unsynced writes"
    );
}
