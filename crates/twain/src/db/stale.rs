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
//! pass's version, and if so which table below L0 holds it. The compaction threads then
//! pick a table where at least [`MIN_STALE_FRACTION`] of the handles are stale
//! (`picker::pick_refresh`) and rewrite it in place, refreshing its handles. Only newest
//! versions count: a shadowed version's handle is never read, and a compaction drops it.
//! L0 is left out: its tables are merged down soon, and rewriting one in place would
//! reorder L0.
//!
//! Pacing (`background::refresh_pick`): with the foreground quiet, refresh compactions
//! run back to back. Under load they run only for reads that pay: at least
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
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// A table qualifies for a refresh compaction when at least this share of its handles is
/// stale (and at least one is).
pub(crate) const MIN_STALE_FRACTION: f64 = 0.125;

/// With the foreground quiet and value GC collecting, which makes more handles stale with
/// every run, a table qualifies only with at least this share stale: each table is then
/// rewritten at most about twice while GC rewrites every value file once (on 10 M keys
/// after a burst of updates it does so for a minute), and the rest waits for GC to finish.
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
/// `stride`). An estimate, made from the version's
/// metadata alone (no table is read): a record goes to the first level from the top whose
/// table for its key has a sequence range holding its number and a filter that may hold
/// its key. A record whose version sits in a memtable or L0 may be given to a deeper table
/// that holds an older version of its key; the next live-data pass's exact count replaces
/// the estimate.
pub(crate) fn tally_kept<'k>(
    version: &Version,
    kept: impl Iterator<Item = (&'k [u8], SeqNo)>,
    stride: usize,
) -> HashMap<u64, u64> {
    let mut tally = HashMap::new();
    for (key, seq) in kept.step_by(stride.max(1)) {
        let holder = (1..version.levels.len()).find_map(|level| {
            let t = version.table_for_key(level, key)?;
            let p = t.table.properties();
            (p.smallest_seq <= seq && seq <= p.largest_seq && t.table.may_contain(key))
                .then(|| t.number())
        });
        if let Some(n) = holder {
            *tally.entry(n).or_default() += stride.max(1) as u64;
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
    /// Per run: the version generation that installed it (`space::LiveCache::generation`)
    /// and its [`tally_kept`].
    runs: Vec<(u64, HashMap<u64, u64>)>,
    /// A round of the GC thread has collected a file and not yet run out of work.
    collecting: bool,
}

impl GcTallies {
    /// Records a run installed at version generation `generation` with tally `tally`.
    pub fn add(&self, generation: u64, tally: HashMap<u64, u64>) {
        if tally.is_empty() {
            return;
        }
        let mut st = lock(&self.state);
        if st.runs.len() >= MAX_GC_TALLIES {
            // Merged into the newer run: counted until a pass has seen both.
            let (_, oldest) = st.runs.remove(0);
            for (n, c) in oldest {
                *st.runs[0].1.entry(n).or_default() += c;
            }
        }
        st.runs.push((generation, tally));
    }

    /// The stale handles per table: `pass` (a pass's exact counts, made at version
    /// generation `pass_generation`) plus the runs installed after it. Runs the pass saw
    /// are forgotten.
    pub fn with_pass(&self, pass_generation: u64, pass: &HashMap<u64, u64>) -> HashMap<u64, u64> {
        let mut st = lock(&self.state);
        st.runs.retain(|(g, _)| *g > pass_generation);
        let mut all = pass.clone();
        for (n, c) in st.runs.iter().flat_map(|(_, t)| t) {
            *all.entry(*n).or_default() += c;
        }
        all
    }

    /// Whether value GC is collecting: it makes more handles stale with every run, so with
    /// the foreground quiet, refresh compactions take only the stalest tables
    /// ([`MIN_STALE_FRACTION_WHILE_COLLECTING`]) until it is done.
    pub fn collecting(&self) -> bool {
        lock(&self.state).collecting
    }

    /// Says whether the GC thread is in a round that collects.
    pub fn set_collecting(&self, collecting: bool) {
        lock(&self.state).collecting = collecting;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::iter::InternalIterator;
    use crate::key::ParsedKey;
    use crate::{Db, Options};
    use std::sync::Arc;

    #[test]
    fn gc_tallies_add_the_runs_a_pass_has_not_seen() {
        let t = GcTallies::default();
        t.add(3, HashMap::from([(7, 2)]));
        t.add(5, HashMap::from([(7, 1), (8, 4)]));
        let pass = HashMap::from([(9, 1)]);
        let both = HashMap::from([(7, 3), (8, 4), (9, 1)]);
        assert_eq!(t.with_pass(2, &pass), both);
        assert_eq!(
            t.with_pass(3, &pass),
            HashMap::from([(7, 1), (8, 4), (9, 1)]),
            "a pass made at generation 3 saw the first run"
        );
        assert_eq!(t.with_pass(5, &pass), pass, "and one at 5 saw both");
        assert!(
            t.with_pass(2, &HashMap::new()).is_empty(),
            "runs a pass saw are forgotten"
        );
    }

    #[test]
    fn gc_tallies_merge_the_oldest_runs_beyond_their_bound() {
        let t = GcTallies::default();
        let runs = MAX_GC_TALLIES as u64 + 10;
        for g in 1..=runs {
            t.add(g, HashMap::from([(1, 1)]));
        }
        assert_eq!(lock(&t.state).runs.len(), MAX_GC_TALLIES);
        assert_eq!(t.with_pass(0, &HashMap::new())[&1], runs, "nothing lost");
    }

    #[test]
    fn gc_tallies_say_whether_gc_is_collecting() {
        let t = GcTallies::default();
        assert!(!t.collecting());
        t.set_collecting(true);
        assert!(t.collecting());
        t.set_collecting(false);
        assert!(!t.collecting());
    }

    /// Every separated entry of every table below L0, tallied from its key and sequence
    /// number alone, goes to the table that holds it; a key no table holds, or a sequence
    /// number outside the table's range, goes nowhere.
    #[test]
    fn kept_records_are_tallied_by_the_table_that_holds_them() {
        let opts = Options::default()
            .fs(Arc::new(MemFs::new()))
            .gc_enabled(false)
            .inline_threshold(16)
            .target_file_size(16 << 10);
        let db = Db::open(std::path::Path::new("/db"), opts).unwrap();
        for i in 0..2000u32 {
            db.put(format!("k{i:05}"), vec![b'v'; 100]).unwrap();
        }
        db.compact_range(None, None).unwrap();
        // Newer versions of every tenth key, flushed to L0: their sequence numbers lie
        // beyond every deeper table's range.
        for i in (0..2000u32).step_by(10) {
            db.put(format!("k{i:05}"), vec![b'w'; 100]).unwrap();
        }
        db.flush().unwrap();
        let version = Arc::clone(&db.inner.super_version().version);
        let entries_of = |tables: &mut dyn Iterator<Item = &Arc<crate::version::TableFile>>| {
            let mut entries = Vec::new();
            for t in tables {
                let mut it = t.table.iter(false);
                it.seek_to_first().unwrap();
                while it.valid() {
                    let p = ParsedKey::parse(it.key());
                    entries.push((p.user_key.to_vec(), p.seq));
                    it.next().unwrap();
                }
            }
            entries
        };
        let deeper = entries_of(&mut version.levels.iter().skip(1).flatten());
        let expected: HashMap<u64, u64> = version
            .levels
            .iter()
            .skip(1)
            .flatten()
            .map(|t| (t.number(), t.table.properties().num_handles))
            .collect();
        assert!(expected.len() > 1, "several tables below L0");
        assert_eq!(deeper.len(), 2000);
        let tally = tally_kept(&version, deeper.iter().map(|(k, s)| (&k[..], *s)), 1);
        assert_eq!(tally, expected);
        // Sampled, the tables get about their counts, and the total is close.
        let sampled = tally_kept(&version, deeper.iter().map(|(k, s)| (&k[..], *s)), 4);
        let total: u64 = sampled.values().sum();
        assert_eq!(total, 2000);
        assert!(sampled.keys().all(|n| expected.contains_key(n)));
        let l0 = entries_of(&mut version.levels[0].iter());
        assert_eq!(l0.len(), 200, "the newer versions sit in L0");
        let mut elsewhere = l0;
        elsewhere.push((b"absent".to_vec(), 5));
        assert!(tally_kept(&version, elsewhere.iter().map(|(k, s)| (&k[..], *s)), 1).is_empty());
    }
}
