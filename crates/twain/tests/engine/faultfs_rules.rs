//! `FaultFs` rules fail exactly the operations they select: the nth matching one, once or
//! from then on, filtered by operation kind and path; and every operation is counted.

use std::io;
use std::path::{Path, PathBuf};
use twain::fs::{FaultFs, FaultKind, FaultRule, Fs, MemFs, OpKind, WritableFile};

fn setup() -> (FaultFs, PathBuf) {
    let fs = FaultFs::over_mem(&MemFs::new());
    let dir = PathBuf::from("/db");
    fs.create_dir_all(&dir).unwrap();
    (fs, dir)
}

/// Whether each of `n` syncs of `file` succeeded.
fn sync_outcomes(file: &mut dyn WritableFile, n: usize) -> Vec<bool> {
    (0..n).map(|_| file.sync_data().is_ok()).collect()
}

#[test]
fn nth_matching_op_fails_once() {
    let (fs, dir) = setup();
    let mut f = fs.create(&dir.join("f")).unwrap();
    fs.add_rule(FaultRule::on(OpKind::Sync).with_nth(3));
    assert_eq!(sync_outcomes(&mut *f, 5), [true, true, false, true, true]);
}

#[test]
fn persistent_rule_fails_the_nth_and_every_later_op() {
    let (fs, dir) = setup();
    let mut f = fs.create(&dir.join("f")).unwrap();
    fs.add_rule(FaultRule::on(OpKind::Sync).with_nth(2).forever());
    assert_eq!(sync_outcomes(&mut *f, 4), [true, false, false, false]);
}

#[test]
fn nth_counts_from_when_the_rule_is_added() {
    let (fs, dir) = setup();
    let mut f = fs.create(&dir.join("f")).unwrap();
    assert_eq!(sync_outcomes(&mut *f, 3), [true, true, true]);
    fs.add_rule(FaultRule::on(OpKind::Sync).with_nth(2));
    assert_eq!(sync_outcomes(&mut *f, 3), [true, false, true]);
}

#[test]
fn op_filter_leaves_other_kinds_alone() {
    let (fs, dir) = setup();
    fs.add_rule(FaultRule::on(OpKind::Rename).forever());
    let mut f = fs.create(&dir.join("a")).unwrap();
    f.append(b"x").unwrap();
    f.sync_data().unwrap();
    fs.sync_dir(&dir).unwrap();
    assert!(fs.rename(&dir.join("a"), &dir.join("b")).is_err());
    assert!(fs.exists(&dir.join("a")).unwrap());
}

#[test]
fn path_filter_selects_files_by_substring() {
    let (fs, dir) = setup();
    fs.add_rule(
        FaultRule::on(OpKind::Create)
            .with_path("MANIFEST")
            .forever(),
    );
    assert!(fs.create(&dir.join("000001.sst")).is_ok());
    assert!(fs.create(&dir.join("MANIFEST-000002")).is_err());
    assert!(fs.create(&dir.join("MANIFEST-000003")).is_err());
}

#[test]
fn path_filter_on_handles_uses_the_path_they_were_opened_with() {
    let (fs, dir) = setup();
    let mut log = fs.create(&dir.join("000001.vlog")).unwrap();
    let mut table = fs.create(&dir.join("000002.sst")).unwrap();
    fs.add_rule(FaultRule::on(OpKind::Append).with_path(".vlog").forever());
    assert!(table.append(b"ok").is_ok());
    assert!(log.append(b"no").is_err());
    fs.rename(&dir.join("000001.vlog"), &dir.join("renamed"))
        .unwrap();
    assert!(log.append(b"still no").is_err());
}

#[test]
fn rename_matches_either_path() {
    let (fs, dir) = setup();
    fs.add_rule(FaultRule::on(OpKind::Rename).with_path("CURRENT").forever());
    fs.create(&dir.join("tmp")).unwrap();
    assert!(fs.rename(&dir.join("tmp"), &dir.join("CURRENT")).is_err());
    fs.create(&dir.join("CURRENT")).unwrap();
    assert!(fs.rename(&dir.join("CURRENT"), &dir.join("old")).is_err());
    assert!(fs.rename(&dir.join("tmp"), &dir.join("other")).is_ok());
}

#[test]
fn rule_without_op_matches_every_kind() {
    let (fs, dir) = setup();
    fs.add_rule(FaultRule::any_op().with_nth(2));
    assert!(fs.exists(&dir).is_ok());
    assert!(fs.list_dir(&dir).is_err());
    assert!(fs.sync_dir(&dir).is_ok());
}

#[test]
fn fault_kind_picks_the_error() {
    let (fs, dir) = setup();
    fs.add_rule(FaultRule::on(OpKind::Create).with_kind(FaultKind::NoSpace));
    fs.add_rule(FaultRule::on(OpKind::Create).with_nth(2));
    let full = fs.create(&dir.join("a")).err().unwrap();
    assert_eq!(full.kind(), io::ErrorKind::StorageFull);
    let eio = fs.create(&dir.join("b")).err().unwrap();
    assert_eq!(eio.kind(), io::ErrorKind::Other);
    assert!(FaultFs::is_injected(&full) && FaultFs::is_injected(&eio));
}

#[test]
fn real_errors_pass_through_unmarked() {
    let (fs, dir) = setup();
    let err = fs.open_read(&dir.join("missing")).err().unwrap();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    assert!(!FaultFs::is_injected(&err));
}

#[test]
fn clear_rules_stops_failures() {
    let (fs, dir) = setup();
    fs.add_rule(FaultRule::on(OpKind::SyncDir).forever());
    assert!(fs.sync_dir(&dir).is_err());
    fs.clear_rules();
    assert!(fs.sync_dir(&dir).is_ok());
}

#[test]
fn fail_syncs_from_now_fails_file_and_directory_syncs_only() {
    let (fs, dir) = setup();
    let mut f = fs.create(&dir.join("f")).unwrap();
    fs.fail_syncs_from_now();
    assert_eq!(sync_outcomes(&mut *f, 3), [false, false, false]);
    assert!(fs.sync_dir(&dir).is_err());
    assert!(fs.sync_dir(&dir).is_err());
    assert!(f.append(b"appends still work").is_ok());
    assert!(f.flush().is_ok());
}

#[test]
fn every_op_is_counted_by_kind_failed_ones_included() {
    let (fs, dir) = setup();
    let path = dir.join("f");
    let mut w = fs.create(&path).unwrap();
    w.append(b"abc").unwrap();
    w.flush().unwrap();
    fs.add_rule(FaultRule::on(OpKind::Sync));
    assert!(w.sync_data().is_err());
    w.sync_data().unwrap();
    let r = fs.open_read(&path).unwrap();
    r.read_vec(0, 3).unwrap();
    r.len().unwrap();
    fs.file_size(&path).unwrap();
    fs.exists(Path::new("/nowhere")).unwrap();
    assert!(fs.remove_file(&dir.join("missing")).is_err());

    assert_eq!(fs.ops_of(OpKind::CreateDir), 1);
    assert_eq!(fs.ops_of(OpKind::Create), 1);
    assert_eq!(fs.ops_of(OpKind::Append), 1);
    assert_eq!(fs.ops_of(OpKind::Flush), 1);
    assert_eq!(fs.ops_of(OpKind::Sync), 2);
    assert_eq!(fs.ops_of(OpKind::OpenRead), 1);
    assert_eq!(fs.ops_of(OpKind::Read), 1);
    assert_eq!(fs.ops_of(OpKind::FileSize), 2);
    assert_eq!(fs.ops_of(OpKind::Exists), 1);
    assert_eq!(fs.ops_of(OpKind::Remove), 1);
    assert_eq!(fs.ops_of(OpKind::Rename), 0);
    assert_eq!(fs.op_count(), 12);
}

#[test]
fn clones_share_rules_and_counters() {
    let (fs, dir) = setup();
    let clone = fs.clone();
    clone.add_rule(FaultRule::on(OpKind::SyncDir));
    assert!(fs.sync_dir(&dir).is_err());
    assert_eq!(clone.ops_of(OpKind::SyncDir), 1);
    assert_eq!(clone.op_count(), fs.op_count());
}
