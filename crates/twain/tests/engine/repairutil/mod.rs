//! Helpers shared by the repair tests: a database on `MemFs` with a BTreeMap model of what
//! was written, and the checks every repaired database must pass.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::fs::{Fs, MemFs};
use twain::{Db, Options, RepairReport};

/// The database directory.
pub const DIR: &str = "/db";

/// The model: each live key and its value.
pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Small memtables and value files, values of 64 bytes or more separated, no background GC:
/// a few thousand keys go through many flushes, compactions and value files.
pub fn options(fs: &MemFs) -> Options {
    Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .inline_threshold(64)
        .l0_compaction_trigger(2)
        .gc_enabled(false)
}

/// Options that never create a database.
pub fn existing(fs: &MemFs) -> Options {
    options(fs).create_if_missing(false)
}

/// The key of index `i`.
pub fn key(i: u32) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

/// A value of round `round` for key `i`: separated for even keys, inline for odd ones.
pub fn value(i: u32, round: u32) -> Vec<u8> {
    let unit = format!("{i}/{round};");
    if i.is_multiple_of(2) {
        unit.repeat(100 / unit.len() + 1).into_bytes()
    } else {
        unit.into_bytes()
    }
}

/// Writes `n` keys, overwrites every third, deletes every seventh, then writes 200 more
/// that stay in the log (not flushed). Returns the model and every value each key ever had.
pub fn populate(db: &Db, n: u32) -> (Model, BTreeMap<Vec<u8>, BTreeSet<Vec<u8>>>) {
    let mut model = Model::new();
    let mut history: BTreeMap<Vec<u8>, BTreeSet<Vec<u8>>> = BTreeMap::new();
    let mut put = |model: &mut Model, i: u32, round: u32| {
        db.put(key(i), value(i, round)).unwrap();
        model.insert(key(i), value(i, round));
        history.entry(key(i)).or_default().insert(value(i, round));
    };
    for i in 0..n {
        put(&mut model, i, 0);
    }
    for i in (0..n).step_by(3) {
        put(&mut model, i, 1);
    }
    for i in (0..n).step_by(7) {
        db.delete(key(i)).unwrap();
        model.remove(&key(i));
    }
    db.flush().unwrap();
    for i in n..n + 200 {
        put(&mut model, i, 0);
    }
    (model, history)
}

/// Opens a fresh database on `fs`, populates it with `n` keys, closes it.
pub fn build(fs: &MemFs, n: u32) -> (Model, BTreeMap<Vec<u8>, BTreeSet<Vec<u8>>>) {
    let db = Db::open(Path::new(DIR), options(fs)).unwrap();
    let out = populate(&db, n);
    drop(db);
    out
}

/// Everything the database holds, in order.
pub fn contents(db: &Db) -> Model {
    db.iter().map(|r| r.unwrap()).collect()
}

/// Repairs the database on `fs`.
pub fn repair(fs: &MemFs) -> RepairReport {
    let report = twain::repair(Path::new(DIR), &existing(fs)).unwrap();
    eprintln!("{}", report.to_text());
    report
}

/// Asserts that `twain check` finds no problem.
pub fn assert_check_ok(fs: &MemFs) {
    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs: Arc::new(fs.clone()),
            num_levels: existing(fs).num_levels,
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.is_ok(), "{}", report.to_text());
}

/// Opens the repaired database, checks that it reads exactly `model`, that it takes
/// writes, and that `check` passes after it is closed.
pub fn assert_repaired(fs: &MemFs, model: &Model) {
    assert_check_ok(fs);
    let db = Db::open(Path::new(DIR), existing(fs)).unwrap();
    for (k, v) in model {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "key {}", show(k));
    }
    assert_eq!(&contents(&db), model);
    db.put("after-repair", "works").unwrap();
    drop(db);
    let db = Db::open(Path::new(DIR), existing(fs)).unwrap();
    assert_eq!(db.get("after-repair").unwrap(), Some(b"works".to_vec()));
    drop(db);
    assert_check_ok(fs);
}

/// The path of a file of the database.
pub fn path(name: &str) -> PathBuf {
    Path::new(DIR).join(name)
}

/// The names of the database's files with `suffix`, sorted.
pub fn files_ending(fs: &MemFs, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = fs
        .file_names(Path::new(DIR))
        .into_iter()
        .filter(|n| n.ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// The names in `lost/`.
pub fn lost_names(fs: &MemFs) -> Vec<String> {
    fs.list_dir(&Path::new(DIR).join("lost"))
        .unwrap_or_default()
}

/// The user keys of the table at `path`.
pub fn table_keys(fs: &MemFs, path: &Path) -> BTreeSet<Vec<u8>> {
    use twain::iter::InternalIterator;
    let file = fs.open_read(path).unwrap();
    let size = fs.file_size(path).unwrap();
    let cache = Arc::new(twain::cache::BlockCache::new(1 << 20));
    let table =
        Arc::new(twain::table::Table::open(0, path.to_path_buf(), file, size, cache).unwrap());
    let mut it = table.iter(false);
    it.seek_to_first().unwrap();
    let mut keys = BTreeSet::new();
    while it.valid() {
        keys.insert(twain::key::user_key(it.key()).to_vec());
        it.next().unwrap();
    }
    keys
}

/// A key for messages.
pub fn show(k: &[u8]) -> String {
    String::from_utf8_lossy(k).into_owned()
}

/// Asserts what a repair that lost the keys `suspect` may leave: every other key reads
/// exactly as the model says; a suspect key is absent or holds a value it once had.
/// Returns how many suspect keys still read their model value.
pub fn assert_only_suspects_differ(
    db: &Db,
    model: &Model,
    history: &BTreeMap<Vec<u8>, BTreeSet<Vec<u8>>>,
    suspect: &BTreeSet<Vec<u8>>,
) -> usize {
    let got = contents(db);
    for (k, v) in &got {
        if !suspect.contains(k) {
            assert_eq!(model.get(k), Some(v), "key {}", show(k));
        } else {
            assert!(
                history.get(k).is_some_and(|h| h.contains(v)),
                "key {} holds a value it never had",
                show(k)
            );
        }
    }
    for k in model.keys() {
        if !suspect.contains(k) {
            assert!(got.contains_key(k), "key {} lost", show(k));
        }
    }
    suspect
        .iter()
        .filter(|k| got.contains_key(*k) && got.get(*k) == model.get(*k))
        .count()
}

/// Opens the repaired database read-write, checks `check` passes after closing, and
/// returns it reopened.
pub fn open_repaired(fs: &MemFs) -> Db {
    assert_check_ok(fs);
    let db = Db::open(Path::new(DIR), existing(fs)).unwrap();
    db.put("after-repair", "works").unwrap();
    db.delete("after-repair").unwrap();
    drop(db);
    assert_check_ok(fs);
    Db::open(Path::new(DIR), existing(fs)).unwrap()
}

/// The largest table file's name.
pub fn largest_table(fs: &MemFs) -> String {
    files_ending(fs, ".sst")
        .into_iter()
        .max_by_key(|n| fs.file_size(&path(n)).unwrap())
        .unwrap()
}

/// Asserts the outcome of a repair that lost the values of some keys: exactly the keys the
/// report counts as lost read as absent (the listed ones by name), every other key reads
/// exactly as written. Returns the lost keys.
pub fn assert_lost_exactly_reported(
    db: &Db,
    model: &Model,
    report: &RepairReport,
) -> BTreeSet<Vec<u8>> {
    let got = contents(db);
    let mut gone = BTreeSet::new();
    for (k, v) in model {
        match got.get(k) {
            Some(g) => assert_eq!(g, v, "key {}", show(k)),
            None => {
                gone.insert(k.clone());
            }
        }
    }
    for k in got.keys() {
        assert!(
            model.contains_key(k),
            "key {} came back from the dead",
            show(k)
        );
    }
    assert_eq!(
        gone.len() as u64,
        report.lost_entries,
        "{}",
        report.to_text()
    );
    for k in &report.lost_keys {
        assert!(gone.contains(k), "listed key {} still reads", show(k));
    }
    gone
}

/// The name of the oldest value log file.
pub fn oldest_log(fs: &MemFs) -> String {
    files_ending(fs, ".vlog").into_iter().next().unwrap()
}
