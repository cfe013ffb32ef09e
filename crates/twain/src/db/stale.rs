//! Stale handles in cold tables, and the compactions that refresh them.
//!
//! Value GC in drop-records mode rewrites a value file into an SVTable with the same
//! number and a new epoch (NovKV); the handles in the tree keep naming the old epoch, and
//! every read of one searches the SVTable by key (`read::fix_handle`), every scan step
//! too. A compaction refreshes the handles of the tables it rewrites
//! (`compaction::refresh`), but a cold table that no compaction reaches (the bottom level
//! of a large tree above all) keeps its stale handles for good: on 10 M keys after 30 M
//! updates, 70% of gets and 58–68% of scanned pairs paid for one. Refresh compactions run
//! with background GC on (it is what makes handles stale), in drop-records mode (the only
//! one where compactions refresh); `Db::gc` does not run them.
//!
//! The live-data pass (`space::live_data`) already walks every newest version; for each
//! handle among them it asks [`StaleTally::count`] whether the handle is stale in the
//! pass's version, and if so which table below L0 holds it. A pass over a large tree takes
//! seconds and is paced, so value GC counts too: each drop-records run estimates which
//! tables hold the handles it makes stale ([`tally_kept`]), and [`GcTallies`] keeps the
//! runs the newest pass has not seen. The compaction threads then pick a table where at
//! least [`MIN_STALE_FRACTION`] of the handles are stale (`picker::pick_refresh`) and
//! rewrite it in place, refreshing its handles. Only newest versions count: a shadowed
//! version's handle is never read, and a compaction drops it. L0 is left out: its tables
//! are merged down soon, and rewriting one in place would reorder L0.
//!
//! Pacing (`background::refresh_pick`): with the foreground quiet, refresh compactions
//! run back to back (while value GC is collecting, only for tables with
//! [`MIN_STALE_FRACTION_WHILE_COLLECTING`] of their handles stale). Under load they run only for reads that pay: at least
//! [`BUSY_MIN_SEARCHES`] SVTable searches (gets and scans meeting stale handles) since the
//! last one, so a write-only load never pays for them; and one that took `d` allows the
//! next `BUSY_SPACING × d` after its start, so they take at most a fifth of one compaction
//! thread. A table a refresh compaction wrote is not picked for refresh again until value
//! GC has run since: a handle that compaction could not refresh (its record gone, a damaged
//! SVTable index) would otherwise make the same table look stale after every pass.
//!
//! [`StaleTally::new`] mirrors the child order of `iter::merged_of`; the two change
//! together.

use super::{SuperVersion, lock};
use crate::format::handle::ValueHandle;
use crate::key::SeqNo;
use crate::version::Version;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A table qualifies for a refresh compaction when at least this share of its handles is
/// stale (and at least one is).
pub(crate) const MIN_STALE_FRACTION: f64 = 0.125;

/// With the foreground quiet and value GC collecting, which makes more handles stale with
/// every run, a table qualifies only with at least this share stale: each table is then
/// rewritten about twice rather than once per eighth while GC rewrites every value file
/// (on 10 M keys after a burst of updates it does so for a minute), and the rest waits for
/// GC to finish. (Value GC of the hash layout records no tallies and never counts as
/// collecting: there the pass's counts and [`MIN_STALE_FRACTION`] alone decide.)
pub(crate) const MIN_STALE_FRACTION_WHILE_COLLECTING: f64 = 0.5;

/// Under load, a refresh compaction that took `d` allows the next this many `d` after its
/// start.
pub(crate) const BUSY_SPACING: u32 = 5;

/// Under load, a refresh compaction needs at least this many SVTable searches by reads
/// since the last one: refreshing helps only reads, and a write-only load makes none.
pub(crate) const BUSY_MIN_SEARCHES: u64 = 1024;

/// A value GC run tallies one kept record in this many (each counting for this many): the
/// tally is a trigger, and a run keeps tens of thousands of records.
pub(crate) const TALLY_STRIDE: usize = 4;

/// Value GC counts as collecting for this long after its last drop-records run: runs come
/// back to back while it works through a backlog.
pub(crate) const GC_SETTLE: Duration = Duration::from_secs(3);

/// Value GC runs tallied since the newest pass are kept up to this many; older ones are
/// merged (a pass normally prunes them long before).
const MAX_GC_TALLIES: usize = 256;

/// Where one child of the merged iterator (`iter::merged_sources`) reads from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// A memtable: nothing for a compaction to refresh.
    Memtable,
    /// An L0 table: left to the compactions that merge L0 down.
    Level0,
    /// The level iterator of this level (1 and deeper).
    Level(usize),
}

/// Counts the stale newest-version handles of each table below L0 during a pass.
pub(crate) struct StaleTally<'a> {
    sources: Vec<Source>,
    version: &'a Version,
    /// Hash layout: a segment file group GC merged away is forwarded (`compaction::refresh`
    /// reads its group's chain), so a handle naming a missing file is stale too.
    forwarded: bool,
}

impl<'a> StaleTally<'a> {
    /// The tally for a pass over `sv`, whose merged iterator is built by
    /// `iter::merged_sources` (memtables, each L0 table, then one child per non-empty
    /// deeper level).
    pub fn new(sv: &'a SuperVersion) -> StaleTally<'a> {
        let version = &*sv.version;
        let mut sources = vec![Source::Memtable; 1 + sv.imms.len()];
        let mut levels = version.levels.iter().enumerate();
        if let Some((_, l0)) = levels.next() {
            sources.extend(l0.iter().map(|_| Source::Level0));
        }
        sources.extend(
            levels
                .filter(|(_, files)| !files.is_empty())
                .map(|(level, _)| Source::Level(level)),
        );
        StaleTally {
            sources,
            version,
            forwarded: version.state.hash_groups.is_some(),
        }
    }

    /// Whether `h` names an older epoch of its file than the version holds.
    fn is_stale(&self, h: &ValueHandle) -> bool {
        match self.version.value_files.get(&h.file) {
            Some(f) => h.epoch < f.epoch(),
            None => self.forwarded,
        }
    }

    /// Counts `h`, the newest version of `user_key` read from merged child `child`, in
    /// `into` (table number → stale handles) if it is stale and held by a table below L0.
    pub fn count(
        &self,
        child: Option<usize>,
        user_key: &[u8],
        h: &ValueHandle,
        into: &mut HashMap<u64, u64>,
    ) {
        if !self.is_stale(h) {
            return;
        }
        let Some(Source::Level(level)) = child.and_then(|c| self.sources.get(c).copied()) else {
            return;
        };
        if let Some(t) = self.version.table_for_key(level, user_key) {
            *into.entry(t.number()).or_default() += 1;
        }
    }
}

/// The tables of `version` worth a refresh compaction, by `stale` (table number → stale
/// handles): at least `min_fraction` of their handles stale. Tables counted that the
/// version no longer holds are left out.
pub(crate) fn candidates(
    version: &Version,
    stale: &HashMap<u64, u64>,
    min_fraction: f64,
) -> HashMap<u64, u64> {
    version
        .levels
        .iter()
        .skip(1)
        .flatten()
        .filter_map(|t| {
            let &n = stale.get(&t.number())?;
            let handles = t.table.properties().num_handles;
            (n > 0 && n as f64 >= min_fraction * handles as f64).then_some((t.number(), n))
        })
        .collect()
}

/// When the next refresh compaction may start under load, after one that started at
/// `started` and took `took`.
pub(crate) fn next_busy_start(started: std::time::Instant, took: Duration) -> std::time::Instant {
    started + took * BUSY_SPACING
}

/// The tables below L0 of `version` that hold the handles of `kept`: the key and sequence
/// number of each record a value GC run keeps, whose handles name the run's old epoch once
/// it is installed. Counted per table number, from every `stride`-th record (each counting
/// `stride`). An estimate from the version's metadata alone (no table is read): the key's
/// newest version is taken to be in the first table, L0's from the newest and then one
/// per level, whose filter may hold the key; the record counts for that table if it is
/// below L0 and its sequence range holds the record's number. A record shadowed by a
/// version in that table whose range happens to hold its number is counted there too, and
/// memtables are not looked at; the next live-data pass's exact count replaces the estimate.
pub(crate) fn tally_kept<'k>(
    version: &Version,
    kept: impl Iterator<Item = (&'k [u8], SeqNo)>,
    stride: usize,
) -> HashMap<u64, u64> {
    let stride = stride.max(1);
    let mut tally = HashMap::new();
    let l0 = version.levels.first().map_or(&[][..], |l| &l[..]);
    for (key, seq) in kept.step_by(stride) {
        let in_l0 = l0.iter().any(|t| {
            t.smallest_user_key() <= key && key <= t.largest_user_key() && t.table.may_contain(key)
        });
        if in_l0 {
            continue;
        }
        let newest = (1..version.levels.len()).find_map(|level| {
            version
                .table_for_key(level, key)
                .filter(|t| t.table.may_contain(key))
        });
        if let Some(t) = newest {
            let p = t.table.properties();
            if p.smallest_seq <= seq && seq <= p.largest_seq {
                *tally.entry(t.number()).or_default() += stride as u64;
            }
        }
    }
    tally
}

/// What value GC runs made stale since the newest live-data pass, so that refresh
/// compactions need not wait for the next pass (one over 10 M keys takes seconds and is
/// paced to a tenth of a core), and whether value GC is collecting now.
#[derive(Debug, Default)]
pub(crate) struct GcTallies {
    /// Leaf lock.
    state: Mutex<TallyState>,
}

#[derive(Debug, Default)]
struct TallyState {
    /// The runs no pass has seen yet, oldest first.
    runs: Vec<TalliedRun>,
    /// When the last run was recorded.
    last_run: Option<Instant>,
}

/// One value GC run's [`tally_kept`].
#[derive(Debug)]
struct TalliedRun {
    /// The version generation that installed it (`space::LiveCache::generation`).
    generation: u64,
    /// The value file it collected.
    file: u64,
    /// Table number → stale handles.
    tally: HashMap<u64, u64>,
}

impl GcTallies {
    /// Records a run of value file `file` installed at version generation `generation`
    /// in `version`, with tally `tally`. A later run of a file keeps every record an earlier
    /// one kept that is still referenced, so its tally replaces theirs; tables `version` no
    /// longer holds (rewritten, their handles refreshed, or deleted) are forgotten, so the
    /// tallies stay within the version's tables even when no pass comes.
    pub fn add(&self, generation: u64, file: u64, mut tally: HashMap<u64, u64>, version: &Version) {
        let tables: HashSet<u64> = version
            .levels
            .iter()
            .skip(1)
            .flatten()
            .map(|t| t.number())
            .collect();
        let mut st = lock(&self.state);
        st.last_run = Some(Instant::now());
        st.runs.retain_mut(|r| {
            r.tally.retain(|n, _| tables.contains(n));
            r.file != file && !r.tally.is_empty()
        });
        tally.retain(|n, _| tables.contains(n));
        if tally.is_empty() {
            return;
        }
        if st.runs.len() >= MAX_GC_TALLIES {
            // Merged into the next run: counted until a pass has seen both.
            let oldest = st.runs.remove(0);
            for (n, c) in oldest.tally {
                *st.runs[0].tally.entry(n).or_default() += c;
            }
        }
        st.runs.push(TalliedRun {
            generation,
            file,
            tally,
        });
    }

    /// The stale handles per table: `pass` (a pass's exact counts, made at version
    /// generation `pass_generation`) plus the runs installed after it. Runs the pass saw
    /// are forgotten. A handle the pass counted whose file a later run collected again is
    /// counted twice.
    pub fn with_pass(&self, pass_generation: u64, pass: &HashMap<u64, u64>) -> HashMap<u64, u64> {
        let mut st = lock(&self.state);
        st.runs.retain(|r| r.generation > pass_generation);
        let mut all = pass.clone();
        for (n, c) in st.runs.iter().flat_map(|r| &r.tally) {
            *all.entry(*n).or_default() += c;
        }
        all
    }

    /// Whether value GC is collecting (a run was recorded within [`GC_SETTLE`]): it makes
    /// more handles stale with every run, so with the foreground quiet, refresh
    /// compactions take only the stalest tables ([`MIN_STALE_FRACTION_WHILE_COLLECTING`])
    /// until it is done.
    pub fn collecting(&self) -> bool {
        lock(&self.state)
            .last_run
            .is_some_and(|t| t.elapsed() < GC_SETTLE)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::iter::InternalIterator;
    use crate::key::ParsedKey;
    use crate::version::TableFile;
    use crate::{Db, Options};
    use std::sync::Arc;

    /// A database at `/db` opened with `opts`, holding 2,000 keys of 100-byte values
    /// (separated) compacted below L0 into tables of 16 KiB.
    pub(crate) fn compacted(opts: Options) -> Db {
        let opts = opts.inline_threshold(16).target_file_size(16 << 10);
        let db = Db::open(std::path::Path::new("/db"), opts).unwrap();
        for i in 0..2000u32 {
            db.put(format!("k{i:05}"), vec![b'v'; 100]).unwrap();
        }
        db.compact_range(None, None).unwrap();
        db
    }

    /// A database of 2,000 keys compacted below L0 into several tables, then newer versions
    /// of every tenth key flushed to L0.
    fn layered() -> (Db, Arc<Version>) {
        let opts = Options::default()
            .fs(Arc::new(MemFs::new()))
            .gc_enabled(false);
        let db = compacted(opts);
        for i in (0..2000u32).step_by(10) {
            db.put(format!("k{i:05}"), vec![b'w'; 100]).unwrap();
        }
        db.flush().unwrap();
        let version = Arc::clone(&db.inner.super_version().version);
        (db, version)
    }

    /// The version of an empty database.
    fn empty() -> Arc<Version> {
        let opts = Options::default().fs(Arc::new(MemFs::new()));
        let db = Db::open(std::path::Path::new("/db"), opts).unwrap();
        Arc::clone(&db.inner.super_version().version)
    }

    /// The tables below L0.
    fn deeper(version: &Version) -> Vec<&Arc<TableFile>> {
        version.levels.iter().skip(1).flatten().collect()
    }

    /// (key, sequence number, table) of every entry of `tables`.
    fn entries(tables: &[&Arc<TableFile>]) -> Vec<(Vec<u8>, SeqNo, u64)> {
        let mut entries = Vec::new();
        for t in tables {
            let mut it = t.table.iter(false);
            it.seek_to_first().unwrap();
            while it.valid() {
                let p = ParsedKey::parse(it.key());
                entries.push((p.user_key.to_vec(), p.seq, t.number()));
                it.next().unwrap();
            }
        }
        entries
    }

    /// Polls `done` on the database's current version for up to ten seconds.
    fn settle(db: &Db, done: impl Fn(&Version) -> bool) -> Arc<Version> {
        let start = Instant::now();
        loop {
            let version = Arc::clone(&db.inner.super_version().version);
            if done(&version) || start.elapsed() > Duration::from_secs(10) {
                return version;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Two levels below L0: 2,000 keys in L2, then newer versions of every tenth key moved
    /// down into L1.
    fn two_levels() -> (Db, Arc<Version>) {
        let fs: Arc<dyn crate::fs::Fs> = Arc::new(MemFs::new());
        let dir = std::path::Path::new("/db");
        let opts = |l1_target: u64| {
            Options::default()
                .fs(Arc::clone(&fs))
                .gc_enabled(false)
                .inline_threshold(16)
                .target_file_size(16 << 10)
                .num_levels(3)
                .level_sizing(crate::options::LevelSizing::Static)
                .l0_compaction_trigger(1)
                .l1_target_size(l1_target)
        };
        let db = compacted(opts(4 << 10));
        // Once a size compaction has opened L2, a manual one takes everything there.
        settle(&db, |v| !v.levels[2].is_empty());
        db.compact_range(None, None).unwrap();
        let v = Arc::clone(&db.inner.super_version().version);
        assert!(
            v.levels[1].is_empty() && !v.levels[2].is_empty(),
            "all in L2"
        );
        db.close().unwrap();
        let db = Db::open(dir, opts(1 << 30)).unwrap();
        for i in (0..2000u32).step_by(10) {
            db.put(format!("k{i:05}"), vec![b'w'; 100]).unwrap();
        }
        db.flush().unwrap();
        let version = settle(&db, |v| v.levels[0].is_empty());
        assert!(version.levels[0].is_empty() && !version.levels[1].is_empty());
        (db, version)
    }

    /// A record in L2 whose key has a newer version in L1 counts nowhere; the others count
    /// for the table of their own level that holds them.
    #[test]
    fn kept_records_below_a_newer_level_count_nowhere() {
        let (_db, version) = two_levels();
        let l1: Vec<&Arc<TableFile>> = version.levels[1].iter().collect();
        let l2: Vec<&Arc<TableFile>> = version.levels[2].iter().collect();
        let newer = entries(&l1);
        assert_eq!(newer.len(), 200);
        let shadowed: HashSet<&[u8]> = newer.iter().map(|(k, _, _)| &k[..]).collect();
        let older = entries(&l2);
        assert_eq!(older.len(), 2000);
        let mut expected: HashMap<u64, u64> = HashMap::new();
        for (k, _, table) in newer.iter().chain(&older) {
            if !shadowed.contains(&k[..]) || l1.iter().any(|t| t.number() == *table) {
                *expected.entry(*table).or_default() += 1;
            }
        }
        let all = newer.iter().chain(&older).map(|(k, s, _)| (&k[..], *s));
        let tally = tally_kept(&version, all, 1);
        // An L1 filter's false positive hides an L2 record, as L0's do above.
        assert!(
            tally
                .iter()
                .all(|(n, c)| expected.get(n).is_some_and(|e| c <= e)),
            "{tally:?} against {expected:?}"
        );
        let l1_numbers: HashSet<u64> = l1.iter().map(|t| t.number()).collect();
        let in_l1: u64 = tally
            .iter()
            .filter(|(n, _)| l1_numbers.contains(n))
            .map(|(_, c)| c)
            .sum();
        assert_eq!(
            in_l1, 200,
            "L1's own records, no shadowed L2 record among them"
        );
        let (got, want) = (tally.values().sum::<u64>(), expected.values().sum::<u64>());
        assert_eq!(want, 2000, "200 in L1, 1,800 in L2");
        assert!(got * 100 >= want * 95, "{got} of {want}");
    }

    #[test]
    fn gc_tallies_add_the_runs_a_pass_has_not_seen() {
        let (_db, version) = layered();
        let [a, b, c] = [0, 1, 2].map(|i| deeper(&version)[i].number());
        let t = GcTallies::default();
        t.add(3, 100, HashMap::from([(a, 2)]), &version);
        t.add(5, 101, HashMap::from([(a, 1), (b, 4)]), &version);
        let pass = HashMap::from([(c, 1)]);
        assert_eq!(
            t.with_pass(2, &pass),
            HashMap::from([(a, 3), (b, 4), (c, 1)])
        );
        assert_eq!(
            t.with_pass(3, &pass),
            HashMap::from([(a, 1), (b, 4), (c, 1)]),
            "a pass made at generation 3 saw the first run"
        );
        assert_eq!(t.with_pass(5, &pass), pass, "and one at 5 saw both");
        assert!(
            t.with_pass(2, &HashMap::new()).is_empty(),
            "runs a pass saw are forgotten"
        );
    }

    #[test]
    fn a_later_run_of_a_file_replaces_its_tally() {
        let (_db, version) = layered();
        let [a, b] = [0, 1].map(|i| deeper(&version)[i].number());
        let t = GcTallies::default();
        t.add(3, 100, HashMap::from([(a, 5)]), &version);
        t.add(4, 101, HashMap::from([(a, 1)]), &version);
        t.add(5, 100, HashMap::from([(a, 6), (b, 2)]), &version);
        assert_eq!(
            t.with_pass(0, &HashMap::new()),
            HashMap::from([(a, 7), (b, 2)])
        );
    }

    #[test]
    fn tables_the_version_no_longer_holds_are_forgotten() {
        let (_db, version) = layered();
        let a = deeper(&version)[0].number();
        let l0 = version.levels[0][0].number();
        let t = GcTallies::default();
        t.add(
            3,
            100,
            HashMap::from([(a, 5), (u64::MAX, 9), (l0, 1)]),
            &version,
        );
        assert_eq!(t.with_pass(0, &HashMap::new()), HashMap::from([(a, 5)]));
        assert!(t.collecting(), "a run was just recorded");
        t.add(4, 101, HashMap::from([(a, 1)]), &empty());
        assert!(t.with_pass(0, &HashMap::new()).is_empty());
        assert!(lock(&t.state).runs.is_empty());
    }

    #[test]
    fn gc_tallies_merge_the_oldest_runs_beyond_their_bound() {
        let (_db, version) = layered();
        let a = deeper(&version)[0].number();
        let t = GcTallies::default();
        let runs = MAX_GC_TALLIES as u64 + 10;
        for g in 1..=runs {
            t.add(g, g, HashMap::from([(a, 1)]), &version);
        }
        assert_eq!(lock(&t.state).runs.len(), MAX_GC_TALLIES);
        assert_eq!(t.with_pass(0, &HashMap::new())[&a], runs, "nothing lost");
    }

    #[test]
    fn gc_counts_as_collecting_for_a_while_after_its_last_run() {
        let t = GcTallies::default();
        assert!(!t.collecting(), "no run yet");
        t.add(1, 100, HashMap::new(), &empty());
        assert!(t.collecting(), "a run with nothing to tally still counts");
        lock(&t.state).last_run = Instant::now().checked_sub(GC_SETTLE);
        assert!(!t.collecting(), "settled");
    }

    /// Every separated entry of every table below L0, tallied from its key and sequence
    /// number alone, goes to the table that holds it, unless L0 holds a newer version of
    /// its key; L0's entries, and keys no table holds, go nowhere.
    #[test]
    fn kept_records_are_tallied_by_the_table_that_holds_them() {
        let (_db, version) = layered();
        let below = deeper(&version);
        assert!(below.len() > 1, "several tables below L0");
        let l0: Vec<&Arc<TableFile>> = version.levels[0].iter().collect();
        let newer = entries(&l0);
        assert_eq!(newer.len(), 200, "the newer versions sit in L0");
        let shadowed: HashSet<&[u8]> = newer.iter().map(|(k, _, _)| &k[..]).collect();
        let older = entries(&below);
        assert_eq!(older.len(), 2000);
        let mut expected: HashMap<u64, u64> = HashMap::new();
        for (k, _, table) in &older {
            if !shadowed.contains(&k[..]) {
                *expected.entry(*table).or_default() += 1;
            }
        }
        let kept = || older.iter().map(|(k, s, _)| (&k[..], *s));
        // An L0 filter's false positive (about 1% of keys) hides a record: each table gets
        // at most its count, and all together nearly all.
        let near = |tally: &HashMap<u64, u64>, what: &str| {
            assert!(
                tally
                    .iter()
                    .all(|(n, c)| expected.get(n).is_some_and(|e| c <= e)),
                "{what}: {tally:?} against {expected:?}"
            );
            let (got, want) = (tally.values().sum::<u64>(), expected.values().sum::<u64>());
            assert!(got * 100 >= want * 95, "{what}: {got} of {want}");
        };
        near(&tally_kept(&version, kept(), 1), "every record");
        // Sampled, each counting four: the total is close (here every fifth sample is a
        // shadowed key, against every tenth record, so a little low).
        let sampled = tally_kept(&version, kept(), 4);
        assert!(sampled.keys().all(|n| expected.contains_key(n)));
        let total: u64 = sampled.values().sum();
        assert!((1500..=1900).contains(&total), "{total}");
        let mut elsewhere: Vec<(Vec<u8>, SeqNo)> =
            newer.into_iter().map(|(k, s, _)| (k, s)).collect();
        elsewhere.push((b"absent".to_vec(), 5));
        let elsewhere = elsewhere.iter().map(|(k, s)| (&k[..], *s));
        assert!(tally_kept(&version, elsewhere, 1).is_empty());
    }
}
