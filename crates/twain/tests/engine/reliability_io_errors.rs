//! I/O error sweep (SQLite style): a fixed workload (writes sync and not, reads, scans,
//! flushes, a manual compaction, value-file rolls, complete GCs with their garbage compactions
//! and log seals) runs once per (N, fault), where the
//! Nth file-system operation — any kind: write, read, fsync, create, rename, ... — fails
//! with EIO, a short write or ENOSPC, once or from then on. For every run:
//!
//! - a crash image taken right after the first failed call holds a prefix of the writes
//!   that includes every acknowledged sync write (no acknowledged write that did not
//!   reach the device);
//! - after a failed fsync, or a failed write to the value log or the manifest, every
//!   later write is refused (`Error::ReadOnly`) until the database is reopened;
//! - a read that meets a fault returns an error, never "not found" or wrong data (every
//!   successful read is checked against the model);
//! - after the faults stop, the reopened database (live, and from a crash image) holds
//!   such a prefix, passes `twain::check`, and takes new writes.
//!
//! `TWAIN_IO_SWEEP_STRIDE=K` tries every Kth N only (default 1: every operation).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{CrashOptions, FaultFs, FaultKind, FaultRule, Fs, MemFs, OpKind};
use twain::{Db, Error, Options, WriteBatch, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

const DIR: &str = "/db";

fn options(fs: Arc<dyn Fs>) -> Options {
    Options::default()
        .fs(fs)
        .memtable_size(1 << 20)
        .value_file_size(8192)
        // 20-byte values small, 300.. medium (transient files), 700.. large.
        .medium_threshold(24)
        .inline_threshold(700)
        .log_buffer_size(0)
        .l0_compaction_trigger(8)
        .block_size(256)
        .gc_enabled(false)
        .gc_threshold(0.9)
}

/// The same, with background compactions (every second flush triggers one).
fn options_with_background_compactions(fs: Arc<dyn Fs>) -> Options {
    options(fs).l0_compaction_trigger(2)
}

/// The same workload in the hash layout: flushes write a segment per group, value GC
/// merges groups (no medium class: values from 700 bytes are separated, at the flush).
fn options_in_the_hash_layout(fs: Arc<dyn Fs>) -> Options {
    options(fs)
        .medium_threshold(700)
        .value_layout(twain::ValueLayout::Hash)
        .hash_groups(3)
}

/// How a sweep opens its database.
type OptionsFor = fn(Arc<dyn Fs>) -> Options;

#[derive(Debug, Clone)]
enum Step {
    Write(Vec<(Vec<u8>, Option<Vec<u8>>)>, bool),
    Get(Vec<u8>),
    Scan,
    Flush,
    Compact,
    /// Value GC, run on demand (the background worker is off so that every fault lands
    /// in a call the test makes).
    Gc,
}

/// The fixed workload and the model after each write.
fn workload() -> (Vec<Step>, Vec<Model>) {
    let mut steps = Vec::new();
    let mut models = vec![Model::new()];
    let mut n = 0u32;
    for phase in 0..3u32 {
        for i in 0..14u32 {
            n += 1;
            let mut model = models.last().cloned().unwrap_or_default();
            let mut ops = Vec::new();
            for j in 0..1 + (i % 3) {
                let k = format!("k{:02}", (i * 7 + j * 3 + phase) % 20).into_bytes();
                if (i + j) % 5 == 4 {
                    model.remove(&k);
                    ops.push((k, None));
                } else {
                    let len = if (i + j) % 2 == 0 {
                        20
                    } else {
                        300 + 40 * i as usize
                    };
                    let v = vec![(n as u8).wrapping_mul(31).wrapping_add(j as u8); len];
                    model.insert(k.clone(), v.clone());
                    ops.push((k, Some(v)));
                }
            }
            models.push(model);
            steps.push(Step::Write(ops, i % 3 == 0));
            if i % 4 == 1 {
                steps.push(Step::Get(format!("k{:02}", i % 20).into_bytes()));
            }
        }
        steps.push(Step::Scan);
        steps.push(Step::Flush);
        steps.push(Step::Get(b"k03".to_vec()));
        if phase == 1 {
            steps.push(Step::Compact);
            steps.push(Step::Scan);
            steps.push(Step::Gc);
            steps.push(Step::Scan);
        }
        if phase == 2 {
            // No compaction first: the complete GC runs its own garbage compactions (the
            // new tables pin the old versions) and seals the active log if it holds garbage.
            steps.push(Step::Gc);
            steps.push(Step::Scan);
        }
    }
    (steps, models)
}

/// The figures of the sweep.
#[derive(Debug, Default, Clone)]
struct Tally {
    runs: usize,
    injected: usize,
    lost: usize,
    accepted_after_failure: usize,
    wrong_reads: usize,
    read_errors: usize,
    reopen_failures: usize,
    check_failures: usize,
    /// What the workload's GC steps did in the run without faults: the sweep reaches the
    /// code of garbage compactions, log seals and value GC only if they happen there.
    gc_runs: u64,
    garbage_compactions: u64,
    logs_sealed: u64,
    failures: Vec<String>,
}

impl Tally {
    fn fail(&mut self, what: String) {
        if std::env::var("TWAIN_IO_SWEEP_DEBUG").is_ok() {
            eprintln!("{what}");
        }
        self.failures.push(what);
    }
}

/// Writes started and sync writes acknowledged, at one instant.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    durable: usize,
    issued: usize,
}

/// Opens `fs` without faults and checks that it holds a prefix within `b`; returns the
/// problem, if any.
fn verify_image(
    fs: Arc<dyn Fs>,
    models: &[Model],
    b: Bounds,
    accept_writes: bool,
    options: OptionsFor,
) -> Result<(), String> {
    let db = Db::open(DIR, options(Arc::clone(&fs))).map_err(|e| format!("reopen failed: {e}"))?;
    let mut state: Model = db
        .iter()
        .collect::<Result<_, _>>()
        .map_err(|e| format!("scan after reopen failed: {e}"))?;
    // A late write that a database which should have refused it accepted is already
    // counted as such; leave it out of the prefix comparison.
    state.remove(&b"late"[..]);
    let issued = b.issued.min(models.len() - 1);
    if !(b.durable..=issued).any(|p| models[p] == state) {
        if std::env::var("TWAIN_IO_SWEEP_DEBUG").is_ok() {
            let m = &models[issued];
            for k in m.keys().chain(state.keys()) {
                if m.get(k) != state.get(k) {
                    eprintln!(
                        "  {}: expected {:?} found {:?}",
                        String::from_utf8_lossy(k),
                        m.get(k).map(|v| (v.len(), v[0])),
                        state.get(k).map(|v| (v.len(), v[0]))
                    );
                }
            }
        }
        let lost = (0..b.durable).any(|p| models[p] == state);
        return Err(format!(
            "{} (durable {}, issued {})",
            if lost {
                "LOST acknowledged sync writes"
            } else {
                "state is no prefix of the writes"
            },
            b.durable,
            b.issued
        ));
    }
    if accept_writes {
        db.put_opt("after", "reopen", &WriteOptions::synced())
            .map_err(|e| format!("the reopened database refuses writes: {e}"))?;
    }
    db.close()
        .map_err(|e| format!("close after reopen failed: {e}"))?;
    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs,
            ..CheckOptions::default()
        },
    )
    .map_err(|e| format!("check failed: {e}"))?;
    if !report.is_ok() {
        return Err(format!("twain check: {}", report.to_text()));
    }
    Ok(())
}

/// Whether a failure of this operation must make the database refuse later writes.
fn must_refuse_after(op: OpKind, path: &Path) -> bool {
    let name = path.to_string_lossy();
    match op {
        OpKind::Sync | OpKind::SyncDir => true,
        OpKind::Append => name.ends_with(".vlog") || name.ends_with(".manifest"),
        _ => false,
    }
}

/// One run of the workload with `rule`; adds its findings to `t`.
fn run(rule: FaultRule, options: OptionsFor, steps: &[Step], models: &[Model], t: &mut Tally) {
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    faults.add_rule(rule.clone());
    let fs: Arc<dyn Fs> = Arc::new(faults.clone());
    let label = format!(
        "fault {:?} on op {}{}",
        rule.kind,
        rule.nth,
        if rule.persistent { " and later" } else { "" }
    );
    t.runs += 1;
    let mut b = Bounds {
        durable: 0,
        issued: 0,
    };
    let mut first_failure: Option<(MemFs, Bounds)> = None;
    let mut acked = 0usize;
    let mut refuse_from_now = false;

    let mut fault_step = None;
    let db = Db::open(DIR, options(Arc::clone(&fs)));
    if db.is_err() {
        first_failure = Some((mem.crash(&CrashOptions::drop_unsynced()), b));
    }
    if let Ok(db) = &db {
        for (i, step) in steps.iter().enumerate() {
            let visible = &models[acked];
            let failed = match step {
                Step::Write(ops, sync) => {
                    let mut batch = WriteBatch::new();
                    for (k, v) in ops {
                        match v {
                            Some(v) => batch.put(k, v),
                            None => batch.delete(k),
                        };
                    }
                    b.issued = acked + 1;
                    match db.write(batch, &WriteOptions::default().sync(*sync)) {
                        Ok(()) => {
                            if refuse_from_now {
                                t.accepted_after_failure += 1;
                                let cause = faults
                                    .injected_faults()
                                    .first()
                                    .map(|f| format!("{:?} of {}", f.op, f.path.display()));
                                t.fail(format!("{label}: step {i}: a write was acknowledged after a failed {cause:?}"));
                            }
                            acked += 1;
                            if *sync {
                                b.durable = acked;
                            }
                            false
                        }
                        Err(Error::InvalidArgument(e)) => {
                            t.fail(format!("{label}: step {i}: write: invalid argument {e}"));
                            true
                        }
                        Err(_) => {
                            refuse_from_now = true;
                            true
                        }
                    }
                }
                Step::Get(k) => match db.get(k) {
                    Ok(v) if v.as_ref() == visible.get(k) => false,
                    Ok(v) => {
                        t.wrong_reads += 1;
                        t.fail(format!(
                            "{label}: step {i}: get {} returned {:?} bytes, expected {:?}",
                            String::from_utf8_lossy(k),
                            v.map(|v| v.len()),
                            visible.get(k).map(Vec::len)
                        ));
                        false
                    }
                    Err(_) => {
                        t.read_errors += 1;
                        true
                    }
                },
                Step::Scan => match db.iter().collect::<Result<Model, _>>() {
                    Ok(s) if &s == visible => false,
                    Ok(_) => {
                        t.wrong_reads += 1;
                        t.fail(format!("{label}: step {i}: scan returned wrong data"));
                        false
                    }
                    Err(_) => {
                        t.read_errors += 1;
                        true
                    }
                },
                Step::Flush => db.flush().is_err(),
                Step::Compact => db.compact_range(None, None).is_err(),
                Step::Gc => db.gc().is_err(),
            };
            if fault_step.is_none() && !faults.injected_faults().is_empty() {
                fault_step = Some(i);
            }
            if failed && first_failure.is_none() {
                first_failure = Some((mem.crash(&CrashOptions::drop_unsynced()), b));
            }
            if !refuse_from_now
                && faults
                    .injected_faults()
                    .iter()
                    .any(|f| must_refuse_after(f.op, &f.path))
            {
                refuse_from_now = true;
                // A background thread's failed operation has returned by now, but the
                // thread may not yet have recorded the failure: writes racing it cannot
                // be ordered after it. Wait until the database reports it.
                if !becomes_read_only(db) {
                    t.fail(format!(
                        "{label}: step {i}: a failed operation did not make the database read-only"
                    ));
                }
            }
        }
        // The database must still refuse writes, and `sync` too, if it had to.
        if refuse_from_now {
            match db.put("late", "write") {
                Err(Error::ReadOnly(_)) => {}
                other => {
                    t.accepted_after_failure += usize::from(other.is_ok());
                    t.fail(format!(
                        "{label}: a write after the failure gave {other:?}, expected ReadOnly"
                    ));
                }
            }
            if db.sync().is_ok() {
                t.accepted_after_failure += 1;
                t.fail(format!("{label}: sync succeeded after a failed fsync"));
            }
        }
    }
    // A successful `sync` makes every acknowledged write durable.
    let synced = match db {
        Ok(db) => {
            let synced = db.sync().is_ok();
            let _ = db.close();
            synced
        }
        Err(_) => false,
    };
    if synced {
        b.durable = acked;
    }
    let injected = faults.injected_faults();
    if !injected.is_empty() {
        t.injected += 1;
    }
    let label = match injected.first() {
        Some(f) => format!("{label} ({:?} of {})", f.op, f.path.display()),
        None => label,
    };
    faults.clear_rules();
    faults.set_space_limit(None);

    let check_one = |what: &str, image: MemFs, bounds: Bounds, writes: bool, t: &mut Tally| {
        if let Err(e) = verify_image(Arc::new(image), models, bounds, writes, options) {
            if e.starts_with("LOST") {
                t.lost += 1;
            } else if e.starts_with("twain check") {
                t.check_failures += 1;
            } else {
                t.reopen_failures += 1;
            }
            t.fail(format!("{label}: {what}: {e}"));
        }
    };
    if let Some((image, bounds)) = first_failure {
        check_one(
            "crash image right after the failure",
            image,
            bounds,
            false,
            t,
        );
    }
    check_one(
        "crash image after the run",
        mem.crash(&CrashOptions::drop_unsynced()),
        b,
        false,
        t,
    );
    check_one("live reopen after the run", mem, b, true, t);
}

fn sweep(kinds: &[(FaultKind, bool)], options: OptionsFor) -> Tally {
    let stride: u64 = std::env::var("TWAIN_IO_SWEEP_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    let (steps, models) = workload();
    // A run without faults counts the operations.
    let counter = FaultFs::over_mem(&MemFs::new());
    let mut t = Tally::default();
    {
        let db = Db::open(DIR, options(Arc::new(counter.clone()))).unwrap();
        let mut acked = 0;
        for s in &steps {
            match s {
                Step::Write(ops, sync) => {
                    let mut b = WriteBatch::new();
                    for (k, v) in ops {
                        match v {
                            Some(v) => b.put(k, v),
                            None => b.delete(k),
                        };
                    }
                    db.write(b, &WriteOptions::default().sync(*sync)).unwrap();
                    acked += 1;
                }
                Step::Get(k) => assert_eq!(db.get(k).unwrap().as_ref(), models[acked].get(k)),
                Step::Scan => assert_eq!(db.iter().count(), models[acked].len()),
                Step::Flush => db.flush().unwrap(),
                Step::Compact => db.compact_range(None, None).unwrap(),
                Step::Gc => {
                    db.gc().unwrap();
                }
            }
        }
        let done = db.stats().unwrap();
        (t.gc_runs, t.garbage_compactions, t.logs_sealed) = (
            done.gc_runs,
            done.garbage_compactions,
            done.logs_sealed_for_gc,
        );
        db.close().unwrap();
    }
    let total = counter.op_count() + 20;
    for &(kind, persistent) in kinds {
        for n in (1..=total).step_by(stride as usize) {
            let mut rule = FaultRule::any_op().with_nth(n).with_kind(kind);
            if persistent {
                rule = rule.forever();
            }
            run(rule, options, &steps, &models, &mut t);
        }
    }
    t
}

fn report(name: &str, t: &Tally) {
    println!(
        "{name}: runs {}, faults injected {}, acknowledged writes lost {}, writes accepted after a failed fsync {}, wrong reads {}, read errors surfaced {}, reopen failures {}, check failures {}",
        t.runs,
        t.injected,
        t.lost,
        t.accepted_after_failure,
        t.wrong_reads,
        t.read_errors,
        t.reopen_failures,
        t.check_failures
    );
    assert!(
        t.failures.is_empty(),
        "{} failures (first ones):\n{}",
        t.failures.len(),
        t.failures[..t.failures.len().min(20)].join("\n")
    );
}

/// The sweep reached value GC's code: the workload's GC steps ran value GC (and, in the
/// log layout, a garbage compaction and a seal of the active log) without faults, so the
/// faults landed in them too.
fn reached_gc(name: &str, t: &Tally, log_layout: bool) {
    println!(
        "{name}: the workload without faults ran {} value GCs, {} garbage compactions, {} log seals",
        t.gc_runs, t.garbage_compactions, t.logs_sealed
    );
    assert!(t.gc_runs > 0, "{name}: no value GC");
    if log_layout {
        assert!(t.garbage_compactions > 0, "{name}: no garbage compaction");
        assert!(t.logs_sealed > 0, "{name}: no seal of the active log");
    }
}

#[test]
fn every_operation_failing_once_keeps_the_promise() {
    let t = sweep(
        &[
            (FaultKind::Eio, false),
            (FaultKind::ShortWrite, false),
            (FaultKind::NoSpace, false),
        ],
        options,
    );
    report("I/O faults once", &t);
    reached_gc("I/O faults once", &t, true);
    assert!(
        t.injected > 100 && t.read_errors > 0,
        "the sweep did not reach"
    );
}

#[test]
fn every_operation_failing_from_then_on_keeps_the_promise() {
    let t = sweep(
        &[(FaultKind::Eio, true), (FaultKind::NoSpace, true)],
        options,
    );
    report("I/O faults persistent", &t);
    reached_gc("I/O faults persistent", &t, true);
    assert!(t.injected > 100, "the sweep did not reach");
}

#[test]
fn every_operation_failing_with_background_compactions_keeps_the_promise() {
    let t = sweep(
        &[(FaultKind::Eio, false), (FaultKind::Eio, true)],
        options_with_background_compactions,
    );
    report("I/O faults with background compactions", &t);
    reached_gc("I/O faults with background compactions", &t, true);
    assert!(t.injected > 100, "the sweep did not reach");
}

#[test]
fn every_operation_failing_in_the_hash_layout_keeps_the_promise() {
    let t = sweep(
        &[(FaultKind::Eio, false), (FaultKind::Eio, true)],
        options_in_the_hash_layout,
    );
    report("I/O faults in the hash layout", &t);
    reached_gc("I/O faults in the hash layout", &t, false);
    assert!(t.injected > 100, "the sweep did not reach");
}

/// Recovery itself under faults: a database left by a power loss (unflushed synced and
/// unsynced writes, a torn log tail, an orphan table of an interrupted flush) is opened
/// with its Nth operation failing, once or from then on; whatever that open does, a
/// later open without faults (live, and from a crash image) must hold every acknowledged
/// sync write and pass `twain check`.
#[test]
fn every_operation_of_recovery_failing_keeps_the_promise() {
    let (steps, models) = workload();
    // The crashed database: run the workload, take a torn power-loss image mid-way.
    let mem = MemFs::new();
    let faults = FaultFs::over_mem(&mem);
    let db = Db::open(DIR, options(Arc::new(faults.clone()))).unwrap();
    let mut acked = 0;
    let mut durable = 0;
    let mut image = None;
    for (i, s) in steps.iter().enumerate() {
        match s {
            Step::Write(ops, sync) => {
                let mut b = WriteBatch::new();
                for (k, v) in ops {
                    match v {
                        Some(v) => b.put(k, v),
                        None => b.delete(k),
                    };
                }
                db.write(b, &WriteOptions::default().sync(*sync)).unwrap();
                acked += 1;
                if *sync {
                    durable = acked;
                }
            }
            Step::Flush => db.flush().unwrap(),
            Step::Compact => db.compact_range(None, None).unwrap(),
            Step::Gc => {
                db.gc().unwrap();
            }
            _ => {}
        }
        if i == steps.len() * 3 / 4 {
            image = Some((mem.crash(&CrashOptions::torn(7)), durable, acked));
        }
    }
    drop(db);
    let (crashed, durable, issued) = image.unwrap();
    let bounds = Bounds { durable, issued };

    // How many operations a clean recovery takes.
    let counter = FaultFs::over_mem(&crashed.crash(&CrashOptions::drop_unsynced()));
    Db::open(DIR, options(Arc::new(counter.clone())))
        .unwrap()
        .close()
        .unwrap();
    let total = counter.op_count() + 5;

    let mut t = Tally::default();
    for (kind, persistent) in [
        (FaultKind::Eio, false),
        (FaultKind::ShortWrite, false),
        (FaultKind::NoSpace, false),
        (FaultKind::Eio, true),
    ] {
        for n in 1..=total {
            t.runs += 1;
            let disk = crashed.crash(&CrashOptions::drop_unsynced());
            let faulty = FaultFs::over_mem(&disk);
            let mut rule = FaultRule::any_op().with_nth(n).with_kind(kind);
            if persistent {
                rule = rule.forever();
            }
            faulty.add_rule(rule);
            let label = format!(
                "recovery with {kind:?} on op {n}{}",
                if persistent { " and later" } else { "" }
            );
            if let Ok(db) = Db::open(DIR, options(Arc::new(faulty.clone()))) {
                // Whatever it recovered must read back consistently, or fail.
                match db.iter().collect::<Result<Model, _>>() {
                    Ok(state) => {
                        if !(durable..=issued).any(|p| models[p] == state) {
                            t.wrong_reads += 1;
                            t.fail(format!(
                                "{label}: the recovered state is no prefix holding every sync write"
                            ));
                        }
                    }
                    Err(_) => t.read_errors += 1,
                }
                drop(db);
            }
            if !faulty.injected_faults().is_empty() {
                t.injected += 1;
            }
            faulty.clear_rules();
            for (what, image, writes) in [
                (
                    "power loss after the failed recovery",
                    disk.crash(&CrashOptions::drop_unsynced()),
                    false,
                ),
                ("second recovery", disk, true),
            ] {
                if let Err(e) = verify_image(Arc::new(image), &models, bounds, writes, options) {
                    if e.starts_with("LOST") {
                        t.lost += 1;
                    } else {
                        t.reopen_failures += 1;
                    }
                    t.fail(format!("{label}: {what}: {e}"));
                }
            }
        }
    }
    report("I/O faults in recovery", &t);
    assert!(t.injected > 50, "the sweep did not reach");
}

/// Whether `db` reports its read-only error state within a minute (a safety net: it
/// takes milliseconds, but a loaded machine may not schedule the thread sooner).
fn becomes_read_only(db: &Db) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if matches!(db.health(), Err(Error::ReadOnly(_))) {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
