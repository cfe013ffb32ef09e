//! Every numeric option has a documented range (issue 19, finding 9): values the probe
//! passed (`bloom_bits_per_key=4294967295` tried to allocate 598 GB, `compaction_threads=100000`
//! spawned ~1,500 threads, `memtable_max_log_bytes=0` gave 91 ops/s, `block_size=4G`,
//! `l1_target_size=0` and `level_size_ratio=2^64-1` were accepted) are rejected by
//! `Options::set` and `Options::validate` with an error naming the option, the value and the
//! range; every bound is accepted and every bound +-1 rejected; the README's "Limits" table and
//! each field's doc comment show the same ranges as the code.

use std::sync::Arc;
use twain::fs::{Fs, MemFs};
use twain::{
    Db, Error, GC_THRESHOLD_RANGE, OPTION_RANGES, OptionRange, Options, SPACE_AMP_TARGET_RANGE,
};

/// `set(name, value)` fails with an `InvalidArgument` that names the option, the value and
/// the range, and leaves the options unchanged.
fn assert_set_rejected(name: &str, value: &str, shown_value: &str) {
    let mut o = Options::default();
    let before = format!("{o:?}");
    let err = o.set(name, value).unwrap_err();
    let Error::InvalidArgument(msg) = &err else {
        panic!("{name}={value}: {err:?}");
    };
    let range = OPTION_RANGES.iter().find(|r| r.name == name).unwrap();
    for part in [name, shown_value, &range.describe()] {
        assert!(msg.contains(part), "{name}={value}: {msg:?} lacks {part:?}");
    }
    assert_eq!(
        format!("{o:?}"),
        before,
        "{name}={value} changed the options"
    );
}

/// `validate` rejects `opts`, naming `name`, and `Db::open` fails before creating anything.
fn assert_open_rejected(name: &str, opts: Options) {
    let err = opts.validate().unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument(m) if m.contains(name)),
        "{name}: {err:?}"
    );
    let fs = MemFs::new();
    let err = Db::open("/db", opts.fs(Arc::new(fs.clone()) as Arc<dyn Fs>)).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{name}: {err:?}");
    assert!(
        !fs.exists(std::path::Path::new("/db")).unwrap(),
        "{name}: open created the directory"
    );
}

#[test]
fn bloom_bits_per_key_4294967295_is_rejected() {
    assert_set_rejected("bloom_bits_per_key", "4294967295", "4294967295");
    let opts = Options::default().bloom_bits_per_key(u32::MAX);
    assert_open_rejected("bloom_bits_per_key", opts);
}

#[test]
fn compaction_threads_100000_is_rejected() {
    assert_set_rejected("compaction_threads", "100000", "100000");
    let opts = Options::default().compaction_threads(100_000);
    assert_open_rejected("compaction_threads", opts);
}

#[test]
fn memtable_max_log_bytes_0_is_rejected() {
    assert_set_rejected("memtable_max_log_bytes", "0", "= 0");
    let opts = Options::default().memtable_max_log_bytes(0);
    assert_open_rejected("memtable_max_log_bytes", opts);
}

#[test]
fn block_size_4g_is_rejected() {
    assert_set_rejected("block_size", "4G", "4 GiB");
    let opts = Options::default().block_size(4 << 30);
    assert_open_rejected("block_size", opts);
}

#[test]
fn l1_target_size_0_is_rejected() {
    assert_set_rejected("l1_target_size", "0", "= 0");
    let opts = Options::default().l1_target_size(0);
    assert_open_rejected("l1_target_size", opts);
}

#[test]
fn level_size_ratio_2_pow_64_minus_1_is_rejected() {
    assert_set_rejected(
        "level_size_ratio",
        "18446744073709551615",
        "18446744073709551615",
    );
    let opts = Options::default().level_size_ratio(u64::MAX);
    assert_open_rejected("level_size_ratio", opts);
}

/// Options with `name` set to `v` through `set`, and the options it depends on moved along so
/// that only `name`'s own range decides (the L0 triggers must stay ordered).
fn with(name: &str, v: u64) -> twain::Result<Options> {
    let mut o = Options::default();
    o.set(name, &v.to_string())?;
    if name.starts_with("l0_") {
        for t in [
            "l0_compaction_trigger",
            "l0_slowdown_trigger",
            "l0_stop_trigger",
        ] {
            o.set(t, &v.to_string())?;
        }
    }
    o.validate()?;
    Ok(o)
}

fn outside(r: &OptionRange) -> Vec<u64> {
    let mut v = vec![r.max + 1];
    if r.min > 0 {
        v.push(r.min - 1);
    }
    if !r.zero_off && r.min > 0 {
        v.push(0);
    }
    v
}

#[test]
fn every_bound_is_accepted_and_every_bound_plus_minus_one_rejected() {
    assert!(OPTION_RANGES.len() >= 18, "an option lost its range");
    for r in OPTION_RANGES {
        let mut inside = vec![r.min, r.max];
        if r.zero_off {
            inside.push(0);
        }
        for v in inside {
            if let Err(e) = with(r.name, v) {
                panic!("{} = {v} rejected: {e}", r.name);
            }
        }
        for v in outside(r) {
            let err = with(r.name, v).unwrap_err();
            assert!(
                matches!(&err, Error::InvalidArgument(m) if m.contains(r.name)),
                "{} = {v}: {err:?}",
                r.name
            );
        }
    }
}

#[test]
fn gc_threshold_must_be_in_0_exclusive_to_1() {
    for ok in [f64::MIN_POSITIVE, 0.5, 1.0] {
        let o = Options::default().gc_threshold(ok);
        o.validate().unwrap();
        Options::default()
            .set("gc_threshold", &ok.to_string())
            .unwrap();
    }
    for bad in [0.0, -0.1, 1.0 + f64::EPSILON, f64::NAN, f64::INFINITY] {
        let o = Options::default().gc_threshold(bad);
        let err = o.validate().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains(GC_THRESHOLD_RANGE)),
            "{bad}: {err:?}"
        );
        let err = Options::default()
            .set("gc_threshold", &bad.to_string())
            .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("gc_threshold")),
            "{bad}: {err:?}"
        );
    }
}

#[test]
fn l0_triggers_must_be_ordered() {
    for (c, s, t) in [(5, 4, 36), (4, 20, 19), (10, 10, 9)] {
        let o = Options::default()
            .l0_compaction_trigger(c)
            .l0_slowdown_trigger(s)
            .l0_stop_trigger(t);
        let err = o.validate().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("compaction <= slowdown <= stop")),
            "{c} {s} {t}: {err:?}"
        );
    }
}

#[test]
fn block_size_cannot_exceed_target_file_size() {
    let o = Options::default()
        .block_size(16 << 10)
        .target_file_size(8 << 10);
    let err = o.validate().unwrap_err();
    assert!(
        matches!(&err, Error::InvalidArgument(m) if m.contains("block_size") && m.contains("target_file_size")),
        "{err:?}"
    );
    o.block_size(8 << 10).validate().unwrap();
}

/// Not a rule: a threshold above the value file size keeps every value inline, which
/// tests and users rely on.
#[test]
fn inline_threshold_may_exceed_value_file_size() {
    Options::default()
        .inline_threshold(1 << 20)
        .value_file_size(64 << 10)
        .validate()
        .unwrap();
}

#[test]
fn readme_limits_table_shows_every_range() {
    let readme = include_str!("../../../../README.md");
    let row = |name: &str, range: &str| format!("| `{name}` | {range} |");
    for r in OPTION_RANGES {
        let want = row(r.name, &r.describe());
        assert!(readme.contains(&want), "README lacks the row {want:?}");
    }
    for (name, range) in [
        ("gc_threshold", GC_THRESHOLD_RANGE),
        ("space_amp_target", SPACE_AMP_TARGET_RANGE),
    ] {
        let want = row(name, range);
        assert!(readme.contains(&want), "README lacks the row {want:?}");
    }
}

#[test]
fn every_option_doc_states_its_range() {
    let src = include_str!("../../src/options.rs");
    let doc_of = |name: &str| {
        let field = src
            .find(&format!("    pub {name}: "))
            .unwrap_or_else(|| panic!("no field {name}"));
        let mut doc: Vec<&str> = src[..field]
            .lines()
            .rev()
            .take_while(|l| l.trim_start().starts_with("///"))
            .map(|l| l.trim_start().trim_start_matches("///"))
            .collect();
        doc.reverse();
        doc.concat()
    };
    for r in OPTION_RANGES {
        let want = format!("Range: {}", r.describe());
        assert!(
            doc_of(r.name).contains(&want),
            "{}: doc lacks {want:?}",
            r.name
        );
    }
    let want = format!("Range: {GC_THRESHOLD_RANGE}");
    assert!(doc_of("gc_threshold").contains(&want));
    let want = format!("Range: {SPACE_AMP_TARGET_RANGE}");
    assert!(doc_of("space_amp_target").contains(&want));
}

#[test]
fn space_amp_target_is_between_1_1_and_10() {
    for ok in [1.1, 1.3, 10.0] {
        let o = Options::default().space_amp_target(ok);
        o.validate().unwrap();
        let mut o = Options::default();
        o.set("space_amp_target", &ok.to_string()).unwrap();
        assert_eq!(o.space_amp_target, ok);
    }
    for bad in [1.0, 1.09, 10.5, 0.0, -1.0, f64::NAN, f64::INFINITY] {
        let o = Options::default().space_amp_target(bad);
        let err = o.validate().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains(SPACE_AMP_TARGET_RANGE)),
            "{bad}: {err:?}"
        );
        let err = Options::default()
            .set("space_amp_target", &bad.to_string())
            .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("space_amp_target")),
            "{bad}: {err:?}"
        );
    }
    let err = Options::default()
        .set("space_amp_target", "lots")
        .unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument(m) if m.contains("not a number")));
}
