//! Space accounting for `stats`: the live data (one merged pass over the key store's
//! keys, made in the background and cached) and the bytes the directory occupies on disk
//! (allocated blocks).
//!
//! The pass reads every table, so `stats` never makes it: it reads the [`LiveCache`],
//! which the background thread of [`refresh_loop`] keeps fresh. That thread makes a pass
//! when the version changed since the last one (a flush, compaction, value GC or log roll
//! installed a new one) or writes came since (they may sit in the memtable for long), and,
//! after a pass that took `d`, not
//! before `PACING × d` from that pass's start: passes take at most `1 / PACING` of one core.
//! [`refresh`] makes one on demand (`Db::refresh_live_bytes`, and the end of `Db::gc` and
//! `Db::compact_range`).

use super::iter::merged_sources;
use super::range_view::RangeView;
use super::{DbInner, SuperVersion, lock};
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::names::{FileType, parse_file_name};
use crate::iter::InternalIterator;
use crate::key::{EntryKind, ParsedKey, SeqNo, is_expired, split_expiry};
use crate::placement::separated_value_len;
use crate::stats::DiskUsage;
use crate::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A background pass that took `d` allows the next one `PACING × d` after its start.
const PACING: u32 = 10;

/// How long the background thread sleeps at most before it looks again.
const IDLE_WAIT: Duration = Duration::from_secs(1);

/// Entries the pass walks between two checks for shutdown.
const STOP_CHECK_EVERY: u32 = 4096;

/// The user's data as the key store holds it: the newest version of every key.
#[derive(Debug, Default)]
pub(crate) struct LiveData {
    /// Key + value bytes of every key whose newest version is not a tombstone.
    pub bytes: u64,
    /// Keys whose newest version is not a tombstone (nor expired).
    pub keys: u64,
    /// Of those, the keys whose newest version has an expiry time.
    pub expiring_keys: u64,
    /// The earliest expiry time among them: once the clock reaches it, the pass is out of
    /// date even if nothing was written (`refresh_loop` makes another).
    pub next_expiry: Option<u64>,
    /// Per value file: bytes of the separated entries those newest versions point at
    /// (whole entries, as the file stores them).
    pub separated: BTreeMap<u64, u64>,
    /// Key-store bytes (user key and the value or handle as the entry holds it) of the
    /// versions older than a key's newest, and of newest versions that are tombstones:
    /// garbage in the key store itself (inline values above all), which only a compaction
    /// removes. Memtable entries are counted too.
    pub shadowed: u64,
    /// Per table below L0: newest versions whose handle names an older epoch of its value
    /// file than the pass's version holds (`stale::StaleTally`), for refresh compactions.
    pub stale_handles: HashMap<u64, u64>,
}

impl LiveData {
    fn count_expiry(&mut self, expires_at: Option<u64>) {
        if let Some(at) = expires_at {
            self.expiring_keys += 1;
            self.next_expiry = Some(self.next_expiry.map_or(at, |n| n.min(at)));
        }
    }
}

/// Walks every entry of `sv` once, in key order, and counts the newest version of each
/// key: a tombstone counts nothing, an inline value its key and value, a handle its key
/// and the value length its entry holds. Older versions are skipped whether compaction
/// has dropped them yet or not, so the figure is exact, not an estimate; the cost is a
/// read of every table (without filling the block cache) — the key store only, since
/// separated values are not read. `None` if `stop` said to stop before the end.
///
/// A newest version expired at `now` counts as a tombstone does: key-store garbage, and
/// its separated value not live.
pub(crate) fn live_data(
    sv: &SuperVersion,
    now: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Option<LiveData>> {
    let source = Path::new("key store");
    let mut live = LiveData::default();
    let ranges = RangeView::of(sv, crate::key::MAX_SEQNO);
    let mut it = merged_sources(sv, false);
    let tally = super::stale::StaleTally::new(sv);
    it.seek_to_first()?;
    let mut last_key: Option<Vec<u8>> = None;
    let mut until_check = STOP_CHECK_EVERY;
    while it.valid() {
        until_check -= 1;
        if until_check == 0 {
            if stop() {
                return Ok(None);
            }
            until_check = STOP_CHECK_EVERY;
        }
        let p = ParsedKey::parse(it.key());
        if last_key.as_deref() == Some(p.user_key) {
            live.shadowed += (p.user_key.len() + it.value().len()) as u64;
        } else {
            let key = last_key.get_or_insert_with(Vec::new);
            key.clear();
            key.extend_from_slice(p.user_key);
            let key_len = p.user_key.len() as u64;
            let (expires_at, value) = split_expiry(p.kind, it.value()).map_err(|_| {
                Error::corruption(source, 0, "an expiring entry too short for its expiry time")
            })?;
            match p.entry_kind() {
                Some(EntryKind::Delete) => live.shadowed += key_len,
                Some(_) if ranges.hiding(p.user_key, p.seq).is_some() => {
                    live.shadowed += key_len + it.value().len() as u64;
                }
                Some(_) if is_expired(expires_at, now) => {
                    live.shadowed += key_len + it.value().len() as u64;
                }
                Some(EntryKind::Inline) => {
                    live.bytes += key_len + value.len() as u64;
                    live.keys += 1;
                    live.count_expiry(expires_at);
                }
                Some(EntryKind::Handle) => {
                    live.count_expiry(expires_at);
                    let h = ValueHandle::decode(value).map_err(|e| {
                        Error::corruption(source, 0, format!("bad value handle: {}", e.what))
                    })?;
                    let value_len = separated_value_len(h.len, p.user_key.len())
                        .ok_or_else(|| {
                            Error::corruption(
                                source,
                                0,
                                format!(
                                    "value handle of length {} cannot hold a key of {key_len} bytes",
                                    h.len
                                ),
                            )
                        })?;
                    live.bytes += key_len + value_len;
                    live.keys += 1;
                    *live.separated.entry(h.file).or_default() += u64::from(h.len);
                    tally.count(it.current_child(), p.user_key, &h, &mut live.stale_handles);
                }
                None => {
                    return Err(Error::corruption(
                        source,
                        0,
                        format!("entry of unknown kind {}", p.kind),
                    ));
                }
            }
        }
        it.next()?;
    }
    Ok(Some(live))
}

/// Separated bytes that no drop record marks dead yet and that no newest version points at,
/// in every value file of `state`: garbage only a compaction can make collectable. Measured
/// against `live`, a pass that may be older than `state`; the drop counts are `state`'s, so
/// a compaction since the pass lowers the figure at once.
pub(crate) fn shadowed_bytes(
    state: &crate::version::VersionState,
    version: &crate::version::Version,
    live: &LiveData,
) -> u64 {
    state
        .value_files
        .iter()
        .filter_map(|(number, f)| {
            let file = version.value_files.get(number)?;
            let not_dropped = file.separated_bytes().saturating_sub(f.dropped_bytes);
            let live_here = live.separated.get(number).copied().unwrap_or(0);
            Some(not_dropped.saturating_sub(live_here))
        })
        .sum()
}

/// One pass behind the cached figure.
#[derive(Debug, Clone)]
pub(crate) struct Pass {
    /// The live data, or why the pass failed.
    pub outcome: std::result::Result<Arc<LiveData>, String>,
    /// The version generation ([`LiveCache::generation`]) of the super version it read.
    pub generation: u64,
    /// The visible sequence number when it started: every write up to it is counted.
    pub seq: SeqNo,
    /// `Counters::user_bytes` when it started: what users wrote before it.
    pub user_bytes: u64,
    /// Separated bytes written to each value file when it started (read just before its
    /// sequence): what it can have counted of a file written since.
    pub separated_then: HashMap<u64, u64>,
    /// When it started.
    pub started: Instant,
    /// How long it took.
    pub took: Duration,
}

/// The newest live-data pass, and the version generation it is measured against.
#[derive(Debug, Default)]
pub(crate) struct LiveCache {
    /// Bumped each time a super version with a different version is published (under
    /// `sv_lock`).
    generation: AtomicU64,
    /// The newest pass. A leaf lock: nothing else is taken while it is held.
    last: Mutex<Option<Pass>>,
}

/// Whether the background should make a pass.
enum Due {
    /// Now.
    Now,
    /// Not before this much time.
    After(Duration),
    /// Nothing changed since the last pass.
    No,
}

impl LiveCache {
    /// Called when a new version is published. REQUIRES: `sv_lock` held.
    pub fn version_changed(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// The current version generation. Read it under `sv_lock` to pair it with a super
    /// version.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    /// The newest pass, if one was made.
    pub fn last(&self) -> Option<Pass> {
        lock(&self.last).clone()
    }

    /// Keeps `pass` unless a pass of a newer state is already cached.
    fn store(&self, pass: Pass) {
        let mut last = lock(&self.last);
        let newer = last
            .as_ref()
            .is_none_or(|l| (pass.generation, pass.seq) >= (l.generation, l.seq));
        if newer {
            *last = Some(pass);
        }
    }

    /// Whether a pass is due at `now`, with `seq` the visible sequence number and
    /// `clock` the expiry clock's time: a key the last pass counted live may have expired.
    fn due(&self, now: Instant, seq: SeqNo, clock: u64) -> Due {
        let last = lock(&self.last);
        let Some(l) = last.as_ref() else {
            return Due::Now;
        };
        let expired = l
            .outcome
            .as_ref()
            .is_ok_and(|live| live.next_expiry.is_some_and(|at| at <= clock));
        if l.generation == self.generation() && l.seq >= seq && !expired {
            return Due::No;
        }
        let allowed = l.started + l.took * PACING;
        match allowed.checked_duration_since(now) {
            Some(wait) if !wait.is_zero() => Due::After(wait),
            _ => Due::Now,
        }
    }
}

/// The current super version with its version generation and visible sequence number,
/// read together.
pub(crate) fn current(inner: &DbInner) -> (Arc<SuperVersion>, u64, SeqNo) {
    let _g = lock(&inner.sv_lock);
    (
        inner.super_version(),
        inner.live_cache.generation(),
        inner.visible_seq.load(Ordering::Acquire),
    )
}

/// Makes a pass over the current state and caches it (a failure too); returns the live
/// data. `Ok(None)` if the database began closing meanwhile.
fn pass(inner: &DbInner) -> Result<Option<Arc<LiveData>>> {
    let separated_then = inner
        .super_version()
        .version
        .value_files
        .iter()
        .map(|(&n, f)| (n, f.separated_bytes()))
        .collect();
    let (sv, generation, seq) = current(inner);
    let user_bytes = inner.counters.user_bytes.load(Ordering::Relaxed);
    let started = Instant::now();
    let stop = || super::background::shutting_down(inner);
    let now = inner.opts.clock.now_millis();
    let (outcome, result) = match live_data(&sv, now, &stop) {
        Ok(Some(live)) => {
            let live = Arc::new(live);
            (Ok(Arc::clone(&live)), Ok(Some(live)))
        }
        Ok(None) => return Ok(None),
        Err(e) => (Err(e.to_string()), Err(e)),
    };
    drop(sv);
    inner.live_cache.store(Pass {
        outcome,
        generation,
        seq,
        user_bytes,
        separated_then,
        started,
        took: started.elapsed(),
    });
    result
}

/// Makes a pass now (whatever the cache holds) and caches it: the exact live data of the
/// current state, or the error that stopped the pass.
pub(crate) fn refresh(inner: &DbInner) -> Result<Arc<LiveData>> {
    pass(inner)?.ok_or_else(|| Error::ReadOnly("the database is closing".to_string()))
}

/// The background thread: a pass whenever the version changed or writes came since the
/// last one (writes that stay in the memtable change no version), or a key it counted live
/// has expired since, paced
/// (see the module docs), until shutdown. A failed pass is cached like a good one (stats
/// say why) and retried at the next version.
pub(crate) fn refresh_loop(inner: &DbInner) {
    loop {
        {
            let st = lock(&inner.bg.state);
            if st.shutting_down {
                return;
            }
            let seq = inner.visible_seq.load(Ordering::Acquire);
            let clock = inner.opts.clock.now_millis();
            let wait = match inner.live_cache.due(Instant::now(), seq, clock) {
                Due::Now => None,
                Due::After(d) => Some(d.min(IDLE_WAIT)),
                Due::No => Some(IDLE_WAIT),
            };
            if let Some(wait) = wait {
                drop(inner.bg.wait(st, wait));
                continue;
            }
        }
        // A failure is in the cache; the database itself is not affected.
        let _ = pass(inner);
    }
}

/// Allocated bytes of every file in the database's directory, by kind.
pub(crate) fn disk_usage(inner: &DbInner) -> Result<DiskUsage> {
    let mut d = DiskUsage::default();
    for name in inner.fs.list_dir(&inner.dir).ctx("list", &inner.dir)? {
        let path = inner.dir.join(&name);
        // A file deleted between listing and stat is simply not counted.
        let Ok(size) = inner.fs.allocated_bytes(&path) else {
            continue;
        };
        match parse_file_name(&name).map(|(k, _)| k) {
            Some(FileType::Table) => d.tables += size,
            Some(FileType::ValueLog | FileType::SvTable) => d.value_files += size,
            Some(FileType::Drops) => d.drop_files += size,
            Some(FileType::Manifest | FileType::Current) => d.manifest += size,
            _ => d.other += size,
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass_at(generation: u64, started: Instant, took: Duration) -> Pass {
        Pass {
            outcome: Ok(Arc::new(LiveData::default())),
            generation,
            seq: 0,
            user_bytes: 0,
            separated_then: HashMap::new(),
            started,
            took,
        }
    }

    #[test]
    fn a_pass_is_due_once_per_version_and_paced_by_the_last_ones_cost() {
        let cache = LiveCache::default();
        let now = Instant::now();
        assert!(matches!(cache.due(now, 0, 0), Due::Now), "no pass yet");
        cache.store(pass_at(0, now, Duration::from_secs(1)));
        assert!(matches!(cache.due(now, 0, 0), Due::No), "same version");
        cache.version_changed();
        // A pass that took 1 s allows the next 10 s after its start.
        match cache.due(now + Duration::from_secs(4), 0, 0) {
            Due::After(d) => assert_eq!(d, Duration::from_secs(6)),
            _ => panic!("the pass must wait"),
        }
        assert!(matches!(
            cache.due(now + Duration::from_secs(10), 0, 0),
            Due::Now
        ));
        // An older state never replaces a newer one.
        cache.store(pass_at(1, now, Duration::ZERO));
        cache.store(pass_at(0, now, Duration::ZERO));
        assert_eq!(cache.last().map(|p| p.generation), Some(1));
        assert!(matches!(cache.due(now, 0, 0), Due::No));
        // Writes since the pass (in the memtable: no new version) make one due too.
        assert!(matches!(cache.due(now, 5, 0), Due::Now));
    }
}
