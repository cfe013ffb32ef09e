//! The host side of compaction parts: [`plan`] describes a task's parts as jobs
//! (`compaction::job`) from the version and the options, and [`VersionEnv`] is the
//! environment they run in here: the open tables and value files of the version they were
//! planned on, the drop index and the version set's file numbers; it stops them when the
//! database closes or another part of their task failed.

use super::background::shutting_down;
use super::{DbInner, lock};
use crate::compaction::job::HashForward;
use crate::compaction::job::{ManualRange, PartEnv, PartJob, PartSettings};
use crate::compaction::picker::CompactionTask;
use crate::compaction::split::split;
use crate::format::manifest::{TableRecord, ValueFileOrigin};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::key::user_key;
use crate::version::{TableFile, Version};
use crate::vlog::ValueFile;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The parts of `task` over `version`: split by key range (`compaction::split`), each
/// with its own reserved output file numbers.
pub(crate) fn plan(
    inner: &DbInner,
    task: &CompactionTask,
    version: &Version,
    manual: Option<ManualRange>,
) -> Vec<PartJob> {
    let opts = &inner.opts;
    let ranges = split(task, opts.max_subcompactions, opts.target_file_size / 4);
    let mut settings = PartSettings::from_options(opts);
    settings.table.compression = opts.compression_at(task.output_level);
    let value_files: BTreeMap<u64, (u32, ValueFileOrigin)> = version
        .value_files
        .iter()
        .map(|(&n, f)| {
            let origin = version
                .state
                .value_files
                .get(&n)
                .map_or(ValueFileOrigin::Log, |s| s.origin);
            (n, (f.epoch(), origin))
        })
        .collect();
    let hash_forward = version.state.hash_groups.map(|groups| HashForward {
        groups,
        chains: version.state.hash_chains(),
    });
    let snapshots = inner.snapshot_seqs();
    let now = inner.opts.clock.now_millis();
    // Outputs of a part: about its share of the inputs in tables of the target size, one
    // more for the remainder, one for a placed value file (more are taken if needed).
    let share = task.input_bytes() / ranges.len() as u64;
    let reserve = share / opts.target_file_size.max(1) + 2;
    ranges
        .into_iter()
        .map(|range| {
            let overlaps = |t: &TableRecord| {
                range
                    .start
                    .as_deref()
                    .is_none_or(|s| user_key(&t.largest) >= s)
                    && !range.is_past(user_key(&t.smallest))
            };
            let deeper = version.state.levels[task.output_level + 1..]
                .iter()
                .map(|tables| {
                    tables
                        .iter()
                        .filter(|t| overlaps(t))
                        .map(|t| {
                            (
                                user_key(&t.smallest).to_vec(),
                                user_key(&t.largest).to_vec(),
                            )
                        })
                        .collect()
                })
                .collect();
            let first = lock(&inner.versions).new_file_numbers(reserve);
            PartJob {
                level: task.level,
                output_level: task.output_level,
                inputs: task.inputs.clone(),
                lower: task.lower.clone(),
                range,
                snapshots: snapshots.clone(),
                deeper,
                value_files: value_files.clone(),
                settings: settings.clone(),
                manual: manual.clone(),
                numbers: first..first + reserve,
                now,
                hash_forward: hash_forward.clone(),
            }
        })
        .collect()
}

/// A part's view of the database, for one task.
pub(crate) struct VersionEnv<'a> {
    pub inner: &'a DbInner,
    pub version: &'a Version,
    /// Set when a part of the task failed.
    pub stop: &'a AtomicBool,
    /// The pacing of an automatic garbage or expiry compaction; none for the
    /// compactions that keep the tree in shape and for manual ones.
    pub pace: Option<&'a super::pacing::CompactionPace<'a>>,
}

impl PartEnv for VersionEnv<'_> {
    fn fs(&self) -> &Arc<dyn Fs> {
        &self.inner.fs
    }

    fn dir(&self) -> &Path {
        &self.inner.dir
    }

    fn table(&self, record: &TableRecord) -> Result<Arc<TableFile>> {
        self.version
            .levels
            .get(record.level)
            .and_then(|files| files.iter().find(|t| t.number() == record.number))
            .cloned()
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "compaction input table {} is not in L{} of its version",
                    record.number, record.level
                ))
            })
    }

    fn value_file(&self, number: u64, epoch: u32) -> Result<Option<Arc<ValueFile>>> {
        Ok(self
            .version
            .value_files
            .get(&number)
            .filter(|f| f.epoch() == epoch)
            .cloned())
    }

    fn is_dropped(&self, number: u64, epoch: u32, seq: SeqNo) -> Result<bool> {
        Ok(self.inner.drop_index.is_dropped(number, epoch, seq))
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || shutting_down(self.inner)
    }

    fn pace(&self) {
        if let Some(pace) = self.pace {
            pace.check();
        }
    }

    fn extra_file_number(&self) -> Result<u64> {
        Ok(lock(&self.inner.versions).new_file_number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::files_env::FilesEnv;
    use crate::compaction::job::PartOutcome;
    use crate::compaction::part::{PartEnd, run_part};
    use crate::compaction::picker::pick_range;
    use crate::fs::MemFs;
    use crate::iter::InternalIterator;
    use crate::{Db, Options};
    use std::collections::HashSet;

    fn entries(fs: &Arc<dyn Fs>, outcome: &PartOutcome) -> Vec<(Vec<u8>, Vec<u8>)> {
        let cache = Arc::new(crate::cache::BlockCache::new(1 << 20));
        let mut out = Vec::new();
        for record in &outcome.tables {
            let t = TableFile::open(fs, Path::new("/db"), record.clone(), &cache).unwrap();
            let mut it = t.table.iter(false);
            it.seek_to_first().unwrap();
            while it.valid() {
                out.push((it.key().to_vec(), it.value().to_vec()));
                it.next().unwrap();
            }
        }
        out
    }

    fn done(end: Result<PartEnd>) -> PartOutcome {
        match end.unwrap() {
            PartEnd::Done(o) => *o,
            PartEnd::Stopped => panic!("the part stopped"),
        }
    }

    /// A part run through the file system alone, as a worker in another process would
    /// run it, writes the same entries and drop records as the same part run with the
    /// database's state at hand: the job describes everything the merge needs.
    #[test]
    fn a_part_runs_from_its_description_and_the_files_alone() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let opts = Options {
            fs: Arc::clone(&fs),
            inline_threshold: 64,
            target_file_size: 4 << 10,
            l0_compaction_trigger: 100,
            l0_slowdown_trigger: 200,
            l0_stop_trigger: 300,
            max_subcompactions: 3,
            value_file_size: 16 << 10,
            gc_threshold: 0.9,
            gc_enabled: false,
            ..Options::default()
        };
        let db = Db::open("/db", opts).unwrap();
        let round = |r: u32| {
            for i in 0..300u32 {
                let k = format!("k{:04}", (i * 7 + r * 13) % 500);
                if (i + r).is_multiple_of(9) {
                    db.delete(&k).unwrap();
                } else {
                    let len = if i.is_multiple_of(3) { 200 } else { 20 };
                    db.put(&k, vec![(r * 31 + i) as u8; len]).unwrap();
                }
            }
            db.flush().unwrap();
        };
        // Tables in L1 whose handles value GC then leaves stale (their files rewritten
        // at a new epoch), under L0 tables that overlap them: the parts re-point handles,
        // which asks the drop sets.
        (0..4).for_each(round);
        db.compact_range(None, None).unwrap();
        assert!(db.gc().unwrap() > 0, "value GC rewrote no file");
        // Sparse overwrites over the whole key range: most L1 entries stay live.
        for r in 0..3u32 {
            for i in (r..500).step_by(25) {
                db.put(format!("k{i:04}"), vec![r as u8; 30]).unwrap();
            }
            db.flush().unwrap();
        }
        let inner = &db.inner;
        let version = Arc::clone(&inner.super_version().version);
        let shape = crate::db::background::shape(inner);
        let mut task =
            pick_range(&version.state, &shape, 0, b"", b"\xff", &HashSet::new()).unwrap();
        task.trivial_move = false;
        let jobs = plan(inner, &task, &version, None);
        assert!(jobs.len() >= 2, "{} part(s)", jobs.len());
        let stop = AtomicBool::new(false);
        let host = VersionEnv {
            inner,
            version: &version,
            stop: &stop,
            pace: None,
        };
        let worker = FilesEnv::new(Arc::clone(&fs), Path::new("/db"));
        let (mut total, mut refreshed) = (0, 0);
        for job in &jobs {
            let (mut here_files, mut there_files) = (Vec::new(), Vec::new());
            let mut here = done(run_part(job, &host, &mut here_files));
            // The worker writes its outputs under numbers reserved for it.
            let mut elsewhere = job.clone();
            let n = job.numbers.end - job.numbers.start;
            let first = lock(&inner.versions).new_file_numbers(n);
            elsewhere.numbers = first..first + n;
            let mut there = done(run_part(&elsewhere, &worker, &mut there_files));
            let (a, b) = (entries(&fs, &here), entries(&fs, &there));
            assert!(!a.is_empty());
            assert_eq!(a, b);
            assert_eq!(here.drops.take(), there.drops.take());
            assert_eq!(here.figures, there.figures);
            assert!(
                there
                    .tables
                    .iter()
                    .all(|t| elsewhere.numbers.contains(&t.number))
            );
            total += a.len();
            refreshed += here.figures.handle_refreshes;
            for (_, path) in here_files.iter().chain(&there_files) {
                fs.remove_file(path).unwrap();
            }
        }
        assert!(total > 0);
        assert!(refreshed > 0, "no stale handle was re-pointed");
        // A worker never takes a number it was not given.
        let mut starved = jobs[0].clone();
        starved.numbers = 0..0;
        let err = run_part(&starved, &worker, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("reserved"), "{err}");
    }
}
