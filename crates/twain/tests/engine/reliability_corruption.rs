//! Corruption sweep: bit flips, zeroed ranges and truncations, at the head, in the middle
//! and at the tail of every file kind (sealed value file, last value file, SSTable,
//! manifest, `CURRENT`, drop file, SVTable) of a database with flushed, compacted,
//! garbage-collected and replayed data. For each damaged copy:
//!
//! - opening it either fails with `Error::Corruption` naming the damaged file and an
//!   offset inside it, or succeeds;
//! - if it opens, a full scan and a point read of every key give the right data or a
//!   `Corruption` error naming the damaged file — never wrong data, never "not found" for
//!   a key that exists — except that damage at the tail of the last value file may be
//!   recovered as a torn tail: the database then holds a prefix of the writes;
//! - nothing panics;
//! - `twain::check` reports the damage (a problem, or a torn-tail note) whenever the
//!   engine noticed it, and is counted when it finds damage the engine did not read.
//!
//! Prints one line of figures; every outcome class that breaks the promise must be zero.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{CrashOptions, Fs, MemFs};
use twain::{Db, Error, Options, WriteBatch, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

const DIR: &str = "/db";

fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(16 << 10)
        .value_file_size(16 << 10)
        .inline_threshold(64)
        .log_buffer_size(0)
        .block_size(512)
        .l0_compaction_trigger(8)
        // GC runs once, on demand, while the database is built (an SVTable to damage).
        .gc_enabled(false)
        .gc_threshold(0.95)
}

fn value(i: u32, round: u32) -> Vec<u8> {
    let len = if i.is_multiple_of(3) {
        20
    } else {
        150 + (i * 13 % 200) as usize
    };
    let mut v = format!("{i}/{round}/").into_bytes();
    v.resize(len, b'a' + (i + round) as u8 % 26);
    v
}

/// Builds the database; returns it (closed) and the models after each of the last,
/// unflushed writes (`models[0]`: before them).
fn build() -> (MemFs, Vec<Model>) {
    let fs = MemFs::new();
    let db = Db::open(DIR, options(&fs)).unwrap();
    let mut model = Model::new();
    for round in 0..3u32 {
        for i in 0..120u32 {
            let k = format!("key{i:04}").into_bytes();
            if (i + round) % 7 == 0 {
                db.delete(&k).unwrap();
                model.remove(&k);
            } else {
                db.put(&k, value(i, round)).unwrap();
                model.insert(k, value(i, round));
            }
        }
        db.flush().unwrap();
        if round == 1 {
            db.compact_range(None, None).unwrap();
        }
    }
    db.compact_range(None, None).unwrap();
    assert!(db.gc().unwrap() > 0, "no value file collected");
    // GC may have collected every sealed log: fill more than one value file, so that a
    // sealed log with records is left to damage.
    for i in 0..80u32 {
        let k = format!("more{i:04}").into_bytes();
        db.put(&k, value(i + 1, 7)).unwrap();
        model.insert(k, value(i + 1, 7));
    }
    // Overwrites after GC, compacted: drop records against the SVTable and the logs.
    for i in (0..120u32).step_by(5) {
        let k = format!("key{i:04}").into_bytes();
        db.put(&k, value(i, 5)).unwrap();
        model.insert(k, value(i, 5));
    }
    db.compact_range(None, None).unwrap();
    let mut models = vec![model.clone()];
    for i in 0..30u32 {
        let k = format!("key{:04}", i * 4).into_bytes();
        let mut b = WriteBatch::new();
        b.put(&k, value(i, 9));
        model.insert(k, value(i, 9));
        db.write(b, &WriteOptions::synced()).unwrap();
        models.push(model.clone());
    }
    db.close().unwrap();
    (fs, models)
}

#[derive(Debug, Clone, Copy)]
enum Damage {
    Flip(u64),
    Zero(u64, u64),
    Truncate(u64),
}

fn damages(len: u64) -> Vec<(String, Damage)> {
    let mut v = vec![
        ("flip at the head".to_string(), Damage::Flip(2.min(len - 1))),
        ("flip in the middle".to_string(), Damage::Flip(len / 2)),
        (
            "flip at the tail".to_string(),
            Damage::Flip(len - 3.min(len)),
        ),
        (
            "zeroes in the middle".to_string(),
            Damage::Zero(len / 2, 64.min(len - len / 2)),
        ),
        (
            "zeroes at the tail".to_string(),
            Damage::Zero(len.saturating_sub(64), 64.min(len)),
        ),
        (
            "truncated in the middle".to_string(),
            Damage::Truncate(len / 2),
        ),
        (
            "truncated at the tail".to_string(),
            Damage::Truncate(len.saturating_sub(5)),
        ),
    ];
    for q in (1..16).filter(|q| q % 8 != 0) {
        v.push((format!("flip at {q}/16"), Damage::Flip(len * q / 16)));
        v.push((
            format!("zeroes at {q}/16"),
            Damage::Zero(len * q / 16, 8.min(len - len * q / 16)),
        ));
    }
    v
}

fn apply(fs: &MemFs, path: &Path, d: Damage) {
    match d {
        Damage::Flip(at) => fs.corrupt(path, at, 0x10).unwrap(),
        Damage::Zero(at, n) => {
            let bytes = fs.read_file(path).unwrap();
            for i in at..at + n {
                let b = bytes[i as usize];
                if b != 0 {
                    fs.corrupt(path, i, b).unwrap();
                }
            }
        }
        Damage::Truncate(len) => fs.truncate(path, len).unwrap(),
    }
}

#[derive(Debug, Default)]
struct Tally {
    cases: usize,
    detected_on_open: usize,
    detected_on_read: usize,
    torn_tail_recovered: usize,
    harmless: usize,
    wrong_data: usize,
    other_errors: usize,
    wrong_file_named: usize,
    panics: usize,
    check_missed: usize,
    check_found_unread_damage: usize,
    failures: Vec<String>,
}

/// Classifies an engine error: `Ok` if it is a corruption naming `damaged`.
fn corruption_of(e: &Error, damaged: &Path, t: &mut Tally, ctx: &str) -> bool {
    match e {
        Error::Corruption { file, .. } if file == damaged => true,
        Error::Corruption { file, .. } => {
            t.wrong_file_named += 1;
            t.failures.push(format!(
                "{ctx}: corruption reported in {} instead: {e}",
                file.display()
            ));
            false
        }
        other => {
            t.other_errors += 1;
            t.failures
                .push(format!("{ctx}: not a Corruption error: {other}"));
            false
        }
    }
}

/// Opens the damaged copy and reads everything; returns whether the engine noticed.
fn exercise(
    fs: &MemFs,
    damaged: &Path,
    is_last_log: bool,
    models: &[Model],
    t: &mut Tally,
    ctx: &str,
) -> bool {
    let db = match Db::open(DIR, options(fs)) {
        Ok(db) => db,
        Err(e) => {
            corruption_of(&e, damaged, t, ctx);
            t.detected_on_open += 1;
            return true;
        }
    };
    let model = models.last().unwrap();
    let mut noticed = false;
    let torn = db.stats().unwrap().recovered_torn_bytes > 0;
    match db.iter().collect::<Result<Model, _>>() {
        Ok(state) if &state == model => {}
        Ok(state) if is_last_log && torn && models.contains(&state) => {
            t.torn_tail_recovered += 1;
            return true;
        }
        Ok(_) => {
            t.wrong_data += 1;
            t.failures
                .push(format!("{ctx}: a scan returned wrong data"));
        }
        Err(e) => {
            corruption_of(&e, damaged, t, ctx);
            noticed = true;
        }
    }
    for (k, v) in model {
        match db.get(k) {
            Ok(Some(got)) if &got == v => {}
            Ok(got) => {
                t.wrong_data += 1;
                t.failures.push(format!(
                    "{ctx}: get {} returned {:?}",
                    String::from_utf8_lossy(k),
                    got.map(|g| String::from_utf8_lossy(&g[..g.len().min(12)]).into_owned())
                ));
            }
            Err(e) => {
                corruption_of(&e, damaged, t, ctx);
                noticed = true;
            }
        }
    }
    if noticed {
        t.detected_on_read += 1;
    }
    noticed
}

fn files(fs: &MemFs) -> Vec<(&'static str, PathBuf)> {
    let names = fs.file_names(Path::new(DIR));
    // Files no version names any more (an epoch GC retired, tables compaction replaced)
    // wait for the next open to delete them: damage there is harmless by design, so the
    // sweep aims at live files.
    let orphans = check(
        Path::new(DIR),
        &CheckOptions {
            fs: Arc::new(fs.clone()),
            ..CheckOptions::default()
        },
    )
    .unwrap()
    .orphans;
    let with = |ext: &str| -> Vec<PathBuf> {
        names
            .iter()
            .map(|n| Path::new(DIR).join(n))
            .filter(|p| p.to_string_lossy().ends_with(ext) && !orphans.contains(p))
            .collect()
    };
    let logs = with(".vlog");
    assert!(
        logs.len() >= 2,
        "no sealed value log besides the last: {names:?}"
    );
    let tables = with(".sst");
    let mut out = vec![
        ("sealed value file", logs[0].clone()),
        ("last value file", logs.last().unwrap().clone()),
        ("first table", tables[0].clone()),
        ("last table", tables.last().unwrap().clone()),
        ("manifest", with(".manifest")[0].clone()),
        ("CURRENT", Path::new(DIR).join("CURRENT")),
    ];
    // The two drop files with the most drop records.
    let mut drops = with(".drop");
    drops.sort_by_key(|d| std::cmp::Reverse(fs.file_size(d).unwrap()));
    for d in drops.into_iter().take(2) {
        out.push(("drop file", d));
    }
    let svts = with(".svt");
    assert!(!svts.is_empty(), "no SVTable in {names:?}");
    out.push(("SVTable", svts[0].clone()));
    out
}

#[test]
fn damage_to_every_file_kind_is_reported_never_returned_as_data() {
    let (base, models) = build();
    let pristine = base.crash(&CrashOptions::drop_unsynced());
    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs: Arc::new(pristine.clone()),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(
        report.is_ok(),
        "the pristine database: {}",
        report.to_text()
    );
    let targets = files(&pristine);
    assert!(targets.len() >= 7, "{targets:?}");
    let last_log = targets[1].1.clone();
    let mut t = Tally::default();
    for (kind, path) in &targets {
        let len = pristine.file_size(path).unwrap();
        for (what, damage) in damages(len) {
            t.cases += 1;
            let fs = pristine.crash(&CrashOptions::drop_unsynced());
            apply(&fs, path, damage);
            let ctx = format!("{kind} {} {what} ({damage:?})", path.display());
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let mut local = Tally::default();
                let noticed = exercise(&fs, path, *path == last_log, &models, &mut local, &ctx);
                (noticed, local)
            }));
            let (noticed, local) = match outcome {
                Ok(r) => r,
                Err(_) => {
                    t.panics += 1;
                    t.failures.push(format!("{ctx}: panicked"));
                    continue;
                }
            };
            t.detected_on_open += local.detected_on_open;
            t.detected_on_read += local.detected_on_read;
            t.torn_tail_recovered += local.torn_tail_recovered;
            t.wrong_data += local.wrong_data;
            t.other_errors += local.other_errors;
            t.wrong_file_named += local.wrong_file_named;
            t.failures.extend(local.failures);
            // `twain check` on the damaged copy (as left before the open repaired it).
            let fresh = pristine.crash(&CrashOptions::drop_unsynced());
            apply(&fresh, path, damage);
            let r = check(
                Path::new(DIR),
                &CheckOptions {
                    fs: Arc::new(fresh),
                    ..CheckOptions::default()
                },
            )
            .unwrap();
            let flagged = r.problems.iter().chain(&r.notes).any(|f| &f.file == path);
            if noticed && !flagged {
                t.check_missed += 1;
                t.failures.push(format!(
                    "{ctx}: the engine noticed, twain check did not: {}",
                    r.to_text()
                ));
            }
            if !noticed {
                if flagged {
                    t.check_found_unread_damage += 1;
                } else {
                    t.harmless += 1;
                }
            }
        }
    }
    println!(
        "damaged copies {}, detected on open {}, detected on read {}, torn tails recovered {}, found only by twain check {}, wrong data {}, non-corruption errors {}, wrong file named {}, panics {}, missed by twain check {}, harmless {}",
        t.cases,
        t.detected_on_open,
        t.detected_on_read,
        t.torn_tail_recovered,
        t.check_found_unread_damage,
        t.wrong_data,
        t.other_errors,
        t.wrong_file_named,
        t.panics,
        t.check_missed,
        t.harmless
    );
    assert!(
        t.failures.is_empty(),
        "{} failures:\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
}
