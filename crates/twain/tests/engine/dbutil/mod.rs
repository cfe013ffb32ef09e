//! Helpers shared by the `Db` API tests: small options that force background work, a
//! deterministic random source, values of mixed sizes, a `BTreeMap` model and a database
//! whose data is spread over the memtable, L0 and deeper levels.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use twain::{Db, DbIterator, KvPair, Options, Stats};

/// The model of a database: what every read should return.
pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Small sizes so that a few thousand writes flush, compact and roll value files; the
/// value prefetcher runs however fast reads are, so every iterator test runs with it.
pub fn small_opts() -> Options {
    Options::default()
        .memtable_size(64 << 10)
        .value_file_size(256 << 10)
        .l1_target_size(256 << 10)
        .target_file_size(64 << 10)
        .inline_threshold(64)
        .prefetch_min_read_micros(0)
}

/// A deterministic random source (splitmix64): tests replay exactly from their seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `percent` / 100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A value for `key` at `version` whose size `size_class` picks: small classes stay
/// inline under [`small_opts`], large ones are separated. The bytes depend on key and
/// version, so a value read for the wrong key or version is caught.
pub fn value(key: &[u8], version: u64, size_class: u64) -> Vec<u8> {
    const SIZES: [usize; 8] = [0, 1, 7, 30, 64, 200, 900, 3000];
    let size = SIZES[(size_class % SIZES.len() as u64) as usize];
    let mut seed = version.wrapping_mul(0x0100_0000_01b3);
    for &b in key {
        seed = (seed ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut rng = Rng::new(seed);
    let mut v = Vec::with_capacity(size);
    while v.len() < size {
        v.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    v.truncate(size);
    v
}

/// Collects an iterator, failing the test on an error item.
pub fn collect(it: DbIterator) -> Vec<KvPair> {
    it.map(|r| r.expect("iterator item")).collect()
}

/// Collects an iterator from the back, failing the test on an error item.
pub fn collect_rev(it: DbIterator) -> Vec<KvPair> {
    it.rev().map(|r| r.expect("iterator item")).collect()
}

/// Whether `key` lies within `(lo, hi)`.
pub fn in_bounds(key: &[u8], lo: &Bound<Vec<u8>>, hi: &Bound<Vec<u8>>) -> bool {
    let above_lo = match lo {
        Bound::Included(l) => key >= l.as_slice(),
        Bound::Excluded(l) => key > l.as_slice(),
        Bound::Unbounded => true,
    };
    let below_hi = match hi {
        Bound::Included(h) => key <= h.as_slice(),
        Bound::Excluded(h) => key < h.as_slice(),
        Bound::Unbounded => true,
    };
    above_lo && below_hi
}

/// The model's pairs within `(lo, hi)`, in key order. Unlike `BTreeMap::range`, an empty
/// or inverted range simply yields nothing.
pub fn model_range(m: &Model, lo: &Bound<Vec<u8>>, hi: &Bound<Vec<u8>>) -> Vec<KvPair> {
    m.iter()
        .filter(|(k, _)| in_bounds(k, lo, hi))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The model's pairs whose key starts with `prefix`, in key order.
pub fn model_prefix(m: &Model, prefix: &[u8]) -> Vec<KvPair> {
    m.iter()
        .filter(|(k, _)| k.starts_with(prefix))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Keys only, for readable assertion failures.
pub fn keys(pairs: &[KvPair]) -> Vec<String> {
    pairs.iter().map(|(k, _)| show(k)).collect()
}

/// A key as text with non-printable bytes escaped.
pub fn show(key: &[u8]) -> String {
    key.escape_ascii().to_string()
}

/// Asserts that `got` equals `want`, reporting the first difference by key.
#[track_caller]
pub fn assert_pairs_eq(got: &[KvPair], want: &[KvPair], what: &str) {
    if got == want {
        return;
    }
    let first_diff = got
        .iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .unwrap_or(got.len().min(want.len()));
    let at = |v: &[KvPair]| {
        v.get(first_diff)
            .map(|(k, val)| format!("{} ({} value bytes)", show(k), val.len()))
    };
    panic!(
        "{what}: got {} pairs, want {}; first difference at index {first_diff}: got {:?}, want {:?}",
        got.len(),
        want.len(),
        at(got),
        at(want)
    );
}

/// Closes `db`, opens the database at `dir` again with `opts`, asserts that a full scan
/// returns `want`, closes it, and asserts that `check` (on `fs`) finds it sound.
#[track_caller]
pub fn reopen_scan_and_check(
    db: Db,
    dir: &Path,
    fs: &twain::fs::MemFs,
    opts: Options,
    want: &[KvPair],
    what: &str,
) {
    db.close().unwrap();
    let db = Db::open(dir, opts).unwrap();
    let got: Vec<KvPair> = db.iter().map(|r| r.unwrap()).collect();
    assert_pairs_eq(&got, want, &format!("{what}: final after reopen"));
    db.close().unwrap();
    let fs: std::sync::Arc<dyn twain::fs::Fs> = std::sync::Arc::new(fs.clone());
    let report = twain::check::check(
        dir,
        &twain::check::CheckOptions {
            fs,
            ..twain::check::CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.is_ok(), "{what}: {report:?}");
}

/// Polls `cond` until it holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() > timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// How long a test waits for background work (flushes, compactions, GC) that should take
/// milliseconds: only a safety net against a hang, generous enough for a loaded machine.
pub const BACKGROUND_DEADLINE: Duration = Duration::from_secs(60);

/// Waits (up to [`BACKGROUND_DEADLINE`]) until no level needs an automatic compaction
/// under `db`'s options: fewer L0 files than the trigger, every level within its target
/// size (`LevelStats::target_bytes`), and none above the base holding tables.
pub fn wait_for_quiet(db: &Db) -> bool {
    let o = db.options().clone();
    wait_until(BACKGROUND_DEADLINE, || {
        let s = db.stats().expect("stats");
        let mut quiet = s.levels[0].files < o.l0_compaction_trigger;
        for l in s.levels.iter().take(s.levels.len() - 1).skip(1) {
            quiet &= match l.target_bytes {
                0 => l.files == 0,
                target => l.bytes <= target,
            };
        }
        quiet
    })
}

/// Table files per level, L0 first.
pub fn level_files(s: &Stats) -> Vec<usize> {
    s.levels.iter().map(|l| l.files).collect()
}

/// Keys with awkward bytes that every layered database holds (or held): the empty key,
/// NUL, and keys around 0xff, which stress prefix upper bounds.
pub const SPECIAL_KEYS: &[&[u8]] = &[
    b"",
    b"\x00",
    b"\x00\x00",
    b"a",
    b"a\xff",
    b"a\xff\x00",
    b"a\xff\xff",
    b"a\xff\xff\x01",
    b"b",
    b"b\x00",
    b"\xff",
    b"\xff\x00",
    b"\xff\xff",
    b"\xff\xff\xff",
];

/// The `i`-th ordinary key.
pub fn key(i: u64) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

/// Options for a layered database: small files and an L1 target small enough that a
/// manual compaction's output spills into L2.
pub fn layered_opts() -> Options {
    small_opts()
        .l1_target_size(32 << 10)
        // Background GC off: its garbage compactions (the space target) would flatten
        // the layers these tests need.
        .gc_enabled(false)
}

/// Opens a database in `dir` and fills it so that live data, overwrites and tombstones
/// sit in every tier at once: deeper levels (a manual compaction, spilled by the
/// background into L2), L1 (an automatic L0 compaction), L0 (two flushes) and the active
/// memtable (unflushed writes). Returns it with the model of its contents.
pub fn layered_db(dir: &Path, n: u64, seed: u64) -> (Db, Model) {
    let db = Db::open(dir, layered_opts()).expect("open");
    let mut rng = Rng::new(seed);
    let mut model = Model::new();
    let mut version = 0u64;
    let mut put = |db: &Db, model: &mut Model, rng: &mut Rng, k: Vec<u8>| {
        version += 1;
        let v = value(&k, version, rng.next_u64());
        db.put(&k, &v).expect("put");
        model.insert(k, v);
    };
    let del = |db: &Db, model: &mut Model, k: Vec<u8>| {
        db.delete(&k).expect("delete");
        model.remove(&k);
    };

    // Phase 1: everything, compacted to the bottom.
    for &k in SPECIAL_KEYS {
        put(&db, &mut model, &mut rng, k.to_vec());
    }
    for i in 0..n {
        put(&db, &mut model, &mut rng, key(i));
    }
    db.compact_range(None, None).expect("compact_range");
    // The background moves the oversized L1 down to L2.
    assert!(wait_for_quiet(&db), "background compactions never settled");

    // Phase 2: four flushes of overwrites and deletes; the fourth L0 file triggers an
    // automatic L0 -> L1 compaction.
    for round in 0..4u64 {
        for i in (round..n).step_by(10) {
            if rng.percent(20) {
                del(&db, &mut model, key(i));
            } else {
                put(&db, &mut model, &mut rng, key(i));
            }
        }
        db.flush().expect("flush");
    }
    // Phase 3 relies on it: the two files it flushes must stay in L0.
    assert!(wait_for_quiet(&db), "background compactions never settled");

    // Phase 3: two more flushes that stay in L0, touching the special keys too.
    for round in 0..2u64 {
        for i in (round..n).step_by(7) {
            if rng.percent(25) {
                del(&db, &mut model, key(i));
            } else {
                put(&db, &mut model, &mut rng, key(i));
            }
        }
        for (j, &k) in SPECIAL_KEYS.iter().enumerate() {
            if (j as u64 + round).is_multiple_of(3) {
                del(&db, &mut model, k.to_vec());
            }
        }
        db.flush().expect("flush");
    }

    // Phase 4: unflushed writes, including keys past the end and re-puts of deleted ones.
    for i in (0..n + 20).step_by(11) {
        if rng.percent(15) {
            del(&db, &mut model, key(i));
        } else {
            put(&db, &mut model, &mut rng, key(i));
        }
    }
    for (j, &k) in SPECIAL_KEYS.iter().enumerate() {
        if j % 4 == 1 {
            put(&db, &mut model, &mut rng, k.to_vec());
        }
    }
    (db, model)
}

/// Asserts that the layered database really is layered: data in the memtable, in L0 and
/// in at least one deeper level.
#[track_caller]
pub fn assert_layered(db: &Db) {
    let s = db.stats().expect("stats");
    let files = level_files(&s);
    assert!(s.memtable_entries > 0, "memtable empty: {files:?}");
    assert!(files[0] > 0, "L0 empty: {files:?}");
    assert!(
        files.iter().skip(1).sum::<usize>() > 0,
        "no deeper level: {files:?}"
    );
}

/// Bounds worth trying for a layered database of `n` keys: special keys, live and
/// deleted keys, keys between keys, and keys before and after everything.
pub fn bound_keys(n: u64) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"a\xff".to_vec(),
        b"a\xff\xff".to_vec(),
        b"b".to_vec(),
        b"k".to_vec(),
        key(0),
        key(1),
        key(n / 3),
        [key(n / 3), b"\x00".to_vec()].concat(),
        key(n / 2 + 1),
        key(n - 1),
        key(n + 11),
        b"l".to_vec(),
        b"\xff".to_vec(),
        b"\xff\xff\xff\xff".to_vec(),
    ];
    out.sort();
    out.dedup();
    out
}

/// Every bound built from `keys`: included, excluded, and unbounded.
pub fn all_bounds(keys: &[Vec<u8>]) -> Vec<Bound<Vec<u8>>> {
    let mut out = vec![Bound::Unbounded];
    for k in keys {
        out.push(Bound::Included(k.clone()));
        out.push(Bound::Excluded(k.clone()));
    }
    out
}

/// Waits until directory `dir` holds only the tables of `db`'s current version: a
/// compaction's input tables are deleted once no reader holds the version that had them,
/// which a loaded machine can delay past the compaction's return.
pub fn wait_for_obsolete_tables(db: &twain::Db, fs: &twain::fs::MemFs, dir: &str) {
    use twain::fs::Fs;
    let dir = std::path::Path::new(dir);
    let settled = wait_until(BACKGROUND_DEADLINE, || {
        let live: usize = db.stats().unwrap().levels.iter().map(|l| l.files).sum();
        let on_disk = fs
            .list_dir(dir)
            .unwrap()
            .iter()
            .filter(|n| n.ends_with(".sst"))
            .count();
        on_disk == live
    });
    assert!(settled, "obsolete tables were never deleted");
}

/// `num_handles` summed over the tables of `db` (in directory `dir` of `fs`), as `twain
/// dump` prints each table's properties.
pub fn table_handles(db: &twain::Db, fs: &twain::fs::MemFs, dir: &str) -> u64 {
    use std::sync::Arc;
    use twain::fs::Fs;
    wait_for_obsolete_tables(db, fs, dir);
    let fs: Arc<dyn Fs> = Arc::new(fs.clone());
    let dir = std::path::Path::new(dir);
    let mut total = 0;
    for name in fs.list_dir(dir).unwrap() {
        if !name.ends_with(".sst") {
            continue;
        }
        let mut out = Vec::new();
        twain::dump::dump_file(&fs, &dir.join(&name), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with("num_handles"))
            .unwrap();
        total += line
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap();
    }
    total
}

/// Every value handle in the tables of `db` (in directory `dir` of `fs`): (user key,
/// sequence, value file number, epoch), table by table in key order.
pub fn table_handle_epochs(
    db: &twain::Db,
    fs: &twain::fs::MemFs,
    dir: &str,
) -> Vec<(Vec<u8>, u64, u64, u32)> {
    table_value_handles(db, fs, dir)
        .into_iter()
        .map(|(key, seq, h)| (key, seq, h.file, h.epoch))
        .collect()
}

/// Every value handle in the tables of `db` (in directory `dir` of `fs`): (user key,
/// sequence, handle), table by table in key order.
pub fn table_value_handles(
    db: &twain::Db,
    fs: &twain::fs::MemFs,
    dir: &str,
) -> Vec<(Vec<u8>, u64, twain::format::handle::ValueHandle)> {
    use std::sync::Arc;
    use twain::fs::Fs;
    wait_for_obsolete_tables(db, fs, dir);
    use twain::iter::InternalIterator;
    use twain::key::{EntryKind, ParsedKey};
    let dir = std::path::Path::new(dir);
    let mut out = Vec::new();
    for name in fs.list_dir(dir).unwrap() {
        let Some(number) = name.strip_suffix(".sst") else {
            continue;
        };
        let path = dir.join(&name);
        let file = fs.open_read(&path).unwrap();
        let size = file.len().unwrap();
        let table = twain::table::Table::open(
            number.parse().unwrap(),
            path,
            file,
            size,
            Arc::new(twain::cache::BlockCache::new(0)),
        )
        .unwrap();
        let mut it = Arc::new(table).iter(false);
        it.seek_to_first().unwrap();
        while it.valid() {
            let p = ParsedKey::parse(it.key());
            if p.entry_kind() == Some(EntryKind::Handle) {
                let h = twain::format::handle::ValueHandle::decode(it.value()).unwrap();
                out.push((p.user_key.to_vec(), p.seq, h));
            }
            it.next().unwrap();
        }
    }
    out
}

/// The snapshots a model test holds, each with the model as of its taking.
pub type Snapshots = Vec<(twain::Snapshot, Model)>;

/// Takes a snapshot (with a copy of `model`) while fewer than three are held, else
/// releases one at random.
pub fn take_or_release_snapshot(db: &Db, model: &Model, snaps: &mut Snapshots, rng: &mut Rng) {
    if snaps.len() < 3 {
        snaps.push((db.snapshot(), model.clone()));
    } else {
        snaps.remove(rng.below(3) as usize);
    }
}

/// A random held snapshot with its index and model, if any is held.
pub fn pick_snapshot<'a>(
    snaps: &'a Snapshots,
    rng: &mut Rng,
) -> Option<(usize, &'a twain::Snapshot, &'a Model)> {
    if snaps.is_empty() {
        return None;
    }
    let i = rng.below(snaps.len() as u64) as usize;
    Some((i, &snaps[i].0, &snaps[i].1))
}

/// Every held snapshot reads back its whole model; `what` names the run.
pub fn assert_snapshots_read_back(snaps: &Snapshots, what: &str) {
    for (i, (s, m)) in snaps.iter().enumerate() {
        let got: Vec<KvPair> = s.iter().map(|r| r.unwrap()).collect();
        let want = model_range(m, &Bound::Unbounded, &Bound::Unbounded);
        assert_pairs_eq(&got, &want, &format!("{what}: final snapshot {i}"));
    }
}

/// The files in directory `dir` (a real one) with extension `ext`, sorted by name.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

/// The positions, in key order, of the entries whose values cannot be read (lazy entries
/// read each value on its own, so one damaged value fails only its own entry).
pub fn unreadable_values(db: &Db) -> Vec<usize> {
    db.entries::<&[u8], _>(..)
        .enumerate()
        .filter(|(_, e)| e.as_ref().unwrap().value().is_err())
        .map(|(i, _)| i)
        .collect()
}
