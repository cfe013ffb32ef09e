//! `FaultFs` treats `punch_hole` like the other writes: it counts it as `OpKind::Punch`,
//! an injected EIO fails it without punching, read-only mode refuses it, and the observer
//! sees it before and after, so a crash test can take an image at a punch.

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use twain::fs::{FaultFs, FaultKind, FaultRule, Fs, MemFs, OpKind, OpPhase};

fn setup() -> (MemFs, FaultFs) {
    let mem = MemFs::new();
    mem.create_dir_all(Path::new("/d")).unwrap();
    mem.write_file(Path::new("/d/1.vlog"), &[5u8; 3 * 4096])
        .unwrap();
    let fault = FaultFs::over_mem(&mem);
    (mem, fault)
}

#[test]
fn injected_eio_fails_the_punch_and_changes_nothing() {
    let (mem, fs) = setup();
    let path = Path::new("/d/1.vlog");
    fs.add_rule(FaultRule::on(OpKind::Punch).with_path("vlog"));
    let err = fs.punch_hole(path, 0, 4096).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::Other);
    assert!(FaultFs::is_injected(&err));
    assert_eq!(fs.injected_faults()[0].op, OpKind::Punch);
    assert_eq!(mem.read_file(path).unwrap(), vec![5u8; 3 * 4096]);
    assert_eq!(mem.allocated_bytes(path).unwrap(), 3 * 4096);
    // The rule is spent: the next punch goes through.
    fs.punch_hole(path, 0, 4096).unwrap();
    assert_eq!(mem.allocated_bytes(path).unwrap(), 2 * 4096);
    assert_eq!(fs.ops_of(OpKind::Punch), 2);
}

#[test]
fn read_only_mode_refuses_the_punch() {
    let (mem, fs) = setup();
    let path = Path::new("/d/1.vlog");
    assert!(OpKind::Punch.is_mutating());
    fs.set_read_only(true);
    let err = fs.punch_hole(path, 0, 4096).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::ReadOnlyFilesystem);
    assert_eq!(fs.injected_faults()[0].kind, FaultKind::ReadOnly);
    assert_eq!(mem.read_file(path).unwrap(), vec![5u8; 3 * 4096]);
    fs.set_read_only(false);
    fs.punch_hole(path, 0, 4096).unwrap();
}

#[test]
fn the_observer_sees_a_punch_as_a_crash_point() {
    let (mem, fs) = setup();
    let path = Path::new("/d/1.vlog");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (log, image_of) = (seen.clone(), mem.clone());
    fs.set_observer(Some(Arc::new(move |e| {
        if e.op == OpKind::Punch {
            let zeros = image_of.read_file(e.path).unwrap()[0] == 0;
            log.lock().unwrap().push((e.phase, zeros));
        }
    })));
    fs.punch_hole(path, 0, 4096).unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            (OpPhase::Before, false),
            (OpPhase::After { ok: true }, true)
        ]
    );
}
