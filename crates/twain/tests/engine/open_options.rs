//! Opening: `create_if_missing`, `error_if_exists`, the directory lock, reopening after
//! close, reopening with different options; `Options::validate` and `Options::set`.

use crate::dbutil;

use dbutil::{collect, key, small_opts};
use twain::{Db, Error, Options, parse_size};

#[test]
fn a_missing_database_is_not_found_without_create_if_missing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let opts = Options::default().create_if_missing(false);
    let err = Db::open(&missing, opts.clone()).unwrap_err();
    assert!(
        matches!(&err, Error::NotFound(p) if p == &missing),
        "{err:?}"
    );
    assert!(!missing.exists(), "a failed open created the directory");

    // An existing but empty directory holds no database either.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = Db::open(&empty, opts).unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");

    // With the default, the database is created and then found.
    drop(Db::open(&empty, Options::default()).unwrap());
    let db = Db::open(&empty, Options::default().create_if_missing(false)).unwrap();
    assert_eq!(db.path(), empty.as_path());
}

#[test]
fn error_if_exists_refuses_an_existing_database_and_leaves_it_intact() {
    let dir = tempfile::tempdir().unwrap();
    let strict = Options::default().error_if_exists(true);
    // A new database is fine.
    let db = Db::open(dir.path(), strict.clone()).unwrap();
    db.put("k", "v").unwrap();
    drop(db);
    let err = Db::open(dir.path(), strict).unwrap_err();
    assert!(matches!(err, Error::AlreadyExists(_)), "{err:?}");
    // The refused open released the lock and changed nothing.
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.get("k").unwrap().unwrap(), b"v");
}

#[test]
fn a_second_open_of_an_open_database_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), Options::default()).unwrap();
    db.put("k", "v1").unwrap();
    for _ in 0..2 {
        let err = Db::open(dir.path(), Options::default()).unwrap_err();
        assert!(
            matches!(&err, Error::Locked(p) if p == dir.path()),
            "{err:?}"
        );
    }
    // The first handle is undisturbed.
    db.put("k", "v2").unwrap();
    assert_eq!(db.get("k").unwrap().unwrap(), b"v2");
    // Dropping releases the lock.
    drop(db);
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.get("k").unwrap().unwrap(), b"v2");
    // So does close().
    db.put("k", "v3").unwrap();
    db.close().unwrap();
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.get("k").unwrap().unwrap(), b"v3");
}

#[test]
fn a_path_that_is_a_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, b"not a database").unwrap();
    let r = Db::open(&file, Options::default());
    assert!(r.is_err(), "opened a plain file as a database");
    assert_eq!(std::fs::read(&file).unwrap(), b"not a database");
}

#[test]
fn invalid_options_are_rejected_before_touching_the_disk() {
    let base = Options::default();
    let bad: Vec<(&str, Options)> = vec![
        ("value_file_size", base.clone().value_file_size(4095)),
        ("memtable_size", base.clone().memtable_size(1000)),
        (
            "max_immutable_memtables",
            base.clone().max_immutable_memtables(0),
        ),
        ("block_size", base.clone().block_size(255)),
        ("num_levels low", base.clone().num_levels(1)),
        ("num_levels high", base.clone().num_levels(17)),
        ("level_size_ratio", base.clone().level_size_ratio(1)),
        (
            "l0_compaction_trigger",
            base.clone().l0_compaction_trigger(0),
        ),
        (
            "slowdown below compaction",
            base.clone().l0_compaction_trigger(8).l0_slowdown_trigger(7),
        ),
        (
            "stop below slowdown",
            base.clone().l0_slowdown_trigger(20).l0_stop_trigger(19),
        ),
        ("compaction_threads", base.clone().compaction_threads(0)),
        ("target_file_size", base.clone().target_file_size(4095)),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (what, opts) in bad {
        let err = opts.validate().unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{what}: {err:?}");
        let path = dir.path().join(what.replace(' ', "_"));
        let err = Db::open(&path, opts).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{what}: {err:?}");
        assert!(!path.exists(), "{what}: open created the directory");
    }
    // The edges themselves are fine.
    let edge = base
        .clone()
        .value_file_size(4096)
        .memtable_size(4096)
        .max_immutable_memtables(1)
        .block_size(256)
        .num_levels(2)
        .level_size_ratio(2)
        .l0_compaction_trigger(3)
        .l0_slowdown_trigger(3)
        .l0_stop_trigger(3)
        .target_file_size(4096);
    edge.validate().unwrap();
    let db = Db::open(dir.path().join("edge"), edge).unwrap();
    for i in 0..3000 {
        db.put(key(i), vec![(i % 7) as u8; (i % 5 * 40) as usize])
            .unwrap();
    }
    db.compact_range(None, None).unwrap();
    assert_eq!(collect(db.iter()).len(), 3000);
}

#[test]
fn options_set_parses_sizes_numbers_and_flags() {
    let mut o = Options::default();
    o.set("memtable_size", "8M").unwrap();
    o.set("value_file_size", "64k").unwrap();
    o.set("block_cache_size", "1G").unwrap();
    o.set("inline_threshold", "512").unwrap();
    o.set("target_file_size", " 2M ").unwrap();
    o.set("num_levels", "5").unwrap();
    o.set("compaction_threads", "3").unwrap();
    o.set("bloom_bits_per_key", "0").unwrap();
    o.set("create_if_missing", "off").unwrap();
    o.set("error_if_exists", "yes").unwrap();
    assert_eq!(o.memtable_size, 8 << 20);
    assert_eq!(o.value_file_size, 64 << 10);
    assert_eq!(o.block_cache_size, 1 << 30);
    assert_eq!(o.inline_threshold, 512);
    assert_eq!(o.target_file_size, 2 << 20);
    assert_eq!(o.num_levels, 5);
    assert_eq!(o.compaction_threads, 3);
    assert_eq!(o.bloom_bits_per_key, 0);
    assert!(!o.create_if_missing);
    assert!(o.error_if_exists);
    o.validate().unwrap();
    for (v, want) in [("true", true), ("0", false), ("1", true), ("no", false)] {
        o.set("create_if_missing", v).unwrap();
        assert_eq!(o.create_if_missing, want, "{v}");
    }
}

#[test]
fn options_set_rejects_unknown_names_and_malformed_values_unchanged() {
    let mut o = Options::default();
    let before = format!("{o:?}");
    for (name, value) in [
        ("no_such_option", "1"),
        ("Memtable_size", "1M"),
        ("memtable_size", "lots"),
        ("memtable_size", "1.5M"),
        ("memtable_size", "-1"),
        ("memtable_size", ""),
        ("memtable_size", "M"),
        ("memtable_size", "1MB"),
        ("memtable_size", "99999999999999G"),
        ("num_levels", "7K"),
        ("num_levels", "many"),
        ("create_if_missing", "maybe"),
        ("error_if_exists", ""),
    ] {
        let err = o.set(name, value).unwrap_err();
        assert!(
            matches!(err, Error::InvalidArgument(_)),
            "{name}={value:?}: {err:?}"
        );
    }
    assert_eq!(
        format!("{o:?}"),
        before,
        "a rejected set changed the options"
    );
}

#[test]
fn parse_size_units_are_powers_of_1024() {
    assert_eq!(parse_size("0").unwrap(), 0);
    assert_eq!(parse_size("17").unwrap(), 17);
    assert_eq!(parse_size("1k").unwrap(), 1024);
    assert_eq!(parse_size("3K").unwrap(), 3 * 1024);
    assert_eq!(parse_size("5m").unwrap(), 5 << 20);
    assert_eq!(parse_size("2G").unwrap(), 2 << 30);
    assert_eq!(parse_size(" 9M ").unwrap(), 9 << 20);
    assert_eq!(parse_size("16383G").unwrap(), 16383u64 << 30);
    for bad in [
        "",
        " ",
        "K",
        "1T",
        "1 K",
        "0x10",
        "+-1",
        "18446744073709551616",
    ] {
        assert!(parse_size(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn reopening_with_different_sizes_keeps_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let first = small_opts();
    let db = Db::open(dir.path(), first.clone()).unwrap();
    let value = |i: u64| vec![(i % 256) as u8; (i % 4 * 60) as usize];
    for i in 0..2000 {
        db.put(key(i), value(i)).unwrap();
    }
    db.compact_range(Some(&key(0)), Some(&key(999))).unwrap();
    drop(db);
    // Inline threshold and file sizes change; values written under the old ones remain.
    let second = small_opts()
        .inline_threshold(4096)
        .value_file_size(1 << 20)
        .memtable_size(128 << 10)
        .block_size(1024)
        .bloom_bits_per_key(0);
    let db = Db::open(dir.path(), second.clone()).unwrap();
    for i in (0..2000).step_by(2) {
        db.put(key(i), value(i + 1)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    let check = |db: &Db| {
        let all = collect(db.iter());
        assert_eq!(all.len(), 2000);
        for (i, (k, v)) in all.into_iter().enumerate() {
            let i = i as u64;
            assert_eq!(k, key(i));
            assert_eq!(
                v,
                if i.is_multiple_of(2) {
                    value(i + 1)
                } else {
                    value(i)
                }
            );
        }
    };
    check(&db);
    drop(db);
    check(&Db::open(dir.path(), first).unwrap());
}

#[test]
fn reopening_with_fewer_levels_than_the_data_uses_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    // Static sizing: the data goes to L1, and from there to L2.
    let opts = small_opts()
        .l1_target_size(16 << 10)
        .level_sizing(twain::LevelSizing::Static);
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    for i in 0..3000 {
        db.put(key(i), vec![1u8; 40]).unwrap();
    }
    db.compact_range(None, None).unwrap();
    // The background moves the oversized L1 down to L2.
    assert!(dbutil::wait_until(dbutil::BACKGROUND_DEADLINE, || {
        db.stats().unwrap().levels[2].files > 0
    }));
    drop(db);
    let fewer = opts.clone().num_levels(2);
    assert!(Db::open(dir.path(), fewer).is_err());
    // The refused open did no harm.
    let db = Db::open(dir.path(), opts).unwrap();
    assert_eq!(collect(db.iter()).len(), 3000);
}

#[test]

fn options_set_rejects_numbers_that_do_not_fit_the_field() {
    let mut o = Options::default();
    let r = o.set("bloom_bits_per_key", "4294967306");
    assert!(
        r.is_err(),
        "accepted and stored bloom_bits_per_key = {}",
        o.bloom_bits_per_key
    );
}
