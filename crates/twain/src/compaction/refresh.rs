//! Re-pointing stale handles during compaction.
//!
//! Value GC in drop-records mode rewrites a value file into an SVTable that keeps the file
//! number with a new epoch, and leaves the handles in the tree naming the old epoch. A read
//! of such a handle searches the SVTable by key and sequence (`db::read`); a scan meets
//! them one after another. A compaction already reads every entry of the tables it
//! rewrites, so for each kept handle entry whose epoch is older than its file's epoch in
//! the compaction's version, [`Refresher::refresh`] finds the record in that epoch by key
//! and sequence (a hinted search: the merge walks keys in ascending order, like a forward
//! scan) and the compaction writes the entry with the found handle instead. Only in
//! drop-records mode (in lsm-lookup mode GC relocates records elsewhere, and never keeps a
//! file number). A transient file is never rewritten, so its handles never qualify; an
//! entry placement changed (`compaction::place`) is written as placement says.
//!
//! A record that is not in the epoch (dropped before the rewrite), one the drop index marks
//! dropped in that epoch, a damaged SVTable index, a handle that does not decode: the
//! entry goes out as it came, and the compaction goes on. Only an I/O error fails it, as
//! any read of the compaction does.
//!
//! **Why this is safe.**
//! - *Same record.* The refreshed entry keeps its key, sequence and kind; only where its
//!   bytes are read from changes, to the copy value GC made of the same record. Drops of the
//!   entry later name the new epoch, which `DropIndex::persist` counts like any other (an
//!   older epoch than the file's current is looked up there, as before).
//! - *Never at a dropped record.* A handle that names a file's current epoch is read in
//!   place, and a dropped record's bytes may have been punched out. The drop index is
//!   checked, as `read::fix_handle` does. A live entry's record is dropped only where a
//!   manual compaction merged it inline, and that compaction holds every copy of the record
//!   in its merge and runs with automatic compactions paused: no other compaction can keep
//!   a copy and refresh it meanwhile. A record dropped for a shadowed copy after the check
//!   belongs to an entry no reader sees, as the stale handle did.
//! - *GC again before the install.* If value GC rewrites the file again while the
//!   compaction runs, the output's handles name an epoch older than the file's once more:
//!   reads search the newest epoch, as for any stale handle, and find every live record
//!   there (GC keeps what the drop set does not name, whatever the handles say).
//! - *Fix-up copies.* A read's fix-up inserts the same key and sequence with a handle to
//!   the same record; refreshing the original gives two entries pointing at one record, as
//!   the fix-up did with the stale one. The merge keeps the newer copy and calls the other a
//!   duplicate (no drop), exactly as before: the number of copies does not change.
//! - *Placement.* Refresh runs only on entries placement left as they came. Placement merges
//!   a rewritten file's handle only in a manual compaction (`compaction::place`), where it reads the
//!   stale handle by search itself; refresh never turns a handle inline or back.
//! - *Crash.* The refreshed handles exist only in the compaction's output tables, which only
//!   the version edit installs; the edit names no new value file and no new epoch. Until it
//!   is durable the inputs and their stale handles stay; after, the file is at that epoch or
//!   a later one in every manifest that follows.

use super::job::{PartEnv, PartFigures, PartJob};
use crate::format::handle::ValueHandle;
use crate::key::{EntryKind, ParsedKey};
use crate::vlog::ScanHints;
use crate::{Error, Result};

/// The handle re-pointing of one compaction part.
pub(crate) struct Refresher<'a> {
    job: &'a PartJob,
    env: &'a dyn PartEnv,
    hints: ScanHints,
}

impl<'a> Refresher<'a> {
    /// Re-pointing for the part `job`.
    pub fn new(job: &'a PartJob, env: &'a dyn PartEnv) -> Refresher<'a> {
        Refresher {
            job,
            env,
            hints: ScanHints::default(),
        }
    }

    /// The value to write for the kept entry `ikey -> value`: a handle into its file's
    /// epoch in the job if the entry's handle is stale and its record is there and not
    /// dropped; `None` to write it as it came.
    pub fn refresh(
        &mut self,
        ikey: &[u8],
        value: &[u8],
        figures: &mut PartFigures,
    ) -> Result<Option<Vec<u8>>> {
        if !self.job.settings.refresh {
            return Ok(None);
        }
        let p = ParsedKey::parse(ikey);
        if p.entry_kind() != Some(EntryKind::Handle) {
            return Ok(None);
        }
        let Ok((expires_at, encoded)) = crate::key::split_expiry(p.kind, value) else {
            return Ok(None);
        };
        let Ok(h) = ValueHandle::decode(encoded) else {
            return Ok(None);
        };
        // Hash layout: a segment group GC merged away is read in its group's main segment or
        // one of its cold segments, and so is a record a group GC moved to a cold segment.
        let chain = self
            .job
            .hash_forward
            .as_ref()
            .map_or(&[][..], |f| f.chain_of(p.user_key));
        let own = match self.job.value_files.get(&h.file) {
            Some(&(epoch, _)) if h.epoch < epoch => Some(h.file),
            Some(_) => return Ok(None),
            None => None,
        };
        for &number in own.iter().chain(chain.iter().filter(|&&n| Some(n) != own)) {
            let Some(&(epoch, _)) = self.job.value_files.get(&number) else {
                continue;
            };
            let Some(file) = self.env.value_file(number, epoch)? else {
                continue;
            };
            let hint = self.hints.index_hint(file.number(), file.epoch());
            let found = match file.find_near(p.user_key, p.seq, hint) {
                Ok(Some(found)) => found,
                // Dropped before the rewrite, elsewhere in the group, or damage that reads
                // report where it is.
                Ok(None) | Err(Error::Corruption { .. }) => continue,
                Err(e) => return Err(e),
            };
            if self.env.is_dropped(file.number(), epoch, p.seq)? {
                return Ok(None);
            }
            figures.handle_refreshes += 1;
            // The refreshed entry keeps its expiry time (and its kind byte).
            let mut refreshed = Vec::with_capacity(32);
            crate::key::append_expiring_value(&mut refreshed, expires_at, &found.encode());
            return Ok(Some(refreshed));
        }
        Ok(None)
    }
}
