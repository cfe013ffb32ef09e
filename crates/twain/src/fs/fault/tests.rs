//! Unit tests of the rule matching and counting of [`super::FaultFs`].

use super::*;

fn p(s: &str) -> &Path {
    Path::new(s)
}

fn shared() -> Shared {
    Shared {
        state: Mutex::new(State::default()),
        probe: None,
        appended: AtomicU64::new(0),
        space: Mutex::new(()),
    }
}

fn arm(shared: &Shared, rule: FaultRule) {
    lock(&shared.state).rules.push(Armed { rule, seen: 0 });
}

#[test]
fn op_kinds_index_the_counter_array() {
    assert_eq!(OpKind::Link as usize, OP_KINDS - 1);
}

#[test]
fn rule_matches_op_and_any_path_of_the_call() {
    let rule = FaultRule::on(OpKind::Rename).with_path("MANIFEST");
    assert!(rule.matches(OpKind::Rename, &[p("/d/tmp"), p("/d/MANIFEST-1")]));
    assert!(!rule.matches(OpKind::Rename, &[p("/d/tmp"), p("/d/x")]));
    assert!(!rule.matches(OpKind::Remove, &[p("/d/MANIFEST-1")]));
    assert!(FaultRule::any_op().matches(OpKind::Lock, &[p("/x")]));
}

#[test]
fn nth_zero_fires_like_nth_one() {
    let s = shared();
    arm(&s, FaultRule::on(OpKind::Sync).with_nth(0));
    assert_eq!(
        s.check(OpKind::Sync, &[p("/f")]).err(),
        Some(FaultKind::Eio)
    );
    assert!(s.check(OpKind::Sync, &[p("/f")]).is_ok());
}

#[test]
fn first_added_rule_picks_the_failure_and_both_are_spent() {
    let s = shared();
    arm(
        &s,
        FaultRule::on(OpKind::Append).with_kind(FaultKind::NoSpace),
    );
    arm(&s, FaultRule::any_op());
    assert_eq!(
        s.check(OpKind::Append, &[p("/f")]).err(),
        Some(FaultKind::NoSpace)
    );
    assert!(lock(&s.state).rules.is_empty());
    assert!(s.check(OpKind::Append, &[p("/f")]).is_ok());
}

#[test]
fn every_matching_rule_counts_an_op_another_rule_fails() {
    let s = shared();
    arm(&s, FaultRule::on(OpKind::Read).forever());
    arm(
        &s,
        FaultRule::on(OpKind::Read)
            .with_nth(2)
            .with_kind(FaultKind::NoSpace),
    );
    assert_eq!(
        s.check(OpKind::Read, &[p("/f")]).err(),
        Some(FaultKind::Eio)
    );
    assert_eq!(
        s.check(OpKind::Read, &[p("/f")]).err(),
        Some(FaultKind::Eio)
    );
    // The second rule fired (and was spent) on the second read.
    assert_eq!(lock(&s.state).rules.len(), 1);
}

#[test]
fn injected_errors_are_recognized_and_real_ones_are_not() {
    let e = injected(FaultKind::NoSpace, OpKind::Append, &[p("/d/f")]);
    assert_eq!(e.kind(), io::ErrorKind::StorageFull);
    assert!(FaultFs::is_injected(&e));
    assert_eq!(e.to_string(), "injected NoSpace fault in Append of /d/f");
    assert!(!FaultFs::is_injected(&io::Error::other("disk on fire")));
}

#[test]
fn faultfs_is_send_sync_and_debug() {
    fn assert_traits<T: Send + Sync + fmt::Debug + Clone>() {}
    assert_traits::<FaultFs>();
    let fs = FaultFs::over_mem(&MemFs::new());
    fs.set_space_limit(Some(10));
    let shown = format!("{fs:?}");
    assert!(shown.contains("space_limit: Some(10)"), "{shown}");
}
