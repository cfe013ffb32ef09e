//! The `FaultFs` observer sees every operation passed on to the inner file system, before
//! and after it runs, in order and numbered; failed ones are not observed but are listed by
//! `injected_faults`. A crash image taken inside the observer shows the state at that
//! instant: this is what the exhaustive crash test builds on.

use std::path::Path;
use std::sync::{Arc, Mutex};
use twain::fs::{CrashOptions, FaultFs, FaultKind, FaultRule, Fs, MemFs, OpEvent, OpKind, OpPhase};

type Seen = Arc<Mutex<Vec<(OpKind, String, OpPhase, u64)>>>;

fn recording(fs: &FaultFs) -> Seen {
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    fs.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        let name = e.path.file_name().unwrap().to_string_lossy().into_owned();
        log.lock().unwrap().push((e.op, name, e.phase, e.number));
    })));
    seen
}

#[test]
fn observer_sees_each_operation_before_and_after_in_order() {
    let mem = MemFs::new();
    let fs = FaultFs::over_mem(&mem);
    fs.create_dir_all(Path::new("/d")).unwrap();
    let seen = recording(&fs);
    let mut f = fs.create(Path::new("/d/a")).unwrap();
    f.append(b"xy").unwrap();
    f.sync_data().unwrap();
    fs.rename(Path::new("/d/a"), Path::new("/d/b")).unwrap();
    fs.sync_dir(Path::new("/d")).unwrap();
    let ops: Vec<(OpKind, String, OpPhase, u64)> = seen.lock().unwrap().clone();
    let expect = [
        (OpKind::Create, "a", 2),
        (OpKind::Append, "a", 3),
        (OpKind::Sync, "a", 4),
        (OpKind::Rename, "a", 5),
        (OpKind::SyncDir, "d", 6),
    ];
    assert_eq!(ops.len(), 2 * expect.len());
    for (pair, (op, name, number)) in ops.chunks(2).zip(expect) {
        assert_eq!(pair[0], (op, name.to_string(), OpPhase::Before, number));
        assert_eq!(
            pair[1],
            (op, name.to_string(), OpPhase::After { ok: true }, number)
        );
    }
}

#[test]
fn injected_failures_are_not_observed_but_listed() {
    let fs = FaultFs::over_mem(&MemFs::new());
    fs.create_dir_all(Path::new("/d")).unwrap();
    let seen = recording(&fs);
    fs.add_rule(FaultRule::on(OpKind::Sync).with_kind(FaultKind::NoSpace));
    let mut f = fs.create(Path::new("/d/a")).unwrap();
    assert!(f.sync_data().is_err());
    f.sync_data().unwrap();
    let kinds: Vec<OpKind> = seen.lock().unwrap().iter().map(|e| e.0).collect();
    assert_eq!(
        kinds,
        [OpKind::Create, OpKind::Create, OpKind::Sync, OpKind::Sync]
    );
    let faults = fs.injected_faults();
    assert_eq!(faults.len(), 1);
    assert_eq!(
        (faults[0].op, faults[0].kind, faults[0].number),
        (OpKind::Sync, FaultKind::NoSpace, 3)
    );
    assert_eq!(faults[0].path, Path::new("/d/a"));
}

#[test]
fn a_failed_inner_operation_is_observed_as_not_ok() {
    let fs = FaultFs::over_mem(&MemFs::new());
    let seen = recording(&fs);
    assert!(fs.remove_file(Path::new("/missing")).is_err());
    let ops = seen.lock().unwrap().clone();
    assert_eq!(ops[1].2, OpPhase::After { ok: false });
}

#[test]
fn a_crash_image_taken_before_a_sync_lacks_the_data_and_after_it_has_it() {
    let mem = MemFs::new();
    let fs = FaultFs::over_mem(&mem);
    fs.create_dir_all(Path::new("/d")).unwrap();
    let mut f = fs.create(Path::new("/d/a")).unwrap();
    fs.sync_dir(Path::new("/d")).unwrap();
    f.append(b"payload").unwrap();
    let images: Arc<Mutex<Vec<MemFs>>> = Arc::default();
    let (keep, probe) = (Arc::clone(&images), mem.clone());
    fs.set_observer(Some(Arc::new(move |e: &OpEvent<'_>| {
        if e.op == OpKind::Sync {
            keep.lock()
                .unwrap()
                .push(probe.crash(&CrashOptions::drop_unsynced()));
        }
    })));
    f.sync_data().unwrap();
    fs.set_observer(None);
    f.append(b"more").unwrap();
    f.sync_data().unwrap();
    let images = images.lock().unwrap();
    assert_eq!(images.len(), 2);
    assert_eq!(images[0].read_file(Path::new("/d/a")).unwrap(), b"");
    assert_eq!(images[1].read_file(Path::new("/d/a")).unwrap(), b"payload");
}
