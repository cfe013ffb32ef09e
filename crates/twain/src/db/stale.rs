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

use super::SuperVersion;
use crate::format::handle::ValueHandle;
use crate::version::Version;
use std::collections::HashMap;
use std::time::Duration;

/// A table qualifies for a refresh compaction when at least this share of its handles is
/// stale (and at least one is).
pub(crate) const MIN_STALE_FRACTION: f64 = 0.125;

/// Under load, a refresh compaction that took `d` allows the next this many `d` after its
/// start.
pub(crate) const BUSY_SPACING: u32 = 5;

/// Under load, a refresh compaction needs at least this many SVTable searches by reads
/// since the last one: refreshing helps only reads, and a write-only load makes none.
pub(crate) const BUSY_MIN_SEARCHES: u64 = 1024;

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

/// The tables of `version` worth a refresh compaction, by `stale` (a pass's counts, table
/// number → stale handles): at least [`MIN_STALE_FRACTION`] of their handles stale.
/// Tables the pass counted that the version no longer holds are left out.
pub(crate) fn candidates(version: &Version, stale: &HashMap<u64, u64>) -> HashMap<u64, u64> {
    version
        .levels
        .iter()
        .skip(1)
        .flatten()
        .filter_map(|t| {
            let &n = stale.get(&t.number())?;
            let handles = t.table.properties().num_handles;
            (n > 0 && n as f64 >= MIN_STALE_FRACTION * handles as f64).then_some((t.number(), n))
        })
        .collect()
}

/// When the next refresh compaction may start under load, after one that started at
/// `started` and took `took`.
pub(crate) fn next_busy_start(started: std::time::Instant, took: Duration) -> std::time::Instant {
    started + took * BUSY_SPACING
}
