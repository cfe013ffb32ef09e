//! Placement inside a compaction (Parallax): medium values merged into the tree at the merge
//! level, and entries re-placed when the thresholds changed.
//!
//! For every entry a compaction keeps, [`Placer::place`] decides (`placement::Placement::
//! action`) whether it goes out as it came, with its handle's value read and written
//! inline, or with its inline value moved into a value file the compaction writes (an
//! SVTable born at epoch 1, origin `Placed`). A value merged inline drops its record, so a
//! transient file whose values have all been merged or dropped is deleted whole.
//!
//! **Why merging needs care.** Value GC's lazy fix-ups give a record a second entry (same
//! key and sequence, a newer epoch of the same file), and lsm-lookup relocation one pointing
//! into another file. Dropping the record for one entry would leave the other pointing at a
//! dead record; and an inline entry and a handle with the same key and sequence must never
//! both exist (the handle sorts first and would win). A transient file's records have no
//! copies, so automatic compactions merge them: only while the file is at the epoch it was
//! born with (always, as GC never rewrites a transient file), with drops conditional on that
//! epoch (`DropWriter::require_epoch`: if the file moved meanwhile, the compaction is
//! discarded and picked again later). Any other handle — a value separated under other
//! thresholds, re-placed into the tree — is merged only by a manual compaction, and only
//! where no deeper level may hold its key (every copy is then in the same merge). A manual
//! compaction (`Db::compact_range`) pauses fix-ups, flushes,
//! and merges level by level down to the last: by the time it writes a key into the last
//! level every copy of its records is in that merge, so there it merges any handle (an
//! inline entry and a handle with the same key and sequence must never both exist: the
//! handle sorts first and would win). Reads never fix a handle up to a dropped record.

use super::job::{ManualRange, PartEnv, PartFigures, PartJob};
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::manifest::{ValueFileOrigin, ValueFileRecord};
use crate::format::names::value_file_path;
use crate::key::{
    EXPIRY_LEN, EntryKind, ParsedKey, append_expiring_value, internal_key, put_kind, split_expiry,
};
use crate::placement::{Action, Placement, separated_value_len};
use crate::vlog::{DropWriter, SvTableWriter};
use crate::{Error, Result};
use std::path::PathBuf;

/// An entry as the compaction writes it.
pub(crate) enum Placed {
    /// As it came.
    Same,
    /// With this internal key and value instead.
    Changed(Vec<u8>, Vec<u8>),
}

/// The placement work of one compaction part.
pub(crate) struct Placer<'a> {
    job: &'a PartJob,
    env: &'a dyn PartEnv,
    placement: Placement,
    /// The key range of a manual compaction (fix-ups paused, every level merged down in
    /// it): inside it any handle may be merged. `None` for an automatic compaction.
    manual: Option<&'a ManualRange>,
    /// The value file for values re-placed out of the tree, once one is needed.
    out: Option<(u64, PathBuf, SvTableWriter)>,
}

impl<'a> Placer<'a> {
    /// Placement for the part `job`.
    pub fn new(job: &'a PartJob, env: &'a dyn PartEnv) -> Placer<'a> {
        Placer {
            job,
            env,
            placement: job.settings.placement,
            manual: job.manual.as_ref(),
            out: None,
        }
    }

    /// Decides how the kept entry `ikey -> value` goes into `level`; `last` tells whether
    /// no deeper level may hold its key (asked only for medium handles). Merging a handle
    /// records its drop in `drops`.
    pub fn place(
        &mut self,
        ikey: &[u8],
        value: &[u8],
        level: usize,
        last: impl Fn() -> bool,
        drops: &mut DropWriter,
        figures: &mut PartFigures,
    ) -> Result<Placed> {
        let p = ParsedKey::parse(ikey);
        // Whatever moves keeps its expiry time; a damaged one stays where reads report it.
        let Ok((expires_at, value)) = split_expiry(p.kind, value) else {
            return Ok(Placed::Same);
        };
        match p.entry_kind() {
            Some(EntryKind::Handle) => {
                let to = (level, expires_at);
                self.place_handle(&p, value, to, last, drops, figures)
            }
            // The hash layout separates only at the flush, into the key's group: a value
            // file of this compaction's would be collected by nothing (no per-file GC runs
            // there), so an inline pair that became large stays inline.
            Some(EntryKind::Inline) if self.job.hash_forward.is_some() => Ok(Placed::Same),
            Some(EntryKind::Inline) => {
                let merge = false; // an inline value is never affected by the merge level
                if self
                    .placement
                    .action(false, p.user_key.len(), value.len(), merge)
                    != Action::Separate
                {
                    return Ok(Placed::Same);
                }
                self.separate(&p, value, expires_at, figures)
            }
            _ => Ok(Placed::Same),
        }
    }

    fn place_handle(
        &mut self,
        p: &ParsedKey<'_>,
        value: &[u8],
        (level, expires_at): (usize, Option<u64>),
        last: impl Fn() -> bool,
        drops: &mut DropWriter,
        figures: &mut PartFigures,
    ) -> Result<Placed> {
        let Ok(h) = ValueHandle::decode(value) else {
            // A damaged handle stays as it is: reads report it.
            return Ok(Placed::Same);
        };
        let Some(value_len) = separated_value_len(h.len, p.user_key.len()) else {
            return Ok(Placed::Same);
        };
        let value_len = usize::try_from(value_len).unwrap_or(usize::MAX);
        let key_len = p.user_key.len();
        let medium = self.placement.class(key_len, value_len) == crate::placement::Class::Medium;
        let merge = medium && self.placement.merges_at(level, last());
        if self.placement.action(true, key_len, value_len, merge) != Action::Inline {
            return Ok(Placed::Same);
        }
        let Some(&(epoch, origin)) = self.job.value_files.get(&h.file) else {
            return Ok(Placed::Same);
        };
        let at_birth = epoch == origin.birth_epoch() && h.epoch == epoch;
        // A transient file's records have no copies (GC neither rewrites nor relocates
        // them). Any other record may: fix-ups if its file was rewritten, lsm-lookup
        // relocations into another file. It is merged only where no deeper level may hold
        // its key, so every copy is in this merge and none is left below the inline entry;
        // and a rewritten file's only by a manual compaction (module docs).
        let mergeable = if origin == ValueFileOrigin::Transient {
            at_birth
        } else {
            // Only a manual compaction: it pauses fix-ups and flushes first, and the
            // value logs it touches are in the manifest before it drops into them.
            self.manual
                .as_ref()
                .is_some_and(|r| r.contains(p.user_key) && last())
        };
        if !mergeable {
            return Ok(Placed::Same);
        }
        let Some(file) = self.env.value_file(h.file, epoch)? else {
            return Ok(Placed::Same);
        };
        let read = if h.epoch == epoch {
            file.read_value(&h, p.user_key, p.seq)
        } else {
            file.find(p.user_key, p.seq).and_then(|found| match found {
                Some(f) => file.read_value(&f, p.user_key, p.seq),
                None => Err(Error::corruption(
                    file.path(),
                    0,
                    format!("a live entry (sequence {}) is missing", p.seq),
                )),
            })
        };
        let bytes = match read {
            Ok(v) => v,
            // Damage stays where reads report it, with its file and offset; compaction
            // neither fails on it nor turns it into a loss.
            Err(Error::Corruption { .. }) => return Ok(Placed::Same),
            Err(e) => return Err(e),
        };
        figures.value_bytes_read += u64::from(h.len);
        if at_birth && self.manual.is_none() {
            drops.require_epoch(h.file, epoch);
        }
        drops.add(h.file, p.seq, h.epoch, h.len, p.user_key);
        if merge {
            figures.medium_bytes_merged += bytes.len() as u64;
        } else {
            figures.replaced_inline_bytes += bytes.len() as u64;
        }
        let ikey = internal_key(p.user_key, p.seq, put_kind(EntryKind::Inline, expires_at));
        if expires_at.is_none() {
            return Ok(Placed::Changed(ikey, bytes));
        }
        let mut inline = Vec::with_capacity(EXPIRY_LEN + bytes.len());
        append_expiring_value(&mut inline, expires_at, &bytes);
        Ok(Placed::Changed(ikey, inline))
    }

    /// Writes an inline value that is now large into the compaction's value file.
    fn separate(
        &mut self,
        p: &ParsedKey<'_>,
        value: &[u8],
        expires_at: Option<u64>,
        figures: &mut PartFigures,
    ) -> Result<Placed> {
        let epoch = ValueFileOrigin::Placed.birth_epoch();
        let (number, _, w) = match self.out.as_mut() {
            Some(o) => o,
            None => {
                let number = self
                    .job
                    .numbers
                    .end
                    .checked_sub(1)
                    .filter(|n| self.job.numbers.contains(n));
                let number = match number {
                    // The last reserved number is the value file's; tables take the others.
                    Some(n) => n,
                    None => self.env.extra_file_number()?,
                };
                let path = value_file_path(self.env.dir(), number, epoch);
                let file = self.env.fs().create_new(&path).ctx("create", &path)?;
                let w = SvTableWriter::new(file, path.clone(), number, epoch).compressing(
                    self.job.settings.value_compression,
                    self.placement.inline_threshold,
                );
                self.out.insert((number, path, w))
            }
        };
        let (offset, len) = w.add(p.user_key, p.seq, value)?;
        let handle = ValueHandle {
            file: *number,
            epoch,
            offset,
            len,
        };
        figures.replaced_separated_bytes += value.len() as u64;
        let ikey = internal_key(p.user_key, p.seq, put_kind(EntryKind::Handle, expires_at));
        let mut encoded = Vec::with_capacity(32);
        append_expiring_value(&mut encoded, expires_at, &handle.encode());
        Ok(Placed::Changed(ikey, encoded))
    }

    /// The path of the value file this compaction writes, if any (removed if the
    /// compaction is not installed).
    pub fn output_path(&self) -> Option<(u64, PathBuf)> {
        self.out.as_ref().map(|(n, p, _)| (*n, p.clone()))
    }

    /// Finishes the compaction's value file, if any (synced; its directory entry is
    /// synced with the tables'), and returns its manifest record.
    pub fn finish(&mut self) -> Result<Option<ValueFileRecord>> {
        let Some((number, _, w)) = self.out.take() else {
            return Ok(None);
        };
        let s = w.finish()?;
        Ok(Some(ValueFileRecord {
            number,
            epoch: ValueFileOrigin::Placed.birth_epoch(),
            total_bytes: s.file_size,
            separated_bytes: s.entry_bytes,
            separated_count: s.entry_count,
        }))
    }
}
