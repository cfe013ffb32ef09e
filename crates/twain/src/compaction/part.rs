//! Running one compaction part (`compaction::job`): the merge loop over the entries of the
//! job's input tables whose user keys lie in its range, writing its own output tables,
//! drop records and placed value file. It reaches nothing but the job and its
//! [`PartEnv`]; `db::compact` runs a task's parts in parallel and installs what they
//! return in one version edit.

use super::filter::{Decision, DropFilter};
use super::job::{PartEnv, PartFigures, PartJob, PartOutcome};
use super::place::{Placed, Placer};
use super::refresh::Refresher;
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::manifest::TableRecord;
use crate::format::names::{FileType, file_path};
use crate::iter::{InternalIterator, LevelIterator, MergingIterator};
use crate::key::{
    EntryKind, LOOKUP_KIND, MAX_SEQNO, ParsedKey, compare_internal, internal_key, split_expiry,
    user_key,
};
use crate::table::TableBuilder;
use crate::vlog::DropWriter;
use crate::{Error, Result};
use std::path::PathBuf;

/// How a part ended.
#[derive(Debug)]
pub enum PartEnd {
    /// It ran to its end; nothing of it is installed yet.
    Done(Box<PartOutcome>),
    /// Its environment said to stop (the database is closing, another part failed).
    Stopped,
}

/// Runs `job` in `env`. Every file it creates is pushed to `written` as it is created,
/// whatever happens after, so that a caller can remove them if the part is not installed.
pub fn run_part(
    job: &PartJob,
    env: &dyn PartEnv,
    written: &mut Vec<(u64, PathBuf)>,
) -> Result<PartEnd> {
    let mut placer = Placer::new(job, env);
    let mut figures = PartFigures::default();
    let result = merge(job, env, &mut placer, &mut figures, written);
    written.extend(placer.output_path());
    let Some((tables, drops)) = result? else {
        return Ok(PartEnd::Stopped);
    };
    let placed = placer.finish()?;
    Ok(PartEnd::Done(Box::new(PartOutcome {
        tables,
        drops,
        placed,
        figures,
    })))
}

/// Output table numbers: the job's reserved ones but the last (kept for a placed value
/// file), then whatever the environment gives.
struct Numbers {
    next: u64,
    end: u64,
}

impl Numbers {
    fn new(job: &PartJob) -> Numbers {
        Numbers {
            next: job.numbers.start,
            end: job.numbers.end.saturating_sub(1).max(job.numbers.start),
        }
    }

    fn take(&mut self, env: &dyn PartEnv) -> Result<u64> {
        if self.next < self.end {
            self.next += 1;
            return Ok(self.next - 1);
        }
        env.extra_file_number()
    }
}

fn merge(
    job: &PartJob,
    env: &dyn PartEnv,
    placer: &mut Placer<'_>,
    figures: &mut PartFigures,
    written: &mut Vec<(u64, PathBuf)>,
) -> Result<Option<(Vec<TableRecord>, DropWriter)>> {
    let out_level = job.output_level;
    let mut numbers = Numbers::new(job);
    let mut refresher = Refresher::new(job, env);
    let mut input = input_iterator(job, env)?;
    let mut filter = DropFilter::new(job.snapshots.clone()).expiring_at(job.now);
    let mut tombstone = Vec::new();
    let mut drops = DropWriter::new();
    let mut outputs: Vec<TableRecord> = Vec::new();
    let mut builder: Option<(u64, TableBuilder)> = None;
    let mut last_user_key: Vec<u8> = Vec::new();
    let mut entries = 0u64;
    match &job.range.start {
        // The newest version of the first key sorts first.
        Some(start) => input.seek(&internal_key(start, MAX_SEQNO, LOOKUP_KIND))?,
        None => input.seek_to_first()?,
    }
    while input.valid() {
        let key = input.key();
        if job.range.is_past(user_key(key)) {
            break;
        }
        entries += 1;
        if entries.is_multiple_of(4096) {
            env.pace();
            if env.stopped() {
                return Ok(None);
            }
        }
        let decision = filter.decide(key, input.value(), |uk| !job.deeper_may_hold(uk));
        if decision == Decision::Expire {
            // Its value goes; a tombstone at its sequence takes its place.
            record_drop(&mut drops, key, input.value())?;
            let p = ParsedKey::parse(key);
            tombstone = internal_key(p.user_key, p.seq, EntryKind::Delete as u8);
        }
        let (key, value) = match decision {
            Decision::Expire => (&tombstone[..], &[][..]),
            _ => (key, input.value()),
        };
        match decision {
            Decision::Keep | Decision::Expire => {
                let uk = user_key(key);
                // Cut output files only between user keys, never between versions of one.
                let cut = builder.as_ref().is_some_and(|(_, b)| {
                    b.estimated_size() >= job.settings.target_file_size && uk != last_user_key
                });
                if cut && let Some((number, b)) = builder.take() {
                    outputs.push(finish_table(b, number, out_level)?);
                }
                let (_, b) = match builder.as_mut() {
                    Some(b) => b,
                    None => {
                        let number = numbers.take(env)?;
                        let path = file_path(env.dir(), FileType::Table, number);
                        let file = env.fs().create_new(&path).ctx("create", &path)?;
                        written.push((number, path.clone()));
                        builder.insert((number, TableBuilder::new(file, path, &job.settings.table)))
                    }
                };
                let last = || !job.deeper_may_hold(uk);
                let placed = match placer.place(key, value, out_level, last, &mut drops, figures)? {
                    // Stale handles re-pointed at their file's new epoch
                    // (`compaction::refresh`).
                    Placed::Same => refresher
                        .refresh(key, value, figures)?
                        .map_or(Placed::Same, |v| Placed::Changed(key.to_vec(), v)),
                    changed => changed,
                };
                match placed {
                    Placed::Same => b.add(key, value)?,
                    Placed::Changed(k, v) => b.add(&k, &v)?,
                }
                last_user_key.clear();
                last_user_key.extend_from_slice(uk);
            }
            Decision::Drop => record_drop(&mut drops, key, input.value())?,
            Decision::Duplicate => {}
        }
        input.next()?;
    }
    if let Some((number, b)) = builder.take() {
        outputs.push(finish_table(b, number, out_level)?);
    }
    figures.expired_entries = filter.expired();
    figures.table_bytes_written = outputs.iter().map(|t| t.file_size).sum();
    Ok(Some((outputs, drops)))
}

pub(crate) fn input_iterator(job: &PartJob, env: &dyn PartEnv) -> Result<MergingIterator> {
    let open = |records: &[TableRecord]| -> Result<Vec<_>> {
        records.iter().map(|r| env.table(r)).collect()
    };
    let in_key_order = |mut tables: Vec<std::sync::Arc<crate::version::TableFile>>| {
        tables.sort_by(|a, b| compare_internal(&a.record.smallest, &b.record.smallest));
        tables
    };
    let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
    if job.level == 0 {
        // L0 tables overlap: each is its own child, newest flush (highest number) first,
        // as in the version (`VersionState`): a table of fix-ups holds old sequences that
        // must shadow their stale originals, so sequences cannot order them.
        let mut upper = open(&job.inputs)?;
        upper.sort_by_key(|t| std::cmp::Reverse(t.number()));
        for t in upper {
            children.push(Box::new(t.table.iter(false)));
        }
    } else {
        let upper = in_key_order(open(&job.inputs)?);
        children.push(Box::new(LevelIterator::new(upper, false)));
    }
    let lower = in_key_order(open(&job.lower)?);
    children.push(Box::new(LevelIterator::new(lower, false)));
    Ok(MergingIterator::new(children))
}

/// Records the drop of `ikey`'s value handle, if it holds one.
pub(crate) fn record_drop(drops: &mut DropWriter, ikey: &[u8], value: &[u8]) -> Result<()> {
    let p = ParsedKey::parse(ikey);
    if p.entry_kind() == Some(EntryKind::Handle) {
        let (_, encoded) = split_expiry(p.kind, value).map_err(|_| {
            Error::InvalidArgument("an expiring entry too short for its expiry time".into())
        })?;
        let h = ValueHandle::decode(encoded).map_err(|e| {
            Error::InvalidArgument(format!(
                "undecodable value handle while dropping: {}",
                e.what
            ))
        })?;
        drops.add(h.file, p.seq, h.epoch, h.len, p.user_key);
    }
    Ok(())
}

/// Finishes table `number` for `level` and returns its manifest record.
pub(crate) fn finish_table(b: TableBuilder, number: u64, level: usize) -> Result<TableRecord> {
    let s = b.finish()?;
    Ok(TableRecord {
        level,
        number,
        file_size: s.file_size,
        smallest: s.smallest,
        largest: s.largest,
        smallest_seq: s.properties.smallest_seq,
        largest_seq: s.properties.largest_seq,
    })
}
