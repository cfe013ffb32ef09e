//! The documented limits hold at their edges: keys of exactly `MAX_KEY_SIZE` bytes work
//! everywhere and one byte more is `Error::InvalidArgument` (never a panic); values of
//! several MiB round-trip; empty keys, empty values and empty batches work; values at the
//! inline threshold land on either side of it and read back the same.

use crate::dbutil;

use dbutil::{collect, small_opts};
use twain::{Db, Error, MAX_KEY_SIZE, MAX_VALUE_SIZE, Options, WriteBatch, WriteOptions};

fn reopen(dir: &std::path::Path, opts: &Options) -> Db {
    Db::open(dir, opts.clone()).unwrap()
}

/// Runs `check` on the database in the memtable, after flush, after compaction and after
/// reopen.
fn everywhere(dir: &std::path::Path, opts: &Options, db: Db, check: impl Fn(&Db, &str)) {
    check(&db, "memtable");
    drop(db);
    let db = reopen(dir, opts);
    check(&db, "log replay");
    db.flush().unwrap();
    check(&db, "L0");
    db.compact_range(None, None).unwrap();
    check(&db, "compacted");
    drop(db);
    check(&reopen(dir, opts), "reopened after compaction");
}

#[test]
fn keys_of_exactly_the_maximum_size_work_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    let db = reopen(dir.path(), &opts);
    let k_inline = vec![b'a'; MAX_KEY_SIZE];
    let mut k_sep = vec![b'b'; MAX_KEY_SIZE];
    *k_sep.last_mut().unwrap() = 0xff;
    let k_del = vec![b'c'; MAX_KEY_SIZE];
    // Key + value is far above the inline threshold either way: both are separated,
    // the first with an empty value.
    db.put(&k_inline, b"").unwrap();
    db.put(&k_sep, vec![3u8; 5000]).unwrap();
    db.put(&k_del, "doomed").unwrap();
    db.delete(&k_del).unwrap();
    db.put("small", "s").unwrap();
    everywhere(dir.path(), &opts, db, |db, when| {
        assert_eq!(db.get(&k_inline).unwrap(), Some(vec![]), "{when}");
        assert_eq!(db.get(&k_sep).unwrap(), Some(vec![3u8; 5000]), "{when}");
        assert_eq!(db.get(&k_del).unwrap(), None, "{when}");
        let keys: Vec<Vec<u8>> = collect(db.iter()).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            vec![k_inline.clone(), k_sep.clone(), b"small".to_vec()],
            "{when}"
        );
        assert_eq!(collect(db.prefix(&k_sep[..100])).len(), 1, "{when}");
        assert_eq!(
            collect(db.range(k_sep.clone()..=k_sep.clone())).len(),
            1,
            "{when}"
        );
    });
}

#[test]
fn one_byte_over_the_key_limit_is_invalid_argument_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    let long = vec![b'k'; MAX_KEY_SIZE + 1];
    let invalid = |r: twain::Result<()>, what: &str| {
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{what}: {r:?}");
    };
    invalid(db.put(&long, "v"), "put");
    invalid(
        db.put_opt(&long, "v", &WriteOptions::synced()),
        "synced put",
    );
    invalid(db.delete(&long), "delete");
    invalid(
        db.delete_opt(&long, &WriteOptions::synced()),
        "synced delete",
    );
    let mut b = WriteBatch::new();
    b.put("fine", "v").put(&long, "");
    invalid(db.write(b, &WriteOptions::default()), "batch");
    // Reads of an over-long key just find nothing.
    assert_eq!(db.get(&long).unwrap(), None);
    assert_eq!(db.get("fine").unwrap(), None);
    assert_eq!(db.stats().unwrap().user_ops, 0);
}

#[test]
fn one_byte_over_the_value_limit_is_invalid_argument() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    let huge = vec![0u8; MAX_VALUE_SIZE + 1];
    let r = db.put("k", &huge);
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    assert_eq!(db.get("k").unwrap(), None);
}

#[test]
fn multi_mebibyte_values_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    let db = reopen(dir.path(), &opts);
    let values: Vec<(Vec<u8>, Vec<u8>)> = (0..3u8)
        .map(|i| {
            let len = (1 << 20) * (usize::from(i) + 1) + 12345;
            let v: Vec<u8> = (0..len).map(|j| (j as u8).wrapping_mul(31) ^ i).collect();
            (format!("large{i}").into_bytes(), v)
        })
        .collect();
    for (k, v) in &values {
        db.put(k, v).unwrap();
        // Neighbours, so that the large records share value files with small ones.
        db.put([k.as_slice(), b"-next"].concat(), "n").unwrap();
    }
    // Several value files, each far larger than value_file_size.
    assert!(db.stats().unwrap().value_files.len() >= 3);
    everywhere(dir.path(), &opts, db, |db, when| {
        for (k, v) in &values {
            assert!(db.get(k).unwrap().as_ref() == Some(v), "{when}: get");
        }
        let scanned: Vec<_> = collect(db.prefix("large"))
            .into_iter()
            .filter(|(k, _)| !k.ends_with(b"-next"))
            .collect();
        assert!(scanned == values, "{when}: scan");
    });
}

#[test]
fn empty_keys_and_empty_values_are_ordinary() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    let db = reopen(dir.path(), &opts);
    db.put(b"", b"").unwrap();
    db.put("e", b"").unwrap();
    // An empty value with a key long enough to be separated.
    let long_key = vec![b'l'; 100];
    db.put(&long_key, b"").unwrap();
    db.put("gone", b"").unwrap();
    db.delete("gone").unwrap();
    everywhere(dir.path(), &opts, db, |db, when| {
        assert_eq!(db.get(b"").unwrap(), Some(vec![]), "{when}: empty key");
        assert_eq!(db.get("e").unwrap(), Some(vec![]), "{when}: empty value");
        assert_eq!(
            db.get(&long_key).unwrap(),
            Some(vec![]),
            "{when}: separated"
        );
        assert_eq!(db.get("gone").unwrap(), None, "{when}: deleted empty value");
        let all = collect(db.iter());
        assert_eq!(all.len(), 3, "{when}");
        assert_eq!(
            all[0],
            (vec![], vec![]),
            "{when}: the empty key sorts first"
        );
        assert_eq!(collect(db.range(..=b"".to_vec())), vec![(vec![], vec![])]);
        assert_eq!(collect(db.range(b"".to_vec()..b"\x00".to_vec())).len(), 1);
    });
    // Deleting the empty key.
    let db = reopen(dir.path(), &opts);
    db.delete(b"").unwrap();
    assert_eq!(db.get(b"").unwrap(), None);
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get(b"").unwrap(), None);
    assert_eq!(collect(db.iter()).len(), 2);
}

#[test]
fn an_empty_batch_is_accepted_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    db.put("k", "v").unwrap();
    let before = db.stats().unwrap();
    db.write(WriteBatch::new(), &WriteOptions::default())
        .unwrap();
    db.write(WriteBatch::new(), &WriteOptions::synced())
        .unwrap();
    let after = db.stats().unwrap();
    assert_eq!(after.user_ops, before.user_ops);
    assert_eq!(after.log_bytes_written, before.log_bytes_written);
    assert_eq!(collect(db.iter()), vec![(b"k".to_vec(), b"v".to_vec())]);
    db.sync().unwrap();
}

#[test]
fn values_on_both_sides_of_the_inline_threshold_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts();
    let t = opts.inline_threshold;
    let db = reopen(dir.path(), &opts);
    let key = b"edge";
    let separated = |db: &Db| -> u64 {
        let s = db.stats().unwrap();
        s.value_files.iter().map(|f| f.separated_bytes).sum()
    };
    let mut want = Vec::new();
    for total in [t - 2, t - 1, t, t + 1] {
        let k = [&key[..], format!("{total:03}").as_bytes()].concat();
        let v = vec![b'v'; total - k.len()];
        let before = separated(&db);
        db.put(&k, &v).unwrap();
        let grew = separated(&db) > before;
        assert_eq!(
            grew,
            total >= t,
            "key + value of {total} bytes, threshold {t}"
        );
        want.push((k, v));
    }
    everywhere(dir.path(), &opts, db, |db, when| {
        assert_eq!(collect(db.prefix(key)), want, "{when}");
    });
}

#[test]
fn every_value_separated_when_the_threshold_is_zero() {
    let dir = tempfile::tempdir().unwrap();
    let opts = small_opts().inline_threshold(0);
    let db = reopen(dir.path(), &opts);
    db.put(b"", b"").unwrap();
    db.put("a", "1").unwrap();
    db.put("b", b"").unwrap();
    everywhere(dir.path(), &opts, db, |db, when| {
        assert_eq!(
            collect(db.iter()),
            vec![
                (vec![], vec![]),
                (b"a".to_vec(), b"1".to_vec()),
                (b"b".to_vec(), vec![])
            ],
            "{when}"
        );
    });
}
